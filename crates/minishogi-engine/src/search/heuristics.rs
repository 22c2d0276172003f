//! Per-thread search memory: for move ordering, butterfly history, continuation history (keyed
//! by the opponent's previous move and by the side's own move two plies back), capture history,
//! killer moves and counter-moves; for the static evaluation, correction history (keyed by the
//! hands and pawns, by the previous move, and by the last two moves together). Kept between
//! searches (cleared on `usinewgame`), never shared between threads.

use super::score::MAX_PLY;
use crate::shogi::{Color, Move, Piece, PieceKind, Position, Square};

/// Continuation history is indexed by (piece, destination) of the previous move and of the
/// move scored: a drop and a board move of the same piece to the same square share an entry,
/// which is what makes it fit a drop game.
const PIECE_SQUARES: usize = 2 * PieceKind::COUNT * Square::COUNT;

/// Continuation tables: one keyed by the move one ply back, one by the move two plies back.
pub const CONTINUATION_PLIES: usize = 2;

/// The continuation-history index of `piece` arriving on `to` (dropped, moved or promoted).
#[inline(always)]
pub fn piece_square(piece: Piece, to: Square) -> usize {
    piece.index() * Square::COUNT + to.index()
}

/// The gravity update shared by the history tables: the entry moves toward ±HISTORY_MAX by
/// `bonus`, less the more it is already saturated.
#[inline(always)]
fn gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let value = *entry as i32;
    *entry = (value + bonus - value * bonus.abs() / HISTORY_MAX) as i16;
}

/// Capture history is indexed by the arriving piece and its destination ([`piece_square`]) and
/// the kind it captures.
const CAPTURE_SLOTS: usize = PIECE_SQUARES * PieceKind::COUNT;

/// The capture-history index of `piece` arriving on `to` and capturing a `victim`.
#[inline(always)]
pub fn capture_index(arrival: usize, victim: PieceKind) -> usize {
    arrival * PieceKind::COUNT + victim.index()
}

/// History scores saturate at ±HISTORY_MAX (the "gravity" update keeps them in range).
pub const HISTORY_MAX: i32 = 16_384;

/// Moves index the tables by their low 12 bits (destination, origin or dropped kind, flags).
const MOVE_SLOTS: usize = 4096;

#[inline(always)]
fn slot(mv: Move) -> usize {
    (mv.raw() as usize) & (MOVE_SLOTS - 1)
}

/// Entries of each correction-history table, per side to move.
const CORRECTION_SLOTS: usize = 16_384;
/// Correction entries are kept in 1/CORRECTION_GRAIN of a centipawn...
const CORRECTION_GRAIN: i32 = 32;
/// ...and never correct by more than this many centipawns.
const CORRECTION_MAX_CP: i32 = 400;

