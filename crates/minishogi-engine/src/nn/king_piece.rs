//! The king-piece feature set ([`FeatureSet::KingPiece`](super::feature_set::FeatureSet)): the
//! seed's 361 inputs, then which piece stands where, absolutely and relative to each king.
//!
//! From a perspective ("own" = the side to move for the network's input; squares rotated 180°
//! for gote as in the seed's set), a piece is `(side, kind)`: `side` 0 own, 1 opponent, `kind`
//! the rules' [`PieceKind`] index (10 kinds, promoted ones and kings included), so `piece =
//! side * 10 + kind` in 0..20.
//!
//! | range            | count  | meaning                                                       |
//! |------------------|--------|---------------------------------------------------------------|
//! | 0..361           | 361    | the seed's inputs, same indices (attacks, occupancy, hands, side to move) |
//! | 361..861         | 500    | piece-square: `361 + piece * 25 + square`                    |
//! | 861..13361       | 12,500 | own king's square × piece-square: `861 + own_king * 500 + piece * 25 + square` |
//! | 13361..25861     | 12,500 | the opponent king's square × piece-square, the same way       |
//!
//! The king blocks are HalfKP's "king square × piece × square" for both kings (HalfKA: kings
//! included as pieces). The seed's attack planes stay: they say what the pieces reach (sliders'
//! lines, defended squares), which no piece-square input says, and keeping the seed's indices
//! lets a king-piece network start from a trained seed network (its 361 columns copied, the new
//! ones zero: the same evaluation), which a few minutes of training then improve.
//!
//! One perspective's king blocks are the other's with own and opponent swapped, so, as for the
//! seed's set, [`other_perspective`] is a permutation and one feature vector per position serves
//! both accumulators of the quantised path. A king move changes its block's ≤ 12 inputs
//! (removed at the old square, added at the new) in both perspectives; [`piece_changes`] finds
//! a move's changes from the two positions for the quantised update.

use super::features::{
    FeatureSink, NUM_FEATURES, changed_squares, feature_name as seed_feature_name,
};
use crate::shogi::{Bitboard, Color, Piece, PieceKind, Position, Square};

/// Weights files name this set by this id.
pub const FEATURE_SET_ID: u32 = 2;
/// `(side, kind)` pairs.
pub const PIECES: usize = 2 * PieceKind::COUNT;
/// One piece-square block: 500 inputs.
pub const BLOCK: usize = PIECES * 25;
pub const PIECE_SQUARE_OFFSET: usize = NUM_FEATURES;
pub const OWN_KING_OFFSET: usize = PIECE_SQUARE_OFFSET + BLOCK;
pub const OPP_KING_OFFSET: usize = OWN_KING_OFFSET + 25 * BLOCK;
pub const NUM_INPUTS: usize = OPP_KING_OFFSET + 25 * BLOCK;
/// Minishogi has 12 pieces: at most 12 on the board, each in three blocks.
pub const MAX_ACTIVE: usize = NUM_FEATURES + 3 * 12;

/// Index of `(side, kind)` on `sq` in a piece-square block.
#[inline(always)]
pub const fn piece_square(side: usize, kind: usize, sq: usize) -> usize {
    (side * PieceKind::COUNT + kind) * 25 + sq
}

/// Adds the piece inputs of `pos` seen by `perspective` (the seed's are already in `f`), in
/// ascending order as [`Features`](super::feature_set::Features) keeps them: the board's piece-squares sorted, then the three
/// blocks one after the other.
pub(super) fn extract_pieces(f: &mut impl FeatureSink, pos: &Position, perspective: Color) {
    let orient = |sq: Square| match perspective {
        Color::Sente => sq.index(),
        Color::Gote => sq.flip().index(),
    };
    let own_king = pos.king_square(perspective).map(orient);
    let opp_king = pos.king_square(!perspective).map(orient);
    // At most 12 pieces: the rules' piece count (a position with more is not extracted past it).
    let mut squares = [0u16; 12];
    let mut n = 0;
    for (side, color) in [(0usize, perspective), (1, !perspective)] {
        for kind in PieceKind::ALL {
            let bb: Bitboard = pos.pieces_of(color, kind);
            for sq in bb {
                if n < squares.len() {
                    squares[n] = piece_square(side, kind.index(), orient(sq)) as u16;
                    n += 1;
                }
            }
        }
    }
    let squares = &mut squares[..n];
    squares.sort_unstable();
    let blocks = [
        Some(PIECE_SQUARE_OFFSET),
        own_king.map(|k| OWN_KING_OFFSET + k * BLOCK),
        opp_king.map(|k| OPP_KING_OFFSET + k * BLOCK),
    ];
    for base in blocks.into_iter().flatten() {
        for &ps in squares.iter() {
            f.add_beyond_seed(base + ps as usize);
        }
    }
}

