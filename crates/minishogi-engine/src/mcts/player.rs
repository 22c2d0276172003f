//! The MCTS player: its options, node pool and evaluator, one search on `Threads` threads, and
//! the [`Player`] trait.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use crate::platform::Instant;

use super::Mode;
use super::params::MctsParams;
use super::policy::MovePolicy;
use super::prior::PriorShape;
use super::report::{Progress, info_lines, result};
use super::search::{Outcome, Scratch, Shared, Watch};
use super::select::Puct;
use super::solver::MateProbe;
use super::tree::{Growth, ROOT, Tree};
use crate::eval::{Evaluator, MaterialEvaluator};
use crate::player::Player;
use crate::search::{
    Limits, SearchControl, SearchEvent, SearchOptions, SearchParams, SearchResult,
};
use crate::shogi::{Game, Move, Position};

/// A tree kept for the next search (tree reuse) holds at most this share of the pool, so that
/// the search has room to grow: kept whole, at the default `USI_Hash` and a second a move, the
/// pool was full from the second search on.
const KEPT_SHARE: usize = 4;

/// A Monte Carlo tree search player.
pub struct Mcts {
    mode: Mode,
    opts: SearchOptions,
    /// MCTS's own numbers, given at construction as the move policy is.
    params: MctsParams,
    tree: Tree,
    evaluator: Arc<dyn Evaluator>,
    policy: Arc<MovePolicy>,
    /// The last search's root, to find the next root in the tree it left.
    last_root: Option<LastRoot>,
}

/// A search's root game and what its tree's values depend on.
struct LastRoot {
    start: Position,
    moves: Vec<Move>,
    max_plies: Option<u32>,
    search_params: SearchParams,
    params: MctsParams,
    /// The priors' source (`mcts_policy`).
    learned_priors: bool,
}

impl Mcts {
    /// A player of `mode` with `opts`, MCTS's numbers `params` and the move policy `policy`
    /// (`None`: the shipped one).
    pub fn new(
        mode: Mode,
        opts: SearchOptions,
        params: MctsParams,
        policy: Option<Arc<MovePolicy>>,
    ) -> Mcts {
        Mcts {
            mode,
            tree: Tree::new(opts.hash_mb),
            opts,
            params,
            evaluator: Arc::new(MaterialEvaluator),
            policy: policy.unwrap_or_else(|| Arc::new(MovePolicy::embedded())),
            last_root: None,
        }
    }

    /// MCTS's numbers.
    pub fn params(&self) -> &MctsParams {
        &self.params
    }

    /// Readies the pool for a search of `game`: the subtree of the last search's tree under
    /// the moves played since, when there is one (see [`Mcts::reusable_node`]), else an empty
    /// tree. Returns the visits the root starts with.
    fn reuse_or_reset(&mut self, game: &Game, limits: &Limits) -> u32 {
        let last = self.last_root.take();
        match last.and_then(|last| self.reusable_node(&last, game, limits)) {
            Some(node) => {
                let room = self.tree.capacity() / KEPT_SHARE;
                self.tree.keep_subtree(node, room);
                self.tree[ROOT].visits
            }
            None => {
                self.tree.reset();
                0
            }
        }
    }

