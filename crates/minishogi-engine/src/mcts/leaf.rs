//! A PUCT leaf's value: the evaluator's, after a short quiescence search when asked
//! (`mcts_leaf_qs_plies`). In minishogi nearly every position has a piece hanging, so the
//! static evaluation of a leaf in the middle of an exchange says little; resolving the
//! captures first gives the tree a value of a quiet position.
//!
//! The alpha-beta search's quiescence lives in its worker (table, history, corrected
//! evaluation); this one is small and stateless so that each search thread runs it on its
//! own copy of the leaf: captures and promotions that do not lose material (SEE ≥ 0), best
//! gain first, every evasion in check, stand pat otherwise, a ply limit.

use crate::eval::{EVAL_LIMIT, Evaluator, probability_from_cp};
use crate::search::ordering::{see_ge, tactical_gain};
use crate::shogi::{GenKind, MoveList, Position};

/// The win probability of the side to move at `pos` (left as it was found): the static
/// evaluation when `plies` is 0, else that of a quiescence search at most `plies` deep.
pub fn leaf_value(pos: &mut Position, evaluator: &dyn Evaluator, plies: u32) -> f64 {
    if plies == 0 {
        return f64::from(evaluator.win_probability(pos));
    }
    let cp = quiescence(pos, evaluator, -MATED_CP, MATED_CP, plies);
    f64::from(probability_from_cp(cp as f32))
}

/// The score of a side mated inside the quiescence search, negated: past every evaluation.
const MATED_CP: i32 = EVAL_LIMIT + 1;

/// Fail-soft alpha-beta over tactical moves; centipawns for the side to move.
fn quiescence(
    pos: &mut Position,
    evaluator: &dyn Evaluator,
    mut alpha: i32,
    beta: i32,
    plies: u32,
) -> i32 {
    let in_check = pos.in_check();
    let mut moves = MoveList::new();
    let mut best = if in_check {
        // Every evasion: none is mate (a pawn drop that mates is not generated: illegal).
        pos.generate(GenKind::Tactical, &mut moves);
        if moves.is_empty() {
            return -MATED_CP;
        }
        if plies == 0 {
            return static_cp(pos, evaluator);
        }
        -MATED_CP
    } else {
        let stand_pat = static_cp(pos, evaluator);
        if stand_pat >= beta || plies == 0 {
            return stand_pat;
        }
        pos.generate(GenKind::Tactical, &mut moves);
        stand_pat
    };
    alpha = alpha.max(best);
    // The biggest gains first, for early cut-offs.
    let mut ordered: Vec<(i32, _)> = moves
        .iter()
        .filter(|&&mv| in_check || see_ge(pos, mv, 0))
        .map(|&mv| (tactical_gain(pos, mv), mv))
        .collect();
    ordered.sort_by_key(|&(gain, _)| std::cmp::Reverse(gain));
    for (_, mv) in ordered {
        let undo = pos.make_move(mv);
        let score = -quiescence(pos, evaluator, -beta, -alpha, plies - 1);
        pos.unmake_move(mv, undo);
        if score > best {
            best = score;
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
    }
    best
}

fn static_cp(pos: &Position, evaluator: &dyn Evaluator) -> i32 {
    evaluator.evaluate_cp(pos).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::MaterialEvaluator;

    #[test]
    fn a_hanging_piece_is_taken_before_the_leaf_is_valued() {
        // Black to move can take White's undefended rook with the gold: the static material
        // count is level, the quiescence value is a rook up.
        let sfen = "k4/5/1r3/1G3/4K b - 1";
        let mut pos = Position::from_sfen(sfen).unwrap();
        let before = pos.clone();
        let raw = leaf_value(&mut pos, &MaterialEvaluator, 0);
        let resolved = leaf_value(&mut pos, &MaterialEvaluator, 4);
        assert_eq!(pos, before, "the position is left as found");
        assert!(
            resolved > raw + 0.1,
            "raw {raw}, after quiescence {resolved}"
        );
    }

    #[test]
    fn quiescence_never_values_below_standing_pat_out_of_check() {
        for mut pos in crate::testing::random_positions(100, 11, 30) {
            if pos.in_check() || !pos.has_legal_move() {
                continue;
            }
            let stand = static_cp(&pos, &MaterialEvaluator);
            let q = quiescence(&mut pos, &MaterialEvaluator, -MATED_CP, MATED_CP, 6);
            assert!(q >= stand, "{}: {q} < {stand}", pos.to_sfen());
        }
    }
}
