//! A ladder point's limit and its result as kept in `points/NAME.json`: what the harness
//! (`mod.rs`) writes and the report (`report.rs`) reads, below both, so that neither names the
//! other back.

use serde::{Deserialize, Serialize};

use crate::matches::stats::{EloEstimate, Pentanomial};
use crate::usi_client::EngineSpec;

/// What limits both engines at a ladder point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    MoveTime {
        ms: u64,
    },
    Depth {
        depth: u32,
    },
    /// Nodes a move of engine 1 and of engine 2.
    Nodes {
        engine1: u64,
        engine2: u64,
    },
    /// Time odds: a time a move for each engine.
    TimeOdds {
        engine1_ms: u64,
        engine2_ms: u64,
    },
}

impl Limit {
    /// File and folder name of the point.
    pub fn slug(&self) -> String {
        match self {
            Limit::MoveTime { ms } => format!("movetime-{ms}ms"),
            Limit::Depth { depth } => format!("depth-{depth}"),
            Limit::Nodes { engine1, engine2 } if engine1 == engine2 => format!("nodes-{engine1}"),
            Limit::Nodes { engine1, engine2 } => format!("nodes-{engine1}-vs-{engine2}"),
            Limit::TimeOdds {
                engine1_ms,
                engine2_ms,
            } => format!("movetime-{engine1_ms}ms-vs-{engine2_ms}ms"),
        }
    }

    pub fn label(&self) -> String {
        match self {
            Limit::MoveTime { ms } => format!("{ms} ms/move"),
            Limit::Depth { depth } => format!("depth {depth}"),
            Limit::Nodes { engine1, engine2 } if engine1 == engine2 => format!("{engine1} nodes"),
            Limit::Nodes { engine1, engine2 } => format!("{engine1} vs {engine2} nodes"),
            Limit::TimeOdds {
                engine1_ms,
                engine2_ms,
            } => format!("{engine1_ms} vs {engine2_ms} ms/move"),
        }
    }
}

/// The result of one finished point, as kept in `points/NAME.json`. The settings it was played
/// with are kept beside it, so that a re-run with other settings is refused rather than mixed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    pub limit: Limit,
    /// The engines as the match ran them (fixed-depth points add `depth` to every `go`).
    pub engines: [EngineSpec; 2],
    /// As the match's report states it (with each engine's own control and limits).
    pub time_control: String,
    /// The match's own control, which an engine without one of its own plays (each engine's
    /// own control and limits are in `engines`). Empty in results kept before it was.
    #[serde(default)]
    pub match_time_control: String,
    /// Games asked for and the openings' fingerprint (FNV-1a of their position commands).
    pub games_asked: usize,
    pub openings_fingerprint: String,
    pub games: usize,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Pair counts by engine 1's half points (0..=4).
    pub pentanomial: [u64; 5],
    /// Mean thinking time a move of engine 1 and engine 2, in ms.
    pub mean_ms: [Option<f64>; 2],
    /// Slowest move of engine 1 and engine 2, in ms.
    pub max_ms: [f64; 2],
}

impl PointResult {
    pub fn elo(&self) -> Option<EloEstimate> {
        Pentanomial(self.pentanomial).elo()
    }

    /// Engine 1's points per game, 0..=1.
    pub fn score(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games as f64
    }

    /// Where the point sits on the plot's time axis: the time a move for a time limit, engine
    /// 1's mean time a move for a depth or node limit, engine 2's time a move (what varies
    /// along an odds ladder) for time odds.
    pub fn time_ms(&self) -> Option<f64> {
        match self.limit {
            Limit::MoveTime { ms } => Some(ms as f64),
            Limit::TimeOdds { engine2_ms, .. } => Some(engine2_ms as f64),
            Limit::Depth { .. } | Limit::Nodes { .. } => self.mean_ms[0],
        }
    }
}
