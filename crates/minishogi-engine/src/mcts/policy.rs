//! The learned move policy: PUCT's priors from a linear model over a handful of features of
//! each move, trained (`engine train-policy`) on the moves the alpha-beta search chose in
//! datagen shards. A move's logit is the sum of the weights of its features; the priors are
//! the softmax of the logits, softened by a temperature (`mcts_policy_temp_centi`), over the
//! legal moves.
//!
//! Why linear over move features and not a head on the network: the network sees a position,
//! not a move, and its inputs say nothing of which piece is where; a table over (piece, from,
//! to) with the move's tactical facts learns most of what the search's choices show, costs a
//! few hundred nanoseconds a move, and trains in seconds.
//!
//! Squares are seen from the side to move (rotated for gote), as the network's are.
//!
//! | offset | count | feature |
//! |---|---|---|
//! | `BOARD` | 10 × 25 × 25 | board move: kind moved, from, to |
//! | `DROP` | 5 × 25 | drop: kind, to |
//! | `PROMOTE` | 10 | the move promotes: kind before promotion |
//! | `CAPTURE` | 10 × 10 | kind moved × kind captured |
//! | `SAFE` | 10 × 2 | kind arriving × whether the exchange on `to` keeps its value (SEE ≥ 0) |
//! | `CHECK` | 2 | gives check: by a board move, by a drop |
//! | `ESCAPE` | 10 × 2 | kind moved, when the opponent attacks its square × whether we defend it |
//! | `THREAT` | 10 × 10 | kind arriving × the most valuable enemy piece it attacks from `to` |
//! | `NEAR_THEIR_KING` | 10 × 9 × 9 | kind arriving × where `to` is from the opponent's king |
//! | `NEAR_OUR_KING` | 10 × 9 × 9 | kind arriving × where `to` is from our king |
//! | `EVADE` | 10 | kind moved (or dropped) while in check |

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::fileio::{self, FileError};
use crate::search::ordering::{captured, moved_kind, see_ge};
use crate::shogi::bitboard::attacks;
use crate::shogi::{Bitboard, Color, Move, MoveList, PieceKind, Position, Square};

const KINDS: usize = PieceKind::COUNT;
const SQUARES: usize = 25;
/// Where one square is from another on a 5×5 board: 9 × 9 offsets (file, rank).
const OFFSETS: usize = 81;

const BOARD: usize = 0;
const DROP: usize = BOARD + KINDS * SQUARES * SQUARES;
const PROMOTE: usize = DROP + PieceKind::HAND.len() * SQUARES;
const CAPTURE: usize = PROMOTE + KINDS;
const SAFE: usize = CAPTURE + KINDS * KINDS;
const CHECK: usize = SAFE + KINDS * 2;
const ESCAPE: usize = CHECK + 2;
const THREAT: usize = ESCAPE + KINDS * 2;
const NEAR_THEIR_KING: usize = THREAT + KINDS * KINDS;
const NEAR_OUR_KING: usize = NEAR_THEIR_KING + KINDS * OFFSETS;
const EVADE: usize = NEAR_OUR_KING + KINDS * OFFSETS;
/// The number of weights.
pub const FEATURES: usize = EVADE + KINDS;
/// The most features one move has.
pub const MAX_ACTIVE: usize = 10;

/// Identifies this feature layout in policy files; bump it when the layout changes.
const LAYOUT: u32 = 3;
const MAGIC: &[u8; 8] = b"MSPOLICY";
const VERSION: u32 = 1;

/// The shipped policy, trained by `engine train-policy` (`weights/README.md`).
const EMBEDDED: &[u8] = include_bytes!("../../../../weights/policy.bin");

/// The active features of one move.
#[derive(Clone, Copy, Debug)]
pub struct MoveFeatures {
    indices: [u16; MAX_ACTIVE],
    len: usize,
}

impl MoveFeatures {
    fn push(&mut self, index: usize) {
        debug_assert!(index < FEATURES);
        self.indices[self.len] = index as u16;
        self.len += 1;
    }

    pub fn indices(&self) -> &[u16] {
        &self.indices[..self.len]
    }
}

/// What every move of a position shares: its orientation and the kings' squares.
#[derive(Clone, Copy, Debug)]
pub struct PositionContext {
    us: Color,
    in_check: bool,
    our_king: Option<Square>,
    their_king: Option<Square>,
}

impl PositionContext {
    pub fn new(pos: &Position) -> PositionContext {
        let us = pos.side_to_move();
        PositionContext {
            us,
            in_check: pos.in_check(),
            our_king: pos.king_square(us),
            their_king: pos.king_square(!us),
        }
    }