/// The key of the slowly changing part of a position that static evaluations tend to misjudge
/// alike: both hands and both sides' pawns.
#[inline(always)]
pub fn structure_key(pos: &Position) -> u64 {
    let mut hands = 0u64;
    for color in Color::ALL {
        for kind in PieceKind::HAND {
            hands = hands << 3 | u64::from(pos.hand(color).count(kind));
        }
    }
    let pawns = u64::from(pos.pieces_of(Color::Sente, PieceKind::Pawn).0)
        | u64::from(pos.pieces_of(Color::Gote, PieceKind::Pawn).0) << 25;
    (pawns ^ hands.rotate_left(50)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[inline(always)]
fn structure_slot(key: u64) -> usize {
    (key >> 50) as usize % CORRECTION_SLOTS
}

/// The entry of `correction_pair` for `side` (an index) and a [`CorrectionKey::pair`].
#[inline(always)]
fn pair_slot(side: usize, pair: usize) -> usize {
    side * PIECE_SQUARES * PIECE_SQUARES + pair
}

/// What a node's static-evaluation correction is looked up by.
#[derive(Clone, Copy, Debug, Default)]
pub struct CorrectionKey {
    /// [`structure_key`] of the position.
    pub structure: u64,
    /// The previous move's [`piece_square`], if there was one.
    pub previous: Option<usize>,
    /// The last two moves' [`piece_square`]s together (`earlier * PIECE_SQUARES + previous`),
    /// when that table is used and both moves exist.
    pub pair: Option<usize>,
}

impl CorrectionKey {
    /// The `pair` index of the move two plies back and the previous move.
    #[inline(always)]
    pub fn pair_of(earlier: Option<usize>, previous: Option<usize>) -> Option<usize> {
        Some(earlier? * PIECE_SQUARES + previous?)
    }
}

pub struct Heuristics {
    /// Static-evaluation correction (a running average of "search result minus static
    /// evaluation"), keyed by the hands and pawns, by the previous move, and by the last two
    /// moves together.
    correction_structure: Box<[[i16; CORRECTION_SLOTS]; 2]>,
    correction_continuation: [[i16; PIECE_SQUARES]; 2],
    correction_pair: Box<[i16]>,
    butterfly: [[i16; MOVE_SLOTS]; 2],
    /// Two killer moves per ply (quiet moves that caused a cut-off at that ply).
    killers: [[Move; 2]; MAX_PLY + 2],
    /// The quiet reply that refuted a given move of the opponent, per side to move.
    counter: [[Move; MOVE_SLOTS]; 2],
    /// Score of a (piece, destination) given the (piece, destination) of the move one ply
    /// back (the opponent's previous move) and, in the second table, two plies back (the
    /// side's own move before it: "follow-up" history).
    continuation: [Box<[i16]>; CONTINUATION_PLIES],
    /// Score of a capture by (piece, destination, captured kind).
    capture: Box<[i16; CAPTURE_SLOTS]>,
}

impl Heuristics {
    pub fn new() -> Box<Heuristics> {
        Box::new(Heuristics {
            correction_structure: Box::new([[0; CORRECTION_SLOTS]; 2]),
            correction_continuation: [[0; PIECE_SQUARES]; 2],
            correction_pair: vec![0; 2 * PIECE_SQUARES * PIECE_SQUARES].into_boxed_slice(),
            butterfly: [[0; MOVE_SLOTS]; 2],
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
            counter: [[Move::NULL; MOVE_SLOTS]; 2],
            continuation: std::array::from_fn(|_| {
                vec![0; PIECE_SQUARES * PIECE_SQUARES].into_boxed_slice()
            }),
            capture: Box::new([0; CAPTURE_SLOTS]),
        })
    }

    pub fn clear(&mut self) {
        self.correction_structure.fill([0; CORRECTION_SLOTS]);
        self.correction_continuation = [[0; PIECE_SQUARES]; 2];
        self.correction_pair.fill(0);
        self.butterfly = [[0; MOVE_SLOTS]; 2];
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
        self.counter = [[Move::NULL; MOVE_SLOTS]; 2];
        for table in &mut self.continuation {
            table.fill(0);
        }
        self.capture.fill(0);
    }

    /// Killers are only meaningful within one search.
    pub fn clear_killers(&mut self) {
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
    }

    #[inline(always)]
    pub fn history(&self, side: Color, mv: Move) -> i32 {
        self.butterfly[side.index()][slot(mv)] as i32
    }

    #[inline(always)]
    pub fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers[ply]
    }

    #[inline(always)]
    pub fn counter(&self, side: Color, previous: Move) -> Move {
        self.counter[side.index()][slot(previous)]
    }

    #[inline(always)]
    pub fn update_history(&mut self, side: Color, mv: Move, bonus: i32) {
        gravity(&mut self.butterfly[side.index()][slot(mv)], bonus);
    }

    /// Continuation history of `current` after `earlier`, the move `back + 1` plies before
    /// it (both from [`piece_square`]; `back` below [`CONTINUATION_PLIES`]).
    #[inline(always)]
    pub fn continuation(&self, back: usize, earlier: usize, current: usize) -> i32 {
        self.continuation[back][earlier * PIECE_SQUARES + current] as i32
    }

    #[inline(always)]
    pub fn update_continuation(&mut self, back: usize, earlier: usize, current: usize, bonus: i32) {
        gravity(
            &mut self.continuation[back][earlier * PIECE_SQUARES + current],
            bonus,
        );
    }

    /// Capture history of the capture with [`capture_index`] `index`.
    #[inline(always)]
    pub fn capture(&self, index: usize) -> i32 {
        self.capture[index] as i32
    }

    #[inline(always)]
    pub fn update_capture(&mut self, index: usize, bonus: i32) {
        gravity(&mut self.capture[index], bonus);
    }

    /// The correction, in centipawns, to add to the static evaluation of a node whose side to
    /// move is `side`: the average of the entries its key has.
    #[inline(always)]
    pub fn correction(&self, side: Color, key: CorrectionKey) -> i32 {
        let side = side.index();
        let mut sum = self.correction_structure[side][structure_slot(key.structure)] as i32;
        let mut tables = 1;
        if let Some(i) = key.previous {
            sum += self.correction_continuation[side][i] as i32;
            tables += 1;
        }
        if let Some(i) = key.pair {
            sum += self.correction_pair[pair_slot(side, i)] as i32;
            tables += 1;
        }
        sum / (tables * CORRECTION_GRAIN)
    }

    /// Moves the corrections of this node toward `diff` (search result minus the corrected
    /// static evaluation, centipawns), the more the deeper the search was.
    #[inline(always)]
    pub fn update_correction(&mut self, side: Color, key: CorrectionKey, diff: i32, depth: i32) {
        let limit = CORRECTION_MAX_CP * CORRECTION_GRAIN;
        let weight = (depth + 1).min(16);
        let update = |entry: &mut i16| {
            let target = (*entry as i32 + diff * CORRECTION_GRAIN).clamp(-limit, limit);
            *entry = ((*entry as i32 * (256 - weight) + target * weight) / 256) as i16;
        };
        let side = side.index();
        update(&mut self.correction_structure[side][structure_slot(key.structure)]);
        if let Some(i) = key.previous {
            update(&mut self.correction_continuation[side][i]);
        }
        if let Some(i) = key.pair {
            update(&mut self.correction_pair[pair_slot(side, i)]);
        }
    }

    /// Records a quiet move that caused a beta cut-off.
    #[inline(always)]
    pub fn record_cutoff(&mut self, side: Color, ply: usize, mv: Move, previous: Move) {
        let k = &mut self.killers[ply];
        if k[0] != mv {
            k[1] = k[0];
            k[0] = mv;
        }
        if !previous.is_null() {
            self.counter[side.index()][slot(previous)] = mv;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::{PieceKind, Square};

    #[test]
    fn history_saturates_and_killers_shift() {
        let mut h = Heuristics::new();
        let mv = Move::drop(PieceKind::Pawn, Square::new(2, 2));
        for _ in 0..1000 {
            h.update_history(Color::Sente, mv, 2400);
        }
        let v = h.history(Color::Sente, mv);
        assert!(v > HISTORY_MAX * 9 / 10 && v <= HISTORY_MAX, "{v}");
        assert_eq!(h.history(Color::Gote, mv), 0);
        let other = Move::board(Square::new(5, 3), Square::new(5, 2), false);
        h.record_cutoff(Color::Sente, 3, mv, other);
        h.record_cutoff(Color::Sente, 3, other, Move::NULL);
        assert_eq!(h.killers(3), [other, mv]);
        assert_eq!(h.counter(Color::Sente, other), mv);
    }

    #[test]
    fn continuation_history_keys_on_piece_and_square() {
        let mut h = Heuristics::new();
        let gold = Piece::new(Color::Sente, PieceKind::Gold);
        let to = Square::new(3, 2);
        let previous = piece_square(
            Piece::new(Color::Gote, PieceKind::Silver),
            Square::new(2, 1),
        );
        // Every (piece, square) pair has its own index.
        let mut seen = std::collections::HashSet::new();
        for color in Color::ALL {
            for kind in PieceKind::ALL {
                for sq in (0..Square::COUNT).map(Square::from_index) {
                    assert!(seen.insert(piece_square(Piece::new(color, kind), sq)));
                }
            }
        }
        assert_eq!(seen.len(), PIECE_SQUARES);
        h.update_continuation(0, previous, piece_square(gold, to), 1000);
        assert_eq!(h.continuation(0, previous, piece_square(gold, to)), 1000);
        // The table two plies back is another table.
        assert_eq!(h.continuation(1, previous, piece_square(gold, to)), 0);
        // Another square, another piece or another previous move are other entries.
        assert_eq!(
            h.continuation(0, previous, piece_square(gold, Square::new(3, 3))),
            0
        );
        let silver = Piece::new(Color::Sente, PieceKind::Silver);
        assert_eq!(h.continuation(0, previous, piece_square(silver, to)), 0);
        assert_eq!(h.continuation(0, previous + 1, piece_square(gold, to)), 0);
        for _ in 0..1000 {
            h.update_continuation(0, previous, piece_square(gold, to), -2400);
        }
        let v = h.continuation(0, previous, piece_square(gold, to));
        assert!((-HISTORY_MAX..=-HISTORY_MAX * 9 / 10).contains(&v), "{v}");
        h.update_continuation(1, previous, piece_square(gold, to), 700);
        h.clear();
        assert_eq!(h.continuation(0, previous, piece_square(gold, to)), 0);
        assert_eq!(h.continuation(1, previous, piece_square(gold, to)), 0);
    }

    #[test]
    fn capture_history_keys_on_piece_square_and_victim() {
        let mut h = Heuristics::new();
        let rook = Piece::new(Color::Sente, PieceKind::Rook);
        let to = Square::from_index(12);
        let takes_gold = capture_index(piece_square(rook, to), PieceKind::Gold);
        let takes_pawn = capture_index(piece_square(rook, to), PieceKind::Pawn);
        for _ in 0..100 {
            h.update_capture(takes_gold, 2400);
        }
        let v = h.capture(takes_gold);
        assert!((HISTORY_MAX * 9 / 10..=HISTORY_MAX).contains(&v), "{v}");
        assert_eq!(h.capture(takes_pawn), 0);
        h.update_capture(takes_pawn, -500);
        assert_eq!(h.capture(takes_pawn), -500);
        h.clear();
        assert_eq!(h.capture(takes_gold), 0);
    }

    #[test]
    fn correction_follows_search_results_within_bounds() {
        let mut h = Heuristics::new();
        let pos = Position::startpos();
        let structure = structure_key(&pos);
        let key = |previous: Option<usize>, pair: Option<usize>| CorrectionKey {
            structure,
            previous,
            pair,
        };
        assert_eq!(h.correction(Color::Sente, key(None, None)), 0);
        // Deep results 100 cp above the evaluation pull the correction toward +100.
        for _ in 0..200 {
            let diff = 100 - h.correction(Color::Sente, key(Some(7), None));
            h.update_correction(Color::Sente, key(Some(7), None), diff, 12);
        }
        let c = h.correction(Color::Sente, key(Some(7), None));
        assert!((90..=100).contains(&c), "{c}");
        // The other side, and a node sharing only one of the two keys, see less or nothing.
        assert_eq!(h.correction(Color::Gote, key(Some(7), None)), 0);
        let half = h.correction(Color::Sente, key(Some(8), None));
        assert!((40..=50).contains(&half), "{half}");
        // A third key not yet seen dilutes the correction to two thirds.
        let pair = CorrectionKey::pair_of(Some(3), Some(7));
        let third = h.correction(Color::Sente, key(Some(7), pair));
        assert!((60..=67).contains(&third), "{third}");
        // However large the results, the correction stays bounded.
        for _ in 0..1000 {
            h.update_correction(Color::Sente, key(None, pair), 30_000, 20);
        }
        let c = h.correction(Color::Sente, key(None, pair));
        assert!(c <= CORRECTION_MAX_CP, "{c}");
        h.clear();
        assert_eq!(h.correction(Color::Sente, key(Some(7), pair)), 0);
    }

    #[test]
    fn structure_key_sees_hands_and_pawns_only() {
        let start = Position::startpos();
        let key = structure_key(&start);
        // A king move keeps the key; a pawn in hand or a pawn moved changes it.
        let mut king_moved = start.clone();
        let king = king_moved.king_square(Color::Sente).unwrap();
        let piece = king_moved.remove_piece(king).unwrap();
        let free = (0..Square::COUNT)
            .map(Square::from_index)
            .find(|&sq| start.piece_at(sq).is_none())
            .unwrap();
        king_moved.put_piece(free, piece);
        assert_eq!(structure_key(&king_moved), key);
        let mut in_hand = start.clone();
        in_hand.set_hand_count(Color::Gote, PieceKind::Pawn, 1);
        assert_ne!(structure_key(&in_hand), key);
        let mut pawn_moved = start.clone();
        let pawn_square = (0..Square::COUNT)
            .map(Square::from_index)
            .find(|&sq| start.piece_at(sq) == Some(Piece::new(Color::Sente, PieceKind::Pawn)))
            .unwrap();
        pawn_moved.remove_piece(pawn_square);
        pawn_moved.put_piece(free, Piece::new(Color::Sente, PieceKind::Pawn));
        assert_ne!(structure_key(&pawn_moved), key);
    }
}
