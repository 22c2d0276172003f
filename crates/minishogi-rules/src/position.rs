//! The position: board, hands, side to move, move number and Zobrist key, with make/unmake.

use super::bitboard::{self, Bitboard};
use super::types::{Color, Hand, Move, Piece, PieceKind, Square};

/// Zobrist keys, generated at compile time from a fixed seed (xorshift64*).
struct Zobrist {
    piece: [[u64; 25]; 20],
    /// Indexed by [colour][hand kind][count]; a side never holds more than 2 of a kind.
    hand: [[[u64; 3]; 5]; 2],
    gote_to_move: u64,
}

const fn zobrist() -> Zobrist {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut z = Zobrist {
        piece: [[0; 25]; 20],
        hand: [[[0; 3]; 5]; 2],
        gote_to_move: 0,
    };
    let mut p = 0;
    while p < 20 {
        let mut s = 0;
        while s < 25 {
            z.piece[p][s] = next(&mut state);
            s += 1;
        }
        p += 1;
    }
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 5 {
            // Count 0 hashes to 0 so that an empty hand contributes nothing.
            z.hand[c][k][1] = next(&mut state);
            z.hand[c][k][2] = next(&mut state);
            k += 1;
        }
        c += 1;
    }
    z.gote_to_move = next(&mut state);
    z
}

const fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

static ZOBRIST: Zobrist = zobrist();

/// What `make_move` returns and `unmake_move` needs to restore the position.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    captured: Option<PieceKind>,
    key: u64,
}

/// A minishogi position. `Clone` is cheap (about 100 bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    board: [Option<Piece>; 25],
    by_color: [Bitboard; 2],
    by_kind: [Bitboard; PieceKind::COUNT],
    hands: [Hand; 2],
    side: Color,
    move_number: u32,
    key: u64,
}

impl Default for Position {
    fn default() -> Self {
        Position::empty()
    }
}