    fn orient(&self, sq: Square) -> usize {
        match self.us {
            Color::Sente => sq.index(),
            Color::Gote => sq.flip().index(),
        }
    }

    /// Where `sq` is from `king`, both seen from the side to move: one of [`OFFSETS`].
    fn offset(&self, sq: Square, king: Square) -> usize {
        let (a, b) = (self.orient(sq), self.orient(king));
        (a % 5 + 4 - b % 5) * 9 + (a / 5 + 4 - b / 5)
    }
}

/// The active features of the legal move `mv` of `pos` (`context` = `PositionContext::new(pos)`).
pub fn move_features(pos: &Position, context: &PositionContext, mv: Move) -> MoveFeatures {
    let mut f = MoveFeatures {
        indices: [0; MAX_ACTIVE],
        len: 0,
    };
    let to = mv.to();
    let kind = moved_kind(pos, mv);
    let arriving = if mv.is_promotion() {
        kind.promote()
    } else {
        kind
    };
    let to_index = context.orient(to);
    match mv.from() {
        None => f.push(DROP + kind.index() * SQUARES + to_index),
        Some(from) => {
            let from_index = context.orient(from);
            f.push(BOARD + (kind.index() * SQUARES + from_index) * SQUARES + to_index);
            if mv.is_promotion() {
                f.push(PROMOTE + kind.index());
            }
            if let Some(victim) = captured(pos, mv) {
                f.push(CAPTURE + kind.index() * KINDS + victim.index());
            }
            if pos.is_attacked(from, !context.us) {
                let defended = pos.is_attacked(from, context.us);
                f.push(ESCAPE + kind.index() * 2 + usize::from(defended));
            }
        }
    }
    f.push(SAFE + arriving.index() * 2 + usize::from(see_ge(pos, mv, 0)));
    let occupied = match mv.from() {
        Some(from) => (pos.occupied() ^ Bitboard::from_square(from)) | Bitboard::from_square(to),
        None => pos.occupied() | Bitboard::from_square(to),
    };
    let targets = attacks(context.us, arriving, to, occupied) & pos.pieces(!context.us);
    if let Some(victim) = PieceKind::ALL
        .iter()
        .filter(|&&k| k != PieceKind::King && (targets & pos.pieces_of_kind(k)).any())
        .max_by_key(|k| k.value())
    {
        f.push(THREAT + arriving.index() * KINDS + victim.index());
    }
    if pos.gives_check(mv) {
        f.push(CHECK + usize::from(mv.is_drop()));
    }
    if let Some(king) = context.their_king {
        f.push(NEAR_THEIR_KING + arriving.index() * OFFSETS + context.offset(to, king));
    }
    if let Some(king) = context.our_king {
        f.push(NEAR_OUR_KING + arriving.index() * OFFSETS + context.offset(to, king));
    }
    if context.in_check {
        f.push(EVADE + kind.index());
    }
    f
}

/// A policy file's contents.
#[derive(Serialize, Deserialize)]
struct PolicyFile {
    layout: u32,
    weights: Vec<f32>,
}

/// A move policy: one weight per feature.
#[derive(Clone, Debug, PartialEq)]
pub struct MovePolicy {
    weights: Vec<f32>,
}

impl MovePolicy {
    /// All weights zero: uniform priors.
    pub fn zero() -> MovePolicy {
        MovePolicy {
            weights: vec![0.0; FEATURES],
        }
    }

    /// The shipped policy.
    pub fn embedded() -> MovePolicy {
        Self::decode(Path::new("<embedded policy>"), EMBEDDED)
            .expect("the embedded policy file is valid")
    }

