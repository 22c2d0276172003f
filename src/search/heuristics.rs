//! Per-thread move-ordering memory: butterfly history, killer moves and counter-moves. Kept
//! between searches (cleared on `usinewgame`), never shared between threads.

use super::score::MAX_PLY;
use crate::shogi::{Color, Move};

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
}

impl Heuristics {
    pub fn new() -> Box<Heuristics> {
        Box::new(Heuristics {
            butterfly: [[0; MOVE_SLOTS]; 2],
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
            counter: [[Move::NULL; MOVE_SLOTS]; 2],
        })
    }

    pub fn clear(&mut self) {
        self.butterfly = [[0; MOVE_SLOTS]; 2];
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
        self.counter = [[Move::NULL; MOVE_SLOTS]; 2];
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
        let entry = &mut self.butterfly[side.index()][slot(mv)];
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        let value = *entry as i32;
        *entry = (value + bonus - value * bonus.abs() / HISTORY_MAX) as i16;
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
}
