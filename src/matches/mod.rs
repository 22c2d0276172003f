//! Matches between two USI engines, refereed by our rules: game pairs over a set of openings
//! (each opening once with each engine as sente), run `concurrency` games at a time, with
//! pentanomial Elo, an optional SPRT that stops the match once decided, game records (USI move
//! lists and KIF), a JSON summary and a chart of the Elo estimate as games come in.
//!
//! Here the configuration and the errors; `run.rs` plays the match, `summary.rs` keeps its
//! figures, `games_line.rs` reads back the lines of games.txt.

pub mod chart;
pub mod cli;
mod games_line;
pub mod openings;
pub mod random_mover;
pub mod referee;
mod run;
pub mod stats;
mod summary;
#[cfg(test)]
mod tests;

pub use games_line::{GamesLine, parse_games_line, read_games_line};
pub use run::{ELO_CHART_FILE, number_equal_names, run_match, run_match_with};
pub use summary::{ClocksLeft, ColourResults, GameSummary, MatchSummary, MoveTimes, SprtReport};

use std::path::PathBuf;

use crate::fileio::FileError;
use crate::usi_client::EngineSpec;
use openings::Opening;
use referee::RefereeSettings;
use stats::Sprt;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Engine 1 (the one measured) and engine 2 (the reference).
    pub engines: [EngineSpec; 2],
    pub openings: Vec<Opening>,
    /// Game pairs to play; pair `p` uses opening `p % openings.len()`.
    pub pairs: usize,
    pub concurrency: usize,
    pub referee: RefereeSettings,
    pub sprt: Option<Sprt>,
    /// Where game records and the summary go.
    pub out_dir: Option<PathBuf>,
    /// Print a progress line on stderr as games finish.
    pub progress: bool,
    /// For each engine, whether to name it by its USI `id name` (no `--engine-name` given).
    pub id_names: [bool; 2],
}

impl MatchConfig {
    /// The time control as reports and records state it: the match's, or with time odds each
    /// engine's by `names`; then any engine's own search limits (`--engine-limit`), which
    /// decide a game's moves before the clock does.
    pub fn time_controls_text(&self, names: &[String; 2]) -> String {
        let own = self.engines.each_ref().map(|e| e.time_control);
        let mut text = if own == [None, None] {
            self.referee.time_control.to_string()
        } else {
            let tc = |i: usize| own[i].unwrap_or(self.referee.time_control);
            format!("{} {}, {} {}", names[0], tc(0), names[1], tc(1))
        };
        let limits: Vec<String> = (0..2)
            .filter(|&i| !self.engines[i].go_limits.is_empty())
            .map(|i| {
                let each: Vec<String> = self.engines[i]
                    .go_limits
                    .iter()
                    .map(|(name, value)| format!("{name} {value}"))
                    .collect();
                format!("{} {}", names[i], each.join(" "))
            })
            .collect();
        if !limits.is_empty() {
            text.push_str(&format!("; limits: {}", limits.join(", ")));
        }
        text
    }
}

/// Why a match could not be played.
#[derive(Debug)]
pub enum MatchError {
    /// An engine does not start or does not answer the handshake.
    Engine {
        name: String,
        detail: String,
    },
    /// Records or summary could not be written.
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A record or the summary could not be written atomically (names the file and why).
    File(FileError),
    Config(String),
    /// The Elo chart could not be drawn.
    Chart(String),
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::Engine { name, detail } => write!(f, "engine '{name}': {detail}"),
            MatchError::Output { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            MatchError::File(e) => write!(f, "cannot write {e}"),
            MatchError::Config(why) => write!(f, "{why}"),
            MatchError::Chart(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for MatchError {}
