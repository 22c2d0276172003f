//! The classical evaluator of seeds 000 and 004: material, pieces in hand, and a value map —
//! a value for each piece kind on each square — summed from the side to move's view, as the
//! seeds' Othello players sum a square-value table. Its numbers are parameters (`params`; their
//! file is `search::eval_params`), tuned by `engine tune` (by games, or by Texel's method on
//! datagen positions).
//!
//! The search keeps the board sum up to date move by move through a [`PathState`]: a make
//! changes at most three squares and a hand.

pub mod params;

use super::{EVAL_LIMIT, Evaluator, PathState, probability_from_cp};
use crate::shogi::{Color, Move, Piece, PieceKind, Position, Square};

pub use params::ClassicalParams;

/// The evaluation tables, ready for the search: a piece's value (material plus map) by kind and
/// square, from sente's view of the board.
#[derive(Clone, Debug)]
pub struct ClassicalEvaluator {
    /// `[kind][square]` for a sente piece; a gote piece uses the square rotated 180°.
    board: [[i32; Square::COUNT]; PieceKind::COUNT],
    /// By hand index.
    hand: [i32; 5],
    tempo: i32,
}

impl ClassicalEvaluator {
    pub fn new(p: &ClassicalParams) -> ClassicalEvaluator {
        let v = &p.values;
        let mut board = [[0; Square::COUNT]; PieceKind::COUNT];
        for kind in PieceKind::ALL {
            let material = params::piece_index(kind).map_or(0, |i| v[i]);
            for sq in Square::all() {
                board[kind.index()][sq.index()] = material + v[params::map_index(kind, sq)];
            }
        }
        let mut hand = [0; 5];
        for (i, h) in hand.iter_mut().enumerate() {
            *h = v[params::HAND_AT + i];
        }
        ClassicalEvaluator {
            board,
            hand,
            tempo: v[params::TEMPO_AT],
        }
    }

    /// A piece's value where it stands, with its owner's sign: positive for sente.
    #[inline]
    fn piece_value(&self, piece: Piece, sq: Square) -> i32 {
        match piece.color {
            Color::Sente => self.board[piece.kind.index()][sq.index()],
            Color::Gote => -self.board[piece.kind.index()][sq.flip().index()],
        }
    }

    /// A piece in hand, with its owner's sign.
    #[inline]
    fn hand_value(&self, color: Color, kind: PieceKind) -> i32 {
        let v = self.hand[kind.index()];
        if color == Color::Sente { v } else { -v }
    }

    /// The whole sum from sente's view, tempo left out.
    pub fn sente_sum(&self, pos: &Position) -> i32 {
        let mut sum = 0;
        for sq in Square::all() {
            if let Some(piece) = pos.piece_at(sq) {
                sum += self.piece_value(piece, sq);
            }
        }
        for color in Color::ALL {
            for kind in PieceKind::HAND {
                sum += i32::from(pos.hand(color).count(kind)) * self.hand_value(color, kind);
            }
        }
        sum
    }

    /// The score of the side to move from a sente-view sum: the evaluation's one last step.
    #[inline]
    fn score_of_sum(&self, pos: &Position, sum: i32) -> i32 {
        let own = if pos.side_to_move() == Color::Sente {
            sum
        } else {
            -sum
        };
        (own + self.tempo).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

impl Evaluator for ClassicalEvaluator {
    fn win_probability(&self, pos: &Position) -> f32 {
        probability_from_cp(self.evaluate_cp(pos) as f32)
    }

    fn evaluate_cp(&self, pos: &Position) -> i32 {
        self.score_of_sum(pos, self.sente_sum(pos))
    }

    fn path_state(&self, root: &Position) -> Option<Box<dyn PathState + '_>> {
        let mut board = [None; Square::COUNT];
        for sq in Square::all() {
            board[sq.index()] = root.piece_at(sq);
        }
        Some(Box::new(ClassicalPath {
            eval: self,
            board,
            sums: vec![self.sente_sum(root)],
        }))
    }
}

/// The search path's sums: the board as the evaluator last saw it (to know what a move
/// captured) and the sente-view sum of every position on the path.
struct ClassicalPath<'a> {
    eval: &'a ClassicalEvaluator,
    board: [Option<Piece>; Square::COUNT],
    sums: Vec<i32>,
}

impl PathState for ClassicalPath<'_> {
    fn on_make(&mut self, pos: &Position, mv: Move) {
        let e = self.eval;
        let to = mv.to();
        let moved = pos
            .piece_at(to)
            .expect("a move leaves its piece on its square");
        let mover = moved.color;
        let mut sum = *self.sums.last().expect("the root's sum");
        sum += e.piece_value(moved, to);
        match mv.from() {
            Some(from) => {
                let before = self.board[from.index()].expect("a move starts from a piece");
                sum -= e.piece_value(before, from);
                self.board[from.index()] = None;
            }
            None => sum -= e.hand_value(mover, moved.kind),
        }
        if let Some(captured) = self.board[to.index()] {
            sum -= e.piece_value(captured, to);
            sum += e.hand_value(mover, captured.kind.unpromote());
        }
        self.board[to.index()] = Some(moved);
        self.sums.push(sum);
    }

    fn on_unmake(&mut self, pos: &Position, mv: Move) {
        self.sums.pop();
        if let Some(from) = mv.from() {
            self.board[from.index()] = pos.piece_at(from);
        }
        self.board[mv.to().index()] = pos.piece_at(mv.to());
    }

    fn evaluate_cp(&mut self, pos: &Position) -> i32 {
        let sum = *self.sums.last().expect("the root's sum");
        self.eval.score_of_sum(pos, sum)
    }
}

/// The evaluation of `pos` as a sparse linear form of the parameters, from the side to move's
/// view: `(parameter index, coefficient)` pairs whose dot product with
/// `ClassicalParams::values` is the evaluation before its clamp. Texel's method
/// (`tune::texel`) scores thousands of parameter vectors on the same positions this way.
pub fn features(pos: &Position, out: &mut Vec<(u16, i8)>) {
    out.clear();
    let us = pos.side_to_move();
    let mut add = |index: usize, coef: i8| {
        match out.iter_mut().find(|(i, _)| usize::from(*i) == index) {
            Some(slot) => slot.1 += coef,
            None => out.push((index as u16, coef)),
        };
    };
    for sq in Square::all() {
        if let Some(piece) = pos.piece_at(sq) {
            let sign = if piece.color == us { 1 } else { -1 };
            let own_sq = if piece.color == Color::Sente {
                sq
            } else {
                sq.flip()
            };
            if let Some(i) = params::piece_index(piece.kind) {
                add(i, sign);
            }
            add(params::map_index(piece.kind, own_sq), sign);
        }
    }
    for color in Color::ALL {
        let sign: i8 = if color == us { 1 } else { -1 };
        for (i, kind) in PieceKind::HAND.iter().enumerate() {
            let n = pos.hand(color).count(*kind) as i8;
            if n > 0 {
                add(params::HAND_AT + i, sign * n);
            }
        }
    }
    add(params::TEMPO_AT, 1);
    out.retain(|&(_, c)| c != 0);
}

#[cfg(test)]
pub(crate) mod tests;
