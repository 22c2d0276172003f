//! The networks' input feature sets ([`FeatureSet`]) and the buffer they are extracted into
//! ([`Features`]). This file owns the seed's 361 inputs; `king_piece.rs` the king-relative set,
//! whose first 361 inputs are these. Always from the side to move's point of view ("own" = side
//! to move).
//!
//! Squares are seen from own side: for sente a square's plane index is its board index
//! (`rank * 5 + file − 1`, rank `a` = 0); for gote the board is rotated 180° first
//! (`Square::flip`), so the network always sees itself moving towards index 0.
//!
//! | range     | count | meaning                                                           |
//! |-----------|-------|-------------------------------------------------------------------|
//! | 0..300    | 300   | attack counts: `(side * 6 + group) * 25 + square`                  |
//! | 300..350  | 50    | piece presence: `300 + side * 25 + square`                         |
//! | 350..360  | 10    | hand counts: `350 + side * 5 + k`, k = pawn, silver, gold, bishop, rook |
//! | 360       | 1     | side to move: 0 sente, 1 gote                                      |
//!
//! `side` is 0 for own, 1 for the opponent. Groups: 0 pawn+と, 1 bishop+馬, 2 rook+龍,
//! 3 silver+成銀, 4 gold, 5 king (the seed's order). An attack plane counts, for every square,
//! how many pieces of the group attack it (own-occupied squares included: defence counts).

use crate::shogi::bitboard::attacks;
use crate::shogi::{Bitboard, Color, PieceKind, Position, Square};

use super::king_piece;

/// Inputs of the seed's set ([`FeatureSet::Seed361`]).
pub const NUM_FEATURES: usize = 361;
/// Identifies the seed's layout in weights files ([`FeatureSet::id`]).
pub const FEATURE_SET_ID: u32 = 1;

/// Which inputs a network takes. A weights file names its set by [`FeatureSet::id`]; each set
/// has its own input count (checked by a test), so a network's first layer also tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FeatureSet {
    /// The seed's 361 inputs: attack counts per piece group, occupancy, hands, side to move.
    #[default]
    Seed361,
    /// The seed's 361 inputs, then piece kind × square for both sides and the same pieces
    /// relative to each king (see `king_piece.rs`).
    KingPiece,
}

impl FeatureSet {
    pub const ALL: [FeatureSet; 2] = [FeatureSet::Seed361, FeatureSet::KingPiece];

    /// The id stored in weights files.
    pub const fn id(self) -> u32 {
        match self {
            FeatureSet::Seed361 => FEATURE_SET_ID,
            FeatureSet::KingPiece => king_piece::FEATURE_SET_ID,
        }
    }

    pub fn from_id(id: u32) -> Option<FeatureSet> {
        FeatureSet::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The set whose input count is `n`.
    pub fn with_inputs(n: usize) -> Option<FeatureSet> {
        FeatureSet::ALL.into_iter().find(|s| s.inputs() == n)
    }

    /// Number of inputs.
    pub const fn inputs(self) -> usize {
        match self {
            FeatureSet::Seed361 => NUM_FEATURES,
            FeatureSet::KingPiece => king_piece::NUM_INPUTS,
        }
    }

    /// Most inputs one position can have non-zero (sizes the sparse buffers).
    pub const fn max_active(self) -> usize {
        match self {
            FeatureSet::Seed361 => NUM_FEATURES,
            FeatureSet::KingPiece => king_piece::MAX_ACTIVE,
        }
    }

    /// The name command lines take.
    pub const fn name(self) -> &'static str {
        match self {
            FeatureSet::Seed361 => "seed361",
            FeatureSet::KingPiece => "king-piece",
        }
    }

    /// The index a feature has for the other perspective (see [`other_perspective`]).
    pub fn other_perspective(self, i: usize) -> usize {
        match self {
            FeatureSet::Seed361 => other_perspective(i),
            FeatureSet::KingPiece => king_piece::other_perspective(i),
        }
    }

    /// Human-readable name of an input.
    pub fn feature_name(self, i: usize) -> String {
        match self {
            FeatureSet::Seed361 => feature_name(i),
            FeatureSet::KingPiece => king_piece::feature_name(i),
        }
    }
}

