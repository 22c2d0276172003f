//! The seed's feature set: its 361 inputs, extracted into any [`FeatureSink`]. `king_piece.rs`
//! holds the king-relative set, whose first 361 inputs are these; `feature_set.rs` the choice
//! between the sets ([`FeatureSet`](super::feature_set::FeatureSet)) and the buffer they are
//! extracted into. Always from the side to move's point of view ("own" = side to move).
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

/// Inputs of the seed's set (`FeatureSet::Seed361`).
pub const NUM_FEATURES: usize = 361;
/// Identifies the seed's layout in weights files (`FeatureSet::id`).
pub const FEATURE_SET_ID: u32 = 1;

/// Where a set's extraction writes its inputs: the feature buffer
/// ([`Features`](super::feature_set::Features)). A trait here, below both sets, so that neither
/// set's file names the buffer's (the dispatch over the sets) or the other set's.
pub trait FeatureSink {
    /// Adds one to the seed's input `i`.
    fn bump(&mut self, i: usize);
    /// Sets one of the seed's inputs, `i`, to `v` (not zero).
    fn set(&mut self, i: usize, v: u8);
    /// Sets input `i` past the seed's to 1: each at most once, in ascending order.
    fn add_beyond_seed(&mut self, i: usize);
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

/// The seed's 360 perspective inputs of `pos` as `perspective` sees it, written into a cleared
/// buffer (the seed's set and the king sets built on it start with them).
pub(super) fn extract_seed(f: &mut impl FeatureSink, pos: &Position, perspective: Color) {
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
                f.bump(plane + t.index());
            }
        }
        let base = presence_index(side, 0);
        for sq in orient_bb(pos.pieces(color), stm) {
            f.bump(base + sq.index());
        }
        extract_hand(f, pos, color, side, HAND_OFFSET);
    }
}

/// The hand counts of `pos` as `perspective` sees it, at `offset + side * 5 + k` (the seed's
/// [`hand_index`] at [`HAND_OFFSET`]; a set without the seed's planes puts them first).
pub(super) fn extract_hands(
    f: &mut impl FeatureSink,
    pos: &Position,
    perspective: Color,
    offset: usize,
) {
    for (side, color) in [(0usize, perspective), (1, !perspective)] {
        extract_hand(f, pos, color, side, offset);
    }
}

/// One side's hand counts (`side` 0 own, 1 opponent).
#[inline(always)]
fn extract_hand(
    f: &mut impl FeatureSink,
    pos: &Position,
    color: Color,
    side: usize,
    offset: usize,
) {
    let hand = pos.hand(color);
    for (k, &kind) in PieceKind::HAND.iter().enumerate() {
        let n = hand.count(kind);
        if n > 0 {
            f.set(offset + side * 5 + k, n);
        }
    }
}

/// Appends the hand inputs (at `offset`, as [`extract_hands`] puts them) that differ between
/// `before` and `after` as sente sees them, as `(index, after − before)`.
pub fn hand_changes(
    before: &Position,
    after: &Position,
    offset: usize,
    changes: &mut Vec<(u16, i32)>,
) {
    for (side, color) in [(0usize, Color::Sente), (1, Color::Gote)] {
        let (b, a) = (before.hand(color), after.hand(color));
        for (k, &kind) in PieceKind::HAND.iter().enumerate() {
            let d = a.count(kind) as i32 - b.count(kind) as i32;
            if d != 0 {
                changes.push(((offset + side * 5 + k) as u16, d));
            }
        }
    }
}

/// The squares whose piece differs in colour or kind between two positions (a move changes
/// kinds only where it changes colours too, but any two positions may be given).
#[inline(always)]
pub fn changed_squares(before: &Position, after: &Position) -> Bitboard {
    PieceKind::ALL.iter().fold(
        (before.pieces(Color::Sente) ^ after.pieces(Color::Sente))
            | (before.pieces(Color::Gote) ^ after.pieces(Color::Gote)),
        |d, &k| d | (before.pieces_of_kind(k) ^ after.pieces_of_kind(k)),
    )
}

