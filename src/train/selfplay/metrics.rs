//! Figures of each iteration: totals, the metrics CSV and the summary line on standard error.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::harness::MatchScore;
use crate::shogi::{Color, GameStatus};

/// Totals of a batch of games.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GameTally {
    pub games: usize,
    pub sente_wins: usize,
    pub gote_wins: usize,
    pub draws: usize,
    pub plies: usize,
}

impl GameTally {
    pub(super) fn add(&mut self, status: GameStatus, plies: usize) {
        self.games += 1;
        self.plies += plies;
        match status {
            GameStatus::Win {
                winner: Color::Sente,
                ..
            } => self.sente_wins += 1,
            GameStatus::Win { .. } => self.gote_wins += 1,
            _ => self.draws += 1,
        }
    }

    pub fn mean_plies(&self) -> f64 {
        self.plies as f64 / self.games.max(1) as f64
    }
}

/// Figures of one iteration. Iteration 0 is the starting network, measured before training.
#[derive(Clone, Debug, Default)]
pub struct IterationStats {
    pub iteration: usize,
    pub tally: GameTally,
    pub positions: usize,
    pub mate_positions: usize,
    pub train_loss: f64,
    pub generation_seconds: f64,
    pub train_seconds: f64,
    /// Match against the reference network (the starting one unless `--eval-opponent`).
    pub eval: Option<MatchScore>,
    /// Match against the material-greedy baseline.
    pub material: Option<MatchScore>,
    pub seconds: f64,
}

impl IterationStats {
    pub fn generation_positions_per_second(&self) -> f64 {
        self.positions as f64 / self.generation_seconds.max(1e-9)
    }
}

#[derive(Clone, Debug)]
pub struct SelfplayReport {
    pub iterations: Vec<IterationStats>,
}

pub(super) const CSV_HEADER: &str = "iteration,games,positions,mate_positions,mean_plies,sente_wins,gote_wins,draws,\
train_loss,eval_games,eval_wins,eval_losses,eval_draws,eval_score,material_games,material_wins,\
material_losses,material_draws,material_score,generation_seconds,generation_positions_per_second,\
train_seconds,seconds\n";

fn match_columns(m: &Option<MatchScore>) -> String {
    match m {
        Some(m) => format!(
            "{},{},{},{},{:.4}",
            m.games,
            m.wins,
            m.losses,
            m.draws,
            m.score()
        ),
        None => ",,,,".to_string(),
    }
}

pub(super) fn csv_line(s: &IterationStats) -> String {
    let t = &s.tally;
    format!(
        "{},{},{},{},{:.2},{},{},{},{:.6},{},{},{:.2},{:.0},{:.2},{:.2}\n",
        s.iteration,
        t.games,
        s.positions,
        s.mate_positions,
        t.mean_plies(),
        t.sente_wins,
        t.gote_wins,
        t.draws,
        s.train_loss,
        match_columns(&s.eval),
        match_columns(&s.material),
        s.generation_seconds,
        s.generation_positions_per_second(),
        s.train_seconds,
        s.seconds
    )
}

pub(super) fn summary_line(s: &IterationStats, iterations: usize) -> String {
    let t = &s.tally;
    let mut line = if s.iteration == 0 {
        "selfplay 0: starting network".to_string()
    } else {
        format!(
            "selfplay {}/{iterations}: {} games, {} positions ({:.0}/s), mean {:.1} plies, \
             sente/gote/draw {}/{}/{}, loss {:.4}",
            s.iteration,
            t.games,
            s.positions,
            s.generation_positions_per_second(),
            t.mean_plies(),
            t.sente_wins,
            t.gote_wins,
            t.draws,
            s.train_loss
        )
    };
    for (name, m) in [("reference", &s.eval), ("material", &s.material)] {
        if let Some(m) = m {
            let _ = write!(
                line,
                ", vs {name} {:.1}% (+{} -{} ={})",
                100.0 * m.score(),
                m.wins,
                m.losses,
                m.draws
            );
        }
    }
    line
}

/// Path of the snapshot of `iteration` beside `out`: `weights/selfplay-0010.bin`.
pub fn snapshot_path(out: &Path, iteration: usize) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "selfplay".to_string());
    out.with_file_name(format!("{stem}-{iteration:04}.bin"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_are_named_after_the_output() {
        assert_eq!(
            snapshot_path(Path::new("w/selfplay.bin"), 7),
            Path::new("w/selfplay-0007.bin")
        );
    }
}
