//! The session's search thread: the [`Player`] lent to a thread of its own for each `go` (and
//! `bench`, `perft`), so that the input loop answers `stop`, `ponderhit` and `isready`
//! meanwhile; the final line (`bestmove`, `checkmate`, …) sent exactly once by the
//! [`Finisher`], after `stop` or `ponderhit` when USI asks it to wait; a watchdog that answers
//! for a search its loaded machine left silent past its deadline; and the player handed back
//! when the search is over.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::platform::Instant;

use super::output::Output;
use super::report;
use crate::player::Player;
use crate::search::{Limits, Listener, SearchControl, SearchEvent, THREAD_STACK, time};
use crate::shogi::{Game, Position, perft_until};

/// The session's player: idle in the session, or lent to the search thread of a running
/// search, which hands it back when the session stops or joins it.
pub struct SearchThread {
    /// `None` only while a search thread holds it (then `running` is `Some`).
    player: Option<Box<dyn Player>>,
    running: Option<RunningSearch>,
    /// Searches run on the calling thread, asking this listener for the session's commands
    /// meanwhile (a host without threads: WebAssembly); `None`: on a thread of their own.
    inline: Option<Listener>,
}

/// A search or mate search running on its own thread.
struct RunningSearch {
    control: Arc<SearchControl>,
    /// Set, under the output lock, just before the final line is written: once the GUI has
    /// seen `bestmove`, the next command finds the search finished.
    finished: Arc<AtomicBool>,
    handle: JoinHandle<Option<Box<dyn Player>>>,
}

impl RunningSearch {
    fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }

    fn wake(&self) {
        self.handle.thread().unpark();
    }
}

/// What a job on the search thread is given: the player, the stop control, the output for
/// its `info` lines and the finisher for its final line.
pub type Job =
    Box<dyn FnOnce(&mut dyn Player, &SearchControl, &Output, &Finisher) -> Option<String> + Send>;

impl SearchThread {
    pub fn new(player: Box<dyn Player>) -> SearchThread {
        SearchThread {
            player: Some(player),
            running: None,
            inline: None,
        }
    }

    /// Runs every job from now on on the calling thread (see [`SearchThread::inline`]).
    pub fn run_inline(&mut self, listener: Listener) {
        self.inline = Some(listener);
    }

    /// Whether a search runs and has not sent its final line yet.
    pub fn is_searching(&self) -> bool {
        self.running.as_ref().is_some_and(|s| !s.is_finished())
    }

    /// The player while no search thread holds it.
    pub fn player(&mut self) -> Option<&mut dyn Player> {
        self.player.as_deref_mut().map(|p| p as &mut dyn Player)
    }

    /// Replaces the player (one that is idle, or lost with a dead search thread).
    pub fn set_player(&mut self, player: Box<dyn Player>) {
        self.player = Some(player);
    }

