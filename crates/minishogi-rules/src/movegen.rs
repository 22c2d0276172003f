//! Legal move generation: check evasions, pins, promotions, drops with 二歩, dead pawn drops
//! and 打ち歩詰め removed. Generates fully legal moves so that perft can count at the last ply
//! without playing them.

use std::sync::atomic::{AtomicBool, Ordering};

use super::bitboard::{self, Bitboard};
use super::position::Position;
use super::types::{Move, PieceKind, Square};

/// The capacity of a [`MoveList`], and so of every per-move array beside one (the search's
/// ordering scores): minishogi positions have well under this many legal moves.
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity move list ([`MAX_MOVES`]); no allocation.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList {
            moves: [Move::NULL; MAX_MOVES],
            len: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        debug_assert!(self.len < MAX_MOVES);
        // SAFETY-free bound: the capacity is far above the maximum number of legal moves.
        self.moves[self.len] = mv;
        self.len += 1;
    }

    /// Empties the list, keeping its storage (cheaper than a new, zeroed list).
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    pub fn to_vec(&self) -> Vec<Move> {
        self.as_slice().to_vec()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// Which moves to generate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GenKind {
    /// Every legal move.
    All,
    /// Captures and promotions only (for quiescence); check evasions are generated in full.
    Tactical,
}

impl Position {
    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(GenKind::All, &mut list);
        list
    }

    /// Number of legal moves (perft's last ply).
    pub fn count_legal_moves(&self) -> usize {
        let mut list = MoveList::new();
        self.generate(GenKind::All, &mut list);
        list.len()
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        // Cheap and rare enough: generate everything.
        self.count_legal_moves() > 0
    }

    /// Whether the side to move is checkmated (in check with no legal move).
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_move()
    }

    /// Appends legal moves of the requested kind to `list`.
    pub fn generate(&self, kind: GenKind, list: &mut MoveList) {
        let us = self.side_to_move();
        let them = !us;
        let own = self.pieces(us);
        let occ = self.occupied();
        let Some(ksq) = self.king_square(us) else {
            // No king (composed positions): every pseudo-legal move is legal.
            self.generate_piece_moves(kind, list, !own, Bitboard::EMPTY, None);
            if kind == GenKind::All {
                self.generate_drops(list, !occ);
            }
            return;
        };
        let checkers = self.attackers_to(ksq, them, occ);
        let pinned = self.pinned(us);

        // King moves: never onto an attacked square (sliders see through the king's origin).
        let occ_without_king = occ ^ Bitboard::from_square(ksq);
        let mut king_targets = bitboard::king_attacks(ksq) & !own;
        if kind == GenKind::Tactical && checkers.is_empty() {
            king_targets &= self.pieces(them);
        }
        for to in king_targets {
            if self.attackers_to(to, them, occ_without_king).is_empty() {
                list.push(Move::board(ksq, to, false));
            }
        }
        if checkers.several() {
            return;
        }
        let (targets, drop_targets) = if checkers.any() {
            let checker = checkers.first();
            let block = bitboard::between(ksq, checker);
            (block | checkers, block)
        } else {
            (!own, !occ)
        };
        let evasion = checkers.any();
        let gen_kind = if evasion { GenKind::All } else { kind };
        self.generate_piece_moves(gen_kind, list, targets, pinned, Some(ksq));
        if gen_kind == GenKind::All && drop_targets.any() {
            self.generate_drops(list, drop_targets);
        }
    }

    /// Board moves of every piece but the king (when `ksq` is given) onto `targets`.
    #[inline(always)]
    fn generate_piece_moves(
        &self,
        kind: GenKind,
        list: &mut MoveList,
        targets: Bitboard,
        pinned: Bitboard,
        ksq: Option<Square>,
    ) {
        let us = self.side_to_move();
        let occ = self.occupied();
        let enemy = self.pieces(!us);
        let zone = Bitboard::rank(us.promotion_rank());
        let mut movers = self.pieces(us);
        if let Some(k) = ksq {
            movers.clear(k);
        }
        for from in movers {
            let piece = self.piece_at(from).expect("bitboard and board agree");
            let mut to_set = bitboard::attacks(us, piece.kind, from, occ) & targets;
            if pinned.has(from) {
                // A pinned piece stays on the line through its king and itself.
                to_set &= bitboard::line(ksq.expect("pins imply a king"), from);
            }
            let can_promote = piece.kind.can_promote();
            let from_in_zone = zone.has(from);
            for to in to_set {
                let promo_possible = can_promote && (from_in_zone || zone.has(to));
                if kind == GenKind::Tactical && !enemy.has(to) && !promo_possible {
                    continue;
                }
                if promo_possible {
                    list.push(Move::board(from, to, true));
                    // A pawn reaching the last rank must promote; other pieces may stay.
                    if piece.kind != PieceKind::Pawn && (kind == GenKind::All || enemy.has(to)) {
                        list.push(Move::board(from, to, false));
                    }
                } else {
                    list.push(Move::board(from, to, false));
                }
            }
        }
    }

    /// Drops onto `targets` (empty squares), with the pawn restrictions.
    #[inline(always)]
    fn generate_drops(&self, list: &mut MoveList, targets: Bitboard) {
        let us = self.side_to_move();
        let hand = self.hand(us);
        for kind in PieceKind::HAND {
            if hand.count(kind) == 0 {
                continue;
            }
            let squares = if kind == PieceKind::Pawn {
                self.pawn_drop_squares(targets)
            } else {
                targets
            };
            for to in squares {
                list.push(Move::drop(kind, to));
            }
        }
    }

    /// Of `squares` (empty ones), those where the side to move may drop a pawn it holds.
    #[inline(always)]
    pub(crate) fn pawn_drop_squares(&self, mut squares: Bitboard) -> Bitboard {
        let us = self.side_to_move();
        // No pawn on the last rank, and 二歩: no second unpromoted pawn on a file.
        squares &= !Bitboard::rank(us.promotion_rank());
        for p in self.pieces_of(us, PieceKind::Pawn) {
            squares &= !Bitboard::file(p.file());
        }
        // 打ち歩詰め: the drop in front of the enemy king is legal only if it does not mate.
        if let Some(eksq) = self.king_square(!us) {
            let front = bitboard::pawn_attacks(!us, eksq);
            if (squares & front).any() {
                let to = front.first();
                if self.pawn_drop_mates(to) {
                    squares &= !front;
                }
            }
        }
        squares
    }

    /// Whether dropping a pawn on `to` (giving check) would checkmate.
    fn pawn_drop_mates(&self, to: Square) -> bool {
        let after = self.after(Move::drop(PieceKind::Pawn, to));
        !after.has_legal_move()
    }
}

