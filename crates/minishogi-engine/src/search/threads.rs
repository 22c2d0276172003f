//! The threads of one search (Lazy SMP): [`run`] starts a helper thread per further
//! `SearchOptions::threads` beside the main [`Worker`] on the calling thread, all searching the
//! same tree and sharing what they find through the transposition table ([`Shared`](super::shared::Shared): the
//! table, limits, options, stop flags and node counts). Helpers skip some depths
//! ([`skip_depth`]) so that they spread over different iterations. When the main worker stops,
//! the helpers are told to stop, and the result is the main worker's: its best move (below full
//! strength, the level's choice among the MultiPV candidates, see `skill`) and the reply
//! expected ([`main_result`]), sent once USI allows ([`wait_for_release`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use crate::platform::Instant;

use super::heuristics::Heuristics;
use super::score::{mated_in, to_public};
use super::shared::Shared;
use super::time::{TimeKeeper, budget};
use super::tt::TranspositionTable;
use super::worker::{RootMove, Worker};
use super::{Limits, SearchControl, SearchEvent, SearchOptions, SearchResult};
use crate::eval::Evaluator;
use crate::shogi::game::HistoryEntry;
use crate::shogi::{Move, Position};

/// Search threads recurse up to MAX_PLY deep with move lists on the stack. (The main worker
/// runs on the caller's thread: a search needs far less than the usual 2 MiB, this is slack.)
pub const THREAD_STACK: usize = 32 << 20;

/// What one search is asked, for [`run`]: the searcher's table, options, evaluator and
/// per-thread memory, and the task (the position after its game history, the limits, the
/// control flags and when the clock started).
pub(super) struct Job<'a> {
    pub(super) tt: &'a TranspositionTable,
    pub(super) opts: &'a SearchOptions,
    pub(super) evaluator: &'a Arc<dyn Evaluator>,
    /// One per thread (at least one): the main thread's first.
    pub(super) thread_memory: &'a mut [Box<Heuristics>],
    /// The position searched...
    pub(super) pos: &'a Position,
    /// ...after these game positions (oldest first, without `pos`).
    pub(super) history: &'a [HistoryEntry],
    /// The game's ply limit, counted from the first history entry (`None` or `Some(0)`: none).
    pub(super) max_plies: Option<u32>,
    pub(super) limits: &'a Limits,
    pub(super) control: &'a SearchControl,
    /// When the clock started for this move.
    pub(super) start: Instant,
}

/// Runs a search on `opts.threads` threads, reporting to `on_info`, and returns the main
/// thread's result with each thread's node count.
pub(super) fn run(job: Job<'_>, on_info: &mut dyn FnMut(&SearchEvent)) -> (SearchResult, Vec<u64>) {
    let Job {
        tt,
        opts,
        evaluator,
        thread_memory,
        pos,
        history,
        max_plies,
        limits,
        control,
        start,
    } = job;
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
        control.wait_for_release(limits.infinite);
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
        control.wait_for_release(limits.infinite);
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

/// Lazy SMP: helper threads skip some depths so that they spread over different iterations.
pub(super) fn skip_depth(id: usize, depth: i32) -> bool {
    const SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    let i = (id - 1) % 20;
    ((depth + PHASE[i]) / SIZE[i]) % 2 == 1
}
