//! The king-piece feature sets ([`FeatureSet::KingPiece`](super::feature_set::FeatureSet),
//! `KingBucket` and `PieceBucket`): the seed's 361 inputs (or only its hands and side to move),
//! then which piece stands where, absolutely and relative to each king.
//!
//! From a perspective ("own" = the side to move for the network's input; squares rotated 180°
//! for gote as in the seed's set), a piece is `(side, kind)`: `side` 0 own, 1 opponent, `kind`
//! the rules' [`PieceKind`] index (10 kinds, promoted ones and kings included), so `piece =
//! side * 10 + kind` in 0..20. A [`KingLayout`] says which block a king's square selects: each
//! square its own ([`SQUARES`], the king-piece set) or squares grouped ([`BUCKETS`]).
//!
//! | range (king-piece) | count | meaning                                                       |
//! |------------------|--------|---------------------------------------------------------------|
//! | 0..361           | 361    | the seed's inputs, same indices (attacks, occupancy, hands, side to move) |
//! | 361..861         | 500    | piece-square: `361 + piece * 25 + square`                    |
//! | 861..13361       | 12,500 | own king's block × piece-square: `861 + block * 500 + piece * 25 + square` |
//! | 13361..25861     | 12,500 | the opponent king's block × piece-square, the same way       |
//!
//! The king blocks are HalfKP's "king square × piece × square" for both kings (HalfKA: kings
//! included as pieces). The seed's attack planes stay: they say what the pieces reach (sliders'
//! lines, defended squares), which no piece-square input says, and keeping the seed's indices
//! lets a king-piece network start from a trained seed network (its 361 columns copied, the new
//! ones zero: the same evaluation), which a few minutes of training then improve. The bucketed
//! layout has 8 blocks a king instead of 25 (8,861 inputs): a third of the weights, each block
//! seen three times as often in the data, and a king move inside its bucket changes 2 inputs a
//! block, not 24.
//!
//! The piece-bucket set ([`PIECE_BUCKETS`], 8,511 inputs) is the bucketed one without the
//! seed's attack and presence planes: its first [`PIECES_DENSE`] inputs are the hands (`side *
//! 5 + k`) and the side to move, then the same blocks. NNUE engines' inputs: a move changes a
//! few piece inputs and no attack counts, so the update costs a fraction of the seed's; it
//! cannot start from a seed network and trains from scratch.
//!
//! One perspective's king blocks are the other's with own and opponent swapped, so, as for the
//! seed's set, [`other_perspective`] is a permutation and one feature vector per position serves
//! both accumulators of the quantised path. A king move to another block changes its block's
//! ≤ 12 inputs (removed at the old block, added at the new) in both perspectives;
//! [`piece_changes`] finds a move's changes from the two positions for the quantised update.

use super::features::{
    FeatureSink, NUM_FEATURES, changed_squares, feature_name as seed_feature_name,
};
use crate::shogi::{Bitboard, Color, Piece, PieceKind, Position, Square};

/// `(side, kind)` pairs.
pub const PIECES: usize = 2 * PieceKind::COUNT;
/// One piece-square block: 500 inputs.
pub const BLOCK: usize = PIECES * 25;
/// The inputs before the piece-square block in a set without the seed's planes: the hands
/// (`side * 5 + k`, as the seed orders them) and the side to move.
pub const PIECES_DENSE: usize = 11;
/// Minishogi has 12 pieces: at most 12 on the board, each in three blocks.
pub const MAX_ACTIVE: usize = NUM_FEATURES + 3 * 12;

/// Which block of a king's inputs a king square selects, for the own king and the opponent's
/// (squares oriented for the perspective), and how a block index reads from the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KingLayout {
    /// Weights files name the set by this id.
    pub id: u32,
    /// Inputs before the piece-square block, of small counts: the seed's 361 (attacks,
    /// presence, hands, side to move) or [`PIECES_DENSE`] (hands and side to move alone).
    pub dense: usize,
    /// Blocks a king.
    pub blocks: usize,
    own: [u8; 25],
    opp: [u8; 25],
    /// The own king's block `b` is the other perspective's opponent block `swap[b]` (and back).
    swap: [u8; 25],
}

