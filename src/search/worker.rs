//! One search thread: iterative deepening over a negamax alpha-beta with principal variation
//! search, aspiration windows, null-move pruning, late move reductions, history pruning,
//! internal iterative reduction, singular extensions, an extension of forcing checks, and
//! quiescence with a test for mating drops. Thread 0 reports and manages time; helper threads (Lazy SMP) search
//! the same tree at staggered depths and share what they find through the transposition table.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use super::heuristics::{CorrectionKey, Heuristics, piece_square, structure_key};
use super::ordering::{
    capture_history_index, continuation_index, is_quiet, pick_next, score_moves, score_tactical,
    see_ge, tactical_gain,
};
use super::params::SearchParams;
use super::score::*;
use super::skill::Skill;
use super::time::{TimeKeeper, budget};
use super::tt::{Bound, TranspositionTable, TtEntry};
use super::{
    Limits, ScoreBound, SearchControl, SearchEvent, SearchFeatures, SearchInfo, SearchOptions,
    SearchResult,
};
use crate::eval::{Evaluator, PathState};
use crate::shogi::game::HistoryEntry;
use crate::shogi::repetition::{self, Projection};
use crate::shogi::{GenKind, MAX_MOVES, Move, MoveList, Position, Undo};

/// Search threads recurse up to MAX_PLY deep with move lists on the stack. (The main worker
/// runs on the caller's thread: a search needs far less than the usual 2 MiB, this is slack.)
pub const THREAD_STACK: usize = 32 << 20;
/// Nodes between two looks at the clock and the stop flags (well under a millisecond).
const POLL_INTERVAL: u64 = 512;
/// After this long, the main thread also reports the root move it is searching and the bound of
/// a failed aspiration window, as GUIs show them during long searches.
const DETAILED_REPORTS_AFTER: Duration = Duration::from_secs(1);
/// Buckets of the repetition pre-filter (counts of path keys by their low bits).
const REP_FILTER: usize = 1024;

/// A root move with what the last iteration learnt about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: i32,
    pub previous_score: i32,
    pub seldepth: usize,
    pub pv: Vec<Move>,
}

/// What all threads of one search share.
struct Shared<'a> {
    tt: &'a TranspositionTable,
    control: &'a SearchControl,
    limits: &'a Limits,
    features: SearchFeatures,
    params: SearchParams,
    multipv: usize,
    /// Below full strength: the level, whose move is chosen among the MultiPV candidates.
    skill: Option<Skill>,
    max_plies: Option<u32>,
    /// Stops the helpers when the main thread is done.
    abort: AtomicBool,
    /// Per-thread node counts, published at each poll.
    nodes: Vec<AtomicU64>,
    root: &'a Position,
    root_moves: Vec<Move>,
    history: &'a [HistoryEntry],
}

impl Shared<'_> {
    fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Relaxed)).sum()
    }
}

/// Runs a search on `opts.threads` threads and returns the main thread's result.
#[allow(clippy::too_many_arguments)]
pub fn run(
    tt: &TranspositionTable,
    opts: &SearchOptions,
    max_plies: Option<u32>,
    evaluator: &Arc<dyn Evaluator>,
    thread_memory: &mut [Box<Heuristics>],
    pos: &Position,
    history: &[HistoryEntry],
    limits: &Limits,
    control: &SearchControl,
    start: Instant,
    on_info: &mut dyn FnMut(&SearchEvent),
) -> (SearchResult, Vec<u64>) {
    let mut root_moves = pos.legal_moves().to_vec();
    if root_moves.iter().any(|mv| limits.searchmoves.contains(mv)) {
        root_moves.retain(|mv| limits.searchmoves.contains(mv));
    }
    if root_moves.is_empty() {
        let result = SearchResult {
            best: None,
            ponder: None,
            score: to_public(mated_in(0)),
            depth: 0,
            nodes: 0,
        };
        wait_for_release(limits, control);
        on_info(&SearchEvent::Finished(result.clone()));
        return (result, vec![0; thread_memory.len()]);
    }
    // A weakened level searches at most its node budget, over at least its candidates.
    let level = opts.skill.params();
    let capped_limits;
    let limits = match level {
        Some(level) => {
            capped_limits = Limits {
                nodes: Some(limits.nodes.map_or(level.nodes, |n| n.min(level.nodes))),
                ..limits.clone()
            };
            &capped_limits
        }
        None => limits,
    };
    let shared = Shared {
        tt,
        control,
        limits,
        features: opts.features,
        params: opts.params,
        multipv: opts.multipv.max(level.map_or(1, |l| l.multipv)).max(1),
        skill: level.map(|_| opts.skill),
        max_plies: max_plies.filter(|&n| n > 0),
        abort: AtomicBool::new(false),
        nodes: (0..thread_memory.len())
            .map(|_| AtomicU64::new(0))
            .collect(),
        root: pos,
        root_moves,
        history,
    };
    let time = TimeKeeper::new(budget(limits, opts.move_overhead), control, start);
    let evaluator: &dyn Evaluator = evaluator.as_ref();
    let (main_memory, helper_memory) = thread_memory
        .split_first_mut()
        .expect("memory for at least one thread");
    let outcome = std::thread::scope(|scope| {
        let shared = &shared;
        let mut helpers = Vec::new();
        for (index, memory) in helper_memory.iter_mut().enumerate() {
            let id = index + 1;
            let spawned = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .stack_size(THREAD_STACK)
                .spawn_scoped(scope, move || {
                    let mut worker = Worker::new(id, shared, evaluator, memory, None, None);
                    worker.iterate();
                    shared.nodes[id].store(worker.nodes, Relaxed);
                });
            match spawned {
                Ok(handle) => helpers.push(handle),
                Err(e) => log::warn!("search: cannot start helper thread {id} ({e})"),
            }
        }
        // The main worker runs on the calling thread: its result is there the moment it stops,
        // with no other thread to wake up, and it reports to `on_info` directly.
        let mut worker = Worker::new(0, shared, evaluator, main_memory, Some(time), Some(on_info));
        worker.iterate();
        shared.abort.store(true, Relaxed);
        shared.nodes[0].store(worker.nodes, Relaxed);
        let result = main_result(
            shared,
            &worker.root_moves,
            &worker.skill_candidates,
            worker.completed_depth,
        );
        wait_for_release(limits, control);
        // The answer goes out now; the helpers, told to stop, are only waited for after it.
        if let Some(report) = worker.reporter.as_mut() {
            report(&SearchEvent::Finished(result.clone()));
        }
        for helper in helpers {
            // A helper's panic is a bug, but the main result stands.
            if helper.join().is_err() {
                log::error!("search: a helper thread panicked");
            }
        }
        result
    });
    let result = SearchResult {
        nodes: shared.total_nodes(),
        ..outcome
    };
    (
        result,
        shared.nodes.iter().map(|n| n.load(Relaxed)).collect(),
    )
}

