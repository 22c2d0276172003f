//! The MCTS player: its options, node pool and evaluator, one search on `Threads` threads, and
//! the [`Player`] trait.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Mode;
use super::policy::MovePolicy;
use super::report::{Progress, info_lines, result};
use super::search::{Outcome, Scratch, Shared, Watch};
use super::tree::Tree;
use crate::eval::{Evaluator, MaterialEvaluator};
use crate::player::{MCTS, Player, UCT};
use crate::search::{Limits, SearchControl, SearchEvent, SearchOptions, SearchResult};
use crate::shogi::Game;

/// A Monte Carlo tree search player.
pub struct Mcts {
    mode: Mode,
    opts: SearchOptions,
    tree: Tree,
    evaluator: Arc<dyn Evaluator>,
    policy: Arc<MovePolicy>,
}

impl Mcts {
    pub fn new(mode: Mode, opts: SearchOptions) -> Mcts {
        Mcts {
            mode,
            tree: Tree::new(opts.hash_mb),
            opts,
            evaluator: Arc::new(MaterialEvaluator),
            policy: Arc::new(MovePolicy::embedded()),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Nodes the pool holds at most, and nodes the last search used.
    pub fn pool_usage(&self) -> (usize, usize) {
        (self.tree.capacity(), self.tree.len())
    }

    /// Bytes the pool holds.
    pub fn pool_bytes(&self) -> usize {
        self.tree.bytes()
    }

    fn run(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_event: &mut dyn FnMut(&SearchEvent),
    ) -> SearchResult {
        let start = limits.start.unwrap_or_else(Instant::now);
        self.tree.resize(self.opts.hash_mb);
        self.tree.reset();
        let mut watch = Watch::new(limits, control, self.opts.move_overhead, start);
        let visit_limit = [limits.nodes, limits.soft_nodes]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(u64::MAX)
            // The first simulation expands the root: without it there is no move to give.
            .max(1);
        let tree = std::mem::replace(&mut self.tree, Tree::none());
        let shared = Shared {
            tree: Mutex::new(tree),
            root: game,
            mode: self.mode,
            evaluator: &*self.evaluator,
            policy: self.opts.features.mcts_policy.then_some(&*self.policy),
            searchmoves: &limits.searchmoves,
            done: AtomicBool::new(false),
            begun: AtomicU64::new(0),
            visit_limit,
            seldepth: AtomicU64::new(0),
        };
        let multipv = self.opts.multipv;
        let report = |shared: &Shared, watch: &Watch, on_event: &mut dyn FnMut(&SearchEvent)| {
            let tree = shared.tree.lock().expect("tree lock");
            let progress = Progress {
                seldepth: shared.seldepth.load(Relaxed) as u32,
                elapsed: watch.search_start().elapsed(),
            };
            for info in info_lines(&tree, multipv, &progress) {
                on_event(&SearchEvent::Iteration(info));
            }
        };
        let threads = self.opts.threads.max(1);
        std::thread::scope(|scope| {
            for thread in 1..threads {
                let shared = &shared;
                scope.spawn(move || {
                    let mut scratch = Scratch::new(game, thread);
                    while !shared.done.load(Relaxed) && !control.stop.load(Relaxed) {
                        if shared.simulate(&mut scratch) == Outcome::Finished {
                            break;
                        }
                    }
                });
            }
            let mut scratch = Scratch::new(game, 0);
            // At least one simulation, even when stopped at once: it expands the root.
            loop {
                if shared.simulate(&mut scratch) == Outcome::Finished
                    || control.stop.load(Relaxed)
                    || watch.limit_reached(&shared, control)
                {
                    break;
                }
                if watch.report_due() {
                    report(&shared, &watch, on_event);
                }
            }
            shared.done.store(true, Relaxed);
        });
        report(&shared, &watch, on_event);
        // USI: after `go infinite` or `go ponder`, bestmove waits for `stop` (or ponderhit).
        while !control.stop.load(Relaxed) && (limits.infinite || control.ponder.load(Relaxed)) {
            std::thread::sleep(Duration::from_millis(1));
        }
        self.tree = shared.tree.into_inner().expect("tree lock");
        let answer = result(&self.tree);
        on_event(&SearchEvent::Finished(answer.clone()));
        answer
    }
}

impl Player for Mcts {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Uct => UCT,
            Mode::Puct => MCTS,
        }
    }

    fn options(&self) -> &SearchOptions {
        &self.opts
    }

    fn options_mut(&mut self) -> &mut SearchOptions {
        &mut self.opts
    }

    fn set_policy(&mut self, policy: Arc<MovePolicy>) {
        self.policy = policy;
    }

    fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>) {
        self.evaluator = evaluator;
    }

    fn allocate(&mut self) {
        self.tree.resize(self.opts.hash_mb);
    }

    fn hash_size_mb(&self) -> usize {
        self.tree.bytes().div_ceil(1 << 20)
    }

    /// The tree is rebuilt by every search: nothing is kept between them.
    fn clear(&mut self) {}

    fn clear_heuristics(&mut self) {}

    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_event: &mut dyn FnMut(&SearchEvent),
    ) -> SearchResult {
        self.run(game, limits, control, on_event)
    }
}
