//! The search's public types: what bounds a search ([`Limits`], [`ClockLimits`]), how the
//! protocol stops it ([`SearchControl`]), what it reports while it runs ([`SearchEvent`],
//! [`SearchInfo`], [`Score`], [`ScoreBound`]) and returns ([`SearchResult`], [`MateResult`]
//! for `go mate`), and its options ([`SearchOptions`]; the switches and numbers they carry are
//! in `switches` and `params`).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

use crate::platform::Instant;

use super::{SearchFeatures, SearchParams, Skill};
use crate::shogi::Move;

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
    /// With `soft_nodes`: no new iteration starts that is predicted to end past it either
    /// (its cost estimated from the last two iterations'), so a search ends near the budget
    /// rather than up to an iteration beyond it.
    pub soft_nodes_predicted: bool,
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
    /// Who else may set `stop` or `ponder` while the search runs, asked by [`listen`]: where
    /// the search runs on the only thread (WebAssembly), the session's commands arrive through
    /// it; natively nobody (other threads set the flags themselves).
    ///
    /// [`listen`]: SearchControl::listen
    pub listener: Option<Listener>,
}

impl SearchControl {
    /// Lets the listener, if any, take in what arrived since (`stop`, `ponderhit`, …). The
    /// search calls this wherever it looks at `stop`.
    #[inline]
    pub fn listen(&self) {
        if let Some(listener) = &self.listener {
            (listener.0)(self);
        }
    }

    /// USI: after `go infinite` or `go ponder` the answer waits for `stop` (or, pondering, for
    /// ponderhit).
    pub fn wait_for_release(&self, infinite: bool) {
        loop {
            self.listen();
            if self.stop.load(Relaxed) || !(infinite || self.ponder.load(Relaxed)) {
                return;
            }
            crate::platform::pause(Duration::from_millis(1));
        }
    }
}

/// A [`SearchControl`]'s listener: called with the control to set.
#[derive(Clone)]
pub struct Listener(pub std::sync::Arc<dyn Fn(&SearchControl) + Send + Sync>);

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Listener")
    }
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
