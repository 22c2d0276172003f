//! Basic game types: colours, piece kinds, pieces, squares, moves and hands.
//!
//! Square indexing: `index = rank * 5 + (file - 1)` where USI rank `a` is 0 and `e` is 4,
//! so square 0 is USI `1a` (gote's back rank, sente's right) and 24 is `5e` (sente's king).
//! Sente moves towards rank `a` (decreasing index), gote towards rank `e`.

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    Sente = 0,
    Gote = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::Sente, Color::Gote];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::Sente => Color::Gote,
            Color::Gote => Color::Sente,
        }
    }

    /// The rank (0 = `a`) on which this colour's pieces may promote: the last rank.
    #[inline(always)]
    pub const fn promotion_rank(self) -> u8 {
        match self {
            Color::Sente => 0,
            Color::Gote => 4,
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.flip()
    }
}

/// Piece kinds. The first five are also the kinds that can be held in hand, in hand order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceKind {
    Pawn = 0,
    Silver = 1,
    Gold = 2,
    Bishop = 3,
    Rook = 4,
    King = 5,
    ProPawn = 6,
    ProSilver = 7,
    Horse = 8,
    Dragon = 9,
}

impl PieceKind {
    pub const COUNT: usize = 10;
    pub const ALL: [PieceKind; 10] = [
        PieceKind::Pawn,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::King,
        PieceKind::ProPawn,
        PieceKind::ProSilver,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];
    /// Kinds that can be held in hand and dropped, in hand-index order.
    pub const HAND: [PieceKind; 5] = [
        PieceKind::Pawn,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
    ];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn from_index(i: usize) -> PieceKind {
        PieceKind::ALL[i]
    }

    #[inline(always)]
    pub const fn can_promote(self) -> bool {
        matches!(
            self,
            PieceKind::Pawn | PieceKind::Silver | PieceKind::Bishop | PieceKind::Rook
        )
    }

    #[inline(always)]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 6
    }

    /// The promoted form; kinds that cannot promote are returned unchanged.
    #[inline(always)]
    pub const fn promote(self) -> PieceKind {
        match self {
            PieceKind::Pawn => PieceKind::ProPawn,
            PieceKind::Silver => PieceKind::ProSilver,
            PieceKind::Bishop => PieceKind::Horse,
            PieceKind::Rook => PieceKind::Dragon,
            k => k,
        }
    }

    /// The unpromoted form (what a captured piece becomes in hand).
    #[inline(always)]
    pub const fn unpromote(self) -> PieceKind {
        match self {
            PieceKind::ProPawn => PieceKind::Pawn,
            PieceKind::ProSilver => PieceKind::Silver,
            PieceKind::Horse => PieceKind::Bishop,
            PieceKind::Dragon => PieceKind::Rook,
            k => k,
        }
    }

    /// USI/SFEN letter of the unpromoted kind (uppercase), e.g. `P`, `S`, `G`, `B`, `R`, `K`.
    pub const fn usi_letter(self) -> char {
        match self.unpromote() {
            PieceKind::Pawn => 'P',
            PieceKind::Silver => 'S',
            PieceKind::Gold => 'G',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            _ => 'K',
        }
    }

    /// Parses an uppercase or lowercase USI letter of an unpromoted kind.
    pub fn from_usi_letter(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'P' => PieceKind::Pawn,
            'S' => PieceKind::Silver,
            'G' => PieceKind::Gold,
            'B' => PieceKind::Bishop,
            'R' => PieceKind::Rook,
            'K' => PieceKind::King,
            _ => return None,
        })
    }

    /// Course-notation two-letter code of a droppable kind (FU, GI, KI, KK, HI).
    pub const fn course_code(self) -> &'static str {
        match self.unpromote() {
            PieceKind::Pawn => "FU",
            PieceKind::Silver => "GI",
            PieceKind::Gold => "KI",
            PieceKind::Bishop => "KK",
            PieceKind::Rook => "HI",
            _ => "OU",
        }
    }

    /// Japanese one-character name, for the board display.
    pub const fn kanji(self) -> char {
        match self {
            PieceKind::Pawn => '歩',
            PieceKind::Silver => '銀',
            PieceKind::Gold => '金',
            PieceKind::Bishop => '角',
            PieceKind::Rook => '飛',
            PieceKind::King => '玉',
            PieceKind::ProPawn => 'と',
            PieceKind::ProSilver => '全',
            PieceKind::Horse => '馬',
            PieceKind::Dragon => '龍',
        }
    }

    /// Material value in centipawn-like units, used by move ordering and SEE.
    pub const fn value(self) -> i32 {
        match self {
            PieceKind::Pawn => 100,
            PieceKind::Silver => 500,
            PieceKind::Gold => 600,
            PieceKind::Bishop => 800,
            PieceKind::Rook => 1000,
            PieceKind::King => 20000,
            PieceKind::ProPawn => 600,
            PieceKind::ProSilver => 600,
            PieceKind::Horse => 1100,
            PieceKind::Dragon => 1300,
        }
    }
}

/// A piece of a given colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
}

impl Piece {
    #[inline(always)]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// Index 0..20 (colour-major), for Zobrist tables and feature planes.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.color.index() * PieceKind::COUNT + self.kind.index()
    }

    /// SFEN token: uppercase for sente, lowercase for gote, `+` prefix when promoted.
    pub fn sfen(self) -> String {
        let letter = self.kind.usi_letter();
        let letter = match self.color {
            Color::Sente => letter,
            Color::Gote => letter.to_ascii_lowercase(),
        };
        if self.kind.is_promoted() {
            format!("+{letter}")
        } else {
            letter.to_string()
        }
    }
}

