//! Position evaluation: the [`Evaluator`] trait the search calls, the one probability ↔
//! centipawn scale, the evaluation clamp, the material evaluator and the classical one
//! (material, hands and a value map: [`classical`]). The network
//! (`crate::nn::NetworkEvaluator`) implements the trait; the search sees nothing else.
//!
//! Evaluators are shared by all search threads (`&self`). One that keeps state along the
//! search path — an incrementally updated first layer, say — returns a per-thread
//! [`PathState`] from [`Evaluator::path_state`]; the search then tells it of every move made
//! and unmade and asks it, not the evaluator, for the scores. The default is no state, and
//! the search then makes no such calls.

pub mod classical;
mod material;

pub use classical::{ClassicalEvaluator, ClassicalParams};
pub use material::{HAND_BONUS_PERCENT, MaterialEvaluator, material_balance};

use crate::shogi::{Move, Position};

/// Centipawns per unit of logit: `cp = 600 · ln(p / (1 − p))`.
pub const CP_PER_LOGIT: f32 = 600.0;

/// Evaluations are clamped to ±EVAL_LIMIT centipawns, so that they never reach the scores of
/// decided games (repetition verdicts and mates, see `search::score`).
pub const EVAL_LIMIT: i32 = 9_000;

/// Centipawn score of a logit `ln(p / (1 − p))`, clamped to ±[`EVAL_LIMIT`]; NaN is 0.
#[inline]
pub fn cp_from_logit(z: f32) -> i32 {
    if z.is_nan() {
        return 0;
    }
    ((CP_PER_LOGIT * z).round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// Centipawn score of a win probability, clamped to ±[`EVAL_LIMIT`]; NaN is 0.
#[inline]
pub fn cp_from_probability(p: f32) -> i32 {
    if p.is_nan() {
        return 0;
    }
    let p = p.clamp(1e-7, 1.0 - 1e-7);
    cp_from_logit((p / (1.0 - p)).ln())
}

/// Win probability of a centipawn score (the inverse of [`cp_from_probability`]).
#[inline]
pub fn probability_from_cp(cp: f32) -> f32 {
    1.0 / (1.0 + (-cp / CP_PER_LOGIT).exp())
}

/// Centipawns per logit of the curve that turns a search score into the expected result of
/// the side to move (win 1, draw ½): the scale `engine winrate` fitted on the shipped
/// network's own games, 500 (docs/winrate.md). Its scores mean more than [`CP_PER_LOGIT`]'s
/// 600 says: 500 cp win 73%, not 70%. The search, the network and its training keep 600 (their
/// shared unit, which changing would change every score); what shows a score as a winning
/// chance — the board's bar and graph, the `eval` lines — reads it through this curve alone.
pub const RESULT_CP_SCALE: f32 = 500.0;

/// The expected result of the side to move for a search score of `cp`, by the fitted curve
/// `1/(1 + e^(−cp/RESULT_CP_SCALE))`.
#[inline]
pub fn win_probability_of_cp(cp: f32) -> f32 {
    1.0 / (1.0 + (-cp / RESULT_CP_SCALE).exp())
}

/// Position evaluation for the search.
pub trait Evaluator: Send + Sync {
    /// Win probability of the side to move, in (0, 1).
    fn win_probability(&self, pos: &Position) -> f32;

    /// The same as a centipawn score for the search ([`cp_from_probability`] of it). An
    /// evaluator that computes a logit can override this to skip the round trip.
    fn evaluate_cp(&self, pos: &Position) -> i32 {
        cp_from_probability(self.win_probability(pos))
    }

    /// Per-thread state for a search from `root`, for an evaluator that keeps state along the
    /// search path. `None` (the default): the search calls [`Evaluator::evaluate_cp`] and no
    /// hooks at all.
    fn path_state(&self, root: &Position) -> Option<Box<dyn PathState + '_>> {
        let _ = root;
        None
    }
}

/// An evaluator's state along one search thread's path, from the root it was created for.
/// Each hook is called right after the search changed its position; `pos` is the position
/// now. Moves are unmade in the reverse order they were made.
pub trait PathState {
    /// `mv` was played; `pos` is the position after it.
    fn on_make(&mut self, pos: &Position, mv: Move) {
        let _ = (pos, mv);
    }

    /// `mv` was taken back; `pos` is the position before it again.
    fn on_unmake(&mut self, pos: &Position, mv: Move) {
        let _ = (pos, mv);
    }

    /// A null move was made (`null = true`) or taken back (`false`): only the side to move
    /// changed.
    fn on_null_move(&mut self, pos: &Position, null: bool) {
        let _ = (pos, null);
    }

    /// Centipawn score of the side to move at `pos`, the current position of the path.
    fn evaluate_cp(&mut self, pos: &Position) -> i32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_is_logistic_and_clamped() {
        assert_eq!(cp_from_probability(0.5), 0);
        let p = 1.0 / (1.0 + (-1.0f32).exp());
        assert_eq!(cp_from_probability(p), 600);
        assert_eq!(cp_from_probability(1.0 - p), -600);
        // 600 · ln(0.75 / 0.25) = 600 · ln 3 = 659.2
        assert_eq!(cp_from_probability(0.75), 659);
        assert_eq!(cp_from_probability(0.25), -659);
        assert_eq!(cp_from_probability(1.0), EVAL_LIMIT);
        assert_eq!(cp_from_probability(0.0), -EVAL_LIMIT);
        assert_eq!(cp_from_probability(f32::NAN), 0);
        assert_eq!(cp_from_logit(1.0), 600);
        assert_eq!(cp_from_logit(1e9), EVAL_LIMIT);
        assert_eq!(cp_from_logit(-1e9), -EVAL_LIMIT);
        assert_eq!(cp_from_logit(f32::NAN), 0);
        assert!((probability_from_cp(659.0) - 0.75).abs() < 1e-3);
    }

    #[test]
    fn the_result_curve_is_the_fitted_logistic() {
        assert_eq!(win_probability_of_cp(0.0), 0.5);
        // One unit of its logit at 500 cp: σ(1) = 0.7311, where the search's scale says 0.6971.
        assert!((win_probability_of_cp(500.0) - 0.731_058_6).abs() < 1e-6);
        assert!((probability_from_cp(500.0) - 0.697_059).abs() < 1e-6);
        for cp in [-3000.0, -700.0, -1.0, 1.0, 250.0, 9000.0] {
            let (p, q) = (win_probability_of_cp(cp), win_probability_of_cp(-cp));
            assert!((p + q - 1.0).abs() < 1e-6, "{cp}: {p} + {q}");
            // Steeper than the search's scale: further from ½ at every score.
            assert!(
                (p - 0.5).abs() > (probability_from_cp(cp) - 0.5).abs(),
                "{cp}"
            );
        }
        assert!(win_probability_of_cp(9000.0) > 0.9999);
    }
}