/// The search's answer from the main thread's root moves: the best move (below full strength,
/// the level's choice among the candidates of the last completed iteration), the reply
/// expected (from the principal variation, else the table).
fn main_result(
    shared: &Shared,
    root_moves: &[RootMove],
    skill_candidates: &[RootMove],
    depth: i32,
) -> SearchResult {
    let best = match shared.skill {
        // With one candidate there is nothing to choose: the last (even unfinished) iteration's
        // best, as at full strength.
        Some(skill) if skill_candidates.len() > 1 => {
            let scored: Vec<(Move, i32)> = skill_candidates
                .iter()
                .map(|rm| (rm.mv, rm.score))
                .collect();
            &skill_candidates[skill.pick(&scored, shared.root.key())]
        }
        _ => &root_moves[0],
    };
    let ponder = best.pv.get(1).copied().or_else(|| {
        let after = shared.root.after(best.mv);
        shared
            .tt
            .probe(after.key())
            .map(|e| e.mv)
            .filter(|&mv| after.is_legal(mv))
    });
    SearchResult {
        best: Some(best.mv),
        ponder,
        score: to_public(best.score),
        depth: depth as u32,
        nodes: shared.total_nodes(),
    }
}

/// USI: after `go infinite` or `go ponder`, bestmove waits for `stop` (or ponderhit).
fn wait_for_release(limits: &Limits, control: &SearchControl) {
    while !control.stop.load(Relaxed) && (limits.infinite || control.ponder.load(Relaxed)) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

struct Worker<'a> {
    id: usize,
    shared: &'a Shared<'a>,
    evaluator: &'a dyn Evaluator,
    /// The evaluator's state along this thread's path, if it keeps one.
    eval_state: Option<Box<dyn PathState + 'a>>,
    heur: &'a mut Heuristics,
    time: Option<TimeKeeper>,
    /// The main thread's reports go here.
    reporter: Option<&'a mut dyn FnMut(&SearchEvent)>,
    pos: Position,
    nodes: u64,
    /// Nodes at which this thread stops by itself (single-threaded `go nodes`).
    node_limit: u64,
    stopped: bool,
    completed_depth: i32,
    root_depth: i32,
    seldepth: usize,
    pv_index: usize,
    best_move_changes: f64,
    root_moves: Vec<RootMove>,
    /// Below full strength (main thread): the MultiPV lines of the last completed iteration,
    /// best first, among which the level chooses.
    skill_candidates: Vec<RootMove>,
    /// Keys and check flags of the game history followed by the search path; the node at
    /// ply p is at `root_index + p`.
    keys: Vec<u64>,
    checks: Vec<bool>,
    root_index: usize,
    /// Repetition scans never cross a null move: they start no lower than this index.
    scan_floor: usize,
    rep_filter: Box<[u16; REP_FILTER]>,
    /// The move made at each ply (Move::NULL for a null move), for counter-moves.
    current_move: [Move; MAX_PLY + 2],
    /// The [`piece_square`] of the move that led to the node at each ply (None after a null
    /// move and at the root), for the correction history.
    arrival: [Option<usize>; MAX_PLY + 2],
    static_eval: [i32; MAX_PLY + 2],
    /// Whether the check that led to the node at each ply may be extended there, when the
    /// extension is decided by the number of replies (`check_ext_max_replies`).
    check_ext_candidate: [bool; MAX_PLY + 2],
    /// The move a singular-extension search leaves out at each ply (NULL: none).
    excluded: [Move; MAX_PLY + 2],
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    lmr: Box<[[u8; 64]; 64]>,
}

