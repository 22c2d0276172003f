//! One search thread's state ([`Worker`]) and what every part of its search uses: counting
//! nodes and stopping (node limit, clock, `stop`, the main thread's end), making moves with the
//! evaluator's path state told, the static evaluation with its correction history, the rules
//! at a node (the game's ply limit; repetitions by `shogi::repetition`, behind a pre-filter of
//! the path's keys), the check extension's bookkeeping, the principal variation, and the
//! transposition table's cut-off and store ([`tt_cutoff`], [`store_result`]).
//!
//! The search itself is in the files beside this one, each an `impl Worker` block: `iterate`
//! (iterative deepening, aspiration windows, the root, reports), `node` (the alpha-beta node
//! search) and `quiescence` (quiescence and ProbCut); `threads` runs the workers.

use std::sync::atomic::Ordering::Relaxed;

use super::SearchEvent;
use super::heuristics::{CorrectionKey, Heuristics, piece_square, structure_key};
use super::score::*;
use super::shared::Shared;
use super::time::TimeKeeper;
use super::tt::{Bound, TranspositionTable, TtEntry};
use crate::eval::{Evaluator, PathState};
use crate::shogi::repetition::{self, Projection};
use crate::shogi::{Move, Position, Undo};

/// Nodes between two looks at the clock and the stop flags (well under a millisecond).
const POLL_INTERVAL: u64 = 512;
/// Buckets of the repetition pre-filter (counts of path keys by their low bits).
pub(super) const REP_FILTER: usize = 1024;

/// A root move with what the last iteration learnt about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: i32,
    pub previous_score: i32,
    pub seldepth: usize,
    pub pv: Vec<Move>,
}

/// One thread's search: its position and path, node count, root moves and the per-ply
/// state of the nodes on its path.
pub(super) struct Worker<'a> {
    pub(super) id: usize,
    pub(super) shared: &'a Shared<'a>,
    pub(super) evaluator: &'a dyn Evaluator,
    /// The evaluator's state along this thread's path, if it keeps one.
    pub(super) eval_state: Option<Box<dyn PathState + 'a>>,
    pub(super) heur: &'a mut Heuristics,
    pub(super) time: Option<TimeKeeper>,
    /// The main thread's reports go here.
    pub(super) reporter: Option<&'a mut dyn FnMut(&SearchEvent)>,
    pub(super) pos: Position,
    pub(super) nodes: u64,
    /// Nodes at which this thread stops by itself (single-threaded `go nodes`).
    pub(super) node_limit: u64,
    pub(super) stopped: bool,
    pub(super) completed_depth: i32,
    pub(super) root_depth: i32,
    pub(super) seldepth: usize,
    pub(super) pv_index: usize,
    pub(super) best_move_changes: f64,
    /// Main thread: all threads' nodes when the last two iterations ended (for a soft node
    /// budget that predicts the next iteration's cost).
    pub(super) iteration_ends: [u64; 2],
    pub(super) root_moves: Vec<RootMove>,
    /// Below full strength (main thread): the MultiPV lines of the last completed iteration,
    /// best first, among which the level chooses.
    pub(super) skill_candidates: Vec<RootMove>,
    /// Keys and check flags of the game history followed by the search path; the node at
    /// ply p is at `root_index + p`.
    pub(super) keys: Vec<u64>,
    pub(super) checks: Vec<bool>,
    pub(super) root_index: usize,
    /// Repetition scans never cross a null move: they start no lower than this index.
    pub(super) scan_floor: usize,
    pub(super) rep_filter: Box<[u16; REP_FILTER]>,
    /// The move made at each ply (Move::NULL for a null move), for counter-moves.
    pub(super) current_move: [Move; MAX_PLY + 2],
    /// The [`piece_square`] of the move that led to the node at each ply (None after a null
    /// move and at the root), for the correction history.
    pub(super) arrival: [Option<usize>; MAX_PLY + 2],
    pub(super) static_eval: [i32; MAX_PLY + 2],
    /// Whether the check that led to the node at each ply may be extended there, when the
    /// extension is decided by the number of replies (`check_ext_max_replies`).
    pub(super) check_ext_candidate: [bool; MAX_PLY + 2],
    /// The move a singular-extension search leaves out at each ply (NULL: none).
    pub(super) excluded: [Move; MAX_PLY + 2],
    pub(super) pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pub(super) pv_len: [usize; MAX_PLY + 1],
    pub(super) lmr: Box<[[u8; 64]; 64]>,
}

