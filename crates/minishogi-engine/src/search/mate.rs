//! `go mate`: a mate solver by continuous checks. Iterative deepening over odd depths (the
//! attacker checks at every move, the defender tries every evasion) finds the shortest mate;
//! a table of positions proven to have no mate within a depth prunes re-searches. The same
//! solver, capped in plies and nodes and keeping its memory between calls, looks for mates
//! at the nodes of a Monte Carlo tree search (`mate_within`).

use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use crate::platform::Instant;

use super::movepick::ScoredMoves;
use super::{MateResult, SearchControl};
use crate::shogi::repetition;
use crate::shogi::{GenKind, Move, MoveList, PieceKind, Position, Square};

/// Longest mate looked for, in plies.
pub const MAX_MATE_PLY: u32 = 125;
/// `go mate`'s table: 16 MiB.
const TABLE_BITS: u32 = 20;
/// Nodes between two looks at the clock and the stop flag.
const POLL_INTERVAL: u64 = 4096;
const UNLIMITED: u16 = u16::MAX;
const LINE: usize = MAX_MATE_PLY as usize + 2;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    /// No mate exists within this many plies (UNLIMITED: none at all, whatever the depth).
    no_mate_within: u16,
}

/// The solver's memory: the table of positions proven free of a mate within a depth, the
/// line and the principal variations. A caller that solves many positions keeps one: what the
/// table holds depends on the position alone, so it serves every later call.
pub struct MateMemory {
    table_bits: u32,
    table: Vec<Entry>,
    /// Keys of the positions on the current line (and of the game before it), for repetition.
    path: Vec<u64>,
    pv: Vec<[Move; LINE]>,
    pv_len: Vec<usize>,
}

impl MateMemory {
    /// A memory whose table has `2^table_bits` entries of 16 bytes.
    pub fn new(table_bits: u32) -> MateMemory {
        MateMemory {
            table_bits,
            table: vec![Entry::default(); 1 << table_bits],
            path: Vec::with_capacity(LINE),
            pv: vec![[Move::NULL; LINE]; LINE],
            pv_len: vec![0; LINE],
        }
    }
}

/// When a solve gives up: the stop flag, a deadline, a node budget.
struct Limit<'a> {
    stop: Option<&'a AtomicBool>,
    deadline: Option<Instant>,
    nodes: u64,
}

/// Solves from `pos` (the side to move attacks) until a proof, `time` or `control.stop`.
pub fn solve(pos: &Position, time: Option<Duration>, control: &SearchControl) -> MateResult {
    let mut memory = MateMemory::new(TABLE_BITS);
    let limit = Limit {
        stop: Some(&control.stop),
        deadline: time.map(|t| Instant::now() + t),
        nodes: u64::MAX,
    };
    deepen(pos, &mut memory, limit, MAX_MATE_PLY)
}

/// A mate of at most `max_plies` plies from `pos` (the side to move attacks), looked for
/// within `node_limit` nodes; `None` if none was found within both limits. `earlier` are the
/// keys of the game's positions before `pos`, oldest first: a line through a position that
/// occurred before (with the same side to move) is not counted, so no mate found can run into
/// 千日手.
pub fn mate_within(
    pos: &Position,
    earlier: impl IntoIterator<Item = u64>,
    memory: &mut MateMemory,
    max_plies: u32,
    node_limit: u64,
) -> Option<Vec<Move>> {
    memory.path.clear();
    memory.path.extend(earlier);
    let limit = Limit {
        stop: None,
        deadline: None,
        nodes: node_limit,
    };
    match deepen(pos, memory, limit, max_plies.min(MAX_MATE_PLY)) {
        MateResult::Mate(moves) => Some(moves),
        MateResult::NoMate | MateResult::Timeout => None,
    }
}

fn deepen(pos: &Position, memory: &mut MateMemory, limit: Limit, max_plies: u32) -> MateResult {
    let mut solver = Solver {
        pos: pos.clone(),
        limit,
        nodes: 0,
        stopped: false,
        memory,
        horizon_hits: 0,
        repetitions: 0,
    };
    let mut depth = 1;
    while depth <= max_plies {
        solver.horizon_hits = 0;
        let found = solver.attack(depth, 0);
        if solver.stopped {
            return MateResult::Timeout;
        }
        if found.is_some() {
            let m = &solver.memory;
            return MateResult::Mate(m.pv[0][..m.pv_len[0]].to_vec());
        }
        if solver.horizon_hits == 0 {
            // The whole tree of checks was explored without reaching the depth limit.
            return MateResult::NoMate;
        }
        depth += 2;
    }
    if max_plies < MAX_MATE_PLY {
        return MateResult::Timeout;
    }
    MateResult::NoMate
}

struct Solver<'a> {
    pos: Position,
    limit: Limit<'a>,
    nodes: u64,
    stopped: bool,
    memory: &'a mut MateMemory,
    /// Times the depth limit (or a depth-limited table entry) cut a line: if none in an
    /// iteration, deeper iterations cannot find more.
    horizon_hits: u64,
    /// Lines cut by repetition: their "no mate" depends on the path and is not tabled.
    repetitions: u64,
}

