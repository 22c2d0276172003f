//! One search: simulations (select down the tree, expand the leaf, evaluate it — a random
//! playout or the evaluator — and back the value up) on one or more threads until a limit,
//! and the limits themselves (visits, `go depth` as the deepest simulation, time, `stop`,
//! a proven root).
//!
//! Threads share the tree behind one lock (tree parallel): a simulation holds it to select and
//! expand, and again to back up; the evaluation, the costly part, runs outside it. Virtual
//! losses on the path being evaluated push the other threads elsewhere. With one thread and a
//! visit limit a search is deterministic (the playouts' generator is seeded by the root).

use std::sync::Mutex;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

use crate::platform::Instant;

use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::Mode;
use super::leaf::leaf_value;
use super::playout::random_playout;
use super::policy::MovePolicy;
use super::prior::{PriorShape, priors};
use super::select::{Puct, select};
use super::solver::{
    MateProbe, proof_of, prove_mate_by_checks, prove_mate_in_three, proven_value, update_proof,
};
use super::tree::{Growth, Proof, ROOT, Tree};
use crate::eval::Evaluator;
use crate::search::mate::MateMemory;
use crate::search::time::{TimeKeeper, budget};
use crate::search::{Limits, SearchControl};
use crate::shogi::{Game, Move, Position};

/// What every thread of one search reads.
pub struct Shared<'a> {
    pub tree: Mutex<Tree>,
    pub root: &'a Game,
    pub mode: Mode,
    pub evaluator: &'a dyn Evaluator,
    /// PUCT's priors: the learned policy, or `None` for the move ordering's.
    pub policy: Option<&'a MovePolicy>,
    pub searchmoves: &'a [Move],
    pub puct: Puct,
    pub prior_shape: PriorShape,
    /// Quiescence plies at a PUCT leaf (0: its static evaluation).
    pub leaf_plies: u32,
    /// Visits at which a node is searched for a mate in three (0: never).
    pub mate3_visits: u32,
    /// The mate search by checks at the nodes (`visits` 0: never).
    pub mate_probe: MateProbe,
    /// Set when the search is over (a limit reached, or `stop`).
    pub done: AtomicBool,
    /// Simulations begun, against the visit limit.
    pub begun: AtomicU64,
    pub visit_limit: u64,
    /// The deepest simulation so far (plies from the root).
    pub seldepth: AtomicU64,
}

/// One thread's scratch: the game along the path, a game for the mate-in-three probe, the
/// mate search's memory (when it runs), the leaf's position for its quiescence search, the
/// path, move and prior buffers, and the playouts' generator.
pub struct Scratch {
    game: Game,
    probe: Game,
    mate: Option<MateMemory>,
    leaf: Position,
    path: Vec<usize>,
    priors: Vec<f32>,
    rng: SmallRng,
}

impl Scratch {
    /// `mate_probe`: the search's, to size the mate search's memory (none if it is off).
    pub fn new(root: &Game, thread: usize, mate_probe: &MateProbe) -> Scratch {
        Scratch {
            game: root.clone(),
            probe: root.clone(),
            mate: mate_probe.memory(),
            leaf: root.position().clone(),
            path: Vec::new(),
            priors: Vec::new(),
            rng: SmallRng::seed_from_u64(root.position().key() ^ thread as u64),
        }
    }
}

/// How a simulation ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    Done,
    /// Nothing left to do: the visit limit, or the root is proven.
    Finished,
}