impl std::fmt::Display for FeatureSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for FeatureSet {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        FeatureSet::ALL
            .into_iter()
            .find(|set| set.name() == s.to_ascii_lowercase())
            .ok_or_else(|| format!("unknown feature set `{s}` (expected seed361 or king-piece)"))
    }
}
pub const GROUPS: usize = 6;
pub const ATTACK_OFFSET: usize = 0;
pub const PRESENCE_OFFSET: usize = 300;
pub const HAND_OFFSET: usize = 350;
pub const SIDE_TO_MOVE_INDEX: usize = 360;

pub const GROUP_NAMES: [&str; GROUPS] = [
    "pawn+tokin",
    "bishop+horse",
    "rook+dragon",
    "silver+promoted silver",
    "gold",
    "king",
];

/// Attack group of a piece kind.
#[inline(always)]
pub const fn group_of(kind: PieceKind) -> usize {
    match kind {
        PieceKind::Pawn | PieceKind::ProPawn => 0,
        PieceKind::Bishop | PieceKind::Horse => 1,
        PieceKind::Rook | PieceKind::Dragon => 2,
        PieceKind::Silver | PieceKind::ProSilver => 3,
        PieceKind::Gold => 4,
        PieceKind::King => 5,
    }
}

/// Index of an attack-count feature; `side` 0 = own, 1 = opponent; `sq` already oriented.
#[inline(always)]
pub const fn attack_index(side: usize, group: usize, sq: usize) -> usize {
    ATTACK_OFFSET + (side * GROUPS + group) * 25 + sq
}

#[inline(always)]
pub const fn presence_index(side: usize, sq: usize) -> usize {
    PRESENCE_OFFSET + side * 25 + sq
}

/// `k` is the hand order of `PieceKind::HAND` (pawn, silver, gold, bishop, rook).
#[inline(always)]
pub const fn hand_index(side: usize, k: usize) -> usize {
    HAND_OFFSET + side * 5 + k
}

/// A square as the side to move sees it.
#[inline(always)]
pub fn orient(sq: Square, side_to_move: Color) -> usize {
    match side_to_move {
        Color::Sente => sq.index(),
        Color::Gote => sq.flip().index(),
    }
}

/// A set of squares as the side to move sees it.
#[inline(always)]
fn orient_bb(bb: Bitboard, side_to_move: Color) -> Bitboard {
    match side_to_move {
        Color::Sente => bb,
        Color::Gote => bb.flip(),
    }
}

/// The index a feature has for the other perspective: own and opponent swapped, the square
/// rotated 180°. For every position, the value of feature `i` seen by sente is the value of
/// feature `other_perspective(i)` seen by gote. The side-to-move input maps to itself.
pub const fn other_perspective(i: usize) -> usize {
    if i < PRESENCE_OFFSET {
        let (plane, sq) = (i / 25, i % 25);
        let (side, group) = (plane / GROUPS, plane % GROUPS);
        attack_index(1 - side, group, 24 - sq)
    } else if i < HAND_OFFSET {
        let j = i - PRESENCE_OFFSET;
        presence_index(1 - j / 25, 24 - j % 25)
    } else if i < SIDE_TO_MOVE_INDEX {
        let j = i - HAND_OFFSET;
        hand_index(1 - j / 5, j % 5)
    } else {
        i
    }
}

/// Human-readable name of a feature, e.g. `own gold attacks 3c` (square in own orientation,
/// USI naming as if own side were sente).
pub fn feature_name(i: usize) -> String {
    let side_name = |s: usize| if s == 0 { "own" } else { "opp" };
    let sq_name = |s: usize| Square::from_index(s).to_string();
    match i {
        0..300 => {
            let (plane, sq) = (i / 25, i % 25);
            format!(
                "{} {} attacks {}",
                side_name(plane / GROUPS),
                GROUP_NAMES[plane % GROUPS],
                sq_name(sq)
            )
        }
        300..350 => {
            let j = i - PRESENCE_OFFSET;
            format!("{} piece on {}", side_name(j / 25), sq_name(j % 25))
        }
        350..360 => {
            let j = i - HAND_OFFSET;
            let kind = PieceKind::HAND[j % 5];
            format!("{} {:?} in hand", side_name(j / 5), kind).to_lowercase()
        }
        360 => "gote to move".to_string(),
        _ => format!("feature {i} (out of range)"),
    }
}

