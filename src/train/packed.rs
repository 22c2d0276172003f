//! A compact, serialisable form of a position (36 bytes) for training data files.

use serde::{Deserialize, Serialize};

use crate::shogi::{Color, Piece, PieceKind, Position, Square};

/// Board as 25 codes (0 empty, 1 + piece index otherwise), both hands, side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PackedPosition {
    board: [u8; 25],
    hands: [[u8; 5]; 2],
    gote_to_move: bool,
}

impl PackedPosition {
    pub fn pack(pos: &Position) -> PackedPosition {
        let mut board = [0u8; 25];
        for sq in Square::all() {
            if let Some(p) = pos.piece_at(sq) {
                board[sq.index()] = 1 + p.index() as u8;
            }
        }
        PackedPosition {
            board,
            hands: [
                pos.hand(Color::Sente).counts(),
                pos.hand(Color::Gote).counts(),
            ],
            gote_to_move: pos.side_to_move() == Color::Gote,
        }
    }

    /// Whether gote is to move.
    pub fn gote_to_move(&self) -> bool {
        self.gote_to_move
    }

    /// Rebuilds the position; `None` if the codes are out of range (a corrupt file).
    pub fn unpack(&self) -> Option<Position> {
        let mut pos = Position::empty();
        for sq in Square::all() {
            let code = self.board[sq.index()] as usize;
            if code == 0 {
                continue;
            }
            if code > 20 {
                return None;
            }
            let color = if code > 10 { Color::Gote } else { Color::Sente };
            let kind = PieceKind::from_index((code - 1) % 10);
            pos.put_piece(sq, Piece::new(color, kind));
        }
        for color in Color::ALL {
            for kind in PieceKind::HAND {
                let n = self.hands[color.index()][kind.index()];
                if n > 2 {
                    return None;
                }
                pos.set_hand_count(color, kind, n);
            }
        }
        pos.set_side_to_move(if self.gote_to_move {
            Color::Gote
        } else {
            Color::Sente
        });
        Some(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trips() {
        for sfen in [
            "rbsgk/4p/5/P4/KGSBR b - 1",
            "2Gk1/3sp/P2+r1/1S3/KGB1b w R 1",
            "2k2/5/5/5/2K2 b GSBRPgsbrp 1",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let back = PackedPosition::pack(&pos).unpack().unwrap();
            assert_eq!(back, pos);
            assert_eq!(back.key(), pos.key());
        }
    }
}
