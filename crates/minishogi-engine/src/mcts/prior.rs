//! Priors for PUCT: a softmax over the alpha-beta search's move classes. The ordering sorts a
//! move by class (good capture or promotion, quiet, bad capture: `search::ordering`'s exchange
//! test) and captures among themselves; a class becomes a logit, raised by the material the
//! move wins at once, so that a rook taken weighs more than a pawn.
//!
//! Why not the ordering's raw scores: they are sort keys, not log-odds.

use super::params::MctsParams;
use super::policy::softmax;
use crate::search::ordering::{captured, is_quiet, tactical_gain, wins_exchange};
use crate::shogi::{MoveList, Position};

/// Logit of a good capture or promotion (SEE ≥ 0), before its gain.
const GOOD_TACTICAL_LOGIT: f32 = 1.0;
/// Logit of a capture that loses material by SEE.
const BAD_CAPTURE_LOGIT: f32 = -1.0;
/// Centipawns of immediate gain per unit of logit, for good tactical moves.
const GAIN_PER_LOGIT: f32 = 500.0;

/// How logits become priors (from `MctsParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PriorShape {
    /// The softmax's temperature: logits are divided by it.
    pub temperature: f32,
    /// Added to the logit of a move that gives check.
    pub check_logit: f32,
    /// The learned policy's temperature (`policy::MovePolicy::priors`).
    pub policy_temperature: f32,
}

impl PriorShape {
    #[cfg(test)]
    pub const DEFAULT: PriorShape = PriorShape {
        temperature: 1.0,
        check_logit: 0.0,
        policy_temperature: 1.0,
    };

    pub fn from_params(params: &MctsParams) -> PriorShape {
        PriorShape {
            temperature: params.mcts_prior_temp_centi as f32 / 100.0,
            check_logit: params.mcts_check_logit_centi as f32 / 100.0,
            policy_temperature: params.mcts_policy_temp_centi as f32 / 100.0,
        }
    }
}

/// The priors of `moves` (the legal moves of `pos`), summing to 1, in the same order.
pub fn priors(pos: &Position, moves: &MoveList, shape: &PriorShape, out: &mut Vec<f32>) {
    out.clear();
    out.extend(moves.iter().map(|&mv| {
        let check = if shape.check_logit != 0.0 && pos.gives_check(mv) {
            shape.check_logit
        } else {
            0.0
        };
        let logit = if is_quiet(pos, mv) {
            0.0
        } else if wins_exchange(pos, mv) {
            GOOD_TACTICAL_LOGIT + tactical_gain(pos, mv) as f32 / GAIN_PER_LOGIT
        } else if captured(pos, mv).is_some() {
            BAD_CAPTURE_LOGIT
        } else {
            // A promotion that loses its piece: no better than a quiet move.
            0.0
        };
        (logit + check) / shape.temperature
    }));
    softmax(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priors_sum_to_one_and_favour_captures_that_win_material() {
        let mut out = Vec::new();
        let mut raised = 0;
        for pos in crate::testing::random_positions(200, 7, 40) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                continue;
            }
            priors(&pos, &moves, &PriorShape::DEFAULT, &mut out);
            assert_eq!(out.len(), moves.len());
            assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            let quiet = moves
                .iter()
                .zip(&out)
                .filter(|&(&mv, _)| crate::search::ordering::is_quiet(&pos, mv))
                .map(|(_, &p)| p)
                .fold(0.0, f32::max);
            for (&mv, &p) in moves.iter().zip(&out) {
                let winning = crate::search::ordering::captured(&pos, mv).is_some()
                    && crate::search::ordering::see_ge(&pos, mv, 1);
                if winning {
                    assert!(p > quiet, "{mv} in {}", pos.to_sfen());
                    raised += 1;
                }
            }
        }
        assert!(raised > 10, "captures found: {raised}");
    }
}