/// Features of one position in one [`FeatureSet`], dense and sparse at once: `values` holds
/// the counts of the seed's 361 inputs and `nonzero` lists the indices that are not zero (the
/// seed's in order of first touch, then a larger set's additions in ascending order). The
/// additions (which piece stands where) are all 1 and each set at most once, so they are kept
/// as that list only: a dense array of the king-piece set's 25,861 would be 25 KB a position,
/// which the search's path of positions would drag through the cache. Sized once for its set,
/// so re-extracting into the same buffer allocates nothing.
#[derive(Clone)]
pub struct Features {
    set: FeatureSet,
    values: [u8; NUM_FEATURES],
    nonzero: Box<[u16]>,
    len: usize,
    /// `nonzero[seed_len..pieces_end]`: the additions past the seed's inputs, ascending.
    seed_len: usize,
    pieces_end: usize,
}

impl Default for Features {
    fn default() -> Self {
        Features::new()
    }
}

impl std::fmt::Debug for Features {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.nonzero()).finish()
    }
}

impl PartialEq for Features {
    /// Same feature values; the order of first touch does not matter.
    fn eq(&self, other: &Self) -> bool {
        self.set == other.set
            && self.values == other.values
            && self.beyond_seed_indices() == other.beyond_seed_indices()
    }
}

impl Features {
    /// A buffer of the seed's set.
    pub fn new() -> Features {
        Features::for_set(FeatureSet::Seed361)
    }

    /// A buffer of `set`'s inputs.
    pub fn for_set(set: FeatureSet) -> Features {
        Features {
            set,
            values: [0; NUM_FEATURES],
            nonzero: vec![0; set.max_active()].into_boxed_slice(),
            len: 0,
            seed_len: 0,
            pieces_end: 0,
        }
    }

    /// The seed's features of `pos`.
    pub fn from_position(pos: &Position) -> Features {
        Features::of_set(FeatureSet::Seed361, pos)
    }

    /// `set`'s features of `pos`.
    pub fn of_set(set: FeatureSet, pos: &Position) -> Features {
        let mut f = Features::for_set(set);
        f.extract(pos);
        f
    }

    pub fn feature_set(&self) -> FeatureSet {
        self.set
    }

    /// Recomputes the features of `pos` into this buffer.
    pub fn extract(&mut self, pos: &Position) {
        let stm = pos.side_to_move();
        self.extract_perspective(pos, stm);
        if stm == Color::Gote {
            self.set(SIDE_TO_MOVE_INDEX, 1);
        }
    }

    /// The features of `pos` as `perspective` sees it ("own" = `perspective`, squares
    /// oriented for it) whoever is to move, without the side-to-move input. An incremental
    /// first layer keeps one sum per perspective from these (see `nn::quant`).
    pub fn extract_perspective(&mut self, pos: &Position, perspective: Color) {
        self.extract_seed(pos, perspective);
        self.seed_len = self.len;
        if self.set == FeatureSet::KingPiece {
            king_piece::extract_pieces(self, pos, perspective);
        }
        self.pieces_end = self.len;
    }

    /// The seed's 360 perspective inputs (every set starts with them).
    fn extract_seed(&mut self, pos: &Position, perspective: Color) {
        self.clear();
        let stm = perspective;
        let occ = pos.occupied();
        for (side, color) in [(0usize, stm), (1, !stm)] {
            for sq in pos.pieces(color) {
                let kind = match pos.piece_at(sq) {
                    Some(p) => p.kind,
                    None => continue, // bitboards and board agree in a valid position
                };
                let plane = attack_index(side, group_of(kind), 0);
                for t in orient_bb(attacks(color, kind, sq, occ), stm) {
                    self.bump(plane + t.index());
                }
            }
            let base = presence_index(side, 0);
            for sq in orient_bb(pos.pieces(color), stm) {
                self.bump(base + sq.index());
            }
            let hand = pos.hand(color);
            for (k, &kind) in PieceKind::HAND.iter().enumerate() {
                let n = hand.count(kind);
                if n > 0 {
                    self.set(hand_index(side, k), n);
                }
            }
        }
    }

