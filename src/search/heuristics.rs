//! Per-thread move-ordering memory: butterfly history, continuation history, killer moves and
//! counter-moves. Kept between searches (cleared on `usinewgame`), never shared between threads.

use super::score::MAX_PLY;
use crate::shogi::{Color, Move, Piece, PieceKind, Square};

/// Continuation history is indexed by (piece, destination) of the previous move and of the
/// move scored: a drop and a board move of the same piece to the same square share an entry,
/// which is what makes it fit a drop game.
const PIECE_SQUARES: usize = 2 * PieceKind::COUNT * Square::COUNT;

/// The continuation-history index of `piece` arriving on `to` (dropped, moved or promoted).
#[inline(always)]
pub fn piece_square(piece: Piece, to: Square) -> usize {
    piece.index() * Square::COUNT + to.index()
}

/// The gravity update shared by the history tables: the entry moves toward ±HISTORY_MAX by
/// `bonus`, less the more it is already saturated.
#[inline(always)]
fn gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let value = *entry as i32;
    *entry = (value + bonus - value * bonus.abs() / HISTORY_MAX) as i16;
}

/// History scores saturate at ±HISTORY_MAX (the "gravity" update keeps them in range).
pub const HISTORY_MAX: i32 = 16_384;

/// Moves index the tables by their low 12 bits (destination, origin or dropped kind, flags).
const MOVE_SLOTS: usize = 4096;

#[inline(always)]
fn slot(mv: Move) -> usize {
    (mv.raw() as usize) & (MOVE_SLOTS - 1)
}

pub struct Heuristics {
    butterfly: [[i16; MOVE_SLOTS]; 2],
    /// Two killer moves per ply (quiet moves that caused a cut-off at that ply).
    killers: [[Move; 2]; MAX_PLY + 2],
    /// The quiet reply that refuted a given move of the opponent, per side to move.
    counter: [[Move; MOVE_SLOTS]; 2],
    /// Score of a (piece, destination) given the opponent's previous (piece, destination).
    continuation: Box<[i16]>,
}

impl Heuristics {
    pub fn new() -> Box<Heuristics> {
        Box::new(Heuristics {
            butterfly: [[0; MOVE_SLOTS]; 2],
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
            counter: [[Move::NULL; MOVE_SLOTS]; 2],
            continuation: vec![0; PIECE_SQUARES * PIECE_SQUARES].into_boxed_slice(),
        })
    }

    pub fn clear(&mut self) {
        self.butterfly = [[0; MOVE_SLOTS]; 2];
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
        self.counter = [[Move::NULL; MOVE_SLOTS]; 2];
        self.continuation.fill(0);
    }

    /// Killers are only meaningful within one search.
    pub fn clear_killers(&mut self) {
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
    }

    #[inline(always)]
    pub fn history(&self, side: Color, mv: Move) -> i32 {
        self.butterfly[side.index()][slot(mv)] as i32
    }

    #[inline(always)]
    pub fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers[ply]
    }

    #[inline(always)]
    pub fn counter(&self, side: Color, previous: Move) -> Move {
        self.counter[side.index()][slot(previous)]
    }

    #[inline(always)]
    pub fn update_history(&mut self, side: Color, mv: Move, bonus: i32) {
        gravity(&mut self.butterfly[side.index()][slot(mv)], bonus);
    }

    /// Continuation history of `current` after `previous` (both from [`piece_square`]).
    #[inline(always)]
    pub fn continuation(&self, previous: usize, current: usize) -> i32 {
        self.continuation[previous * PIECE_SQUARES + current] as i32
    }

    #[inline(always)]
    pub fn update_continuation(&mut self, previous: usize, current: usize, bonus: i32) {
        gravity(
            &mut self.continuation[previous * PIECE_SQUARES + current],
            bonus,
        );
    }

    /// Records a quiet move that caused a beta cut-off.
    #[inline(always)]
    pub fn record_cutoff(&mut self, side: Color, ply: usize, mv: Move, previous: Move) {
        let k = &mut self.killers[ply];
        if k[0] != mv {
            k[1] = k[0];
            k[0] = mv;
        }
        if !previous.is_null() {
            self.counter[side.index()][slot(previous)] = mv;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::{PieceKind, Square};

    #[test]
    fn history_saturates_and_killers_shift() {
        let mut h = Heuristics::new();
        let mv = Move::drop(PieceKind::Pawn, Square::new(2, 2));
        for _ in 0..1000 {
            h.update_history(Color::Sente, mv, 2400);
        }
        let v = h.history(Color::Sente, mv);
        assert!(v > HISTORY_MAX * 9 / 10 && v <= HISTORY_MAX, "{v}");
        assert_eq!(h.history(Color::Gote, mv), 0);
        let other = Move::board(Square::new(5, 3), Square::new(5, 2), false);
        h.record_cutoff(Color::Sente, 3, mv, other);
        h.record_cutoff(Color::Sente, 3, other, Move::NULL);
        assert_eq!(h.killers(3), [other, mv]);
        assert_eq!(h.counter(Color::Sente, other), mv);
    }

    #[test]
    fn continuation_history_keys_on_piece_and_square() {
        let mut h = Heuristics::new();
        let gold = Piece::new(Color::Sente, PieceKind::Gold);
        let to = Square::new(3, 2);
        let previous = piece_square(
            Piece::new(Color::Gote, PieceKind::Silver),
            Square::new(2, 1),
        );
        // Every (piece, square) pair has its own index.
        let mut seen = std::collections::HashSet::new();
        for color in Color::ALL {
            for kind in PieceKind::ALL {
                for sq in (0..Square::COUNT).map(Square::from_index) {
                    assert!(seen.insert(piece_square(Piece::new(color, kind), sq)));
                }
            }
        }
        assert_eq!(seen.len(), PIECE_SQUARES);
        h.update_continuation(previous, piece_square(gold, to), 1000);
        assert_eq!(h.continuation(previous, piece_square(gold, to)), 1000);
        // Another square, another piece or another previous move are other entries.
        assert_eq!(
            h.continuation(previous, piece_square(gold, Square::new(3, 3))),
            0
        );
        let silver = Piece::new(Color::Sente, PieceKind::Silver);
        assert_eq!(h.continuation(previous, piece_square(silver, to)), 0);
        assert_eq!(h.continuation(previous + 1, piece_square(gold, to)), 0);
        for _ in 0..1000 {
            h.update_continuation(previous, piece_square(gold, to), -2400);
        }
        let v = h.continuation(previous, piece_square(gold, to));
        assert!((-HISTORY_MAX..=-HISTORY_MAX * 9 / 10).contains(&v), "{v}");
        h.clear();
        assert_eq!(h.continuation(previous, piece_square(gold, to)), 0);
    }
}