impl<'a> Worker<'a> {
    pub(super) fn new(
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
            iteration_ends: [0; 2],
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
    pub(super) fn count_node_and_check(&mut self) -> bool {
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

    pub(super) fn poll(&mut self) {
        let shared = self.shared;
        shared.nodes[self.id].store(self.nodes, Relaxed);
        if self.id == 0 {
            shared.control.listen();
        }
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

    // ---- evaluation and rules ---------------------------------------------------------------

    #[inline(always)]
    pub(super) fn evaluate(&mut self) -> i32 {
        let cp = match &mut self.eval_state {
            Some(state) => state.evaluate_cp(&self.pos),
            None => self.evaluator.evaluate_cp(&self.pos),
        };
        // Whatever the evaluator returns, keep it below decided scores.
        cp.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// Makes `mv` on the search position and tells the evaluator's path state, if any.
    #[inline(always)]
    pub(super) fn make_move(&mut self, mv: Move) -> Undo {
        let undo = self.pos.make_move(mv);
        if let Some(state) = &mut self.eval_state {
            state.on_make(&self.pos, mv);
        }
        undo
    }

    #[inline(always)]
    pub(super) fn unmake_move(&mut self, mv: Move, undo: Undo) {
        self.pos.unmake_move(mv, undo);
        if let Some(state) = &mut self.eval_state {
            state.on_unmake(&self.pos, mv);
        }
    }

    #[inline(always)]
    pub(super) fn make_null_move(&mut self) {
        self.pos.make_null_move();
        if let Some(state) = &mut self.eval_state {
            state.on_null_move(&self.pos, true);
        }
    }

    #[inline(always)]
    pub(super) fn unmake_null_move(&mut self) {
        self.pos.unmake_null_move();
        if let Some(state) = &mut self.eval_state {
            state.on_null_move(&self.pos, false);
        }
    }

    /// Whether the game's ply limit is reached at `ply`.
    #[inline(always)]
    pub(super) fn at_ply_limit(&self, ply: usize) -> bool {
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
    pub(super) fn repetition_score(&self, index: usize, ply: usize) -> Option<i32> {
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
    pub(super) fn enter_path(&mut self, key: u64) {
        self.rep_filter[key as usize % REP_FILTER] += 1;
    }

    #[inline(always)]
    pub(super) fn leave_path(&mut self, key: u64) {
        self.rep_filter[key as usize % REP_FILTER] -= 1;
    }

    /// The extension for a move into the node at `child_ply` that `extend`s a check: one ply
    /// now, or, when `check_ext_max_replies` is set, none now and a mark for the child to
    /// extend itself if its replies are few enough.
    #[inline(always)]
    pub(super) fn check_extension(&mut self, child_ply: usize, extend: bool) -> i32 {
        let by_replies = self.shared.params.check_ext_max_replies > 0;
        self.check_ext_candidate[child_ply] = extend && by_replies;
        i32::from(extend && !by_replies)
    }

    /// The continuation index ([`piece_square`]) of the move that led here, if it was one.
    #[inline(always)]
    pub(super) fn previous_piece_square(&self, previous: Move) -> Option<usize> {
        if previous.is_null() {
            return None;
        }
        self.pos
            .piece_at(previous.to())
            .map(|piece| piece_square(piece, previous.to()))
    }

    /// The correction-history key of the node at `ply` (whose `arrival` is set).
    #[inline(always)]
    pub(super) fn correction_key(&self, ply: usize) -> CorrectionKey {
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
    pub(super) fn corrected_eval(&self, raw_eval: i32, key: CorrectionKey) -> i32 {
        let side = self.pos.side_to_move();
        let correction = self.heur.correction(side, key);
        (raw_eval + correction).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    #[inline(always)]
    pub(super) fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][0] = mv;
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }
}

/// The table's score for a node at `ply` searched with `(alpha, beta)` to `depth`, if the
/// entry settles it: deep enough, and an exact score or a bound on the right side.
#[inline(always)]
pub(super) fn tt_cutoff(e: &TtEntry, depth: i32, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
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
pub(super) fn store_result(
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
