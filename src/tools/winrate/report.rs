//! What `engine winrate` found: the report (written as JSON), the curves it compares, and
//! the report as text.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use super::fit::Bin;
use crate::eval::{CP_PER_LOGIT, RESULT_CP_SCALE};

/// Stretches of plies (from the opening position, random plies included) fitted apart: a
/// single k may not hold from the opening to the end.
pub const PHASES: &[(u16, u16)] = &[
    (0, 20),
    (20, 30),
    (30, 40),
    (40, 50),
    (50, 70),
    (70, 100),
    (100, u16::MAX),
];

/// How a stretch of plies is named in the report.
pub fn phase_name(&(lo, hi): &(u16, u16)) -> String {
    if hi == u16::MAX {
        format!("plies {lo}+")
    } else {
        format!("plies {lo}-{}", hi - 1)
    }
}

/// A curve in use somewhere, as its scale k (cp per logit): `P = 1/(1 + e^(−cp/k))`.
pub struct KnownCurve {
    pub name: &'static str,
    pub formula: &'static str,
    pub k: f64,
}

/// The curves the fit is compared with: the engine's two (the search's unit, and the result
/// curve this command chose, docs/winrate.md), and the GUIs'. lishogi's winning chances 2/(1+e^(−0.0007·cp))−1
/// on [−1, 1] and lichess's win% are the same logistic mapped to other ranges.
pub fn known_curves() -> [KnownCurve; 5] {
    [
        KnownCurve {
            name: "engine-search",
            formula: "eval::probability_from_cp: 1/(1+e^(-cp/CP_PER_LOGIT))",
            k: f64::from(CP_PER_LOGIT),
        },
        KnownCurve {
            name: "engine-result",
            formula: "eval::win_probability_of_cp: 1/(1+e^(-cp/RESULT_CP_SCALE))",
            k: f64::from(RESULT_CP_SCALE),
        },
        KnownCurve {
            name: "ShogiHome",
            formula: "100/(1+e^(-cp/600)) %",
            k: 600.0,
        },
        KnownCurve {
            name: "lishogi",
            formula: "2/(1+e^(-0.0007*cp))-1 on [-1,1]",
            k: 1.0 / 0.0007,
        },
        KnownCurve {
            name: "lichess",
            formula: "50+50*(2/(1+e^(-0.00368*cp))-1) %",
            k: 1.0 / 0.00368,
        },
    ]
}

/// Positions whose score is a decided result, not an evaluation: left out of the fit.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Decided {
    pub positions: usize,
    /// Mean result of the side the score favours (1 = the verdicts all came true).
    pub favoured_result: f64,
}

impl Decided {
    pub(super) fn add(&mut self, score: i32, result: f32) {
        let favoured = if score > 0 { result } else { 1.0 - result };
        self.favoured_result += f64::from(favoured);
        self.positions += 1;
    }

    pub(super) fn finish(&mut self) {
        self.favoured_result /= self.positions.max(1) as f64;
    }
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Games {
    pub sente_wins: usize,
    pub gote_wins: usize,
    pub draws: usize,
    /// How they ended: by the rules, by a mate the search announced, adjudicated on the
    /// score, at the ply limit.
    pub by_rules: usize,
    pub by_search_mate: usize,
    pub by_score: usize,
    pub by_max_plies: usize,
}

/// A curve's loss on the fitted positions.
#[derive(Clone, Debug, Serialize)]
pub struct CurveLoss {
    pub name: String,
    pub formula: String,
    /// Its scale; `None` for the coin (P = ½ whatever the score).
    pub k: Option<f64>,
    pub log_loss: f64,
    pub brier: f64,
}

/// The fit on a set of positions.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    pub name: String,
    pub games: usize,
    pub positions: usize,
    /// The fitted scale; `None` when it has none (no positions, or scores that predict nothing).
    pub k: Option<f64>,
    /// 95% bootstrap interval over games.
    pub k_interval: Option<[f64; 2]>,
    pub log_loss: Option<f64>,
    pub brier: Option<f64>,
    /// The same for the search's scale (`eval::CP_PER_LOGIT`) and for the engine's result
    /// curve (`eval::RESULT_CP_SCALE`).
    pub search_scale_log_loss: f64,
    pub search_scale_brier: f64,
    pub result_curve_log_loss: f64,
    pub result_curve_brier: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub data: Vec<PathBuf>,
    pub files: usize,
    pub games: Games,
    /// Searched positions in the shards.
    pub positions_read: usize,
    /// Mate scores and repetition verdicts (|score| > `eval::EVAL_LIMIT`), left out.
    pub mate_scores: Decided,
    pub repetition_verdicts: Decided,
    /// Evaluations beyond `--max-cp`, left out.
    pub max_cp: i32,
    pub beyond_max_cp: usize,
    pub bootstrap_resamples: usize,
    pub seed: u64,
    /// Over all the positions with an evaluation.
    pub fit: Fit,
    /// The fit and the known curves, on the same positions.
    pub curves: Vec<CurveLoss>,
    pub generations: Vec<Fit>,
    pub phases: Vec<Fit>,
    pub bins: Vec<Bin>,
}