const fn identity() -> [u8; 25] {
    let mut t = [0u8; 25];
    let mut i = 0;
    while i < 25 {
        t[i] = i as u8;
        i += 1;
    }
    t
}

const fn rotated(t: [u8; 25]) -> [u8; 25] {
    let mut r = [0u8; 25];
    let mut i = 0;
    while i < 25 {
        r[i] = t[24 - i];
        i += 1;
    }
    r
}

/// The king-piece set: a block for every king square (the opponent's too as this side sees it).
pub const SQUARES: KingLayout = KingLayout {
    id: 2,
    dense: NUM_FEATURES,
    blocks: 25,
    own: identity(),
    opp: identity(),
    swap: rotated(identity()),
};

/// King squares by bucket, from the king's own side (rank `e` is its back rank; index = rank ·
/// 5 + file − 1): on the back two ranks the files 5–4, 3 and 2–1 apart (where a king castles
/// decides its shelter), the middle rank one bucket, the far two ranks another (rarely reached).
const BUCKET_OF_SQUARE: [u8; 25] = [
    7, 7, 7, 7, 7, // rank a
    7, 7, 7, 7, 7, // rank b
    6, 6, 6, 6, 6, // rank c
    5, 5, 4, 3, 3, // rank d: files 1, 2 | 3 | 4, 5
    2, 2, 1, 0, 0, // rank e
];

/// The king-bucket set: 8 blocks a king ([`BUCKET_OF_SQUARE`]); the opponent king's bucket is
/// read from its own side, so a block is the same bucket in both perspectives.
pub const BUCKETS: KingLayout = KingLayout {
    id: 3,
    dense: NUM_FEATURES,
    blocks: 8,
    own: BUCKET_OF_SQUARE,
    opp: rotated(BUCKET_OF_SQUARE),
    swap: identity(),
};

/// The piece-bucket set: the king-bucket set without the seed's attack and presence planes
/// (8,511 inputs). A move changes a few piece inputs and no attack counts, so its update is
/// cheap; what the planes said (lines, defended squares) the first layer must learn.
pub const PIECE_BUCKETS: KingLayout = KingLayout {
    id: 4,
    dense: PIECES_DENSE,
    ..BUCKETS
};

impl KingLayout {
    /// Whether the set starts with the seed's 361 inputs.
    pub const fn has_seed(&self) -> bool {
        self.dense == NUM_FEATURES
    }

    /// The dense inputs are the seed's last `dense` (its hands and side to move are its last
    /// 11, in the same order), this many indices lower.
    const fn seed_shift(&self) -> usize {
        NUM_FEATURES - self.dense
    }

    /// Where the plain piece-square block starts.
    pub const fn piece_square_offset(&self) -> usize {
        self.dense
    }

    /// Where the own king's blocks start.
    pub const fn own_offset(&self) -> usize {
        self.dense + BLOCK
    }

    /// Where the opponent king's blocks start.
    pub const fn opp_offset(&self) -> usize {
        self.own_offset() + self.blocks * BLOCK
    }

    /// Whether input `i` is in the plain piece-square block.
    pub const fn is_plain(&self, i: usize) -> bool {
        i >= self.piece_square_offset() && i < self.own_offset()
    }

    /// For an input of the own king's blocks, the plain piece-square input of the same piece
    /// on the same square: the one active with it whenever it is (a king is always on the
    /// board, so each piece has exactly one own-king input active), so a first layer may add
    /// its weights into the block's and drop it.
    pub const fn plain_of_own(&self, i: usize) -> Option<usize> {
        if i >= self.own_offset() && i < self.opp_offset() {
            Some(self.piece_square_offset() + (i - self.own_offset()) % BLOCK)
        } else {
            None
        }
    }

    /// Number of inputs.
    pub const fn inputs(&self) -> usize {
        self.own_offset() + 2 * self.blocks * BLOCK
    }

