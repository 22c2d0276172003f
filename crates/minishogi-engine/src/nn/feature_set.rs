//! Which inputs a network takes ([`FeatureSet`]) and the buffer a position's inputs are
//! extracted into ([`Features`]): the dispatch over the sets, above them. Each set is a file of
//! its own (the seed's in `features.rs`, king-piece in `king_piece.rs`); neither names this one.

use crate::shogi::{Color, Position};

use super::features::{self, FEATURE_SET_ID, FeatureSink, NUM_FEATURES};
use super::king_piece::{self, KingLayout};

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
    /// The king-piece set with king squares grouped into 8 buckets a king (8,861 inputs).
    KingBucket,
    /// The king-bucket set without the seed's attack and presence planes: hands, side to
    /// move, and the pieces by square and by each king's bucket (8,511 inputs).
    PieceBucket,
}

impl FeatureSet {
    pub const ALL: [FeatureSet; 4] = [
        FeatureSet::Seed361,
        FeatureSet::KingPiece,
        FeatureSet::KingBucket,
        FeatureSet::PieceBucket,
    ];

    /// The king blocks' layout of a set with king blocks.
    pub const fn king_layout(self) -> Option<KingLayout> {
        match self {
            FeatureSet::Seed361 => None,
            FeatureSet::KingPiece => Some(king_piece::SQUARES),
            FeatureSet::KingBucket => Some(king_piece::BUCKETS),
            FeatureSet::PieceBucket => Some(king_piece::PIECE_BUCKETS),
        }
    }

    /// Whether the set starts with the seed's 361 inputs (every set but the piece-bucket one).
    pub const fn has_seed(self) -> bool {
        match self.king_layout() {
            None => true,
            Some(layout) => layout.has_seed(),
        }
    }

    /// Inputs before the piece inputs, held as counts (see [`Features`]).
    pub const fn dense_inputs(self) -> usize {
        match self.king_layout() {
            None => NUM_FEATURES,
            Some(layout) => layout.dense,
        }
    }

    /// The side-to-move input.
    pub const fn side_to_move_index(self) -> usize {
        self.dense_inputs() - 1
    }

    /// The inputs that differ between `before` and `after` as sente sees them, as `(index,
    /// after − before)` into `changes` (cleared first): found from what a move touched, for
    /// the quantised path's incremental update.
    pub fn changes(self, before: &Position, after: &Position, changes: &mut Vec<(u16, i32)>) {
        if self.has_seed() {
            features::seed_changes(before, after, changes);
        } else {
            changes.clear();
            features::hand_changes(before, after, 0, changes);
        }
        if let Some(layout) = &self.king_layout() {
            king_piece::piece_changes(layout, before, after, changes);
        }
    }

    /// The id stored in weights files.
    pub const fn id(self) -> u32 {
        match self.king_layout() {
            None => FEATURE_SET_ID,
            Some(layout) => layout.id,
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
        match self.king_layout() {
            None => NUM_FEATURES,
            Some(layout) => layout.inputs(),
        }
    }

    /// Most inputs one position can have non-zero (sizes the sparse buffers).
    pub const fn max_active(self) -> usize {
        match self {
            FeatureSet::Seed361 => NUM_FEATURES,
            FeatureSet::KingPiece | FeatureSet::KingBucket | FeatureSet::PieceBucket => {
                king_piece::MAX_ACTIVE
            }
        }
    }

    /// The name command lines take.
    pub const fn name(self) -> &'static str {
        match self {
            FeatureSet::Seed361 => "seed361",
            FeatureSet::KingPiece => "king-piece",
            FeatureSet::KingBucket => "king-bucket",
            FeatureSet::PieceBucket => "piece-bucket",
        }
    }

    /// The index a feature has for the other perspective (see [`features::other_perspective`]).
    pub fn other_perspective(self, i: usize) -> usize {
        match self.king_layout() {
            None => features::other_perspective(i),
            Some(layout) => king_piece::other_perspective(&layout, i),
        }
    }

    /// Human-readable name of an input.
    pub fn feature_name(self, i: usize) -> String {
        match self.king_layout() {
            None => features::feature_name(i),
            Some(layout) => king_piece::feature_name(&layout, i),
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
            .ok_or_else(|| {
                format!(
                    "unknown feature set `{s}` (expected seed361, king-piece, king-bucket or \
                     piece-bucket)"
                )
            })
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
            self.set(self.set.side_to_move_index(), 1);
        }
    }

    /// The features of `pos` as `perspective` sees it ("own" = `perspective`, squares
    /// oriented for it) whoever is to move, without the side-to-move input. An incremental
    /// first layer keeps one sum per perspective from these (see `nn::quant`).
    pub fn extract_perspective(&mut self, pos: &Position, perspective: Color) {
        self.clear();
        if self.set.has_seed() {
            features::extract_seed(self, pos, perspective);
        } else {
            features::extract_hands(self, pos, perspective, 0);
        }
        self.seed_len = self.len;
        if let Some(layout) = self.set.king_layout() {
            king_piece::extract_pieces(&layout, self, pos, perspective);
        }
        self.pieces_end = self.len;
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

    /// The seed's 361 inputs' values (a larger set's additions are the 1s of
    /// [`Features::beyond_seed_indices`]).
    pub fn values(&self) -> &[u8] {
        &self.values
    }

    pub fn get(&self, i: usize) -> u8 {
        if i < self.set.dense_inputs() {
            self.values[i]
        } else {
            u16::try_from(i).is_ok_and(|i| self.beyond_seed_indices().binary_search(&i).is_ok())
                as u8
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
        let dense = self.set.dense_inputs();
        self.nonzero_indices().iter().map(move |&i| {
            let i = i as usize;
            (i, if i < dense { self.values[i] } else { 1 })
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

/// The seed's extraction and the king-piece set's write into the buffer through this.
impl FeatureSink for Features {
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
    fn set(&mut self, i: usize, v: u8) {
        if self.values[i] == 0 {
            self.nonzero[self.len] = i as u16;
            self.len += 1;
        }
        self.values[i] = v;
    }

    /// Sets input `i` past the seed's to 1: each at most once, in ascending order.
    #[inline(always)]
    fn add_beyond_seed(&mut self, i: usize) {
        debug_assert!(i >= self.set.dense_inputs() && i < self.set.inputs());
        debug_assert!(self.len == self.seed_len || self.nonzero[self.len - 1] < i as u16);
        self.nonzero[self.len] = i as u16;
        self.len += 1;
    }
}