impl Shared<'_> {
    /// Runs one simulation.
    pub fn simulate(&self, scratch: &mut Scratch) -> Outcome {
        if self.begun.fetch_add(1, Relaxed) >= self.visit_limit {
            return Outcome::Finished;
        }
        let Scratch {
            game,
            probe,
            mate,
            leaf: leaf_position,
            path,
            priors: prior_buffer,
            rng,
        } = scratch;
        game.clone_from(self.root);
        path.clear();
        let (leaf, known) = {
            let mut tree = self.tree.lock().expect("tree lock");
            if tree[ROOT].proof != Proof::Unknown {
                return Outcome::Finished;
            }
            let mut node = ROOT;
            loop {
                path.push(node);
                tree[node].virtual_loss += 1;
                if self.mate3_visits > 0
                    && tree[node].visits == self.mate3_visits
                    && tree[node].growth == Growth::Expanded
                    && tree[node].proof == Proof::Unknown
                {
                    prove_mate_in_three(&mut tree, node, game, probe);
                }
                if let Some(memory) = mate.as_mut()
                    && tree[node].visits == self.mate_probe.visits
                    && tree[node].growth == Growth::Expanded
                    && tree[node].proof == Proof::Unknown
                {
                    prove_mate_by_checks(&mut tree, node, game, memory, &self.mate_probe);
                }
                if tree[node].growth != Growth::Expanded || tree[node].proof != Proof::Unknown {
                    break;
                }
                let Some(child) = select(&tree, node, self.mode, &self.puct) else {
                    break;
                };
                game.play_legal(tree[child].mv);
                node = child;
            }
            self.seldepth.fetch_max(path.len() as u64 - 1, Relaxed);
            if tree[node].growth == Growth::Fresh {
                self.visit(&mut tree, node, game, prior_buffer);
            }
            (node, proven_value(tree[node].proof))
        };
        let value = match known {
            Some(value) => value,
            None => match self.mode {
                Mode::Uct => random_playout(game, rng),
                Mode::Puct => {
                    leaf_position.clone_from(game.position());
                    leaf_value(leaf_position, self.evaluator, self.leaf_plies)
                }
            },
        };
        let mut tree = self.tree.lock().expect("tree lock");
        // `value` is for the side to move at the leaf; each node keeps it for its mover.
        let mut value = value;
        for &node in path.iter().rev() {
            let n = &mut tree[node];
            n.virtual_loss -= 1;
            n.visits += 1;
            n.value_sum += 1.0 - value;
            value = 1.0 - value;
        }
        if tree[leaf].proof != Proof::Unknown {
            for &node in path.iter().rev().skip(1) {
                if !update_proof(&mut tree, node) {
                    break;
                }
            }
        }
        Outcome::Done
    }

    /// A visit of node `index` (not expanded yet), the position of `game`: a finished game is
    /// proven; otherwise, from its second visit on (the root at once), a mate in one proves a
    /// win (and is its only child), or else the node gets its children, unless the pool is
    /// full. Leaves visited once are most of a tree: waiting for the second visit spares the
    /// pool their children.
    fn visit(&self, tree: &mut Tree, index: usize, game: &Game, prior_buffer: &mut Vec<f32>) {
        let pos = game.position();
        let status = game.status();
        if status.is_over() {
            tree[index].growth = Growth::Leaf;
            tree[index].proof = proof_of(status, pos.side_to_move());
            return;
        }
        if index != ROOT && tree[index].visits == 0 {
            return;
        }
        let mut moves = pos.legal_moves();
        if index == ROOT && moves.iter().any(|mv| self.searchmoves.contains(mv)) {
            let all = moves.to_vec();
            moves.clear();
            for mv in all.into_iter().filter(|mv| self.searchmoves.contains(mv)) {
                moves.push(mv);
            }
        }
        if let Some(mate) = pos.clone().mate_in_one_among(&moves) {
            if tree.expand(index, &[mate], &[1.0]) {
                let child = tree[index].first_child as usize;
                tree[child].growth = Growth::Leaf;
                tree[child].proof = Proof::Loss;
                update_proof(tree, index);
            } else {
                tree[index].growth = Growth::Leaf;
                tree[index].proof = Proof::Win;
                tree[index].proof_plies = 1;
            }
            return;
        }
        match self.mode {
            Mode::Uct => {
                prior_buffer.clear();
                prior_buffer.resize(moves.len(), 1.0 / moves.len() as f32);
            }
            Mode::Puct => match self.policy {
                Some(policy) => policy.priors(
                    pos,
                    &moves,
                    self.prior_shape.policy_temperature,
                    prior_buffer,
                ),
                None => priors(pos, &moves, &self.prior_shape, prior_buffer),
            },
        }
        if !tree.expand(index, moves.as_slice(), prior_buffer) {
            tree[index].growth = Growth::Leaf;
        }
    }
}

/// The main thread's view of the limits: the clock, `go depth`, and when to report.
pub struct Watch {
    keeper: TimeKeeper,
    depth: Option<u64>,
    last_report: Instant,
}

/// How often an `info` line is sent while a search runs.
pub const REPORT_EVERY: Duration = Duration::from_secs(1);

impl Watch {
    pub fn new(
        limits: &Limits,
        control: &SearchControl,
        move_overhead: Duration,
        start: Instant,
    ) -> Watch {
        Watch {
            keeper: TimeKeeper::new(budget(limits, move_overhead), control, start),
            depth: limits.depth.map(u64::from),
            last_report: Instant::now(),
        }
    }

    pub fn search_start(&self) -> Instant {
        self.keeper.search_start
    }

    /// Whether the search should end now (before `stop`): out of time, or `go depth` reached
    /// (or the tree can grow no more towards it).
    pub fn limit_reached(&mut self, shared: &Shared, control: &SearchControl) -> bool {
        if let Some(b) = self.keeper.budget
            && self.keeper.counting(control)
        {
            let aim = if b.use_all { b.maximum } else { b.optimum };
            if self.keeper.used() >= aim {
                return true;
            }
        }
        if let Some(depth) = self.depth {
            if shared.seldepth.load(Relaxed) >= depth {
                return true;
            }
            let tree = shared.tree.lock().expect("tree lock");
            if tree.len() + crate::shogi::MAX_MOVES > tree.capacity() {
                return true;
            }
        }
        false
    }

    /// Whether an `info` line is due (and, if so, counts from now).
    pub fn report_due(&mut self) -> bool {
        if self.last_report.elapsed() >= REPORT_EVERY {
            self.last_report = Instant::now();
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::MaterialEvaluator;

    #[test]
    fn a_mate_in_one_is_proven_at_expansion() {
        let game = Game::new(crate::shogi::Position::from_sfen("3k1/5/2G2/5/K4 b G 1").unwrap());
        let shared = Shared {
            tree: Mutex::new({
                let mut tree = Tree::new(1);
                tree.reset();
                tree
            }),
            root: &game,
            mode: Mode::Puct,
            evaluator: &MaterialEvaluator,
            policy: None,
            searchmoves: &[],
            puct: Puct::from_params(&crate::mcts::MctsParams::DEFAULT),
            prior_shape: PriorShape::DEFAULT,
            leaf_plies: 0,
            mate3_visits: 0,
            mate_probe: MateProbe::from_params(&crate::mcts::MctsParams::DEFAULT),
            done: AtomicBool::new(false),
            begun: AtomicU64::new(0),
            visit_limit: 100,
            seldepth: AtomicU64::new(0),
        };
        let mut scratch = Scratch::new(&game, 0, &shared.mate_probe);
        assert_eq!(shared.simulate(&mut scratch), Outcome::Done);
        assert_eq!(shared.simulate(&mut scratch), Outcome::Finished);
        let tree = shared.tree.lock().unwrap();
        assert_eq!((tree[ROOT].proof, tree[ROOT].proof_plies), (Proof::Win, 1));
        assert_eq!(tree[ROOT].child_count, 1);
        assert_eq!(tree[1].mv.to_string(), "G*2b");
    }
}