impl Solver<'_> {
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.limit.nodes
            || (self.nodes.is_multiple_of(POLL_INTERVAL)
                && (self.limit.stop.is_some_and(|s| s.load(Relaxed))
                    || self.limit.deadline.is_some_and(|d| Instant::now() >= d)))
        {
            self.stopped = true;
        }
        self.stopped
    }

    fn slot(&self, key: u64) -> usize {
        (key >> (64 - self.memory.table_bits)) as usize
    }

    /// Whether the table proves there is no mate within `depth`.
    fn known_no_mate(&mut self, key: u64, depth: u32) -> bool {
        let e = self.memory.table[self.slot(key)];
        if e.key != key || u32::from(e.no_mate_within) < depth {
            return false;
        }
        if e.no_mate_within != UNLIMITED {
            self.horizon_hits += 1;
        }
        true
    }

    fn record_no_mate(&mut self, key: u64, depth: u32, horizon_before: u64, reps_before: u64) {
        if self.stopped || self.repetitions != reps_before {
            return;
        }
        let within = if self.horizon_hits == horizon_before {
            UNLIMITED
        } else {
            depth as u16
        };
        let slot = self.slot(key);
        let e = &mut self.memory.table[slot];
        if e.key != key || e.no_mate_within < within {
            *e = Entry {
                key,
                no_mate_within: within,
            };
        }
    }

    /// Whether the position `key`, about to be pushed on the path, occurred on the line before.
    fn repeats(&self, key: u64) -> bool {
        let path = &self.memory.path;
        repetition::repeats(&path[..], key, path.len(), 0)
    }

    /// The attacker (side to move) mates within `depth` plies, all checks: the length found.
    fn attack(&mut self, depth: u32, ply: usize) -> Option<u32> {
        self.memory.pv_len[ply] = 0;
        if self.tick() {
            return None;
        }
        let key = self.pos.key();
        // The root itself may repeat the game before it: the rules have judged it already.
        if ply > 0 && self.repeats(key) {
            self.repetitions += 1;
            return None;
        }
        if self.known_no_mate(key, depth) {
            return None;
        }
        let (horizon_before, reps_before) = (self.horizon_hits, self.repetitions);
        let mut list = MoveList::new();
        self.pos.generate(GenKind::All, &mut list);
        let mut checks = ScoredMoves::new();
        let their_king = self.pos.king_square(!self.pos.side_to_move());
        for &mv in list.iter() {
            if self.pos.gives_check(mv) {
                checks.push(mv, attack_order(&self.pos, mv, their_king));
            }
        }
        checks.sort();
        self.memory.path.push(key);
        let mut found = None;
        for &mv in checks.moves() {
            let undo = self.pos.make_move(mv);
            let result = self.defend(depth - 1, ply + 1);
            self.pos.unmake_move(mv, undo);
            if self.stopped {
                break;
            }
            if let Some(n) = result {
                self.set_pv(ply, mv);
                found = Some(n + 1);
                break;
            }
        }
        self.memory.path.pop();
        if found.is_none() {
            self.record_no_mate(key, depth, horizon_before, reps_before);
        }
        found
    }

    /// The defender (side to move, in check) is mated within `depth` plies whatever it does:
    /// the length of its longest resistance.
    fn defend(&mut self, depth: u32, ply: usize) -> Option<u32> {
        self.memory.pv_len[ply] = 0;
        if self.tick() {
            return None;
        }
        let key = self.pos.key();
        if self.repeats(key) {
            // The attacker has checked all along: perpetual check loses for the attacker.
            self.repetitions += 1;
            return None;
        }
        let mut list = MoveList::new();
        self.pos.generate(GenKind::All, &mut list);
        if list.is_empty() {
            return Some(0);
        }
        if depth == 0 {
            self.horizon_hits += 1;
            return None;
        }
        if self.known_no_mate(key, depth) {
            return None;
        }
        let (horizon_before, reps_before) = (self.horizon_hits, self.repetitions);
        let mut evasions = ScoredMoves::new();
        for &mv in list.iter() {
            evasions.push(mv, defence_order(&self.pos, mv));
        }
        evasions.sort();
        self.memory.path.push(key);
        let mut longest: Option<u32> = None;
        for &mv in evasions.moves() {
            let undo = self.pos.make_move(mv);
            let result = self.attack(depth - 1, ply + 1);
            self.pos.unmake_move(mv, undo);
            if self.stopped {
                longest = None;
                break;
            }
            match result {
                None => {
                    longest = None;
                    break;
                }
                Some(n) => {
                    if longest.is_none_or(|l| n > l) {
                        longest = Some(n);
                        self.set_pv(ply, mv);
                    }
                }
            }
        }
        self.memory.path.pop();
        if longest.is_none() {
            self.record_no_mate(key, depth, horizon_before, reps_before);
        }
        longest.map(|n| n + 1)
    }

    fn set_pv(&mut self, ply: usize, mv: Move) {
        let m = &mut *self.memory;
        let child_len = m.pv_len[ply + 1];
        let (head, tail) = m.pv.split_at_mut(ply + 1);
        head[ply][0] = mv;
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        m.pv_len[ply] = child_len + 1;
    }
}

fn distance(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32)
        .abs()
        .max((a.rank() as i32 - b.rank() as i32).abs())
}

/// Attacker's checks: captures and promotions first, then moves close to the king.
fn attack_order(pos: &Position, mv: Move, their_king: Option<Square>) -> i32 {
    let capture = if mv.is_drop() {
        0
    } else {
        pos.piece_at(mv.to()).map_or(0, |p| p.kind.value())
    };
    let near = their_king.map_or(0, |k| 4 - distance(k, mv.to()));
    capture + 300 * i32::from(mv.is_promotion()) + 100 * near
}

/// Defender's evasions: king moves and captures (likely refutations) before interpositions,
/// drops last.
fn defence_order(pos: &Position, mv: Move) -> i32 {
    if let Some(kind) = mv.dropped() {
        return -kind.value();
    }
    let mover = pos.piece_at(mv.from_unchecked()).map(|p| p.kind);
    let capture = pos.piece_at(mv.to()).map_or(0, |p| p.kind.value());
    capture
        + if mover == Some(PieceKind::King) {
            5000
        } else {
            1000
        }
}
