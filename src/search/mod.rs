//! Alpha-beta search: iterative deepening, PVS with aspiration windows, a shared lockless
//! transposition table for Lazy SMP threads, quiescence, the minishogi repetition rules,
//! time management, MultiPV and a mate solver for `go mate`.

pub mod bench;
mod heuristics;
mod mate;
mod ordering;
pub mod params;
pub mod params_file;
pub mod score;
pub mod skill;
mod switches;
pub mod time;
pub mod tt;
mod worker;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::shogi::game::{Game, HistoryEntry};
use crate::shogi::{Move, Position};

use crate::eval::{Evaluator, MaterialEvaluator};
pub use params::{ParamError, ParamSpec, SearchParams};
pub use skill::Skill;
pub use switches::SearchFeatures;
pub use tt::TranspositionTable;
pub use worker::THREAD_STACK;

/// Clock state of the side to move (USI `btime`/`wtime`, `binc`/`winc`, `byoyomi`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockLimits {
    pub remaining: Duration,
    pub increment: Duration,
    pub byoyomi: Duration,
    /// Moves until the next time control (`movestogo`); `None` = sudden death.
    pub moves_to_go: Option<u32>,
}

/// What bounds a search. With nothing set, it runs until stopped or the maximum depth.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// No new iteration starts once the search has used this many nodes (a budget that
    /// keeps whole iterations, for data generation); `nodes` stays the hard limit.
    pub soft_nodes: Option<u64>,
    pub movetime: Option<Duration>,
    pub clock: Option<ClockLimits>,
    pub infinite: bool,
    /// Only these root moves are searched (`go searchmoves`); empty = all. Moves that are not
    /// legal at the root are ignored.
    pub searchmoves: Vec<Move>,
    /// When the clock started for this move (the `go` line's arrival); `None` = at the call.
    pub start: Option<Instant>,
}

/// Shared between the protocol thread and the search: `stop` is answered within a few
/// milliseconds; while `ponder` is true no time limit applies, and when it flips to false
/// (ponderhit) the time budget starts counting from that moment.
///
/// While `infinite` is set or `ponder` is true, `search` does not return before `stop` (or,
/// for ponder, ponderhit), even if it has finished, as USI requires.
#[derive(Default, Debug)]
pub struct SearchControl {
    pub stop: AtomicBool,
    pub ponder: AtomicBool,
}

/// A score for USI `info score`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (the logistic scale of `eval::cp_from_probability`, evaluations within
    /// ±`eval::EVAL_LIMIT`).
    /// Repetition verdicts, which decide the game without mate, show as ±(20000 − plies).
    Cp(i32),
    /// Plies to mate; negative when the side to move is being mated.
    Mate(i32),
}

/// How an iteration's score relates to the true score: USI `lowerbound` / `upperbound` after
/// an aspiration window failed high or low.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBound {
    Exact,
    Lower,
    Upper,
}

/// What the search reports while it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchEvent {
    /// A completed iteration (or a failed aspiration window: `bound` says so), one per line.
    Iteration(SearchInfo),
    /// The search's answer, once USI allows it to be given (after `stop` or ponderhit for an
    /// infinite or ponder search) and before any helper thread has been waited for: the
    /// moment to send `bestmove`. Sent exactly once, last.
    Finished(SearchResult),
    /// The root move being searched now (1-based `number` in the order searched).
    CurrentMove {
        depth: u32,
        mv: Move,
        number: u32,
        nodes: u64,
        time_ms: u64,
    },
}

impl SearchEvent {
    /// The iteration's report, if this is one.
    pub fn iteration(&self) -> Option<&SearchInfo> {
        match self {
            SearchEvent::Iteration(info) => Some(info),
            SearchEvent::CurrentMove { .. } | SearchEvent::Finished(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    /// 1-based line number.
    pub multipv: u32,
    pub score: Score,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    /// Permille of the transposition table used by this search.
    pub hashfull: u32,
    pub bound: ScoreBound,
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// `None` only when the side to move has no legal move.
    pub best: Option<Move>,
    /// The expected reply, when known.
    pub ponder: Option<Move>,
    pub score: Score,
    /// Last completed iteration.
    pub depth: u32,
    pub nodes: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Transposition table size in MiB (USI_Hash).
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    /// Time kept back per move for communication delays.
    pub move_overhead: Duration,
    pub features: SearchFeatures,
    /// Margins, reductions and ordering weights (defaults: `SearchParams::DEFAULT`).
    pub params: SearchParams,
    /// Playing strength (USI `Skill_Level`, `USI_Elo`): below full strength the search is
    /// cut to the level's node budget and its move chosen among candidates (see `skill`).
    pub skill: Skill,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            hash_mb: 64,
            threads: 1,
            multipv: 1,
            move_overhead: Duration::from_millis(10),
            features: SearchFeatures::default(),
            params: SearchParams::DEFAULT,
            skill: Skill::FULL,
        }
    }
}

/// Outcome of `go mate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// The mating sequence (attacker's checks and defender's longest resistance).
    Mate(Vec<Move>),
    /// Proven: no mate by continuous checks.
    NoMate,
    /// Stopped or out of time before a proof either way.
    Timeout,
}

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
        let (result, _) = worker::run(
            &self.tt,
            &self.opts,
            max_plies,
            &self.evaluator,
            &mut self.thread_memory,
            pos,
            history,
            limits,
            control,
            start,
            on_info,
        );
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
        worker::run(
            &self.tt,
            &self.opts,
            None,
            &self.evaluator,
            &mut self.thread_memory,
            pos,
            &[],
            limits,
            &SearchControl::default(),
            Instant::now(),
            &mut |_| {},
        )
    }

    /// `go mate`: proves or refutes a mate by continuous checks from `pos` (side to move
    /// attacks), with iterative deepening so that the mate found is the shortest.
    pub fn mate_search(
        &mut self,
        pos: &Position,
        time: Option<Duration>,
        control: &SearchControl,
    ) -> MateResult {
        mate::solve(pos, time, control)
    }
}