    /// The shipped policy, decoded once for the whole program.
    pub fn shared() -> &'static MovePolicy {
        static SHARED: std::sync::OnceLock<MovePolicy> = std::sync::OnceLock::new();
        SHARED.get_or_init(MovePolicy::embedded)
    }

    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    pub fn weights_mut(&mut self) -> &mut [f32] {
        &mut self.weights
    }

    /// The logit of a move with these features.
    pub fn logit(&self, features: &MoveFeatures) -> f32 {
        features
            .indices()
            .iter()
            .map(|&i| self.weights[usize::from(i)])
            .sum()
    }

    /// The priors of `moves` (the legal moves of `pos`), summing to 1, in the same order: the
    /// softmax of the logits divided by `temperature` (in play `mcts_policy_temp_centi`).
    pub fn priors(&self, pos: &Position, moves: &MoveList, temperature: f32, out: &mut Vec<f32>) {
        let context = PositionContext::new(pos);
        out.clear();
        out.extend(
            moves
                .iter()
                .map(|&mv| self.logit(&move_features(pos, &context, mv))),
        );
        for v in out.iter_mut() {
            *v /= temperature;
        }
        softmax(out);
    }

    fn decode(path: &Path, bytes: &[u8]) -> Result<MovePolicy, FileError> {
        let file: PolicyFile = fileio::decode(path, MAGIC, VERSION, bytes)?;
        Self::checked(path, file)
    }

    fn checked(path: &Path, file: PolicyFile) -> Result<MovePolicy, FileError> {
        let bad = |error: String| FileError::Decode {
            path: path.to_path_buf(),
            error,
        };
        if file.layout != LAYOUT {
            return Err(bad(format!(
                "policy of feature layout {}, this engine reads layout {LAYOUT}",
                file.layout
            )));
        }
        if file.weights.len() != FEATURES {
            return Err(bad(format!(
                "{} weights, the layout has {FEATURES}",
                file.weights.len()
            )));
        }
        if file.weights.iter().any(|w| !w.is_finite()) {
            return Err(bad("a weight is not a finite number".to_string()));
        }
        Ok(MovePolicy {
            weights: file.weights,
        })
    }

    /// Reads a policy file written by [`MovePolicy::save`].
    pub fn load(path: &Path) -> Result<MovePolicy, FileError> {
        let file: PolicyFile = fileio::load(path, MAGIC, VERSION)?;
        Self::checked(path, file)
    }

    /// Writes the policy atomically.
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        fileio::save(
            path,
            MAGIC,
            VERSION,
            &PolicyFile {
                layout: LAYOUT,
                weights: self.weights.clone(),
            },
        )
    }
}

/// Turns logits into probabilities in place (PUCT's priors, learned or from the ordering).
pub fn softmax(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in values.iter_mut() {
        *v /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::random_positions;

    #[test]
    fn features_stay_in_range_and_mirror_between_colours() {
        for pos in random_positions(300, 7, 60) {
            let moves = pos.legal_moves();
            let context = PositionContext::new(&pos);
            let mirror = pos.flipped();
            let mirror_context = PositionContext::new(&mirror);
            for &mv in moves.iter() {
                let f = move_features(&pos, &context, mv);
                assert!(f.indices().iter().all(|&i| usize::from(i) < FEATURES));
                let mirrored = match mv.from() {
                    Some(from) => Move::board(from.flip(), mv.to().flip(), mv.is_promotion()),
                    None => Move::drop(moved_kind(&pos, mv), mv.to().flip()),
                };
                let g = move_features(&mirror, &mirror_context, mirrored);
                assert_eq!(f.indices(), g.indices(), "{mv:?} in {pos:?}");
            }
        }
    }

    #[test]
    fn priors_sum_to_one_and_follow_the_weights() {
        let pos = Position::startpos();
        let moves = pos.legal_moves();
        let mut out = Vec::new();
        MovePolicy::zero().priors(&pos, &moves, 1.0, &mut out);
        let uniform = 1.0 / moves.len() as f32;
        assert!(out.iter().all(|p| (p - uniform).abs() < 1e-6));
        let mut policy = MovePolicy::zero();
        let first = move_features(&pos, &PositionContext::new(&pos), moves.as_slice()[0]);
        policy.weights_mut()[usize::from(first.indices()[0])] = 3.0;
        policy.priors(&pos, &moves, 1.0, &mut out);
        assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(out[0] > 0.3, "{out:?}");
    }

    #[test]
    fn files_round_trip_and_bad_ones_are_named() {
        let dir = std::env::temp_dir().join(format!("policy-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.bin");
        let mut policy = MovePolicy::zero();
        policy.weights_mut()[5] = 0.25;
        policy.save(&path).unwrap();
        assert_eq!(MovePolicy::load(&path).unwrap(), policy);
        let short = PolicyFile {
            layout: LAYOUT,
            weights: vec![0.0; 3],
        };
        fileio::save(&path, MAGIC, VERSION, &short).unwrap();
        let err = MovePolicy::load(&path).unwrap_err().to_string();
        assert!(err.contains("3 weights") && err.contains("p.bin"), "{err}");
        std::fs::write(&path, b"not a policy").unwrap();
        assert!(MovePolicy::load(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_embedded_policy_loads() {
        assert_eq!(MovePolicy::embedded().weights().len(), FEATURES);
    }
}
