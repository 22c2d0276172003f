//! Which child a simulation descends into: UCB1 (the seed's rule, uniform over the moves) or
//! PUCT (the priors weigh the exploration). Proven results steer it: a move proven to win is
//! taken, a move proven to lose is never tried again.

use super::Mode;
use super::params::MctsParams;
use super::tree::{Node, Proof, Tree};

/// The seed's exploration constant for UCB1 (values in [0, 1]).
pub const UCB1_C: f64 = std::f64::consts::SQRT_2;

/// PUCT's numbers (from `MctsParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Puct {
    /// The exploration constant.
    pub c: f64,
    /// The exploration's growth with the parent's visits (0: none) and its scale in visits.
    pub c_growth: f64,
    pub c_base: f64,
    /// An unvisited child's value: the parent's value less this (first-play urgency), so that
    /// a well-going node keeps to its best moves.
    pub fpu_reduction: f64,
}

impl Puct {
    pub fn from_params(params: &MctsParams) -> Puct {
        Puct {
            c: f64::from(params.mcts_c_centi) / 100.0,
            c_growth: f64::from(params.mcts_c_growth_centi) / 100.0,
            c_base: f64::from(params.mcts_c_base),
            fpu_reduction: f64::from(params.mcts_fpu_centi) / 100.0,
        }
    }

    /// The exploration constant at a parent of `visits` visits.
    pub fn exploration(&self, visits: f64) -> f64 {
        if self.c_growth > 0.0 {
            self.c + self.c_growth * ((visits + self.c_base) / self.c_base).ln()
        } else {
            self.c
        }
    }
}

/// The child of node `parent` (expanded) to descend into, or `None` when every child is proven
/// to lose for the side to move (then the parent is a proven loss).
pub fn select(tree: &Tree, parent: usize, mode: Mode, puct: &Puct) -> Option<usize> {
    let node = &tree[parent];
    let parent_visits = f64::from(node.visits + node.virtual_loss).max(1.0);
    // Virtual losses count as lost visits (a value of 0 each). Each rule computes its own
    // constants: a logarithm shared by both showed as a few per cent of PUCT's time.
    match mode {
        Mode::Uct => {
            let log_visits = parent_visits.ln();
            best_child(tree, parent, |child, n| {
                if n == 0.0 {
                    f64::INFINITY
                } else {
                    child.value_sum / n + UCB1_C * (log_visits / n).sqrt()
                }
            })
        }
        Mode::Puct => {
            // The parent's value for its side to move (its sum is kept for the side that
            // moved there).
            let parent_value = node.mean().map_or(0.5, |mean| 1.0 - mean);
            let fpu = (parent_value - puct.fpu_reduction).max(0.0);
            let c = puct.exploration(parent_visits);
            let sqrt_visits = parent_visits.sqrt();
            best_child(tree, parent, |child, n| {
                let q = if n == 0.0 { fpu } else { child.value_sum / n };
                q + c * f64::from(child.prior) * sqrt_visits / (1.0 + n)
            })
        }
    }
}

/// The child with the highest `score(child, visits counting virtual losses)`, with proofs
/// first: a child proven lost for the opponent is taken, one proven won for it never.
fn best_child(tree: &Tree, parent: usize, score: impl Fn(&Node, f64) -> f64) -> Option<usize> {
    let mut best = None;
    let mut best_score = f64::NEG_INFINITY;
    for child in tree[parent].children() {
        let c = &tree[child];
        match c.proof {
            // The opponent is lost after this move: nothing to weigh.
            Proof::Loss => return Some(child),
            Proof::Win => continue,
            Proof::Unknown | Proof::Draw => {}
        }
        let s = score(c, f64::from(c.visits + c.virtual_loss));
        if s > best_score {
            best_score = s;
            best = Some(child);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::tree::ROOT;
    use super::*;
    use crate::shogi::Move;

    const DEFAULT: Puct = Puct {
        c: 2.0,
        c_growth: 0.0,
        c_base: 20000.0,
        fpu_reduction: 0.2,
    };

    fn tree_with(children: &[(f32, u32, f64, Proof)]) -> Tree {
        let mut tree = Tree::new(1);
        tree.reset();
        let moves = vec![Move::NULL; children.len()];
        let priors: Vec<f32> = children.iter().map(|c| c.0).collect();
        assert!(tree.expand(ROOT, &moves, &priors));
        let mut total = 0;
        for (i, &(_, visits, value, proof)) in children.iter().enumerate() {
            let c = &mut tree[1 + i];
            c.visits = visits;
            c.value_sum = value * f64::from(visits);
            c.proof = proof;
            total += visits;
        }
        tree[ROOT].visits = total + 1;
        tree
    }

    #[test]
    fn ucb1_tries_every_move_once_then_balances() {
        let tree = tree_with(&[(0.5, 3, 0.9, Proof::Unknown), (0.5, 0, 0.0, Proof::Unknown)]);
        assert_eq!(select(&tree, ROOT, Mode::Uct, &DEFAULT), Some(2));
        let tree = tree_with(&[
            (0.5, 10, 0.9, Proof::Unknown),
            (0.5, 10, 0.1, Proof::Unknown),
        ]);
        assert_eq!(select(&tree, ROOT, Mode::Uct, &DEFAULT), Some(1));
    }

    #[test]
    fn puct_follows_the_prior_and_proofs_override() {
        let tree = tree_with(&[(0.1, 0, 0.0, Proof::Unknown), (0.9, 0, 0.0, Proof::Unknown)]);
        assert_eq!(select(&tree, ROOT, Mode::Puct, &DEFAULT), Some(2));
        // A move proven to lose is never taken; one proven to win always is.
        let tree = tree_with(&[(0.9, 5, 0.9, Proof::Win), (0.1, 5, 0.2, Proof::Unknown)]);
        assert_eq!(select(&tree, ROOT, Mode::Puct, &DEFAULT), Some(2));
        let tree = tree_with(&[(0.9, 5, 0.9, Proof::Unknown), (0.1, 1, 0.0, Proof::Loss)]);
        assert_eq!(select(&tree, ROOT, Mode::Puct, &DEFAULT), Some(2));
        let tree = tree_with(&[(0.5, 5, 0.9, Proof::Win), (0.5, 5, 0.9, Proof::Win)]);
        assert_eq!(select(&tree, ROOT, Mode::Uct, &DEFAULT), None);
    }

    #[test]
    fn exploration_grows_with_the_parents_visits_only_when_asked() {
        assert_eq!(DEFAULT.exploration(1e6), 2.0);
        let growing = Puct {
            c_growth: 2.0,
            ..DEFAULT
        };
        assert_eq!(growing.exploration(0.0), 2.0);
        assert!((growing.exploration(20000.0) - (2.0 + 2.0 * 2f64.ln())).abs() < 1e-12);
        // A well-visited parent: constant c keeps to the better, much-visited move; the grown
        // c (about 5.4 at 91,000 visits) turns to the one visited a hundredth as often.
        let tree = tree_with(&[
            (0.9, 90000, 0.6, Proof::Unknown),
            (0.1, 999, 0.5, Proof::Unknown),
        ]);
        assert_eq!(select(&tree, ROOT, Mode::Puct, &DEFAULT), Some(1));
        assert_eq!(select(&tree, ROOT, Mode::Puct, &growing), Some(2));
    }
}
