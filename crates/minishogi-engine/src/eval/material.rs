//! Material counting: the one count of pieces on the board and in hand, and the material
//! evaluator (the search's evaluator before any network is set, and the yardstick of
//! self-play), squashed to a win probability on the shared logistic scale.

use super::{Evaluator, probability_from_cp};
use crate::shogi::{Color, PieceKind, Position};

/// The search's hand bonus: pieces in hand are worth a little more than on the board, since
/// they can be dropped anywhere.
pub const HAND_BONUS_PERCENT: i32 = 10;

/// Material balance for the side to move, in centipawns (`PieceKind::value`, kings left
/// out), each piece in hand counted at `(100 + hand_bonus_percent)` % of its value (rounded
/// down per kind). The material evaluator uses [`HAND_BONUS_PERCENT`]; self-play's
/// material player counts hands at face value (`material_balance(pos, 0)`).
pub fn material_balance(pos: &Position, hand_bonus_percent: i32) -> i32 {
    let us = pos.side_to_move();
    let mut score = 0;
    for color in Color::ALL {
        let sign = if color == us { 1 } else { -1 };
        let mut side = 0;
        for kind in PieceKind::ALL {
            if kind != PieceKind::King {
                side += pos.pieces_of(color, kind).count() as i32 * kind.value();
            }
        }
        for kind in PieceKind::HAND {
            side += pos.hand(color).count(kind) as i32 * kind.value() * (100 + hand_bonus_percent)
                / 100;
        }
        score += sign * side;
    }
    score
}

#[derive(Clone, Copy, Debug, Default)]
pub struct MaterialEvaluator;

impl MaterialEvaluator {
    /// Material balance for the side to move, in centipawns, with the search's hand bonus.
    pub fn material(pos: &Position) -> i32 {
        material_balance(pos, HAND_BONUS_PERCENT)
    }
}

impl Evaluator for MaterialEvaluator {
    fn win_probability(&self, pos: &Position) -> f32 {
        probability_from_cp(Self::material(pos) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::super::cp_from_probability;
    use super::*;
    use crate::shogi::{Move, Square};

    #[test]
    fn start_position_is_balanced_and_captures_count() {
        let pos = Position::startpos();
        assert_eq!(MaterialEvaluator::material(&pos), 0);
        assert!((MaterialEvaluator.win_probability(&pos) - 0.5).abs() < 1e-6);
        // A position where sente has an extra pawn in hand, seen from both sides.
        let mut p = Position::startpos();
        p.set_hand_count(Color::Sente, PieceKind::Pawn, 1);
        assert_eq!(MaterialEvaluator::material(&p), 110);
        assert_eq!(material_balance(&p, 0), 100);
        let cp = cp_from_probability(MaterialEvaluator.win_probability(&p));
        assert!((cp - 110).abs() <= 1, "{cp}");
        let mut q = p.clone();
        q.make_move(Move::board(Square::new(5, 3), Square::new(5, 2), false));
        assert_eq!(MaterialEvaluator::material(&q), -110);
        assert_eq!(material_balance(&q, 0), -100);
    }
}
