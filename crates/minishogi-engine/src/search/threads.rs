//! The threads of one search (Lazy SMP): [`run`] starts a helper thread per further
//! `SearchOptions::threads` beside the main [`Worker`] on the calling thread, all searching the
//! same tree and sharing what they find through the transposition table
//! ([`Shared`](super::shared::Shared): the table, limits, options, stop flags and node counts).
//! Helpers skip some depths ([`skip_depth`], switch `helper_depth_skip`) so that they spread over
//! different iterations. When the main worker stops, the helpers are told to stop, and the result
//! is the main worker's: its best move (below full strength, the level's choice among the MultiPV
//! candidates, see `skill`) and the reply expected ([`main_result`]), sent once USI allows
//! ([`wait_for_release`]). At full strength with one line the threads vote instead ([`vote`]): a
//! helper that got deeper may answer, from the iterations it has published (the main thread never
//! waits for a helper).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use crate::platform::Instant;

use super::heuristics::Heuristics;
use super::score::{RULE_WIN_IN_MAX_PLY, is_decided, mated_in, to_public};
use super::shared::{Shared, ThreadBest};
use super::time::{TimeKeeper, budget};
use super::tt::TranspositionTable;
use super::worker::{RootMove, Worker};
use super::{Limits, ScoreBound, SearchControl, SearchEvent, SearchOptions, SearchResult};
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
        best: (0..thread_memory.len()).map(|_| Mutex::new(None)).collect(),
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
        // (Not for `go depth`: an analysis to a depth shows the main thread's line at it.)
        let voting = shared.skill.is_none()
            && shared.multipv == 1
            && limits.depth.is_none()
            && !helpers.is_empty()
            && worker.completed_depth > 0;
        let result = if voting {
            let mut threads = vec![worker.thread_best()];
            threads.extend(
                shared.best[1..]
                    .iter()
                    .filter_map(|slot| slot.lock().expect("thread best").clone()),
            );
            let chosen = threads.swap_remove(vote(&threads));
            if chosen.mv != worker.root_moves[0].mv {
                // A helper's move is played: its line is the one shown.
                let rm = &mut worker.root_moves[0];
                rm.mv = chosen.mv;
                rm.score = chosen.score;
                rm.seldepth = chosen.depth as usize;
                rm.pv.clone_from(&chosen.pv);
                worker.report(chosen.depth, 1, ScoreBound::Exact);
            }
            answer(shared, &worker.root_moves[0], chosen.depth)
        } else {
            main_result(
                shared,
                &worker.root_moves,
                &worker.skill_candidates,
                worker.completed_depth,
            )
        };
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

/// Weight added to every thread's score over the lowest before it multiplies the thread's
/// depth, so that the thread of the lowest score still votes (Stockfish's 14 at its scale).
const VOTE_OFFSET: i64 = 7;

/// The thread whose move is played (Stockfish's vote): each thread votes for its move with
/// (score − the lowest score + offset) × depth; the move of the most votes wins, the main
/// thread's (first) on a tie. A proven win is taken over any evaluation, the fastest among
/// wins, and a proven loss is played only when every thread loses (then the slowest).
fn vote(threads: &[ThreadBest]) -> usize {
    let min_score = threads.iter().map(|t| t.score).min().unwrap_or(0);
    let votes = |mv: Move| -> i64 {
        threads
            .iter()
            .filter(|t| t.mv == mv)
            .map(|t| (i64::from(t.score) - i64::from(min_score) + VOTE_OFFSET) * i64::from(t.depth))
            .sum()
    };
    let mut best = 0;
    for (i, thread) in threads.iter().enumerate().skip(1) {
        let best_score = threads[best].score;
        let better = if is_decided(best_score) {
            thread.score > best_score
        } else {
            thread.score >= RULE_WIN_IN_MAX_PLY
                || (!is_decided(thread.score) && votes(thread.mv) > votes(threads[best].mv))
        };
        if better {
            best = i;
        }
    }
    best
}

/// The search's answer from the main thread's root moves: the best move (below full strength,
/// the level's choice among the candidates of the last completed iteration) and the reply
/// expected ([`answer`]).
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
    answer(shared, best, depth)
}

/// The answer for the root move `best` found at `depth`: the reply expected from its
/// principal variation, else the table.
fn answer(shared: &Shared, best: &RootMove, depth: i32) -> SearchResult {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::mate_in;

    fn thread(mv: u16, score: i32, depth: i32) -> ThreadBest {
        let mv = Move::from_raw(mv);
        ThreadBest {
            mv,
            score,
            depth,
            pv: vec![mv],
        }
    }

    #[test]
    fn the_threads_vote_by_score_and_depth() {
        // Alone, or agreeing: the main thread.
        assert_eq!(vote(&[thread(1, 30, 10)]), 0);
        assert_eq!(vote(&[thread(1, 30, 10), thread(1, 90, 12)]), 0);
        // A helper deeper with a better score outvotes the main thread...
        assert_eq!(vote(&[thread(1, 30, 10), thread(2, 50, 12)]), 1);
        // ...but not with a worse one, nor at the same score and depth (a tie stays main's).
        assert_eq!(vote(&[thread(1, 30, 10), thread(2, 20, 12)]), 0);
        assert_eq!(vote(&[thread(1, 30, 10), thread(2, 30, 10)]), 0);
        // Two helpers on one move outvote the main thread.
        assert_eq!(
            vote(&[thread(1, 30, 10), thread(2, 28, 10), thread(2, 28, 10)]),
            1
        );
    }

    #[test]
    fn a_proven_win_is_taken_and_a_proven_loss_avoided() {
        // A mate found by a helper beats any evaluation; the fastest mate among wins.
        assert_eq!(vote(&[thread(1, 300, 14), thread(2, mate_in(5), 6)]), 1);
        assert_eq!(
            vote(&[thread(1, mate_in(7), 14), thread(2, mate_in(3), 6)]),
            1
        );
        assert_eq!(
            vote(&[thread(1, mate_in(3), 6), thread(2, mate_in(7), 14)]),
            0
        );
        // A helper that sees its move lose is not followed...
        assert_eq!(vote(&[thread(1, -200, 10), thread(2, mated_in(4), 14)]), 0);
        // ...and a lost main thread takes any helper that holds out longer.
        assert_eq!(vote(&[thread(1, mated_in(4), 10), thread(2, -500, 8)]), 1);
    }
}