    /// Resets to all zeros. (Writing all 361 bytes of the seed's inputs is a dozen vector
    /// stores, fewer than the hundred-odd scattered ones of zeroing only the entries that were
    /// set.)
    pub fn clear(&mut self) {
        self.values.fill(0);
        self.len = 0;
        self.seed_len = 0;
        self.pieces_end = 0;
    }

    #[inline(always)]
    fn bump(&mut self, i: usize) {
        // Branch-free: whether a square is already attacked is unpredictable. The speculative
        // write at `len` stays in bounds: at most 355 entries are set before any bump.
        let v = self.values[i];
        self.nonzero[self.len] = i as u16;
        self.len += (v == 0) as usize;
        self.values[i] = v + 1;
    }

    /// Sets one of the seed's inputs, `i`, to `v` (not zero).
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize, v: u8) {
        if self.values[i] == 0 {
            self.nonzero[self.len] = i as u16;
            self.len += 1;
        }
        self.values[i] = v;
    }

    /// Sets input `i` past the seed's to 1: each at most once, in ascending order.
    #[inline(always)]
    pub(super) fn add_beyond_seed(&mut self, i: usize) {
        debug_assert!(i >= NUM_FEATURES && i < self.set.inputs());
        debug_assert!(self.len == self.seed_len || self.nonzero[self.len - 1] < i as u16);
        self.nonzero[self.len] = i as u16;
        self.len += 1;
    }

    /// The seed's 361 inputs' values (a larger set's additions are the 1s of
    /// [`Features::beyond_seed_indices`]).
    pub fn values(&self) -> &[u8] {
        &self.values
    }

    pub fn get(&self, i: usize) -> u8 {
        match self.values.get(i) {
            Some(&v) => v,
            None => u16::try_from(i)
                .is_ok_and(|i| self.beyond_seed_indices().binary_search(&i).is_ok())
                as u8,
        }
    }

    /// Indices of the non-zero features.
    pub fn nonzero_indices(&self) -> &[u16] {
        &self.nonzero[..self.len]
    }

    /// Indices of the non-zero features past the seed's 361 (a larger set's additions, each
    /// 1), ascending.
    pub fn beyond_seed_indices(&self) -> &[u16] {
        &self.nonzero[self.seed_len..self.pieces_end]
    }

    /// `(index, value)` of every non-zero feature.
    pub fn nonzero(&self) -> impl Iterator<Item = (usize, u8)> + '_ {
        self.nonzero_indices().iter().map(|&i| {
            let i = i as usize;
            (i, self.values.get(i).copied().unwrap_or(1))
        })
    }

    /// The dense input vector as the ndarray network takes it.
    pub fn to_f32(&self) -> Vec<f32> {
        let mut x = vec![0.0; self.set.inputs()];
        for (i, v) in self.nonzero() {
            x[i] = v as f32;
        }
        x
    }

    /// One 5×5 plane (25 values starting at `offset`) as text: rows rank a..e from own side,
    /// columns file 5..1 (the seed's A..E), for tests and debugging.
    pub fn plane_text(&self, offset: usize) -> String {
        let mut s = String::new();
        for rank in 0..5 {
            for col in 0..5 {
                let file = 5 - col;
                let v = self.values[offset + rank * 5 + file - 1];
                s.push(char::from_digit(v as u32, 36).unwrap_or('?'));
            }
            if rank < 4 {
                s.push('/');
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Piece;
    use crate::testing::random_positions;

    fn sq(usi: &str) -> Square {
        let b = usi.as_bytes();
        Square::new(b[0] - b'0', b[1] - b'a')
    }

    /// Indices set in one 25-square plane, as USI names (own orientation).
    fn plane_squares(f: &Features, offset: usize) -> Vec<String> {
        (0..25)
            .filter(|&s| f.get(offset + s) != 0)
            .map(|s| Square::from_index(s).to_string())
            .collect()
    }

    fn names(list: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        v.sort_by_key(|s| sq(s).index());
        v
    }

    #[test]
    fn seed_silver_example() {
        // Seed: own silver at 3C (USI 3c) and promoted silver at 3B (USI 4c), sente to move.
        let mut pos = Position::empty();
        pos.put_piece(sq("3c"), Piece::new(Color::Sente, PieceKind::Silver));
        pos.put_piece(sq("4c"), Piece::new(Color::Sente, PieceKind::ProSilver));
        let f = Features::from_position(&pos);
        // Rows 5..1 of the seed = ranks a..e; columns A..E = files 5..1.
        assert_eq!(
            f.plane_text(attack_index(0, 3, 0)),
            "00000/12210/10100/02010/00000"
        );
        // Both pieces in the silver group; nothing else attacks.
        for group in 0..GROUPS {
            if group != 3 {
                assert_eq!(
                    f.plane_text(attack_index(0, group, 0)),
                    "00000/00000/00000/00000/00000"
                );
            }
        }
        assert_eq!(
            plane_squares(&f, presence_index(0, 0)),
            names(&["3c", "4c"])
        );
        assert_eq!(f.get(SIDE_TO_MOVE_INDEX), 0);
        assert_eq!(f.nonzero().count(), 8 + 2);

        // The same pieces for gote, rotated: gote to move sees exactly the seed's plane.
        let mirrored = pos.flipped();
        assert_eq!(mirrored.side_to_move(), Color::Gote);
        let g = Features::from_position(&mirrored);
        assert_eq!(
            g.plane_text(attack_index(0, 3, 0)),
            "00000/12210/10100/02010/00000"
        );
        assert_eq!(g.get(SIDE_TO_MOVE_INDEX), 1);
    }

    #[test]
    fn start_position_by_hand() {
        let f = Features::from_position(&Position::startpos());
        // Sente: K 5e, G 4e, S 3e, B 2e, R 1e, P 5d; gote mirrored.
        let own = |g| plane_squares(&f, attack_index(0, g, 0));
        let opp = |g| plane_squares(&f, attack_index(1, g, 0));
        assert_eq!(own(0), names(&["5c"]));
        assert_eq!(own(1), names(&["3d", "4c", "5b", "1d"]));
        assert_eq!(own(2), names(&["1d", "1c", "1b", "2e"])); // stops on gote's pawn and own bishop
        assert_eq!(own(3), names(&["3d", "4d", "2d"]));
        assert_eq!(own(4), names(&["4d", "5d", "3d", "5e", "3e"]));
        assert_eq!(own(5), names(&["4e", "5d", "4d"]));
        assert_eq!(opp(0), names(&["1c"]));
        assert_eq!(opp(1), names(&["3b", "2c", "1d", "5b"]));
        assert_eq!(opp(2), names(&["5b", "5c", "5d", "4a"]));
        assert_eq!(opp(3), names(&["3b", "2b", "4b"]));
        assert_eq!(opp(4), names(&["2b", "1b", "3b", "1a", "3a"]));
        assert_eq!(opp(5), names(&["2a", "1b", "2b"]));
        // Counts are per group: 3d is attacked by bishop, silver and gold, once each.
        assert_eq!(f.get(attack_index(0, 1, sq("3d").index())), 1);
        assert_eq!(
            plane_squares(&f, presence_index(0, 0)),
            names(&["5d", "1e", "2e", "3e", "4e", "5e"])
        );
        assert_eq!(
            plane_squares(&f, presence_index(1, 0)),
            names(&["1a", "2a", "3a", "4a", "5a", "1b"])
        );
        assert!((HAND_OFFSET..=SIDE_TO_MOVE_INDEX).all(|i| f.get(i) == 0));
        let total: u32 = f.values().iter().map(|&v| v as u32).sum();
        assert_eq!(total, 2 * 20 + 12);
    }

    #[test]
    fn gote_to_move_with_hands_by_hand() {
        // Gote: k 1a, g 2b, rook in hand. Sente: K 5e, P 3c, two bishops in hand. Gote to move,
        // so everything is seen rotated: own = gote.
        let mut pos = Position::empty();
        pos.put_piece(sq("1a"), Piece::new(Color::Gote, PieceKind::King));
        pos.put_piece(sq("2b"), Piece::new(Color::Gote, PieceKind::Gold));
        pos.put_piece(sq("5e"), Piece::new(Color::Sente, PieceKind::King));
        pos.put_piece(sq("3c"), Piece::new(Color::Sente, PieceKind::Pawn));
        pos.set_hand_count(Color::Gote, PieceKind::Rook, 1);
        pos.set_hand_count(Color::Sente, PieceKind::Bishop, 2);
        pos.set_side_to_move(Color::Gote);
        let f = Features::from_position(&pos);
        // Gote king 1a attacks 2a, 1b, 2b -> rotated 4e, 5d, 4d.
        assert_eq!(
            plane_squares(&f, attack_index(0, 5, 0)),
            names(&["4e", "5d", "4d"])
        );
        // Gote gold 2b attacks 1c 2c 3c 1b 3b 2a -> rotated 5c 4c 3c 5d 3d 4e.
        assert_eq!(
            plane_squares(&f, attack_index(0, 4, 0)),
            names(&["5c", "4c", "3c", "5d", "3d", "4e"])
        );
        // Sente king 5e attacks 4e 5d 4d -> rotated 2a 1b 2b; sente pawn 3c attacks 3b -> 3d.
        assert_eq!(
            plane_squares(&f, attack_index(1, 5, 0)),
            names(&["2a", "1b", "2b"])
        );
        assert_eq!(plane_squares(&f, attack_index(1, 0, 0)), names(&["3d"]));
        assert_eq!(
            plane_squares(&f, presence_index(0, 0)),
            names(&["5e", "4d"])
        );
        assert_eq!(
            plane_squares(&f, presence_index(1, 0)),
            names(&["1a", "3c"])
        );
        assert_eq!(f.get(hand_index(0, 4)), 1);
        assert_eq!(f.get(hand_index(1, 3)), 2);
        assert_eq!(f.get(SIDE_TO_MOVE_INDEX), 1);
        assert_eq!(f.nonzero().count(), 3 + 6 + 3 + 1 + 2 + 2 + 1 + 1 + 1);
    }

    #[test]
    fn colour_flipped_mirror_gives_same_features() {
        for pos in random_positions(2000, 11, 120) {
            let a = Features::from_position(&pos);
            let b = Features::from_position(&pos.flipped());
            for i in 0..NUM_FEATURES {
                if i == SIDE_TO_MOVE_INDEX {
                    assert_ne!(a.get(i), b.get(i));
                } else {
                    assert_eq!(a.get(i), b.get(i), "{} differs", feature_name(i));
                }
            }
        }
    }

    #[test]
    fn reused_buffer_matches_fresh_and_sparse_matches_dense() {
        let mut buf = Features::new();
        for pos in random_positions(500, 3, 120) {
            buf.extract(&pos);
            let fresh = Features::from_position(&pos);
            assert_eq!(buf, fresh);
            let dense_nonzero = fresh.values().iter().filter(|&&v| v != 0).count();
            assert_eq!(buf.nonzero().count(), dense_nonzero);
            for (i, v) in buf.nonzero() {
                assert_eq!(fresh.get(i), v);
                assert_ne!(v, 0);
            }
        }
    }

    #[test]
    fn perspectives_are_a_permutation_of_each_other() {
        let mut seen = [false; NUM_FEATURES];
        for i in 0..NUM_FEATURES {
            assert_eq!(other_perspective(other_perspective(i)), i);
            seen[other_perspective(i)] = true;
        }
        assert!(seen.iter().all(|&s| s));
        let (mut sente, mut gote) = (Features::new(), Features::new());
        for pos in random_positions(1000, 17, 120) {
            sente.extract_perspective(&pos, Color::Sente);
            gote.extract_perspective(&pos, Color::Gote);
            let stm = Features::from_position(&pos);
            let own = if pos.side_to_move() == Color::Sente {
                &sente
            } else {
                &gote
            };
            for i in 0..SIDE_TO_MOVE_INDEX {
                assert_eq!(
                    sente.get(i),
                    gote.get(other_perspective(i)),
                    "{}",
                    feature_name(i)
                );
                assert_eq!(own.get(i), stm.get(i), "{}", feature_name(i));
            }
            assert_eq!(
                sente.get(SIDE_TO_MOVE_INDEX) + gote.get(SIDE_TO_MOVE_INDEX),
                0
            );
        }
    }

    #[test]
    fn feature_names() {
        assert_eq!(feature_name(attack_index(1, 4, 12)), "opp gold attacks 3c");
        assert_eq!(feature_name(presence_index(0, 24)), "own piece on 5e");
        assert_eq!(feature_name(hand_index(1, 0)), "opp pawn in hand");
        assert_eq!(feature_name(SIDE_TO_MOVE_INDEX), "gote to move");
    }
}