    /// Starts `job` on a search thread with the player. `job` sends its final line through
    /// the [`Finisher`] as soon as it may (a search does so before waiting for its helper
    /// threads), or returns it; a returned line waits for `stop` or `ponderhit` when `infinite`
    /// or pondering, as USI requires. Should the job panic before its final line, `fallback`
    /// is sent instead so the GUI is never left waiting.
    pub fn spawn(
        &mut self,
        out: &Output,
        ponder: bool,
        infinite: bool,
        fallback: String,
        job: Job,
    ) {
        if let Some(listener) = self.inline.clone() {
            return self.run_here(out, ponder, infinite, listener, job);
        }
        let Some(player) = self.player.take() else {
            return out.error("internal: the searcher is missing");
        };
        let control = Arc::new(SearchControl::default());
        control.ponder.store(ponder, Ordering::SeqCst);
        let finished = Arc::new(AtomicBool::new(false));
        // The player goes over a channel once the thread exists, so a failed spawn keeps it.
        let (send_player, receive_player) = mpsc::channel::<Box<dyn Player>>();
        let thread_control = control.clone();
        let finisher = Finisher {
            out: out.clone(),
            finished: finished.clone(),
        };
        let thread_out = out.clone();
        let spawned = thread::Builder::new()
            .name("search".to_string())
            // The search's main worker runs on this thread.
            .stack_size(THREAD_STACK)
            .spawn(move || {
                // The session sends the player right after spawning; without it, nothing to do.
                let mut player = receive_player.recv().ok()?;
                let control = &*thread_control;
                let out = &thread_out;
                let run = AssertUnwindSafe(|| job(&mut *player, control, out, &finisher));
                let line = catch_unwind(run).unwrap_or_else(|_| {
                    out.error("the search failed (see the log); answering with a fallback");
                    player.clear();
                    Some(fallback)
                });
                if let Some(line) = line.filter(|_| !finisher.is_finished()) {
                    while !control.stop.load(Ordering::SeqCst)
                        && (infinite || control.ponder.load(Ordering::SeqCst))
                    {
                        thread::park_timeout(Duration::from_millis(10));
                    }
                    finisher.finish(&line);
                }
                Some(player)
            });
        match spawned {
            Ok(handle) => match send_player.send(player) {
                Ok(()) => {
                    self.running = Some(RunningSearch {
                        control,
                        finished,
                        handle,
                    })
                }
                Err(mpsc::SendError(player)) => {
                    self.player = Some(player);
                    out.error("cannot start the search thread");
                }
            },
            Err(e) => {
                self.player = Some(player);
                out.error(format!("cannot start the search thread: {e}"));
            }
        }
    }

    /// [`SearchThread::spawn`] on the calling thread: the job runs to its end, its final line
    /// waiting for `stop` or `ponderhit` (heard through `listener`) where USI says so. A panic
    /// aborts the program there (WebAssembly's `panic = "abort"`), so there is no fallback.
    fn run_here(
        &mut self,
        out: &Output,
        ponder: bool,
        infinite: bool,
        listener: Listener,
        job: Job,
    ) {
        let Some(mut player) = self.player.take() else {
            return out.error("internal: the searcher is missing");
        };
        let control = SearchControl {
            listener: Some(listener),
            ..SearchControl::default()
        };
        control.ponder.store(ponder, Ordering::SeqCst);
        let finisher = Finisher {
            out: out.clone(),
            finished: Arc::new(AtomicBool::new(false)),
        };
        let line = job(&mut *player, &control, out, &finisher);
        if let Some(line) = line.filter(|_| !finisher.is_finished()) {
            control.wait_for_release(infinite);
            finisher.finish(&line);
        }
        self.player = Some(player);
    }

    /// Stops a running search (its final line is sent) and takes the player back. `false`
    /// when the player was lost with its thread (unreachable in practice: the thread catches
    /// the search's panics); the session then gives a fresh one with [`set_player`].
    ///
    /// [`set_player`]: SearchThread::set_player
    pub fn stop(&mut self) -> bool {
        let Some(search) = self.running.take() else {
            return true;
        };
        search.control.stop.store(true, Ordering::SeqCst);
        search.wake();
        match search.handle.join() {
            Ok(Some(player)) => {
                self.player = Some(player);
                true
            }
            _ => false,
        }
    }

    /// `ponderhit`: the pondering search goes on under its time limits.
    pub fn ponderhit(&self, out: &Output) {
        match &self.running {
            Some(search)
                if !search.is_finished() && search.control.ponder.load(Ordering::SeqCst) =>
            {
                search.control.ponder.store(false, Ordering::SeqCst);
                search.wake();
            }
            _ => out.error("ponderhit: no search is pondering"),
        }
    }
}