/// Counts leaf nodes at `depth` (bulk counting at the last ply).
/// The deepest perft counted: far beyond what finishes (depth 9 from the start takes minutes),
/// and it bounds the move lists perft allocates.
pub const MAX_PERFT_DEPTH: u32 = 32;

pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    // One move list per ply, reused: a fresh list would be zeroed at every node.
    let mut lists = vec![MoveList::new(); depth as usize];
    perft_with(pos, &mut lists)
}

/// Perft to depth `lists.len()` (at least 1), generating ply `i`'s moves into `lists[i]`.
fn perft_with(pos: &mut Position, lists: &mut [MoveList]) -> u64 {
    let (moves, deeper) = lists.split_first_mut().expect("depth at least 1");
    moves.clear();
    pos.generate(GenKind::All, moves);
    if deeper.is_empty() {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &mv in moves.iter() {
        let undo = pos.make_move(mv);
        nodes += perft_with(pos, deeper);
        pos.unmake_move(mv, undo);
    }
    nodes
}

/// Perft that can be interrupted: `None` soon after `stop` is set (it is looked at before each
/// node whose children are not leaves, which costs nothing measurable).
pub fn perft_until(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    let mut lists = vec![MoveList::new(); depth as usize];
    perft_with_stop(pos, &mut lists, stop)
}

fn perft_with_stop(pos: &mut Position, lists: &mut [MoveList], stop: &AtomicBool) -> Option<u64> {
    if lists.len() <= 2 {
        return (!stop.load(Ordering::Relaxed)).then(|| perft_with(pos, lists));
    }
    let (moves, deeper) = lists.split_first_mut().expect("depth at least 1");
    moves.clear();
    pos.generate(GenKind::All, moves);
    let mut nodes = 0;
    for &mv in moves.iter() {
        let undo = pos.make_move(mv);
        let count = perft_with_stop(pos, deeper, stop);
        pos.unmake_move(mv, undo);
        nodes += count?;
    }
    Some(nodes)
}

/// Per-root-move leaf counts, in generation order.
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    moves
        .iter()
        .map(|&mv| {
            let undo = pos.make_move(mv);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.unmake_move(mv, undo);
            (mv, n)
        })
        .collect()
}