/// One of the 25 squares; see the module documentation for the indexing.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 25;

    /// From a raw index in 0..25. Panics in debug builds if out of range.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Square {
        debug_assert!(index < 25);
        Square(index as u8)
    }

    /// From a USI file (1..=5) and rank index (0 = `a` .. 4 = `e`).
    #[inline(always)]
    pub const fn new(file: u8, rank: u8) -> Square {
        debug_assert!(file >= 1 && file <= 5 && rank < 5);
        Square(rank * 5 + (file - 1))
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// USI file, 1..=5.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 % 5 + 1
    }

    /// Rank index, 0 (`a`) ..= 4 (`e`).
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 / 5
    }

    /// The same square seen from the other side (rotated 180°).
    #[inline(always)]
    pub const fn flip(self) -> Square {
        Square(24 - self.0)
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..25u8).map(Square)
    }

    /// Course-notation name: row digit 1–5 (1 = sente's back rank) and column letter A–E
    /// (A = sente's left = USI file 5).
    pub fn course_name(self) -> String {
        let row = 5 - self.rank();
        let col = (b'A' + (5 - self.file())) as char;
        format!("{row}{col}")
    }
}

impl fmt::Display for Square {
    /// USI name such as `5e`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), (b'a' + self.rank()) as char)
    }
}

/// A move, packed in 16 bits: bits 0–4 destination, bits 5–9 origin square (board move) or
/// dropped kind (drop), bit 10 promotion, bit 11 drop. `Move::NULL` (all zero) is not a move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Move(u16);

impl Move {
    pub const NULL: Move = Move(0);
    const PROMOTE: u16 = 1 << 10;
    const DROP: u16 = 1 << 11;

    #[inline(always)]
    pub const fn board(from: Square, to: Square, promote: bool) -> Move {
        Move(to.0 as u16 | (from.0 as u16) << 5 | if promote { Move::PROMOTE } else { 0 })
    }

    #[inline(always)]
    pub const fn drop(kind: PieceKind, to: Square) -> Move {
        Move(to.0 as u16 | (kind as u16) << 5 | Move::DROP)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square((self.0 & 31) as u8)
    }

    /// Origin square of a board move; `None` for a drop.
    #[inline(always)]
    pub const fn from(self) -> Option<Square> {
        if self.is_drop() {
            None
        } else {
            Some(Square(((self.0 >> 5) & 31) as u8))
        }
    }

    /// Origin square, assuming the move is not a drop.
    #[inline(always)]
    pub const fn from_unchecked(self) -> Square {
        Square(((self.0 >> 5) & 31) as u8)
    }

    /// The dropped kind; `None` for a board move.
    #[inline(always)]
    pub const fn dropped(self) -> Option<PieceKind> {
        if self.is_drop() {
            Some(PieceKind::from_index(((self.0 >> 5) & 31) as usize))
        } else {
            None
        }
    }

    #[inline(always)]
    pub const fn is_drop(self) -> bool {
        self.0 & Move::DROP != 0
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & Move::PROMOTE != 0
    }

    #[inline(always)]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn raw(self) -> u16 {
        self.0
    }

    #[inline(always)]
    pub const fn from_raw(raw: u16) -> Move {
        Move(raw)
    }

    /// USI text such as `5d5c`, `3a3e+`, `P*3c`.
    pub fn usi(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    /// USI notation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            return write!(f, "0000");
        }
        match self.dropped() {
            Some(kind) => write!(f, "{}*{}", kind.usi_letter(), self.to()),
            None => write!(
                f,
                "{}{}{}",
                self.from_unchecked(),
                self.to(),
                if self.is_promotion() { "+" } else { "" }
            ),
        }
    }
}

/// Pieces in hand for one side, indexed by `PieceKind::index()` of the five hand kinds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Hand([u8; 5]);

impl Hand {
    #[inline(always)]
    pub const fn count(&self, kind: PieceKind) -> u8 {
        self.0[kind as usize]
    }

    #[inline(always)]
    pub fn set(&mut self, kind: PieceKind, n: u8) {
        self.0[kind as usize] = n;
    }

    #[inline(always)]
    pub fn add(&mut self, kind: PieceKind) {
        self.0[kind as usize] += 1;
    }

    #[inline(always)]
    pub fn remove(&mut self, kind: PieceKind) {
        self.0[kind as usize] -= 1;
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 5]
    }

    /// Counts in hand order (pawn, silver, gold, bishop, rook).
    #[inline(always)]
    pub const fn counts(&self) -> [u8; 5] {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_packing_round_trips() {
        for from in Square::all() {
            for to in Square::all() {
                for promote in [false, true] {
                    let m = Move::board(from, to, promote);
                    assert_eq!(m.from(), Some(from));
                    assert_eq!(m.to(), to);
                    assert_eq!(m.is_promotion(), promote);
                    assert!(!m.is_drop());
                }
            }
            for kind in PieceKind::HAND {
                let m = Move::drop(kind, from);
                assert_eq!(m.dropped(), Some(kind));
                assert_eq!(m.to(), from);
                assert!(m.from().is_none());
                assert!(!m.is_null());
            }
        }
    }

    #[test]
    fn square_names() {
        assert_eq!(Square::new(5, 4).to_string(), "5e");
        assert_eq!(Square::new(5, 4).course_name(), "1A");
        assert_eq!(Square::new(1, 0).course_name(), "5E");
        assert_eq!(Square::new(3, 2).flip(), Square::new(3, 2));
        assert_eq!(Square::new(5, 4).flip(), Square::new(1, 0));
    }
}
