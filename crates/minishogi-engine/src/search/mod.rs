//! Alpha-beta search, the engine's `Searcher`: iterative deepening, principal variation
//! search with aspiration windows, a shared lockless transposition table for Lazy SMP threads,
//! quiescence, the minishogi repetition rules, time management, MultiPV, strength levels and a
//! mate solver for `go mate`.
//!
//! Where things are:
//! - `types`: the public types (limits, control, events, results, options);
//! - `threads`: one search on several threads (`run`), what they share, the result chosen;
//! - `worker`: one thread's state and what its search uses at every node (stopping, moves
//!   made, evaluation and its correction, repetitions, the table's cut-off and store);
//! - `iterate`: iterative deepening, aspiration windows, the root, reports;
//! - `node`: the alpha-beta node search (pruning, reductions, extensions);
//! - `quiescence`: quiescence and ProbCut;
//! - `movepick`, `ordering` and `heuristics`: the staged move picker, the scores it orders
//!   by and what they learn (history, killers, counter-moves, continuation, capture and
//!   correction history);
//! - `switches` and `params`: each technique on or off, and every number, by name;
//! - `tt`, `time`, `score`, `skill`, `mate`, `bench`, `params_file`: the table, the clock,
//!   the score scale, strength levels, the mate solver, `engine bench`, parameter files.

pub mod eval_params;
pub(crate) mod heuristics;
mod iterate;
pub(crate) mod mate;
mod movepick;
mod node;
pub(crate) mod ordering;
pub mod params;
pub mod params_file;
mod quiescence;
pub mod score;
mod shared;
pub mod skill;
mod switches;
mod threads;
pub mod time;
pub mod tt;
mod types;
mod worker;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use crate::platform::Instant;

use crate::shogi::Position;
use crate::shogi::game::{Game, HistoryEntry};

use crate::eval::{Evaluator, MaterialEvaluator};
pub use params::{ParamError, ParamSpec, SearchParams};
pub use skill::Skill;
pub use switches::SearchFeatures;
pub use threads::THREAD_STACK;
pub use tt::TranspositionTable;
// The mate solver's capped form, for callers that prove many mates (MCTS, `engine puzzles`).
pub use mate::{MateMemory, mate_within};
pub use types::{
    ClockLimits, Limits, Listener, MateResult, Score, ScoreBound, SearchControl, SearchEvent,
    SearchInfo, SearchOptions, SearchResult,
};

/// The engine's searcher: options, transposition table, evaluator and per-thread memory.
pub struct Searcher {
    opts: SearchOptions,
    tt: TranspositionTable,
    evaluator: Arc<dyn Evaluator>,
    thread_memory: Vec<Box<heuristics::Heuristics>>,
}

impl Searcher {
    pub fn new(opts: SearchOptions) -> Searcher {
        Searcher {
            tt: TranspositionTable::new(opts.hash_mb),
            opts,
            evaluator: Arc::new(MaterialEvaluator),
            thread_memory: Vec::new(),
        }
    }

    pub fn options(&self) -> &SearchOptions {
        &self.opts
    }

    /// Changes take effect (TT resized, threads added) at the next search.
    pub fn options_mut(&mut self) -> &mut SearchOptions {
        &mut self.opts
    }

    pub fn set_evaluator(&mut self, eval: Arc<dyn Evaluator>) {
        self.evaluator = eval;
    }

    /// Forgets everything learnt: TT, history, killers.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.clear_heuristics();
    }

    /// Forgets the move-ordering history and killers, at once; the table is kept (zeroing a
    /// big one takes a while: see `clear`).
    pub fn clear_heuristics(&mut self) {
        for memory in &mut self.thread_memory {
            memory.clear();
        }
    }

    /// Allocates what the options ask for: the table at `hash_mb` (or what fits, see
    /// [`TranspositionTable::new`]) and each thread's memory. Searches do this themselves;
    /// calling it first (USI `setoption`, `isready`) keeps the cost out of the first move.
    pub fn allocate(&mut self) {
        self.tt.resize(self.opts.hash_mb);
        let threads = self.opts.threads.max(1);
        self.thread_memory
            .resize_with(threads, heuristics::Heuristics::new);
    }

    /// The transposition table's size as held, MiB: less than `hash_mb` when memory was short.
    pub fn hash_size_mb(&self) -> usize {
        self.tt.size_mb()
    }

    fn prepare(&mut self) {
        self.allocate();
        self.tt.new_search();
    }

    /// Searches `game.position()`. The game's history decides repetitions by the rules, and
    /// its length is the ply count for the game's draw limit (`Game::max_plies`).
    ///
    /// `best` is `None` only when there is no legal move; every move returned is legal.
    /// While `limits.infinite` or `control.ponder` is set, returns only after `stop` (or, for
    /// ponder, ponderhit) as USI requires.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchEvent),
    ) -> SearchResult {
        let max_plies = game.max_plies();
        self.search_with_history(
            game.position(),
            game.history(),
            max_plies,
            limits,
            control,
            on_info,
        )
    }

    /// Searches `pos` after the game positions `history` (oldest first, one entry per
    /// position; an entry for `pos` itself at the end is ignored), with the game's ply limit
    /// `max_plies` (counted from the first history entry; `None` or `Some(0)` = no limit).
    pub fn search_with_history(
        &mut self,
        pos: &Position,
        history: &[HistoryEntry],
        max_plies: Option<u32>,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchEvent),
    ) -> SearchResult {
        // The clock runs from the `go` (or from here), so that whatever happens before the
        // search starts counts against the budget.
        let start = limits.start.unwrap_or_else(Instant::now);
        self.prepare();
        let history = match history.last() {
            Some(last) if last.key == pos.key() => &history[..history.len() - 1],
            _ => history,
        };
        let job = threads::Job {
            tt: &self.tt,
            opts: &self.opts,
            evaluator: &self.evaluator,
            thread_memory: &mut self.thread_memory,
            pos,
            history,
            max_plies,
            limits,
            control,
            start,
        };
        let (result, _) = threads::run(job, on_info);
        result
    }

    /// Searches `pos` as a fresh game (no history, no ply limit).
    pub fn search_position(
        &mut self,
        pos: &Position,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchEvent),
    ) -> SearchResult {
        self.search_with_history(pos, &[], None, limits, control, on_info)
    }

    /// A search that also returns each thread's node count.
    #[cfg(test)]
    fn search_counting_threads(
        &mut self,
        pos: &Position,
        limits: &Limits,
    ) -> (SearchResult, Vec<u64>) {
        self.prepare();
        let job = threads::Job {
            tt: &self.tt,
            opts: &self.opts,
            evaluator: &self.evaluator,
            thread_memory: &mut self.thread_memory,
            pos,
            history: &[],
            max_plies: None,
            limits,
            control: &SearchControl::default(),
            start: Instant::now(),
        };
        threads::run(job, &mut |_| {})
    }

    /// `go mate`: proves or refutes a mate by continuous checks from `pos` (side to move
    /// attacks), with iterative deepening so that the mate found is the shortest.
    pub fn mate_search(
        &mut self,
        pos: &Position,
        time: Option<Duration>,
        control: &SearchControl,
    ) -> MateResult {
        mate_search(pos, time, control)
    }
}

/// `go mate`: proves or refutes a mate by continuous checks from `pos` (side to move
/// attacks), with iterative deepening so that the mate found is the shortest. It needs no
/// searcher: every player's `go mate` is this one.
pub fn mate_search(pos: &Position, time: Option<Duration>, control: &SearchControl) -> MateResult {
    mate::solve(pos, time, control)
}
