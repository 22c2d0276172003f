//! Figures of each iteration: totals, the metrics CSV and the summary line on standard error.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::harness::MatchScore;
use crate::plot::table::{Fixed, to_csv};
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

/// A row of the metrics CSV: its fields are the columns (the matches' empty when not played).
#[derive(Serialize)]
struct CsvRow {
    iteration: usize,
    games: usize,
    positions: usize,
    mate_positions: usize,
    mean_plies: Fixed,
    sente_wins: usize,
    gote_wins: usize,
    draws: usize,
    train_loss: Fixed,
    eval_games: Option<usize>,
    eval_wins: Option<usize>,
    eval_losses: Option<usize>,
    eval_draws: Option<usize>,
    eval_score: Option<Fixed>,
    material_games: Option<usize>,
    material_wins: Option<usize>,
    material_losses: Option<usize>,
    material_draws: Option<usize>,
    material_score: Option<Fixed>,
    generation_seconds: Fixed,
    generation_positions_per_second: Fixed,
    train_seconds: Fixed,
    seconds: Fixed,
}

impl CsvRow {
    fn new(s: &IterationStats) -> CsvRow {
        let t = &s.tally;
        let field = |m: &Option<MatchScore>, f: fn(&MatchScore) -> usize| m.as_ref().map(f);
        let score = |m: &Option<MatchScore>| m.as_ref().map(|m| Fixed(m.score(), 4));
        CsvRow {
            iteration: s.iteration,
            games: t.games,
            positions: s.positions,
            mate_positions: s.mate_positions,
            mean_plies: Fixed(t.mean_plies(), 2),
            sente_wins: t.sente_wins,
            gote_wins: t.gote_wins,
            draws: t.draws,
            train_loss: Fixed(s.train_loss, 6),
            eval_games: field(&s.eval, |m| m.games),
            eval_wins: field(&s.eval, |m| m.wins),
            eval_losses: field(&s.eval, |m| m.losses),
            eval_draws: field(&s.eval, |m| m.draws),
            eval_score: score(&s.eval),
            material_games: field(&s.material, |m| m.games),
            material_wins: field(&s.material, |m| m.wins),
            material_losses: field(&s.material, |m| m.losses),
            material_draws: field(&s.material, |m| m.draws),
            material_score: score(&s.material),
            generation_seconds: Fixed(s.generation_seconds, 2),
            generation_positions_per_second: Fixed(s.generation_positions_per_second(), 0),
            train_seconds: Fixed(s.train_seconds, 2),
            seconds: Fixed(s.seconds, 2),
        }
    }
}

/// The header line and the row of `s` (the first row of a run's CSV).
pub(super) fn csv_start(s: &IterationStats) -> String {
    to_csv(&[CsvRow::new(s)], true)
}

/// The row of `s`, to append.
pub(super) fn csv_line(s: &IterationStats) -> String {
    to_csv(&[CsvRow::new(s)], false)
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
    fn csv_rows_are_pinned() {
        let s = IterationStats {
            iteration: 3,
            tally: GameTally {
                games: 4,
                sente_wins: 2,
                gote_wins: 1,
                draws: 1,
                plies: 100,
            },
            positions: 90,
            mate_positions: 5,
            train_loss: 0.25,
            generation_seconds: 3.0,
            train_seconds: 1.5,
            eval: Some(MatchScore {
                games: 4,
                wins: 2,
                losses: 1,
                draws: 1,
            }),
            material: None,
            seconds: 4.5,
        };
        let row = "3,4,90,5,25.00,2,1,1,0.250000,4,2,1,1,0.6250,,,,,,3.00,30,1.50,4.50\n";
        assert_eq!(csv_line(&s), row);
        assert_eq!(
            csv_start(&s),
            "iteration,games,positions,mate_positions,mean_plies,sente_wins,gote_wins,draws,\
             train_loss,eval_games,eval_wins,eval_losses,eval_draws,eval_score,material_games,\
             material_wins,material_losses,material_draws,material_score,generation_seconds,\
             generation_positions_per_second,train_seconds,seconds\n"
                .to_string()
                + row
        );
    }

    #[test]
    fn snapshots_are_named_after_the_output() {
        assert_eq!(
            snapshot_path(Path::new("w/selfplay.bin"), 7),
            Path::new("w/selfplay-0007.bin")
        );
    }
}