/// The seed's inputs that differ between `before` and `after` as sente's perspective sees them
/// (what [`extract_seed`] gives for `Color::Sente`, the inputs of the search path's
/// accumulators), as `(index, after − before)` into `changes`, each index once, in no
/// particular order. Found from what a move touches, not from two whole extractions: the
/// squares whose contents changed (their pieces' attacks and presence), the sliders whose
/// attacks reached a square that was emptied or filled (only those rays can change), and the
/// hands. Any two positions may be given; a move's two touch a few pieces.
pub fn seed_changes(before: &Position, after: &Position, changes: &mut Vec<(u16, i32)>) {
    changes.clear();
    let (occ_before, occ_after) = (before.occupied(), after.occupied());
    let differ = changed_squares(before, after);
    let emptied_or_filled = occ_before ^ occ_after;
    // Attack sets that join (+1) or leave (−1) each plane (side × group): the pieces on the
    // changed squares after and before, and each slider crossed by a change. A plane has at
    // most two pieces in a position, so each sign's count per square fits two bits, kept as
    // bit-sliced counters: `counts[plane] = [plus bit 0, plus bit 1, minus bit 0, minus bit 1]`.
    let mut counts = [[Bitboard::EMPTY; 4]; 2 * GROUPS];
    let mut planes = 0u16;
    let mut add = |p: crate::shogi::Piece, sq: Square, occ: Bitboard, minus: bool| {
        let plane = p.color.index() * GROUPS + group_of(p.kind);
        let bb = attacks(p.color, p.kind, sq, occ);
        let c = &mut counts[plane][2 * minus as usize..];
        let carry = c[0] & bb;
        c[0] ^= bb;
        c[1] |= carry;
        planes |= 1 << plane;
    };
    for sq in differ {
        if let Some(p) = before.piece_at(sq) {
            add(p, sq, occ_before, true);
        }
        if let Some(p) = after.piece_at(sq) {
            add(p, sq, occ_after, false);
        }
        for color in [Color::Sente, Color::Gote] {
            let d = after.pieces(color).has(sq) as i32 - before.pieces(color).has(sq) as i32;
            if d != 0 {
                changes.push((presence_index(color.index(), sq.index()) as u16, d));
            }
        }
    }
    if emptied_or_filled.any() {
        let sliders = before.pieces_of_kind(PieceKind::Bishop)
            | before.pieces_of_kind(PieceKind::Rook)
            | before.pieces_of_kind(PieceKind::Horse)
            | before.pieces_of_kind(PieceKind::Dragon);
        for sq in sliders & !differ {
            let Some(p) = before.piece_at(sq) else {
                continue;
            };
            if (attacks(p.color, p.kind, sq, occ_before) & emptied_or_filled).any() {
                add(p, sq, occ_before, true);
                add(p, sq, occ_after, false);
            }
        }
    }
    // Each plane's net change square by square: a piece that moves keeps some of its squares.
    while planes != 0 {
        let plane = planes.trailing_zeros() as usize;
        planes &= planes - 1;
        let [p0, p1, m0, m1] = counts[plane];
        for sq in p0 | p1 | m0 | m1 {
            let d = p0.has(sq) as i32 + 2 * p1.has(sq) as i32
                - m0.has(sq) as i32
                - 2 * m1.has(sq) as i32;
            if d != 0 {
                changes.push(((ATTACK_OFFSET + plane * 25 + sq.index()) as u16, d));
            }
        }
    }
    hand_changes(before, after, HAND_OFFSET, changes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::feature_set::Features;
    use crate::shogi::Piece;
    use crate::testing::{position_pairs, random_positions};

    /// Every index whose sente-perspective value differs, with the difference, ascending.
    fn diff_of_extractions(before: &Position, after: &Position) -> Vec<(u16, i32)> {
        let (mut b, mut a) = (Features::new(), Features::new());
        b.extract_perspective(before, Color::Sente);
        a.extract_perspective(after, Color::Sente);
        (0..NUM_FEATURES)
            .filter(|&i| a.get(i) != b.get(i))
            .map(|i| (i as u16, a.get(i) as i32 - b.get(i) as i32))
            .collect()
    }

    /// What a move changes, found from the move's squares and the sliders it crosses, equals
    /// the difference of two whole extractions: after every legal move (drops, captures,
    /// promotions, slider lines opened and closed), a null move, and between unrelated
    /// positions.
    #[test]
    fn seed_changes_equal_the_difference_of_two_extractions() {
        let mut changes = Vec::new();
        let pairs = position_pairs(600, 31, 120);
        for (before, after) in &pairs {
            seed_changes(before, after, &mut changes);
            changes.sort_unstable();
            assert_eq!(
                changes,
                diff_of_extractions(before, after),
                "{} → {}",
                before.to_sfen(),
                after.to_sfen()
            );
        }
        let checked = pairs.len();
        assert!(checked > 5000, "{checked}");
    }

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
