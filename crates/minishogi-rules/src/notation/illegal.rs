//! Why a well-formed move is not legal in a position, in words for error messages and referees.

use crate::bitboard;
use crate::position::Position;
use crate::types::{Color, Move, PieceKind};

impl Position {
    /// Why a well-formed move is not legal here (for error messages and referees).
    pub fn explain_illegal(&self, mv: Move) -> String {
        let us = self.side_to_move();
        let to = mv.to();
        let target = self.piece_at(to);
        match mv.dropped() {
            Some(kind) => {
                if self.hand(us).count(kind) == 0 {
                    return format!("no {kind:?} in hand");
                }
                if target.is_some() {
                    return format!("square {to} is occupied");
                }
                if kind == PieceKind::Pawn {
                    if to.rank() == us.promotion_rank() {
                        return "a pawn may not be dropped on the last rank".to_string();
                    }
                    if (self.pieces_of(us, PieceKind::Pawn) & bitboard::Bitboard::file(to.file()))
                        .any()
                    {
                        return format!("二歩 (nifu): a pawn is already on file {}", to.file());
                    }
                    let after = self.after(mv);
                    if after.in_check() && !after.has_legal_move() {
                        return "打ち歩詰め (uchifuzume): a pawn drop may not checkmate"
                            .to_string();
                    }
                }
            }
            None => {
                let from = mv.from_unchecked();
                let Some(piece) = self.piece_at(from) else {
                    return format!("no piece on {from}");
                };
                if piece.color != us {
                    return format!("the piece on {from} is not the side to move's");
                }
                if target.is_some_and(|t| t.color == us) {
                    return format!("square {to} holds a piece of the side to move");
                }
                if !bitboard::attacks(us, piece.kind, from, self.occupied()).has(to) {
                    return format!("a {:?} on {from} cannot reach {to}", piece.kind);
                }
                let zone = us.promotion_rank();
                if mv.is_promotion() {
                    if !piece.kind.can_promote() {
                        return format!("a {:?} cannot promote", piece.kind);
                    }
                    if from.rank() != zone && to.rank() != zone {
                        return "promotion needs a move into or out of the last rank".to_string();
                    }
                } else if piece.kind == PieceKind::Pawn && to.rank() == zone {
                    return "a pawn reaching the last rank must promote".to_string();
                }
            }
        }
        if self.after(mv).is_attacked_king_of(us) {
            return "it leaves the king in check".to_string();
        }
        "not a legal move in this position".to_string()
    }

    fn is_attacked_king_of(&self, color: Color) -> bool {
        self.king_square(color)
            .is_some_and(|k| self.is_attacked(k, !color))
    }
}