/// The job of a `go` that searches: `game` under `limits`, each event an `info` line, the
/// `bestmove` sent by the finisher when the search says it may be (or by the watchdog, should
/// the thread miss the deadline of a timed search). `received`: when the `go` line arrived.
pub fn search_job(game: Game, limits: Limits, timed: bool, received: Instant) -> Job {
    Box::new(move |player, control, out, finisher| {
        let root = game.position().clone();
        // Resigning still waits for stop or ponderhit, like any bestmove.
        if !root.has_legal_move() {
            return Some("bestmove resign".to_string());
        }
        log::debug!("go: search starts {:?} after the go", received.elapsed());
        let latest = Arc::new(Mutex::new(None));
        // When the answer is due at the latest (not while pondering or infinite).
        let deadline = timed
            .then(|| time::budget(&limits, player.options().move_overhead))
            .flatten()
            .map(|budget| received + budget.maximum + WATCHDOG_GRACE);
        if let Some(deadline) = deadline.filter(|_| crate::platform::THREADS) {
            watch_deadline(deadline, finisher.clone(), latest.clone());
        }
        let result = player.search(&game, &limits, control, &mut |event| {
            match event {
                SearchEvent::Finished(result) => {
                    log::debug!("go: bestmove {:?} after the go", received.elapsed());
                    finisher.finish(&report::bestmove_line(&root, result));
                }
                SearchEvent::Iteration(info) if info.multipv == 1 => {
                    *lock(&latest) = report::bestmove_from_pv(&root, &info.pv);
                }
                _ => {}
            }
            if let Some(line) = report::event_line(&root, event) {
                out.line(&line);
            }
        });
        // Already sent with `Finished`, unless the search ended without one.
        Some(report::bestmove_line(&root, &result))
    })
}

/// The job of `perft N`: leaf counts per root move from `pos`, then `Nodes searched: N`;
/// `stop` ends it with the partial count.
pub fn perft_job(mut pos: Position, depth: u32) -> Job {
    Box::new(move |_, control, out, _| {
        let start = Instant::now();
        let moves = if depth == 0 {
            Default::default()
        } else {
            pos.legal_moves()
        };
        let mut total: u64 = if depth == 0 { 1 } else { 0 };
        for (done, &mv) in moves.iter().enumerate() {
            let undo = pos.make_move(mv);
            let count = perft_until(&mut pos, depth - 1, &control.stop);
            pos.unmake_move(mv, undo);
            let Some(count) = count else {
                out.note(format!(
                    "perft stopped: {done} of {} root moves counted",
                    moves.len()
                ));
                break;
            };
            out.line(&format!("{mv}: {count}"));
            total += count;
        }
        let elapsed = start.elapsed();
        out.note(format!(
            "perft {depth}: {total} nodes in {} ms ({:.0} nodes/s)",
            elapsed.as_millis(),
            total as f64 / elapsed.as_secs_f64().max(1e-6)
        ));
        Some(format!("Nodes searched: {total}"))
    })
}

/// How long past its hard time limit a search may stay silent before the watchdog answers for
/// it: the search stops itself at the limit, but a loaded machine may not run its thread then.
const WATCHDOG_GRACE: Duration = Duration::from_millis(4);

/// Answers for a search that is still silent at `deadline` (its thread not scheduled on a
/// loaded machine): sends the best move of its last completed iteration, kept in `latest`.
/// A sleeping thread woken by a timer is run promptly, ahead of busy ones.
fn watch_deadline(deadline: Instant, finisher: Finisher, latest: Arc<Mutex<Option<String>>>) {
    let spawned = thread::Builder::new()
        .name("deadline".to_string())
        .spawn(move || {
            while let Some(left) = deadline.checked_duration_since(Instant::now()) {
                if finisher.is_finished() {
                    return;
                }
                thread::park_timeout(left);
            }
            if let Some(line) = lock(&latest).clone() {
                if !finisher.is_finished() {
                    log::warn!("the search missed its deadline; answering with its last move");
                }
                finisher.finish(&line);
            }
        });
    if let Err(e) = spawned {
        log::warn!("cannot start the deadline watchdog: {e}");
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sends a search's final line (`bestmove`, `checkmate`, …) exactly once, marking the search
/// finished under the output lock first: once the GUI has read it, the next command finds the
/// search over.
#[derive(Clone)]
pub struct Finisher {
    out: Output,
    finished: Arc<AtomicBool>,
}

impl Finisher {
    pub fn finish(&self, line: &str) {
        self.out
            .line_if(|| !self.finished.swap(true, Ordering::SeqCst), line);
    }

    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }
}