impl Position {
    /// The empty board, nothing in hand, sente to move, move number 1.
    pub fn empty() -> Position {
        Position {
            board: [None; 25],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; PieceKind::COUNT],
            hands: [Hand::default(); 2],
            side: Color::Sente,
            move_number: 1,
            key: 0,
        }
    }

    /// `rbsgk/4p/5/P4/KGSBR b - 1`.
    pub fn startpos() -> Position {
        use Color::*;
        use PieceKind::*;
        let mut pos = Position::empty();
        let back = [Rook, Bishop, Silver, Gold, King];
        for (i, &kind) in back.iter().enumerate() {
            // Sente's back rank e from file 1 (rook) to file 5 (king); gote's mirrored on rank a.
            pos.put_piece(Square::new(i as u8 + 1, 4), Piece::new(Sente, kind));
            pos.put_piece(Square::new(5 - i as u8, 0), Piece::new(Gote, kind));
        }
        pos.put_piece(Square::new(5, 3), Piece::new(Sente, Pawn));
        pos.put_piece(Square::new(1, 1), Piece::new(Gote, Pawn));
        pos
    }

    // ---- setup (used by SFEN parsing and tests) ---------------------------------------------

    /// Puts a piece on an empty square, keeping the key up to date.
    pub fn put_piece(&mut self, sq: Square, piece: Piece) {
        debug_assert!(self.board[sq.index()].is_none());
        self.board[sq.index()] = Some(piece);
        self.by_color[piece.color.index()].set(sq);
        self.by_kind[piece.kind.index()].set(sq);
        self.key ^= ZOBRIST.piece[piece.index()][sq.index()];
    }

    /// Removes and returns the piece on a square, keeping the key up to date.
    pub fn remove_piece(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.board[sq.index()].take()?;
        self.by_color[piece.color.index()].clear(sq);
        self.by_kind[piece.kind.index()].clear(sq);
        self.key ^= ZOBRIST.piece[piece.index()][sq.index()];
        Some(piece)
    }

    /// Sets how many pieces of a hand kind a side holds (0..=2), keeping the key up to date.
    pub fn set_hand_count(&mut self, color: Color, kind: PieceKind, count: u8) {
        debug_assert!(count <= 2 && kind.index() < 5);
        let (c, k) = (color.index(), kind.index());
        self.key ^= ZOBRIST.hand[c][k][self.hands[c].count(kind) as usize];
        self.hands[c].set(kind, count);
        self.key ^= ZOBRIST.hand[c][k][count as usize];
    }

    pub fn set_side_to_move(&mut self, color: Color) {
        if self.side != color {
            self.side = color;
            self.key ^= ZOBRIST.gote_to_move;
        }
    }

    /// Sets the SFEN move number (1 for the start position).
    pub fn set_move_number(&mut self, n: u32) {
        self.move_number = n;
    }

    // ---- queries -----------------------------------------------------------------------------

    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// SFEN move number: starts at 1 and grows by one with every move (ply count + 1).
    #[inline(always)]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    #[inline(always)]
    pub fn hand(&self, color: Color) -> &Hand {
        &self.hands[color.index()]
    }

    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline(always)]
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Pieces of one kind, both colours.
    #[inline(always)]
    pub fn pieces_of_kind(&self, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()]
    }

    #[inline(always)]
    pub fn pieces_of(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()] & self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Option<Square> {
        let k = self.pieces_of(color, PieceKind::King);
        if k.is_empty() { None } else { Some(k.first()) }
    }

    /// Rook-like sliders (rook and dragon) of both colours.
    #[inline(always)]
    pub(crate) fn rook_likes(&self) -> Bitboard {
        self.by_kind[PieceKind::Rook.index()] | self.by_kind[PieceKind::Dragon.index()]
    }

    /// Bishop-like sliders (bishop and horse) of both colours.
    #[inline(always)]
    pub(crate) fn bishop_likes(&self) -> Bitboard {
        self.by_kind[PieceKind::Bishop.index()] | self.by_kind[PieceKind::Horse.index()]
    }

    #[inline(always)]
    fn gold_likes(&self) -> Bitboard {
        self.by_kind[PieceKind::Gold.index()]
            | self.by_kind[PieceKind::ProPawn.index()]
            | self.by_kind[PieceKind::ProSilver.index()]
    }

    #[inline(always)]
    fn king_steppers(&self) -> Bitboard {
        self.by_kind[PieceKind::King.index()]
            | self.by_kind[PieceKind::Horse.index()]
            | self.by_kind[PieceKind::Dragon.index()]
    }

    /// Pieces of `by` that attack `sq`, with the given occupancy.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, by: Color, occ: Bitboard) -> Bitboard {
        let them = !by;
        let attackers = (bitboard::pawn_attacks(them, sq) & self.by_kind[PieceKind::Pawn.index()])
            | (bitboard::silver_attacks(them, sq) & self.by_kind[PieceKind::Silver.index()])
            | (bitboard::gold_attacks(them, sq) & self.gold_likes())
            | (bitboard::king_attacks(sq) & self.king_steppers())
            | (bitboard::rook_attacks(sq, occ) & self.rook_likes())
            | (bitboard::bishop_attacks(sq, occ) & self.bishop_likes());
        attackers & self.by_color[by.index()]
    }

    /// Whether `by` attacks `sq` in the current position.
    #[inline(always)]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attackers_to(sq, by, self.occupied()).any()
    }

    /// Enemy pieces giving check to the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        match self.king_square(self.side) {
            Some(k) => self.attackers_to(k, !self.side, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers().any()
    }

    /// Whether the (legal) move gives check to the opponent.
    pub fn gives_check(&self, mv: Move) -> bool {
        let us = self.side;
        let Some(their_king) = self.king_square(!us) else {
            return false;
        };
        let to = mv.to();
        let (kind, occ_after, from_bb) = match mv.dropped() {
            Some(kind) => (
                kind,
                self.occupied() | Bitboard::from_square(to),
                Bitboard::EMPTY,
            ),
            None => {
                let from = mv.from_unchecked();
                let moved = self.board[from.index()].expect("gives_check: no piece on origin");
                let kind = if mv.is_promotion() {
                    moved.kind.promote()
                } else {
                    moved.kind
                };
                let from_bb = Bitboard::from_square(from);
                (
                    kind,
                    (self.occupied() ^ from_bb) | Bitboard::from_square(to),
                    from_bb,
                )
            }
        };
        if bitboard::attacks(us, kind, to, occ_after).has(their_king) {
            return true;
        }
        // Discovered check: one of our sliders, other than the moved piece, now sees the king.
        let ours = self.by_color[us.index()] & !from_bb & !Bitboard::from_square(to);
        ((bitboard::rook_attacks(their_king, occ_after) & self.rook_likes())
            | (bitboard::bishop_attacks(their_king, occ_after) & self.bishop_likes()))
            & ours
            != Bitboard::EMPTY
    }

    /// Pieces of `color` pinned to their own king by enemy sliders.
    pub fn pinned(&self, color: Color) -> Bitboard {
        let Some(ksq) = self.king_square(color) else {
            return Bitboard::EMPTY;
        };
        let them = self.by_color[(!color).index()];
        let snipers = ((bitboard::rook_attacks(ksq, Bitboard::EMPTY) & self.rook_likes())
            | (bitboard::bishop_attacks(ksq, Bitboard::EMPTY) & self.bishop_likes()))
            & them;
        let occ = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = bitboard::between(ksq, s) & occ;
            if !b.several() {
                pinned |= b & self.by_color[color.index()];
            }
        }
        pinned
    }

    /// Recomputes the Zobrist key from scratch (tests compare it with the incremental one).
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in Square::all() {
            if let Some(p) = self.board[sq.index()] {
                key ^= ZOBRIST.piece[p.index()][sq.index()];
            }
        }
        for c in Color::ALL {
            for k in PieceKind::HAND {
                key ^= ZOBRIST.hand[c.index()][k.index()][self.hands[c.index()].count(k) as usize];
            }
        }
        if self.side == Color::Gote {
            key ^= ZOBRIST.gote_to_move;
        }
        key
    }

    // ---- make / unmake -------------------------------------------------------------------------

    /// Plays a move that must be legal (or at least pseudo-legal) in this position.
    #[inline]
    pub fn make_move(&mut self, mv: Move) -> Undo {
        let us = self.side;
        let c = us.index();
        let to = mv.to();
        let undo_key = self.key;
        let mut captured = None;
        match mv.dropped() {
            Some(kind) => {
                let n = self.hands[c].count(kind);
                self.key ^= ZOBRIST.hand[c][kind.index()][n as usize]
                    ^ ZOBRIST.hand[c][kind.index()][n as usize - 1];
                self.hands[c].remove(kind);
                self.put_piece(to, Piece::new(us, kind));
            }
            None => {
                let from = mv.from_unchecked();
                if let Some(cap) = self.remove_piece(to) {
                    let kind = cap.kind.unpromote();
                    let n = self.hands[c].count(kind);
                    self.key ^= ZOBRIST.hand[c][kind.index()][n as usize]
                        ^ ZOBRIST.hand[c][kind.index()][n as usize + 1];
                    self.hands[c].add(kind);
                    captured = Some(cap.kind);
                }
                let mut piece = self
                    .remove_piece(from)
                    .expect("make_move: no piece on origin");
                if mv.is_promotion() {
                    piece.kind = piece.kind.promote();
                }
                self.put_piece(to, piece);
            }
        }
        self.side = !us;
        self.key ^= ZOBRIST.gote_to_move;
        self.move_number += 1;
        Undo {
            captured,
            key: undo_key,
        }
    }

    /// Takes back `mv`, which must be the last move made, with the `Undo` it returned.
    #[inline]
    pub fn unmake_move(&mut self, mv: Move, undo: Undo) {
        let us = !self.side;
        self.side = us;
        self.move_number -= 1;
        let c = us.index();
        let to = mv.to();
        match mv.dropped() {
            Some(kind) => {
                self.remove_piece(to);
                self.hands[c].add(kind);
            }
            None => {
                let mut piece = self
                    .remove_piece(to)
                    .expect("unmake_move: no piece on target");
                if mv.is_promotion() {
                    piece.kind = piece.kind.unpromote();
                }
                self.put_piece(mv.from_unchecked(), piece);
                if let Some(kind) = undo.captured {
                    self.hands[c].remove(kind.unpromote());
                    self.put_piece(to, Piece::new(!us, kind));
                }
            }
        }
        self.key = undo.key;
    }

    /// Passes the turn (null move, for the search). Only valid when not in check.
    #[inline]
    pub fn make_null_move(&mut self) {
        self.side = !self.side;
        self.key ^= ZOBRIST.gote_to_move;
        self.move_number += 1;
    }

    #[inline]
    pub fn unmake_null_move(&mut self) {
        self.make_null_move();
        self.move_number -= 2;
    }

    /// The position after `mv`, leaving `self` untouched.
    pub fn after(&self, mv: Move) -> Position {
        let mut p = self.clone();
        p.make_move(mv);
        p
    }

    /// The same position seen from the other side: board rotated 180°, colours and hands
    /// swapped, the other side to move.
    pub fn flipped(&self) -> Position {
        let mut p = Position::empty();
        for sq in Square::all() {
            if let Some(piece) = self.board[sq.index()] {
                p.put_piece(sq.flip(), Piece::new(!piece.color, piece.kind));
            }
        }
        for c in Color::ALL {
            for k in PieceKind::HAND {
                p.set_hand_count(!c, k, self.hands[c.index()].count(k));
            }
        }
        p.set_side_to_move(!self.side);
        p.move_number = self.move_number;
        p
    }
}
