//! Priors for PUCT: a softmax over the alpha-beta search's move ordering. The ordering scores
//! a move by class (good capture or promotion, quiet, bad capture; its history tables are
//! empty here, so quiet moves tie) and captures among themselves; a class becomes a logit,
//! raised by the material the move wins at once, so that a rook taken weighs more than a pawn.
//!
//! Why not the raw scores: they are sort keys (classes ±2^27 apart), not log-odds.

use crate::search::heuristics::{CONTINUATION_PLIES, Heuristics};
use crate::search::ordering::{KILLER_FLOOR, score_moves, tactical_gain};
use crate::search::params::SearchParams;
use crate::shogi::{MAX_MOVES, Move, MoveList, Position};

/// Logit of a good capture or promotion (SEE ≥ 0), before its gain.
const GOOD_TACTICAL_LOGIT: f32 = 1.0;
/// Logit of a capture that loses material by SEE.
const BAD_CAPTURE_LOGIT: f32 = -1.0;
/// Centipawns of immediate gain per unit of logit, for good tactical moves.
const GAIN_PER_LOGIT: f32 = 500.0;

/// The priors of `moves` (the legal moves of `pos`), summing to 1, in the same order.
pub fn priors(
    pos: &Position,
    moves: &MoveList,
    heuristics: &Heuristics,
    params: &SearchParams,
    out: &mut Vec<f32>,
) {
    let mut scores = [0i32; MAX_MOVES];
    score_moves(
        pos,
        moves,
        &mut scores,
        Move::NULL,
        [Move::NULL; 2],
        Move::NULL,
        [None; CONTINUATION_PLIES],
        heuristics,
        params,
        false,
    );
    out.clear();
    out.extend(moves.iter().zip(&scores).map(|(&mv, &score)| {
        if score > KILLER_FLOOR {
            GOOD_TACTICAL_LOGIT + tactical_gain(pos, mv) as f32 / GAIN_PER_LOGIT
        } else if score < -KILLER_FLOOR / 2 {
            BAD_CAPTURE_LOGIT
        } else {
            0.0
        }
    }));
    softmax(out);
}

/// Turns logits into probabilities in place.
fn softmax(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in values.iter_mut() {
        *v /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priors_sum_to_one_and_favour_captures_that_win_material() {
        let heuristics = Heuristics::new();
        let mut out = Vec::new();
        let mut raised = 0;
        for pos in crate::shogi::random::random_positions(200, 7, 40) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                continue;
            }
            priors(&pos, &moves, &heuristics, &SearchParams::DEFAULT, &mut out);
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