/// Appends to `changes` the inputs past the seed's that differ between `before` and `after`
/// (sente's view), as `(index, after − before)`, from what differs, not from two extractions:
/// in each block whose king stayed (and the plain piece-square block) the pieces of the squares
/// that changed, and in a block whose king moved all its pieces, out of the old block and into
/// the new. With [`seed_changes`](super::features::seed_changes) first, all of a move's changes.
pub fn piece_changes(before: &Position, after: &Position, changes: &mut Vec<(u16, i32)>) {
    // Sente's view: sente's pieces are "own", squares unrotated.
    let index = |p: Piece, sq: Square| piece_square(p.color.index(), p.kind.index(), sq.index());
    let king_block = |pos: &Position, color: Color, offset: usize| {
        pos.king_square(color).map(|k| offset + k.index() * BLOCK)
    };
    let differ = changed_squares(before, after);
    let blocks = [
        (Some(PIECE_SQUARE_OFFSET), Some(PIECE_SQUARE_OFFSET)),
        (
            king_block(before, Color::Sente, OWN_KING_OFFSET),
            king_block(after, Color::Sente, OWN_KING_OFFSET),
        ),
        (
            king_block(before, Color::Gote, OPP_KING_OFFSET),
            king_block(after, Color::Gote, OPP_KING_OFFSET),
        ),
    ];
    for (old, new) in blocks {
        let (old_squares, new_squares) = if old == new {
            (differ, differ)
        } else {
            (before.occupied(), after.occupied())
        };
        if let Some(base) = old {
            for sq in old_squares {
                if let Some(p) = before.piece_at(sq) {
                    changes.push(((base + index(p, sq)) as u16, -1));
                }
            }
        }
        if let Some(base) = new {
            for sq in new_squares {
                if let Some(p) = after.piece_at(sq) {
                    changes.push(((base + index(p, sq)) as u16, 1));
                }
            }
        }
    }
}

/// A piece-square index seen by the other perspective: side swapped, square rotated.
const fn flip_piece_square(ps: usize) -> usize {
    let (piece, sq) = (ps / 25, ps % 25);
    let (side, kind) = (piece / PieceKind::COUNT, piece % PieceKind::COUNT);
    piece_square(1 - side, kind, 24 - sq)
}

/// The index an input has for the other perspective: the seed's inputs as the seed's set maps
/// them, piece-squares with sides swapped and squares rotated, and the own king's block
/// becoming the opponent king's (its king square rotated) and back.
pub fn other_perspective(i: usize) -> usize {
    if i < PIECE_SQUARE_OFFSET {
        super::features::other_perspective(i)
    } else if i < OWN_KING_OFFSET {
        PIECE_SQUARE_OFFSET + flip_piece_square(i - PIECE_SQUARE_OFFSET)
    } else {
        let (from, to) = if i < OPP_KING_OFFSET {
            (OWN_KING_OFFSET, OPP_KING_OFFSET)
        } else {
            (OPP_KING_OFFSET, OWN_KING_OFFSET)
        };
        let j = i - from;
        let (king, ps) = (j / BLOCK, j % BLOCK);
        to + (24 - king) * BLOCK + flip_piece_square(ps)
    }
}

fn piece_square_name(ps: usize) -> String {
    let (piece, sq) = (ps / 25, ps % 25);
    let side = if piece / PieceKind::COUNT == 0 {
        "own"
    } else {
        "opp"
    };
    let kind = PieceKind::ALL[piece % PieceKind::COUNT];
    format!("{side} {kind:?} on {}", Square::from_index(sq)).to_lowercase()
}