fn interval_text(fit: &Fit) -> String {
    fit.k_interval
        .map_or("-".to_string(), |[lo, hi]| format!("{lo:.1}-{hi:.1}"))
}

/// The report as text: the fit, the curves' losses, the fits per generation and per phase.
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    let all = &report.fit;
    let games = report.games.sente_wins + report.games.gote_wins + report.games.draws;
    let _ = writeln!(
        out,
        "{} files, {games} games ({} sente wins, {} gote wins, {} draws), {} positions",
        report.files,
        report.games.sente_wins,
        report.games.gote_wins,
        report.games.draws,
        report.positions_read
    );
    let _ = writeln!(
        out,
        "games ended: {} by the rules, {} by a mate the search announced, {} adjudicated on the \
         score, {} at the ply limit",
        report.games.by_rules,
        report.games.by_search_mate,
        report.games.by_score,
        report.games.by_max_plies
    );
    if report.beyond_max_cp > 0 {
        let _ = writeln!(
            out,
            "left out: {} positions with |score| > {} cp",
            report.beyond_max_cp, report.max_cp
        );
    }
    let _ = writeln!(
        out,
        "left out: {} mate scores (the mating side scored {:.4}), {} repetition verdicts \
         (favoured side scored {:.4})",
        report.mate_scores.positions,
        report.mate_scores.favoured_result,
        report.repetition_verdicts.positions,
        report.repetition_verdicts.favoured_result
    );
    let _ = writeln!(
        out,
        "fitted: {} positions, k = {:.1} cp (95% interval {}, {} resamples of the games)\n",
        all.positions,
        all.k.unwrap_or(f64::NAN),
        interval_text(all),
        report.bootstrap_resamples
    );
    let _ = writeln!(
        out,
        "{:<14} {:>8} {:>9} {:>8}",
        "curve", "k", "log-loss", "Brier"
    );
    for c in &report.curves {
        let k = c.k.map_or("inf".to_string(), |k| format!("{k:.1}"));
        let _ = writeln!(
            out,
            "{:<14} {k:>8} {:>9.5} {:>8.5}",
            c.name, c.log_loss, c.brier
        );
    }
    for (title, fits) in [
        ("generation", &report.generations),
        ("phase", &report.phases),
    ] {
        if fits.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n{title:<12} {:>9} {:>7} {:>8} {:>15} {:>9} {:>9} {:>9}",
            "positions",
            "games",
            "k",
            "95% interval",
            "loss fit",
            format!("loss {CP_PER_LOGIT}"),
            format!("loss {RESULT_CP_SCALE}")
        );
        for f in fits {
            let _ = writeln!(
                out,
                "{:<12} {:>9} {:>7} {:>8} {:>15} {:>9} {:>9.5} {:>9.5}",
                f.name,
                f.positions,
                f.games,
                f.k.map_or("-".to_string(), |k| format!("{k:.1}")),
                interval_text(f),
                f.log_loss.map_or("-".to_string(), |l| format!("{l:.5}")),
                f.search_scale_log_loss,
                f.result_curve_log_loss
            );
        }
    }
    out
}