impl<'a> Worker<'a> {
    fn new(
        id: usize,
        shared: &'a Shared<'a>,
        evaluator: &'a dyn Evaluator,
        heur: &'a mut Heuristics,
        time: Option<TimeKeeper>,
        reporter: Option<&'a mut dyn FnMut(&SearchEvent)>,
    ) -> Worker<'a> {
        heur.clear_killers();
        let mut keys = Vec::with_capacity(shared.history.len() + MAX_PLY + 2);
        let mut checks = Vec::with_capacity(keys.capacity());
        let mut rep_filter = Box::new([0u16; REP_FILTER]);
        for entry in shared.history {
            keys.push(entry.key);
            checks.push(entry.in_check);
            rep_filter[entry.key as usize % REP_FILTER] += 1;
        }
        let root_index = keys.len();
        keys.resize(root_index + MAX_PLY + 2, 0);
        checks.resize(root_index + MAX_PLY + 2, false);
        let lmr_divisor = shared.params.lmr_divisor();
        let mut lmr = Box::new([[0u8; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = ((d as f64).ln() * (m as f64).ln() / lmr_divisor) as u8;
            }
        }
        let single_thread = shared.nodes.len() == 1;
        Worker {
            id,
            shared,
            evaluator,
            eval_state: evaluator.path_state(shared.root),
            heur,
            time,
            reporter,
            pos: shared.root.clone(),
            nodes: 0,
            node_limit: match shared.limits.nodes {
                Some(n) if single_thread => n,
                _ => u64::MAX,
            },
            stopped: false,
            completed_depth: 0,
            root_depth: 0,
            seldepth: 0,
            pv_index: 0,
            best_move_changes: 0.0,
            root_moves: shared
                .root_moves
                .iter()
                .map(|&mv| RootMove {
                    mv,
                    score: -INFINITE,
                    previous_score: -INFINITE,
                    seldepth: 0,
                    pv: vec![mv],
                })
                .collect(),
            skill_candidates: Vec::new(),
            keys,
            checks,
            root_index,
            scan_floor: 0,
            rep_filter,
            current_move: [Move::NULL; MAX_PLY + 2],
            arrival: [None; MAX_PLY + 2],
            static_eval: [0; MAX_PLY + 2],
            check_ext_candidate: [false; MAX_PLY + 2],
            excluded: [Move::NULL; MAX_PLY + 2],
            pv: Box::new([[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            lmr,
        }
    }

    // ---- stopping ------------------------------------------------------------------------

    /// Counts a node and says whether to unwind (checked at every node; cheap).
    #[inline(always)]
    fn count_node_and_check(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.request_stop();
        }
        if self.nodes.is_multiple_of(POLL_INTERVAL) {
            self.poll();
        }
        self.stopped
    }

    fn poll(&mut self) {
        let shared = self.shared;
        shared.nodes[self.id].store(self.nodes, Relaxed);
        if shared.abort.load(Relaxed) || shared.control.stop.load(Relaxed) {
            self.request_stop();
        }
        if self.id == 0 {
            let out_of_nodes = shared
                .limits
                .nodes
                .is_some_and(|limit| shared.total_nodes() >= limit);
            let out_of_time = self
                .time
                .as_mut()
                .is_some_and(|time| time.out_of_time(shared.control));
            if out_of_nodes || out_of_time {
                self.request_stop();
            }
        }
    }

    /// The main thread always finishes depth 1, so that there is a searched best move.
    fn request_stop(&mut self) {
        if self.id != 0 || self.completed_depth >= 1 {
            self.stopped = true;
        }
    }

    // ---- iterative deepening ----------------------------------------------------------------

    fn iterate(&mut self) {
        let limits = self.shared.limits;
        let max_depth = limits
            .depth
            .map_or(MAX_DEPTH, |d| (d as i32).clamp(1, MAX_DEPTH));
        let multipv = if self.id == 0 {
            self.shared.multipv.min(self.root_moves.len())
        } else {
            1
        };
        let mut last_reported = Move::NULL;
        for depth in 1..=max_depth {
            if self.id > 0 && skip_depth(self.id, depth) {
                continue;
            }
            self.root_depth = depth;
            self.best_move_changes *= 0.5;
            for rm in &mut self.root_moves {
                rm.previous_score = rm.score;
            }
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                self.seldepth = 0;
                self.aspiration(depth);
                self.root_moves[..=pv_index].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                break;
            }
            self.completed_depth = depth;
            if self.id != 0 {
                continue;
            }
            if self.shared.skill.is_some() {
                self.skill_candidates = self.root_moves[..multipv].to_vec();
            }
            self.report(depth, multipv, ScoreBound::Exact);
            last_reported = self.root_moves[0].mv;
            if self.finished_after_iteration(depth) {
                break;
            }
            // A stop that arrived during depth 1 was deferred until now.
            self.poll();
            if self.stopped {
                break;
            }
        }
        // (A weakened level choosing among candidates plays from the last completed iteration.)
        let plays_root_best = self.shared.skill.is_none() || multipv == 1;
        if self.id == 0
            && plays_root_best
            && self.root_moves[0].mv != last_reported
            && self.completed_depth > 0
        {
            // An interrupted iteration found a better move: say so before bestmove.
            self.report(self.completed_depth, 1, ScoreBound::Exact);
        }
    }

    fn aspiration(&mut self, depth: i32) {
        let p: &SearchParams = &self.shared.params;
        let previous = self.root_moves[self.pv_index].previous_score;
        let mut delta = p.aspiration_delta
            + if p.aspiration_score_divisor > 0 {
                previous.abs().min(MATE_IN_MAX_PLY) / p.aspiration_score_divisor
            } else {
                0
            };
        let (mut alpha, mut beta) = if depth >= p.aspiration_min_depth && !is_decided(previous) {
            (
                (previous - delta).max(-INFINITE),
                (previous + delta).min(INFINITE),
            )
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let score = self.search_root(alpha, beta, depth);
            self.root_moves[self.pv_index..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.stopped {
                return;
            }
            if (score <= alpha || score >= beta) && self.shared.multipv == 1 && self.detailed() {
                let bound = if score <= alpha {
                    ScoreBound::Upper
                } else {
                    ScoreBound::Lower
                };
                self.report(depth, 1, bound);
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
            } else if score >= beta {
                beta = (score + delta).min(INFINITE);
            } else {
                return;
            }
            delta += delta / 2;
            if delta > p.aspiration_max_delta {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    fn finished_after_iteration(&mut self, depth: i32) -> bool {
        let control = self.shared.control;
        let limits = self.shared.limits;
        if limits.infinite || control.ponder.load(Relaxed) {
            return false;
        }
        if let Some(soft) = limits.soft_nodes {
            self.shared.nodes[self.id].store(self.nodes, Relaxed);
            if self.shared.total_nodes() >= soft {
                return true;
            }
        }
        let Some(time) = &mut self.time else {
            return false;
        };
        if time.budget.is_none() {
            return false;
        }
        let best = self.root_moves[0].score;
        let only_move = self.root_moves.len() == 1;
        // A mate seen with plenty of depth to spare will not change. (`movetime` asks for
        // exactly that long, so it is not cut short.)
        let mate_settled = best.abs() >= MATE_IN_MAX_PLY && depth >= 2 * (MATE - best.abs()) + 4;
        if (only_move || mate_settled) && limits.movetime.is_none() && time.counting(control) {
            return true;
        }
        let instability = 1.0 + self.best_move_changes;
        time.stop_after_iteration(control, instability)
    }

    /// Whether the main thread is far enough into the search for per-move details.
    fn detailed(&self) -> bool {
        self.time
            .as_ref()
            .is_some_and(|t| t.search_start.elapsed() >= DETAILED_REPORTS_AFTER)
    }

    fn report(&mut self, depth: i32, lines: usize, bound: ScoreBound) {
        if self.reporter.is_none() {
            return;
        }
        let shared = self.shared;
        shared.nodes[self.id].store(self.nodes, Relaxed);
        let nodes = shared.total_nodes();
        let elapsed = self
            .time
            .as_ref()
            .map_or(Duration::ZERO, |t| t.search_start.elapsed());
        let time_ms = elapsed.as_millis() as u64;
        let nps = (nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64;
        let hashfull = shared.tt.hashfull();
        for (i, rm) in self.root_moves.iter().take(lines).enumerate() {
            let event = SearchEvent::Iteration(SearchInfo {
                depth: depth as u32,
                seldepth: rm.seldepth.max(depth as usize) as u32,
                multipv: i as u32 + 1,
                score: to_public(rm.score),
                nodes,
                nps,
                time_ms,
                hashfull,
                bound,
                pv: rm.pv.clone(),
            });
            if let Some(report) = self.reporter.as_mut() {
                report(&event);
            }
        }
    }

    fn report_current_move(&mut self, mv: Move, number: usize) {
        let (Some(report), Some(time)) = (self.reporter.as_mut(), &self.time) else {
            return;
        };
        report(&SearchEvent::CurrentMove {
            depth: self.root_depth as u32,
            mv,
            number: number as u32,
            nodes: self.shared.total_nodes(),
            time_ms: time.search_start.elapsed().as_millis() as u64,
        });
    }

    // ---- evaluation and rules ---------------------------------------------------------------

    #[inline(always)]
    fn evaluate(&mut self) -> i32 {
        let cp = match &mut self.eval_state {
            Some(state) => state.evaluate_cp(&self.pos),
            None => self.evaluator.evaluate_cp(&self.pos),
        };
        // Whatever the evaluator returns, keep it below decided scores.
        cp.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// Makes `mv` on the search position and tells the evaluator's path state, if any.
    #[inline(always)]
    fn make_move(&mut self, mv: Move) -> Undo {
        let undo = self.pos.make_move(mv);
        if let Some(state) = &mut self.eval_state {
            state.on_make(&self.pos, mv);
        }
        undo
    }

    #[inline(always)]
    fn unmake_move(&mut self, mv: Move, undo: Undo) {
        self.pos.unmake_move(mv, undo);
        if let Some(state) = &mut self.eval_state {
            state.on_unmake(&self.pos, mv);
        }
    }

    #[inline(always)]
    fn make_null_move(&mut self) {
        self.pos.make_null_move();
        if let Some(state) = &mut self.eval_state {
            state.on_null_move(&self.pos, true);
        }
    }

    #[inline(always)]
    fn unmake_null_move(&mut self) {
        self.pos.unmake_null_move();
        if let Some(state) = &mut self.eval_state {
            state.on_null_move(&self.pos, false);
        }
    }

    /// Whether the game's ply limit is reached at `ply`.
    #[inline(always)]
    fn at_ply_limit(&self, ply: usize) -> bool {
        match self.shared.max_plies {
            Some(limit) => (self.root_index + ply) as u64 >= u64::from(limit),
            None => false,
        }
    }

    /// The rules' verdict if the node at `index` repeats an earlier position of the game or
    /// path (never across a null move), judged by `shogi::repetition::projected_verdict`: the
    /// cycle is assumed to go on to 千日手 (with `in_tree_repetition`, only a cycle closed
    /// inside the search), and a cycle cut short by the ply limit is a draw.
    #[inline(always)]
    fn repetition_score(&self, index: usize, ply: usize) -> Option<i32> {
        let path = repetition::Path {
            keys: &self.keys,
            checks: &self.checks,
        };
        let side = self.pos.side_to_move();
        let root = self
            .shared
            .features
            .in_tree_repetition
            .then_some(self.root_index);
        match repetition::projected_verdict(
            &path,
            index,
            self.scan_floor,
            root,
            side,
            self.shared.max_plies,
        )? {
            Projection::Draw => Some(DRAW),
            Projection::Decided(verdict) => {
                let win = RULE_WIN - ply as i32;
                Some(if verdict.loser == side { -win } else { win })
            }
        }
    }

    #[inline(always)]
    fn enter_path(&mut self, key: u64) {
        self.rep_filter[key as usize % REP_FILTER] += 1;
    }

    #[inline(always)]
    fn leave_path(&mut self, key: u64) {
        self.rep_filter[key as usize % REP_FILTER] -= 1;
    }

    /// The extension for a move into the node at `child_ply` that `extend`s a check: one ply
    /// now, or, when `check_ext_max_replies` is set, none now and a mark for the child to
    /// extend itself if its replies are few enough.
    #[inline(always)]
    fn check_extension(&mut self, child_ply: usize, extend: bool) -> i32 {
        let by_replies = self.shared.params.check_ext_max_replies > 0;
        self.check_ext_candidate[child_ply] = extend && by_replies;
        i32::from(extend && !by_replies)
    }

    /// The continuation index ([`piece_square`]) of the move that led here, if it was one.
    #[inline(always)]
    fn previous_piece_square(&self, previous: Move) -> Option<usize> {
        if previous.is_null() {
            return None;
        }
        self.pos
            .piece_at(previous.to())
            .map(|piece| piece_square(piece, previous.to()))
    }

    /// The correction-history key of the node at `ply` (whose `arrival` is set).
    #[inline(always)]
    fn correction_key(&self, ply: usize) -> CorrectionKey {
        let previous = self.arrival[ply];
        let pair = if self.shared.features.correction_pair {
            CorrectionKey::pair_of(self.arrival[ply - 1], previous)
        } else {
            None
        };
        CorrectionKey {
            structure: structure_key(&self.pos),
            previous,
            pair,
        }
    }

    /// `raw_eval` with the correction history's correction for this node.
    #[inline(always)]
    fn corrected_eval(&self, raw_eval: i32, key: CorrectionKey) -> i32 {
        let side = self.pos.side_to_move();
        let correction = self.heur.correction(side, key);
        (raw_eval + correction).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    #[inline(always)]
    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][0] = mv;
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    // ---- root ---------------------------------------------------------------------------------

    fn search_root(&mut self, mut alpha: i32, beta: i32, depth: i32) -> i32 {
        let key = self.pos.key();
        let in_check = self.pos.in_check();
        self.keys[self.root_index] = key;
        self.checks[self.root_index] = in_check;
        self.pv_len[0] = 0;
        self.enter_path(key);
        let mut best = -INFINITE;
        let mut best_move = Move::NULL;
        let original_alpha = alpha;
        for i in self.pv_index..self.root_moves.len() {
            let mv = self.root_moves[i].mv;
            let first = i == self.pv_index;
            let quiet = is_quiet(&self.pos, mv);
            if self.id == 0 && self.detailed() {
                self.report_current_move(mv, i + 1);
            }
            self.current_move[0] = mv;
            self.seldepth = self.seldepth.max(1);
            let undo = self.make_move(mv);
            let gives_check = self.pos.in_check();
            let extend = gives_check && self.shared.features.check_extension;
            let new_depth = depth - 1 + self.check_extension(1, extend);
            let mut score;
            // Whether the child's PV is this move's: only a PV search writes one.
            let mut pv_searched = first;
            if first {
                score = -self.search::<true>(-beta, -alpha, new_depth, 1, false);
            } else {
                let reduce = self.shared.features.lmr
                    && depth >= self.shared.params.lmr_min_depth
                    && i >= self.pv_index + self.shared.params.root_lmr_index as usize
                    && quiet
                    && !gives_check
                    && !in_check;
                let r = if !reduce {
                    0
                } else if self.shared.features.root_lmr_table {
                    let number = (i - self.pv_index + 1).min(63);
                    (self.lmr[(depth as usize).min(63)][number] as i32).max(1)
                } else {
                    1
                };
                let d = (new_depth - r).max(1).min(new_depth);
                score = -self.search::<false>(-alpha - 1, -alpha, d, 1, true);
                if score > alpha && d < new_depth {
                    score = -self.search::<false>(-alpha - 1, -alpha, new_depth, 1, true);
                }
                if score > alpha && score < beta {
                    score = -self.search::<true>(-beta, -alpha, new_depth, 1, false);
                    pv_searched = true;
                }
            }
            self.unmake_move(mv, undo);
            if self.stopped {
                break;
            }
            let improved = score > alpha;
            if first || improved {
                // A null-window fail high above beta leaves the move alone in its line.
                let child_len = if pv_searched { self.pv_len[1] } else { 0 };
                let rm = &mut self.root_moves[i];
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend_from_slice(&self.pv[1][..child_len]);
                if !first && self.pv_index == 0 {
                    self.best_move_changes += 1.0;
                }
            } else {
                self.root_moves[i].score = -INFINITE;
            }
            if score > best {
                best = score;
            }
            if improved {
                best_move = mv;
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        self.leave_path(key);
        if !self.stopped && self.pv_index == 0 {
            let eval = (!in_check).then(|| self.evaluate());
            let tt = self.shared.tt;
            store_result(
                tt,
                key,
                0,
                depth,
                best_move,
                best,
                (original_alpha, beta),
                true,
                eval,
            );
        }
        best
    }

    // ---- main search ----------------------------------------------------------------------------

    fn search<const PV: bool>(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        if PV {
            // Before any early return: a parent copies this node's PV whatever it returns.
            self.pv_len[ply] = 0;
        }
        // Repetition first, also for nodes about to drop into quiescence.
        let key = self.pos.key();
        let index = self.root_index + ply;
        self.keys[index] = key;
        if self.rep_filter[key as usize % REP_FILTER] != 0 {
            self.checks[index] = self.pos.in_check();
            if let Some(score) = self.repetition_score(index, ply) {
                return score;
            }
        }
        if depth <= 0 {
            return self.qsearch::<PV>(alpha, beta, ply);
        }
        if self.count_node_and_check() {
            return 0;
        }
        if PV {
            self.seldepth = self.seldepth.max(ply);
        }
        let in_check = self.pos.in_check();
        self.checks[index] = in_check;
        if self.at_ply_limit(ply) {
            return if self.pos.has_legal_move() {
                DRAW
            } else {
                mated_in(ply)
            };
        }
        if ply >= MAX_PLY - 4 {
            return if in_check { DRAW } else { self.evaluate() };
        }
        // Mate distance pruning: no line from here can beat a mate already found nearer.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(mate_in(ply + 1));
        if alpha >= beta {
            return alpha;
        }
        self.enter_path(key);
        let score = self.search_node::<PV>(alpha, beta, depth, ply, cut_node, key, in_check);
        self.leave_path(key);
        score
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn search_node<const PV: bool>(
        &mut self,
        mut alpha: i32,
        beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
        key: u64,
        in_check: bool,
    ) -> i32 {
        let tt = self.shared.tt;
        let features = self.shared.features;
        let shared = self.shared;
        let p: &SearchParams = &shared.params;
        let excluded = self.excluded[ply];
        let singular_search = !excluded.is_null();
        let tt_hit = tt.probe(key);
        let tt_move = tt_hit.map_or(Move::NULL, |e| e.mv);
        if let Some(e) = tt_hit
            && !PV
            && !singular_search
            && let Some(score) = tt_cutoff(&e, depth, ply, alpha, beta)
        {
            return score;
        }

        let raw_eval = if in_check {
            -INFINITE
        } else {
            tt_hit.map_or_else(|| self.evaluate(), |e| e.eval)
        };
        let side = self.pos.side_to_move();
        let previous = self.current_move[ply - 1];
        let previous_piece_square = self.previous_piece_square(previous);
        self.arrival[ply] = previous_piece_square;
        let (correction_key, eval) = if features.correction_history && !in_check {
            let key = self.correction_key(ply);
            (key, self.corrected_eval(raw_eval, key))
        } else {
            (CorrectionKey::default(), raw_eval)
        };
        self.static_eval[ply] = eval;
        let improving = !in_check && ply >= 2 && eval > self.static_eval[ply - 2];

        if !PV && !in_check && features.shallow_pruning && !singular_search {
            // Reverse futility: far above beta at low depth, assume a cut-off.
            let margin = p.rfp_margin * depth - if improving { p.rfp_improving } else { 0 };
            if depth <= p.rfp_max_depth && eval - margin >= beta && !is_decided(beta) {
                return eval;
            }
        }

        if !PV
            && !in_check
            && features.null_move
            && depth >= p.nmp_min_depth
            && eval >= beta
            && !is_decided(beta)
            && ply >= 1
            && !self.current_move[ply - 1].is_null()
            && !singular_search
        {
            let r = p.nmp_base
                + depth / p.nmp_depth_divisor
                + ((eval - beta) / p.nmp_eval_divisor).min(p.nmp_eval_max);
            self.current_move[ply] = Move::NULL;
            let saved_floor = self.scan_floor;
            self.scan_floor = self.root_index + ply + 1;
            self.make_null_move();
            let score = -self.search::<false>(-beta, -beta + 1, depth - r, ply + 1, !cut_node);
            self.unmake_null_move();
            self.scan_floor = saved_floor;
            if self.stopped {
                return 0;
            }
            if score >= beta {
                return if is_decided(score) { beta } else { score };
            }
        }

        // ProbCut: a good capture whose reduced search clears beta by a margin cuts the node.
        if features.probcut
            && !PV
            && !in_check
            && !singular_search
            && depth >= p.probcut_min_depth
            && !is_decided(beta)
        {
            let probcut_beta = beta + p.probcut_margin;
            let table_says_no = tt_hit.is_some_and(|e| {
                e.depth >= depth - 3
                    && e.bound != Bound::Lower
                    && from_tt(e.score, ply) < probcut_beta
            });
            if !table_says_no
                && let Some(score) = self.probcut(probcut_beta, depth, ply, cut_node, eval, tt_move)
            {
                let window = (probcut_beta - 1, probcut_beta);
                let mv = self.current_move[ply];
                store_result(
                    tt,
                    key,
                    ply,
                    depth - 3,
                    mv,
                    score,
                    window,
                    false,
                    Some(raw_eval),
                );
                return score;
            }
            if self.stopped {
                return 0;
            }
        }

        // Without a TT move, a PV node searches a little shallower to find one cheaply.
        if PV && tt_move.is_null() && depth >= p.iid_min_depth {
            depth -= 1;
        }
        // The same at cut nodes: a node the table knows nothing of is rarely worth full depth.
        if features.iir_cut && cut_node && tt_move.is_null() && depth >= p.iir_cut_min_depth {
            depth -= 1;
        }

        let mut list = MoveList::new();
        self.pos.generate(GenKind::All, &mut list);
        if list.is_empty() {
            // Checkmate, or no legal move at all: either way the side to move loses.
            return mated_in(ply);
        }
        if in_check
            && !singular_search
            && self.check_ext_candidate[ply]
            && list.len() <= p.check_ext_max_replies as usize
        {
            // A forcing check: few replies, so extending it costs little.
            depth += 1;
        }
        let killers = self.heur.killers(ply);
        let counter = if previous.is_null() {
            Move::NULL
        } else {
            self.heur.counter(side, previous)
        };
        let continuation = [
            previous_piece_square.filter(|_| features.cont_history),
            self.arrival[ply - 1].filter(|_| features.follow_up_history),
        ];
        let tt_move_tactical = !tt_move.is_null() && !is_quiet(&self.pos, tt_move);
        let mut scores = [0i32; MAX_MOVES];
        score_moves(
            &self.pos,
            &list,
            &mut scores,
            tt_move,
            killers,
            counter,
            continuation,
            self.heur,
            p,
            features.capture_history,
        );

        let original_alpha = alpha;
        let mut best_score = -INFINITE;
        let mut best_move = Move::NULL;
        let mut move_count = 0usize;
        let mut quiets_tried = [Move::NULL; 64];
        let mut quiet_count = 0usize;
        let mut captures_tried = [0usize; 32];
        let mut capture_count = 0usize;
        let lmp_limit = (p.lmp_base + depth * depth) as usize / if improving { 1 } else { 2 };
        let mut next = 0;
        while let Some(mv) = pick_next(&mut list, &mut scores, next) {
            let order_score = scores[next];
            next += 1;
            if mv == excluded {
                continue;
            }
            move_count += 1;
            let quiet = is_quiet(&self.pos, mv);
            let gives_check = self.pos.gives_check(mv);
            let safe_check = gives_check && see_ge(&self.pos, mv, 0);
            // A check that loses material may be treated like any other move.
            let forcing = gives_check && (safe_check || !features.reduce_losing_checks);

            if features.shallow_pruning
                && !PV
                && !in_check
                && !forcing
                && best_score > -RULE_WIN_IN_MAX_PLY
            {
                if quiet {
                    if depth <= p.lmp_max_depth && move_count > lmp_limit {
                        continue;
                    }
                    if features.history_pruning
                        && depth <= p.history_prune_max_depth
                        && order_score < -p.history_prune_margin * depth
                    {
                        continue;
                    }
                    if depth <= p.futility_max_depth
                        && eval + p.futility_base + p.futility_margin * depth <= alpha
                    {
                        continue;
                    }
                } else if depth <= p.see_prune_max_depth
                    && !see_ge(&self.pos, mv, -p.see_prune_margin * depth)
                {
                    continue;
                }
            }

            let extend = safe_check
                && features.check_extension
                && (ply as i32) < p.check_ext_ply_factor * self.root_depth;
            let mut singular = false;
            let mut negative_extension = 0;
            if features.singular
                && mv == tt_move
                && !singular_search
                && depth >= p.se_min_depth
                && (p.se_ply_factor == 0 || (ply as i32) < p.se_ply_factor * self.root_depth)
                && let Some(e) = tt_hit
                && matches!(e.bound, Bound::Lower | Bound::Exact)
                && e.depth >= depth - p.se_tt_depth_slack
                && !is_decided(from_tt(e.score, ply))
            {
                let singular_beta = from_tt(e.score, ply) - p.se_margin * depth;
                self.excluded[ply] = mv;
                let score = self.search::<false>(
                    singular_beta - 1,
                    singular_beta,
                    (depth - 1) / 2,
                    ply,
                    cut_node,
                );
                self.excluded[ply] = Move::NULL;
                if self.stopped {
                    return 0;
                }
                if score < singular_beta {
                    singular = true;
                } else if singular_beta >= beta {
                    // Multi-cut: another move also beats beta.
                    return singular_beta;
                } else if features.se_negative && from_tt(e.score, ply) >= beta {
                    // Not singular, and the TT move is expected to fail high anyway.
                    negative_extension = 1;
                }
            }
            // After the singular search, which marks this ply's children for its own moves.
            // A singular move's extension stands for a check's.
            let extension = if singular {
                self.check_extension(ply + 1, false) + 1
            } else {
                self.check_extension(ply + 1, extend)
            };
            let new_depth = depth - 1 + extension - negative_extension;
            self.current_move[ply] = mv;
            let undo = self.make_move(mv);
            tt.prefetch(self.pos.key());

            let mut score;
            let full_depth_null_window;
            if features.lmr
                && depth >= p.lmr_min_depth
                && move_count > 1 + usize::from(PV)
                && quiet
                && (!forcing || features.lmr_safe_checks)
            {
                let mut r = self.lmr[(depth as usize).min(63)][move_count.min(63)] as i32;
                r -= i32::from(forcing);
                r += i32::from(cut_node);
                r -= i32::from(PV) + i32::from(in_check);
                r += i32::from(features.lmr_improving && !improving);
                r += i32::from(features.lmr_tt_tactical && tt_move_tactical);
                if order_score >= super::ordering::KILLER_FLOOR {
                    // A killer or counter-move: a ply less, and at most one more for its
                    // (ordering) score, not the whole history reach.
                    r -= 1 + p.lmr_history_max_plies.min(1);
                } else {
                    let reach = p.lmr_history_divisor * p.lmr_history_max_plies;
                    r -= order_score.clamp(-reach, reach) / p.lmr_history_divisor;
                }
                let d = (new_depth - r.max(0)).clamp(1, new_depth.max(1));
                score = -self.search::<false>(-alpha - 1, -alpha, d, ply + 1, true);
                full_depth_null_window = score > alpha && d < new_depth;
            } else {
                score = 0;
                full_depth_null_window = !PV || move_count > 1;
            }
            if full_depth_null_window {
                score = -self.search::<false>(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
            }
            if PV && (move_count == 1 || score > alpha) {
                score = -self.search::<true>(-beta, -alpha, new_depth, ply + 1, false);
            }
            self.unmake_move(mv, undo);
            if self.stopped {
                return 0;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if PV {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
            if quiet && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = mv;
                quiet_count += 1;
            } else if features.capture_history
                && capture_count < captures_tried.len()
                && let Some(i) = capture_history_index(&self.pos, mv)
            {
                captures_tried[capture_count] = i;
                capture_count += 1;
            }
        }

        if best_score == -INFINITE {
            // Every move was pruned (possible only when they all lose): fail low.
            return alpha;
        }
        if best_score >= beta && is_quiet(&self.pos, best_move) {
            let bonus = p.history_bonus(depth);
            self.heur.update_history(side, best_move, bonus);
            for &q in &quiets_tried[..quiet_count] {
                self.heur.update_history(side, q, -bonus);
            }
            let best = continuation_index(&self.pos, best_move);
            for (back, earlier) in continuation.into_iter().enumerate() {
                let Some(earlier) = earlier else { continue };
                self.heur.update_continuation(back, earlier, best, bonus);
                for &q in &quiets_tried[..quiet_count] {
                    let q = continuation_index(&self.pos, q);
                    self.heur.update_continuation(back, earlier, q, -bonus);
                }
            }
            self.heur.record_cutoff(side, ply, best_move, previous);
        }
        if best_score >= beta && features.capture_history {
            let bonus = p.history_bonus(depth);
            if let Some(i) = capture_history_index(&self.pos, best_move) {
                self.heur.update_capture(i, bonus);
            }
            for &i in &captures_tried[..capture_count] {
                self.heur.update_capture(i, -bonus);
            }
        }
        if !singular_search {
            if features.correction_history
                && !in_check
                && (best_move.is_null() || is_quiet(&self.pos, best_move))
                && !is_decided(best_score)
                && !(best_score >= beta && best_score <= eval)
                && !(best_score <= original_alpha && best_score >= eval)
            {
                self.heur
                    .update_correction(side, correction_key, best_score - eval, depth);
            }
            let eval = (!in_check).then_some(raw_eval);
            let window = (original_alpha, beta);
            store_result(tt, key, ply, depth, best_move, best_score, window, PV, eval);
        }
        best_score
    }

    /// The tactical moves (all evasions in check) with their ordering scores.
    #[inline(always)]
    fn tactical_moves(&self, tt_move: Move) -> (MoveList, [i32; MAX_MOVES]) {
        let mut list = MoveList::new();
        self.pos.generate(GenKind::Tactical, &mut list);
        let mut scores = [0i32; MAX_MOVES];
        score_tactical(
            &self.pos,
            &list,
            &mut scores,
            tt_move,
            self.heur,
            &self.shared.params,
            self.shared.features.capture_history,
        );
        (list, scores)
    }

    /// ProbCut's captures: the first whose quiescence and then reduced search both reach
    /// `probcut_beta` gives its score (and is left in `current_move[ply]`).
    fn probcut(
        &mut self,
        probcut_beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
        eval: i32,
        tt_move: Move,
    ) -> Option<i32> {
        let (mut list, mut scores) = self.tactical_moves(tt_move);
        let mut next = 0;
        while let Some(mv) = pick_next(&mut list, &mut scores, next) {
            next += 1;
            if !see_ge(&self.pos, mv, probcut_beta - eval) {
                continue;
            }
            self.current_move[ply] = mv;
            let undo = self.make_move(mv);
            let mut score = -self.qsearch::<false>(-probcut_beta, -probcut_beta + 1, ply + 1);
            if score >= probcut_beta && !self.stopped {
                score = -self.search::<false>(
                    -probcut_beta,
                    -probcut_beta + 1,
                    depth - 4,
                    ply + 1,
                    !cut_node,
                );
            }
            self.unmake_move(mv, undo);
            if self.stopped {
                return None;
            }
            if score >= probcut_beta {
                return Some(score);
            }
        }
        None
    }

    // ---- quiescence ---------------------------------------------------------------------------

    fn qsearch<const PV: bool>(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.count_node_and_check() {
            return 0;
        }
        if PV {
            self.pv_len[ply] = 0;
            self.seldepth = self.seldepth.max(ply);
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY - 2 {
            return if in_check { DRAW } else { self.evaluate() };
        }
        if self.at_ply_limit(ply) {
            return if self.pos.has_legal_move() {
                DRAW
            } else {
                mated_in(ply)
            };
        }
        let tt = self.shared.tt;
        let key = self.pos.key();
        let tt_hit = tt.probe(key);
        let tt_move = tt_hit.map_or(Move::NULL, |e| e.mv);
        // Any stored depth will do for quiescence.
        if let Some(e) = tt_hit
            && !PV
            && let Some(score) = tt_cutoff(&e, i32::MIN, ply, alpha, beta)
        {
            return score;
        }
        let features = self.shared.features;
        self.arrival[ply] = self.previous_piece_square(self.current_move[ply - 1]);
        let raw_eval = if in_check {
            -INFINITE
        } else {
            tt_hit.map_or_else(|| self.evaluate(), |e| e.eval)
        };
        let stand_pat = if in_check {
            -INFINITE
        } else {
            let eval = if features.correction_history {
                self.corrected_eval(raw_eval, self.correction_key(ply))
            } else {
                raw_eval
            };
            if eval >= beta {
                if tt_hit.is_none() {
                    tt.store(
                        key,
                        Move::NULL,
                        to_tt(eval, ply),
                        raw_eval,
                        -1,
                        Bound::Lower,
                    );
                }
                return eval;
            }
            eval
        };
        if !in_check && (features.qs_mate1 || features.qs_drop_mate1) {
            let mate = if features.qs_mate1 {
                let mut all = MoveList::new();
                self.pos.generate(GenKind::All, &mut all);
                self.pos.mate_in_one_among(&all)
            } else {
                self.pos.drop_mate_in_one()
            };
            if let Some(mv) = mate {
                let score = mate_in(ply + 1);
                if PV {
                    self.pv_len[ply + 1] = 0;
                    self.update_pv(ply, mv);
                }
                tt.store(key, mv, to_tt(score, ply), raw_eval, 0, Bound::Exact);
                return score;
            }
        }
        let original_alpha = alpha;
        alpha = alpha.max(stand_pat);
        let mut best_score = stand_pat;
        let mut best_move = Move::NULL;

        let (mut list, mut scores) = self.tactical_moves(tt_move);
        if in_check && list.is_empty() {
            return mated_in(ply);
        }
        let mut next = 0;
        while let Some(mv) = pick_next(&mut list, &mut scores, next) {
            next += 1;
            if !in_check {
                // Delta pruning, then skip exchanges that lose material.
                if stand_pat + tactical_gain(&self.pos, mv) + self.shared.params.qs_delta_margin
                    <= alpha
                {
                    continue;
                }
                if !see_ge(&self.pos, mv, 0) {
                    continue;
                }
            }
            self.current_move[ply] = mv;
            let undo = self.make_move(mv);
            let score = -self.qsearch::<PV>(-beta, -alpha, ply + 1);
            self.unmake_move(mv, undo);
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if PV {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        let eval = (!in_check).then_some(raw_eval);
        let window = (original_alpha, beta);
        store_result(tt, key, ply, 0, best_move, best_score, window, PV, eval);
        best_score
    }
}

/// The table's score for a node at `ply` searched with `(alpha, beta)` to `depth`, if the
/// entry settles it: deep enough, and an exact score or a bound on the right side.
#[inline(always)]
fn tt_cutoff(e: &TtEntry, depth: i32, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let score = from_tt(e.score, ply);
    let settles = e.depth >= depth
        && match e.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
            Bound::None => false,
        };
    settles.then_some(score)
}

/// Tables a node's result `best` (with `best_move`, possibly NULL): a lower bound if it reached
/// beta of the `(alpha, beta)` window the node was searched with, exact if it rose above alpha
/// at a PV node, an upper bound otherwise; the static evaluation, if any (none in check).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn store_result(
    tt: &TranspositionTable,
    key: u64,
    ply: usize,
    depth: i32,
    best_move: Move,
    best: i32,
    (alpha, beta): (i32, i32),
    pv: bool,
    eval: Option<i32>,
) {
    let bound = if best >= beta {
        Bound::Lower
    } else if pv && best > alpha {
        Bound::Exact
    } else {
        Bound::Upper
    };
    let bound = tt_bound(best, bound);
    tt.store(
        key,
        best_move,
        to_tt(best, ply),
        eval.unwrap_or(0),
        depth,
        bound,
    );
}

/// How a result may be tabled: repetition verdicts depend on the path that reached the node
/// (graph history interaction), so for them only the move is kept.
#[inline(always)]
fn tt_bound(score: i32, bound: Bound) -> Bound {
    if is_decided(score) && score.abs() < MATE_IN_MAX_PLY {
        Bound::None
    } else {
        bound
    }
}

/// Lazy SMP: helper threads skip some depths so that they spread over different iterations.
fn skip_depth(id: usize, depth: i32) -> bool {
    const SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    let i = (id - 1) % 20;
    ((depth + PHASE[i]) / SIZE[i]) % 2 == 1
}