/// Human-readable name of an input, e.g. `own king 5e: opp gold on 4d`.
pub fn feature_name(i: usize) -> String {
    if i < PIECE_SQUARE_OFFSET {
        seed_feature_name(i)
    } else if i < OWN_KING_OFFSET {
        piece_square_name(i - PIECE_SQUARE_OFFSET)
    } else if i < NUM_INPUTS {
        let (who, j) = if i < OPP_KING_OFFSET {
            ("own", i - OWN_KING_OFFSET)
        } else {
            ("opp", i - OPP_KING_OFFSET)
        };
        format!(
            "{who} king {}: {}",
            Square::from_index(j / BLOCK),
            piece_square_name(j % BLOCK)
        )
    } else {
        format!("feature {i} (out of range)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::feature_set::{FeatureSet, Features};
    use crate::nn::features::{SIDE_TO_MOVE_INDEX, seed_changes};
    use crate::shogi::Piece;
    use crate::testing::{position_pairs, random_positions};

    const SET: FeatureSet = FeatureSet::KingPiece;

    fn sq(usi: &str) -> Square {
        let b = usi.as_bytes();
        Square::new(b[0] - b'0', b[1] - b'a')
    }

    #[test]
    fn sets_have_distinct_ids_and_input_counts() {
        assert_eq!(NUM_INPUTS, 25_861);
        for a in FeatureSet::ALL {
            assert_eq!(FeatureSet::from_id(a.id()), Some(a));
            assert_eq!(FeatureSet::with_inputs(a.inputs()), Some(a));
            assert_eq!(a.name().parse::<FeatureSet>(), Ok(a));
        }
        assert!("bogus".parse::<FeatureSet>().is_err());
    }

    #[test]
    fn start_position_by_hand() {
        let pos = Position::startpos();
        let f = Features::of_set(SET, &pos);
        let seed = Features::from_position(&pos);
        assert_eq!(&f.values()[..NUM_FEATURES], seed.values());
        // Sente to move: own king on 5e, opponent king on 1a.
        let k = sq("5e").index();
        let gold = piece_square(0, PieceKind::Gold.index(), sq("4e").index());
        assert_eq!(f.get(PIECE_SQUARE_OFFSET + gold), 1);
        assert_eq!(f.get(OWN_KING_OFFSET + k * BLOCK + gold), 1);
        let opp_pawn = piece_square(1, PieceKind::Pawn.index(), sq("1b").index());
        let opp_k = sq("1a").index();
        assert_eq!(f.get(OPP_KING_OFFSET + opp_k * BLOCK + opp_pawn), 1);
        assert_eq!(f.nonzero().count(), seed.nonzero().count() + 3 * 12);
        assert_eq!(
            feature_name(OWN_KING_OFFSET + k * BLOCK + gold),
            "own king 5e: own gold on 4e"
        );
        // Gote to move sees the same start position the same way (it is symmetric).
        let mut g = pos.clone();
        g.set_side_to_move(Color::Gote);
        let fg = Features::of_set(SET, &g);
        for i in 0..NUM_INPUTS {
            if i != SIDE_TO_MOVE_INDEX {
                assert_eq!(f.get(i), fg.get(i), "{}", feature_name(i));
            }
        }
    }

    #[test]
    fn a_missing_king_leaves_its_block_empty() {
        let mut pos = Position::empty();
        pos.put_piece(sq("3c"), Piece::new(Color::Sente, PieceKind::Silver));
        pos.put_piece(sq("1a"), Piece::new(Color::Gote, PieceKind::King));
        let f = Features::of_set(SET, &pos);
        let own_block = OWN_KING_OFFSET..OPP_KING_OFFSET;
        assert!(f.nonzero().all(|(i, _)| !own_block.contains(&i)));
        assert_eq!(
            f.nonzero().filter(|&(i, _)| i >= OPP_KING_OFFSET).count(),
            2
        );
    }

    #[test]
    fn colour_flipped_mirror_gives_same_features() {
        for pos in random_positions(500, 12, 120) {
            let a = Features::of_set(SET, &pos);
            let b = Features::of_set(SET, &pos.flipped());
            for (i, v) in a.nonzero() {
                if i != SIDE_TO_MOVE_INDEX {
                    assert_eq!(b.get(i), v, "{}", feature_name(i));
                }
            }
            let board = |f: &Features| {
                f.nonzero()
                    .filter(|&(i, _)| i != SIDE_TO_MOVE_INDEX)
                    .count()
            };
            assert_eq!(board(&a), board(&b));
        }
    }

    /// A move's changes found from the two positions equal the difference of the two whole
    /// extractions, after every legal move of random positions (king moves, captures, drops,
    /// promotions), a null move and between unrelated positions.
    #[test]
    fn piece_changes_equal_the_difference_of_two_extractions() {
        let diff = |before: &Position, after: &Position| {
            let (mut a, mut b) = (Features::for_set(SET), Features::for_set(SET));
            a.extract_perspective(before, Color::Sente);
            b.extract_perspective(after, Color::Sente);
            let mut d: Vec<(u16, i32)> = (0..NUM_INPUTS)
                .filter(|&i| a.get(i) != b.get(i))
                .map(|i| (i as u16, b.get(i) as i32 - a.get(i) as i32))
                .collect();
            d.sort_unstable();
            d
        };
        let mut changes = Vec::new();
        let pairs = position_pairs(150, 41, 120);
        for (before, after) in &pairs {
            seed_changes(before, after, &mut changes);
            piece_changes(before, after, &mut changes);
            changes.sort_unstable();
            assert_eq!(
                changes,
                diff(before, after),
                "{} → {}",
                before.to_sfen(),
                after.to_sfen()
            );
        }
        let checked = pairs.len();
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn perspectives_are_a_permutation_of_each_other() {
        let mut seen = vec![false; NUM_INPUTS];
        for i in 0..NUM_INPUTS {
            assert_eq!(other_perspective(other_perspective(i)), i);
            seen[other_perspective(i)] = true;
        }
        assert!(seen.iter().all(|&s| s));
        let (mut sente, mut gote) = (Features::for_set(SET), Features::for_set(SET));
        for pos in random_positions(500, 18, 120) {
            sente.extract_perspective(&pos, Color::Sente);
            gote.extract_perspective(&pos, Color::Gote);
            assert_eq!(sente.nonzero().count(), gote.nonzero().count());
            for (i, v) in sente.nonzero() {
                assert_eq!(gote.get(other_perspective(i)), v, "{}", feature_name(i));
            }
        }
    }
}
