//! The default evaluator until the neural network is wired in: material on the board and in
//! hand, squashed to a win probability with the same logistic scale as `cp_from_probability`.

use super::{Evaluator, PROBABILITY_SCALE};
use crate::shogi::{Color, PieceKind, Position};

/// Pieces in hand are worth a little more than on the board: they can be dropped anywhere.
const HAND_BONUS_PERCENT: i32 = 10;

#[derive(Clone, Copy, Debug, Default)]
pub struct MaterialEvaluator;

impl MaterialEvaluator {
    /// Material balance for the side to move, in centipawns.
    pub fn material(pos: &Position) -> i32 {
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
                side +=
                    pos.hand(color).count(kind) as i32 * kind.value() * (100 + HAND_BONUS_PERCENT)
                        / 100;
            }
            score += sign * side;
        }
        score
    }
}

impl Evaluator for MaterialEvaluator {
    fn win_probability(&self, pos: &Position) -> f32 {
        let cp = Self::material(pos) as f32;
        1.0 / (1.0 + (-cp / PROBABILITY_SCALE).exp())
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
        let cp = cp_from_probability(MaterialEvaluator.win_probability(&p));
        assert!((cp - 110).abs() <= 1, "{cp}");
        let mut q = p.clone();
        q.make_move(Move::board(Square::new(5, 3), Square::new(5, 2), false));
        assert_eq!(MaterialEvaluator::material(&q), -110);
    }
}