    /// The node of `game`'s position in the tree the last search (of `last`) left: only when
    /// reuse is on, at least one move was played since (the same position again is searched
    /// afresh, so that a search repeats exactly), nothing its values depend on changed (the
    /// game's start and ply limit, the parameters), no `searchmoves` restrict the root, and
    /// the node has children.
    fn reusable_node(&self, last: &LastRoot, game: &Game, limits: &Limits) -> Option<usize> {
        if self.params.mcts_reuse == 0
            || !limits.searchmoves.is_empty()
            || self.tree.len() == 0
            || last.search_params != self.opts.params
            || last.params != self.params
            || last.learned_priors != self.opts.features.mcts_policy
            || last.max_plies != game.max_plies()
            || last.start != *game.start_position()
        {
            return None;
        }
        let since = game.moves().strip_prefix(last.moves.as_slice())?;
        if since.is_empty() {
            return None;
        }
        let mut node = ROOT;
        for &mv in since {
            if self.tree[node].growth != Growth::Expanded {
                return None;
            }
            node = self.tree[node]
                .children()
                .find(|&child| self.tree[child].mv == mv)?;
        }
        (self.tree[node].growth == Growth::Expanded).then_some(node)
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
        let reused_visits = self.reuse_or_reset(game, limits);
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
            puct: Puct::from_params(&self.params),
            prior_shape: PriorShape::from_params(&self.params),
            leaf_plies: self.params.mcts_leaf_qs_plies as u32,
            mate3_visits: self.params.mcts_mate3_visits as u32,
            mate_probe: MateProbe::from_params(&self.params),
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
                reused_visits,
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
                    let mut scratch = Scratch::new(game, thread, &shared.mate_probe);
                    while !shared.done.load(Relaxed) && !control.stop.load(Relaxed) {
                        if shared.simulate(&mut scratch) == Outcome::Finished {
                            break;
                        }
                    }
                });
            }
            let mut scratch = Scratch::new(game, 0, &shared.mate_probe);
            // At least one simulation, even when stopped at once: it expands the root.
            loop {
                control.listen();
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
        control.wait_for_release(limits.infinite);
        self.tree = shared.tree.into_inner().expect("tree lock");
        self.last_root = Some(LastRoot {
            start: game.start_position().clone(),
            moves: game.moves().to_vec(),
            max_plies: game.max_plies(),
            search_params: self.opts.params,
            params: self.params,
            learned_priors: self.opts.features.mcts_policy,
        });
        let answer = result(&self.tree, reused_visits);
        on_event(&SearchEvent::Finished(answer.clone()));
        answer
    }
}

impl Player for Mcts {
    fn name(&self) -> &'static str {
        self.mode.name()
    }

    fn options(&self) -> &SearchOptions {
        &self.opts
    }

    fn options_mut(&mut self) -> &mut SearchOptions {
        &mut self.opts
    }

    fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>) {
        self.evaluator = evaluator;
        self.last_root = None;
    }

    fn allocate(&mut self) {
        self.tree.resize(self.opts.hash_mb);
    }

    fn hash_size_mb(&self) -> usize {
        self.tree.bytes().div_ceil(1 << 20)
    }

    /// Forgets the last search's tree (a new game).
    fn clear(&mut self) {
        self.last_root = None;
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    fn search(player: &mut Mcts, game: &Game, nodes: u64) -> SearchResult {
        let limits = Limits {
            nodes: Some(nodes),
            ..Limits::default()
        };
        player.search(game, &limits, &SearchControl::default(), &mut |_| {})
    }

    #[test]
    fn the_tree_under_the_moves_played_is_reused() {
        let mut player = Mcts::new(
            Mode::Puct,
            SearchOptions::default(),
            MctsParams::DEFAULT,
            None,
        );
        let mut game = Game::startpos();
        let first = search(&mut player, &game, 3000);
        game.play(first.best.unwrap()).unwrap();
        game.play(first.ponder.unwrap()).unwrap();
        // The expected reply was searched: its subtree is kept and grows by this search's
        // visits, which are what the search reports.
        let second = search(&mut player, &game, 1000);
        assert_eq!(second.nodes, 1000);
        assert!(
            player.tree[ROOT].visits > 1000,
            "{}",
            player.tree[ROOT].visits
        );
        // The same position again, or with reuse off: a fresh tree.
        search(&mut player, &game, 1000);
        assert_eq!(player.tree[ROOT].visits, 1000);
        player.params.mcts_reuse = 0;
        let again = search(&mut player, &game, 1000);
        let mut next = game.clone();
        next.play(again.best.unwrap()).unwrap();
        next.play(again.ponder.unwrap()).unwrap();
        search(&mut player, &next, 1000);
        assert_eq!(player.tree[ROOT].visits, 1000);
    }
}