    /// The side-to-move input.
    pub const fn side_to_move_index(&self) -> usize {
        self.dense - 1
    }

    /// First input of the own king's block for its (oriented) square `k`.
    fn own_block(&self, k: usize) -> usize {
        self.own_offset() + self.own[k] as usize * BLOCK
    }

    /// First input of the opponent king's block for its (oriented) square `k`.
    fn opp_block(&self, k: usize) -> usize {
        self.opp_offset() + self.opp[k] as usize * BLOCK
    }

    /// The squares of the own king's block `b`, as text (`5e` or `5e 4e`).
    fn block_squares(&self, b: usize) -> String {
        let squares: Vec<String> = (0..25)
            .filter(|&k| self.own[k] as usize == b)
            .map(|k| Square::from_index(k).to_string())
            .collect();
        squares.join(" ")
    }
}

/// Index of `(side, kind)` on `sq` in a piece-square block.
#[inline(always)]
pub const fn piece_square(side: usize, kind: usize, sq: usize) -> usize {
    (side * PieceKind::COUNT + kind) * 25 + sq
}

/// Adds the piece inputs of `pos` seen by `perspective` (the seed's are already in `f`), in
/// ascending order as [`Features`](super::feature_set::Features) keeps them: the board's piece-squares sorted, then the three
/// blocks one after the other.
pub(super) fn extract_pieces(
    layout: &KingLayout,
    f: &mut impl FeatureSink,
    pos: &Position,
    perspective: Color,
) {
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
        Some(layout.piece_square_offset()),
        own_king.map(|k| layout.own_block(k)),
        opp_king.map(|k| layout.opp_block(k)),
    ];
    for base in blocks.into_iter().flatten() {
        for &ps in squares.iter() {
            f.add_beyond_seed(base + ps as usize);
        }
    }
}

