//! 25-square bitboards and precomputed attack tables (built at compile time).

use super::types::{Color, PieceKind, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares; bit `i` is `Square::from_index(i)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Bitboard(pub u32);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard((1 << 25) - 1);

    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// All squares of a rank (0 = `a`).
    #[inline(always)]
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(0b11111 << (rank * 5))
    }

    /// All squares of a USI file (1..=5).
    #[inline(always)]
    pub const fn file(file: u8) -> Bitboard {
        Bitboard(0x108421 << (file - 1))
    }

    #[inline(always)]
    pub const fn has(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// More than one square set.
    #[inline(always)]
    pub const fn several(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square; the set must not be empty.
    #[inline(always)]
    pub const fn first(self) -> Square {
        Square::from_index(self.0.trailing_zeros() as usize)
    }

    #[inline(always)]
    pub fn set(&mut self, sq: Square) {
        self.0 |= 1 << sq.index();
    }

    #[inline(always)]
    pub fn clear(&mut self, sq: Square) {
        self.0 &= !(1 << sq.index());
    }

    /// The same set seen from the other side (rotated 180°).
    #[inline(always)]
    pub const fn flip(self) -> Bitboard {
        Bitboard(self.0.reverse_bits() >> 7)
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::from_index(self.0.trailing_zeros() as usize);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }
}

macro_rules! bit_ops {
    ($($trait:ident $fn:ident $assign_trait:ident $assign_fn:ident $op:tt;)*) => {$(
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $fn(self, rhs: Bitboard) -> Bitboard { Bitboard(self.0 $op rhs.0) }
        }
        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign_fn(&mut self, rhs: Bitboard) { self.0 = self.0 $op rhs.0; }
        }
    )*};
}
bit_ops! {
    BitAnd bitand BitAndAssign bitand_assign &;
    BitOr bitor BitOrAssign bitor_assign |;
    BitXor bitxor BitXorAssign bitxor_assign ^;
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }
}

// ---------------------------------------------------------------------------------------------
// Attack tables.

/// (file delta, rank delta) for sente; gote negates both. Rank delta -1 is "forward" for sente.
const PAWN_STEPS: &[(i8, i8)] = &[(0, -1)];
const SILVER_STEPS: &[(i8, i8)] = &[(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
const GOLD_STEPS: &[(i8, i8)] = &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
const KING_STEPS: &[(i8, i8)] = &[
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];
const ROOK_DIRS: &[(i8, i8)] = &[(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: &[(i8, i8)] = &[(1, 1), (1, -1), (-1, 1), (-1, -1)];

const fn step_table(steps: &[(i8, i8)], color: Color) -> [Bitboard; 25] {
    let mut table = [Bitboard::EMPTY; 25];
    let mut sq = 0;
    while sq < 25 {
        let (f, r) = ((sq % 5) as i8, (sq / 5) as i8);
        let mut bits = 0u32;
        let mut i = 0;
        while i < steps.len() {
            let (mut df, mut dr) = steps[i];
            if matches!(color, Color::Gote) {
                df = -df;
                dr = -dr;
            }
            let (nf, nr) = (f + df, r + dr);
            if nf >= 0 && nf < 5 && nr >= 0 && nr < 5 {
                bits |= 1 << (nr * 5 + nf);
            }
            i += 1;
        }
        table[sq] = Bitboard(bits);
        sq += 1;
    }
    table
}

/// Squares reached along `dirs` from `sq`, stopping at (and including) the first occupied one.
/// With `exclude_edges`, the last square of each ray is left out (the relevant-occupancy mask).
const fn ray_attacks(sq: usize, dirs: &[(i8, i8)], occ: u32, exclude_edges: bool) -> u32 {
    let (f0, r0) = ((sq % 5) as i8, (sq / 5) as i8);
    let mut bits = 0u32;
    let mut d = 0;
    while d < dirs.len() {
        let (df, dr) = dirs[d];
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while f >= 0 && f < 5 && r >= 0 && r < 5 {
            let (nf, nr) = (f + df, r + dr);
            if exclude_edges && !(nf >= 0 && nf < 5 && nr >= 0 && nr < 5) {
                break;
            }
            let bit = 1u32 << (r * 5 + f);
            bits |= bit;
            if occ & bit != 0 {
                break;
            }
            f = nf;
            r = nr;
        }
        d += 1;
    }
    bits
}

// Magic multipliers mapping each square's relevant occupancy to a 6-bit index without
// destructive collisions; found offline by random search (deterministic seed).
include!("magics.rs");

const fn slider_masks(dirs: &[(i8, i8)]) -> [u32; 25] {
    let mut masks = [0u32; 25];
    let mut sq = 0;
    while sq < 25 {
        masks[sq] = ray_attacks(sq, dirs, 0, true);
        sq += 1;
    }
    masks
}

const fn slider_table(dirs: &[(i8, i8)], magics: &[u64; 25]) -> [[Bitboard; 64]; 25] {
    let mut table = [[Bitboard::EMPTY; 64]; 25];
    let masks = slider_masks(dirs);
    let mut sq = 0;
    while sq < 25 {
        let mask = masks[sq];
        // Enumerate all subsets of the mask (carry-rippler).
        let mut occ = 0u32;
        loop {
            let index = ((occ as u64).wrapping_mul(magics[sq]) >> 58) as usize;
            table[sq][index] = Bitboard(ray_attacks(sq, dirs, occ, false));
            occ = occ.wrapping_sub(mask) & mask;
            if occ == 0 {
                break;
            }
        }
        sq += 1;
    }
    table
}

const ROOK_MASKS: [u32; 25] = slider_masks(ROOK_DIRS);
const BISHOP_MASKS: [u32; 25] = slider_masks(BISHOP_DIRS);
static ROOK_TABLE: [[Bitboard; 64]; 25] = slider_table(ROOK_DIRS, &ROOK_MAGICS);
static BISHOP_TABLE: [[Bitboard; 64]; 25] = slider_table(BISHOP_DIRS, &BISHOP_MAGICS);

/// Step attacks indexed by [colour][0 pawn, 1 silver, 2 gold, 3 king][square].
static STEP_TABLE: [[[Bitboard; 25]; 4]; 2] = [
    [
        step_table(PAWN_STEPS, Color::Sente),
        step_table(SILVER_STEPS, Color::Sente),
        step_table(GOLD_STEPS, Color::Sente),
        step_table(KING_STEPS, Color::Sente),
    ],
    [
        step_table(PAWN_STEPS, Color::Gote),
        step_table(SILVER_STEPS, Color::Gote),
        step_table(GOLD_STEPS, Color::Gote),
        step_table(KING_STEPS, Color::Gote),
    ],
];

const fn between_table() -> [[Bitboard; 25]; 25] {
    let mut table = [[Bitboard::EMPTY; 25]; 25];
    let mut a = 0;
    while a < 25 {
        let mut b = 0;
        while b < 25 {
            let ba = 1u32 << b;
            let dirs: [&[(i8, i8)]; 2] = [ROOK_DIRS, BISHOP_DIRS];
            let mut k = 0;
            while k < 2 {
                if ray_attacks(a, dirs[k], ba, false) & ba != 0 {
                    // Squares strictly between a and b on their shared line.
                    table[a][b] = Bitboard(
                        ray_attacks(a, dirs[k], ba, false) & ray_attacks(b, dirs[k], 1 << a, false),
                    );
                }
                k += 1;
            }
            b += 1;
        }
        a += 1;
    }
    table
}

const fn line_table() -> [[Bitboard; 25]; 25] {
    let mut table = [[Bitboard::EMPTY; 25]; 25];
    let mut a = 0;
    while a < 25 {
        let mut b = 0;
        while b < 25 {
            if a != b {
                let ba = 1u32 << b;
                let (fa, ra) = ((a % 5) as i8, (a / 5) as i8);
                let (fb, rb) = ((b % 5) as i8, (b / 5) as i8);
                let (df, dr) = (fb - fa, rb - ra);
                let aligned = df == 0 || dr == 0 || df == dr || df == -dr;
                if aligned {
                    let sf = if df > 0 {
                        1
                    } else if df < 0 {
                        -1
                    } else {
                        0
                    };
                    let sr = if dr > 0 {
                        1
                    } else if dr < 0 {
                        -1
                    } else {
                        0
                    };
                    let dirs = [(sf, sr), (-sf, -sr)];
                    table[a][b] = Bitboard(ray_attacks(a, &dirs, 0, false) | (1 << a) | ba);
                }
            }
            b += 1;
        }
        a += 1;
    }
    table
}

static BETWEEN: [[Bitboard; 25]; 25] = between_table();
static LINE: [[Bitboard; 25]; 25] = line_table();

#[inline(always)]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let i = sq.index();
    let idx = ((occ.0 & ROOK_MASKS[i]) as u64).wrapping_mul(ROOK_MAGICS[i]) >> 58;
    ROOK_TABLE[i][idx as usize]
}

#[inline(always)]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let i = sq.index();
    let idx = ((occ.0 & BISHOP_MASKS[i]) as u64).wrapping_mul(BISHOP_MAGICS[i]) >> 58;
    BISHOP_TABLE[i][idx as usize]
}

#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    STEP_TABLE[color.index()][0][sq.index()]
}

#[inline(always)]
pub fn silver_attacks(color: Color, sq: Square) -> Bitboard {
    STEP_TABLE[color.index()][1][sq.index()]
}

#[inline(always)]
pub fn gold_attacks(color: Color, sq: Square) -> Bitboard {
    STEP_TABLE[color.index()][2][sq.index()]
}

#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    STEP_TABLE[0][3][sq.index()]
}

/// Squares strictly between two squares on a rank, file or diagonal; empty otherwise.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    BETWEEN[a.index()][b.index()]
}

/// The whole line through two aligned squares (both included); empty if not aligned.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    LINE[a.index()][b.index()]
}

/// Squares attacked by a piece of `kind` and `color` on `sq`, given the occupancy.
#[inline(always)]
pub fn attacks(color: Color, kind: PieceKind, sq: Square, occ: Bitboard) -> Bitboard {
    match kind {
        PieceKind::Pawn => pawn_attacks(color, sq),
        PieceKind::Silver => silver_attacks(color, sq),
        PieceKind::Gold | PieceKind::ProPawn | PieceKind::ProSilver => gold_attacks(color, sq),
        PieceKind::King => king_attacks(sq),
        PieceKind::Bishop => bishop_attacks(sq, occ),
        PieceKind::Rook => rook_attacks(sq, occ),
        PieceKind::Horse => bishop_attacks(sq, occ) | king_attacks(sq),
        PieceKind::Dragon => rook_attacks(sq, occ) | king_attacks(sq),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slider_tables_match_ray_walks() {
        // Every occupancy pattern of a few squares' neighbourhoods, against the plain ray walk.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let occ = Bitboard(seed as u32 & Bitboard::FULL.0);
            for sq in Square::all() {
                assert_eq!(
                    rook_attacks(sq, occ).0,
                    ray_attacks(sq.index(), ROOK_DIRS, occ.0, false)
                );
                assert_eq!(
                    bishop_attacks(sq, occ).0,
                    ray_attacks(sq.index(), BISHOP_DIRS, occ.0, false)
                );
            }
        }
    }

    #[test]
    fn step_attacks() {
        // Sente pawn on 5d attacks 5c; gote pawn on 1b attacks 1c.
        assert_eq!(
            pawn_attacks(Color::Sente, Square::new(5, 3)),
            Bitboard::from_square(Square::new(5, 2))
        );
        assert_eq!(
            pawn_attacks(Color::Gote, Square::new(1, 1)),
            Bitboard::from_square(Square::new(1, 2))
        );
        assert_eq!(king_attacks(Square::new(3, 2)).count(), 8);
        assert_eq!(silver_attacks(Color::Sente, Square::new(3, 2)).count(), 5);
        assert_eq!(gold_attacks(Color::Gote, Square::new(3, 2)).count(), 6);
    }

    #[test]
    fn between_and_line() {
        let a = Square::new(5, 4);
        let b = Square::new(1, 0);
        assert_eq!(between(a, b).count(), 3);
        assert_eq!(line(a, b).count(), 5);
        assert!(between(a, Square::new(4, 2)).is_empty());
        assert!(line(a, Square::new(4, 2)).is_empty());
        assert!(between(a, Square::new(4, 4)).is_empty());
        assert_eq!(line(a, Square::new(4, 4)), Bitboard::rank(4));
    }

    #[test]
    fn flip_rotates() {
        let bb =
            Bitboard::from_square(Square::new(5, 4)) | Bitboard::from_square(Square::new(2, 1));
        let flipped = bb.flip();
        assert!(flipped.has(Square::new(1, 0)));
        assert!(flipped.has(Square::new(4, 3)));
        assert_eq!(flipped.count(), 2);
    }
}