/// Appends to `changes` the inputs past the seed's that differ between `before` and `after`
/// (sente's view), as `(index, after − before)`, from what differs, not from two extractions:
/// in each king's block that stayed the same (and the plain piece-square block) the pieces of
/// the squares that changed, and where a king's move changed its block all its pieces, out of
/// the old block and into the new (a king moving inside its bucket is an ordinary piece). With
/// [`seed_changes`](super::features::seed_changes) first, all of a move's changes.
pub fn piece_changes(
    layout: &KingLayout,
    before: &Position,
    after: &Position,
    changes: &mut Vec<(u16, i32)>,
) {
    // Sente's view: sente's pieces are "own", squares unrotated.
    let index = |p: Piece, sq: Square| piece_square(p.color.index(), p.kind.index(), sq.index());
    let king_block = |pos: &Position, color: Color| {
        pos.king_square(color).map(|k| match color {
            Color::Sente => layout.own_block(k.index()),
            Color::Gote => layout.opp_block(k.index()),
        })
    };
    let differ = changed_squares(before, after);
    let plain = layout.piece_square_offset();
    let blocks = [
        (Some(plain), Some(plain)),
        (
            king_block(before, Color::Sente),
            king_block(after, Color::Sente),
        ),
        (
            king_block(before, Color::Gote),
            king_block(after, Color::Gote),
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
/// becoming the opponent king's (its block as the layout's `swap` reads it) and back.
pub fn other_perspective(layout: &KingLayout, i: usize) -> usize {
    let (plain, own_offset, opp_offset) = (
        layout.piece_square_offset(),
        layout.own_offset(),
        layout.opp_offset(),
    );
    if i < plain {
        let shift = layout.seed_shift();
        super::features::other_perspective(i + shift) - shift
    } else if i < own_offset {
        plain + flip_piece_square(i - plain)
    } else {
        let (from, to) = if i < opp_offset {
            (own_offset, opp_offset)
        } else {
            (opp_offset, own_offset)
        };
        let j = i - from;
        let (block, ps) = (j / BLOCK, j % BLOCK);
        to + layout.swap[block] as usize * BLOCK + flip_piece_square(ps)
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

/// Human-readable name of an input, e.g. `own king 5e: opp gold on 4d` (`own king 4e 5e: …`
/// for a bucket). An opponent block's squares are as this side sees them in the king-piece
/// set, as the opponent sees them in the bucketed one (`opp` is `own` rotated there).
pub fn feature_name(layout: &KingLayout, i: usize) -> String {
    let (plain, own_offset, opp_offset) = (
        layout.piece_square_offset(),
        layout.own_offset(),
        layout.opp_offset(),
    );
    if i < plain {
        seed_feature_name(i + layout.seed_shift())
    } else if i < own_offset {
        piece_square_name(i - plain)
    } else if i < layout.inputs() {
        let (who, j) = if i < opp_offset {
            ("own", i - own_offset)
        } else {
            ("opp", i - opp_offset)
        };
        let squares = layout.block_squares(j / BLOCK);
        format!("{who} king {squares}: {}", piece_square_name(j % BLOCK))
    } else {
        format!("feature {i} (out of range)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::feature_set::{FeatureSet, Features};
    use crate::shogi::Piece;
    use crate::testing::{position_pairs, random_positions};

    /// The sets with king blocks and their layouts.
    const SETS: [(FeatureSet, KingLayout); 3] = [
        (FeatureSet::KingPiece, SQUARES),
        (FeatureSet::KingBucket, BUCKETS),
        (FeatureSet::PieceBucket, PIECE_BUCKETS),
    ];

    fn sq(usi: &str) -> Square {
        let b = usi.as_bytes();
        Square::new(b[0] - b'0', b[1] - b'a')
    }

    #[test]
    fn sets_have_distinct_ids_and_input_counts() {
        assert_eq!(SQUARES.inputs(), 25_861);
        assert_eq!(BUCKETS.inputs(), 8_861);
        assert_eq!(PIECE_BUCKETS.inputs(), 8_511);
        for a in FeatureSet::ALL {
            assert_eq!(FeatureSet::from_id(a.id()), Some(a));
            assert_eq!(FeatureSet::with_inputs(a.inputs()), Some(a));
            assert_eq!(a.name().parse::<FeatureSet>(), Ok(a));
        }
        for (set, layout) in SETS {
            assert_eq!(set.king_layout(), Some(layout));
            assert_eq!((set.id(), set.inputs()), (layout.id, layout.inputs()));
        }
        assert!("bogus".parse::<FeatureSet>().is_err());
        // Every bucket holds a square.
        assert!((0..BUCKETS.blocks).all(|b| !BUCKETS.block_squares(b).is_empty()));
    }

    #[test]
    fn start_position_by_hand() {
        let pos = Position::startpos();
        let seed = Features::from_position(&pos);
        let gold = piece_square(0, PieceKind::Gold.index(), sq("4e").index());
        let opp_pawn = piece_square(1, PieceKind::Pawn.index(), sq("1b").index());
        // Sente to move: own king on 5e, opponent king on 1a (5e from its own side).
        // (own block, opponent block) × BLOCK: 5e is square 24, bucket 0; 1a seen from gote is
        // 5e, in bucket 0, and in the king-piece set square 0 as sente sees it.
        for ((set, layout), (own, opp), name) in [
            (SETS[0], (24 * BLOCK, 0), "own king 5e: own gold on 4e"),
            (SETS[1], (0, 0), "own king 4e 5e: own gold on 4e"),
            (SETS[2], (0, 0), "own king 4e 5e: own gold on 4e"),
        ] {
            let f = Features::of_set(set, &pos);
            // Hands are empty at the start: the piece-bucket set has nothing else dense.
            let dense = if layout.has_seed() {
                assert_eq!(&f.values()[..NUM_FEATURES], seed.values());
                seed.nonzero().count()
            } else {
                0
            };
            assert_eq!(f.get(layout.piece_square_offset() + gold), 1);
            assert_eq!(f.get(layout.own_offset() + own + gold), 1);
            assert_eq!(f.get(layout.opp_offset() + opp + opp_pawn), 1);
            assert_eq!(f.nonzero().count(), dense + 3 * 12);
            assert_eq!(
                feature_name(&layout, layout.own_offset() + own + gold),
                name
            );
            // Gote to move sees the same start position the same way (it is symmetric).
            let mut g = pos.clone();
            g.set_side_to_move(Color::Gote);
            let fg = Features::of_set(set, &g);
            for i in 0..layout.inputs() {
                if i != layout.side_to_move_index() {
                    assert_eq!(f.get(i), fg.get(i), "{}", feature_name(&layout, i));
                }
            }
        }
    }

    #[test]
    fn a_missing_king_leaves_its_block_empty() {
        let mut pos = Position::empty();
        pos.put_piece(sq("3c"), Piece::new(Color::Sente, PieceKind::Silver));
        pos.put_piece(sq("1a"), Piece::new(Color::Gote, PieceKind::King));
        for (set, layout) in SETS {
            let f = Features::of_set(set, &pos);
            let own_block = layout.own_offset()..layout.opp_offset();
            assert!(f.nonzero().all(|(i, _)| !own_block.contains(&i)));
            let in_opp_block = |&(i, _): &(usize, u8)| i >= layout.opp_offset();
            assert_eq!(f.nonzero().filter(in_opp_block).count(), 2);
        }
    }

    #[test]
    fn colour_flipped_mirror_gives_same_features() {
        for (set, layout) in SETS {
            for pos in random_positions(300, 12, 120) {
                let a = Features::of_set(set, &pos);
                let b = Features::of_set(set, &pos.flipped());
                let side_to_move = layout.side_to_move_index();
                for (i, v) in a.nonzero() {
                    if i != side_to_move {
                        assert_eq!(b.get(i), v, "{}", feature_name(&layout, i));
                    }
                }
                let board = |f: &Features| f.nonzero().filter(|&(i, _)| i != side_to_move).count();
                assert_eq!(board(&a), board(&b));
            }
        }
    }

    /// A move's changes found from the two positions equal the difference of the two whole
    /// extractions, after every legal move of random positions (king moves, captures, drops,
    /// promotions), a null move and between unrelated positions.
    #[test]
    fn piece_changes_equal_the_difference_of_two_extractions() {
        let pairs = position_pairs(150, 41, 120);
        assert!(pairs.len() > 1000, "{}", pairs.len());
        for (set, layout) in SETS {
            let diff = |before: &Position, after: &Position| {
                let (mut a, mut b) = (Features::for_set(set), Features::for_set(set));
                a.extract_perspective(before, Color::Sente);
                b.extract_perspective(after, Color::Sente);
                let mut d: Vec<(u16, i32)> = (0..layout.inputs())
                    .filter(|&i| a.get(i) != b.get(i))
                    .map(|i| (i as u16, b.get(i) as i32 - a.get(i) as i32))
                    .collect();
                d.sort_unstable();
                d
            };
            let mut changes = Vec::new();
            for (before, after) in &pairs {
                set.changes(before, after, &mut changes);
                changes.sort_unstable();
                assert_eq!(
                    changes,
                    diff(before, after),
                    "{set}: {} → {}",
                    before.to_sfen(),
                    after.to_sfen()
                );
            }
        }
    }

    #[test]
    fn perspectives_are_a_permutation_of_each_other() {
        for (set, layout) in SETS {
            let inputs = layout.inputs();
            let mut seen = vec![false; inputs];
            for i in 0..inputs {
                assert_eq!(other_perspective(&layout, other_perspective(&layout, i)), i);
                seen[other_perspective(&layout, i)] = true;
            }
            assert!(seen.iter().all(|&s| s));
            let (mut sente, mut gote) = (Features::for_set(set), Features::for_set(set));
            for pos in random_positions(300, 18, 120) {
                sente.extract_perspective(&pos, Color::Sente);
                gote.extract_perspective(&pos, Color::Gote);
                assert_eq!(sente.nonzero().count(), gote.nonzero().count());
                for (i, v) in sente.nonzero() {
                    let j = other_perspective(&layout, i);
                    assert_eq!(gote.get(j), v, "{}", feature_name(&layout, i));
                }
            }
        }
    }
}
