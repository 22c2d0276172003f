//! The MCTS-solver: results known for certain. A position where the game is over (as `Game`
//! judges it: mate, no legal move, 千日手 and its perpetual-check exception, the ply limit) is
//! proven at its first visit; a mate in one is found when a node is expanded; and proofs
//! propagate up: a node wins if one move leads to a lost position, loses if every move leads to
//! a won one. Draws (the ply limit) are exact leaves but do not propagate.

use super::tree::{Growth, Proof, Tree};
use crate::shogi::{Color, GameStatus};

/// The proof of a finished game's position for its side to move `side`.
pub fn proof_of(status: GameStatus, side: Color) -> Proof {
    match status {
        GameStatus::Win { winner, .. } if winner == side => Proof::Win,
        GameStatus::Win { .. } => Proof::Loss,
        GameStatus::Draw(_) => Proof::Draw,
        GameStatus::Ongoing => Proof::Unknown,
    }
}

/// The value of a proof for the side to move (`None` while unknown).
pub fn proven_value(proof: Proof) -> Option<f64> {
    match proof {
        Proof::Win => Some(1.0),
        Proof::Loss => Some(0.0),
        Proof::Draw => Some(0.5),
        Proof::Unknown => None,
    }
}

/// Re-derives node `index`'s proof from its children's; whether it became proven.
pub fn update_proof(tree: &mut Tree, index: usize) -> bool {
    let node = &tree[index];
    if node.proof != Proof::Unknown || node.growth != Growth::Expanded {
        return false;
    }
    let mut shortest_win = None::<u16>;
    let mut longest_loss = 0u16;
    let mut all_lose = true;
    for child in node.children() {
        let c = &tree[child];
        match c.proof {
            Proof::Loss => {
                shortest_win = Some(shortest_win.map_or(c.proof_plies, |s| s.min(c.proof_plies)))
            }
            Proof::Win => longest_loss = longest_loss.max(c.proof_plies),
            Proof::Unknown | Proof::Draw => all_lose = false,
        }
    }
    let (proof, plies) = match shortest_win {
        Some(plies) => (Proof::Win, plies),
        None if all_lose => (Proof::Loss, longest_loss),
        None => return false,
    };
    let node = &mut tree[index];
    node.proof = proof;
    node.proof_plies = plies.saturating_add(1);
    true
}

#[cfg(test)]
mod tests {
    use super::super::tree::ROOT;
    use super::*;
    use crate::shogi::Move;

    #[test]
    fn a_losing_child_proves_a_win_and_all_winning_children_a_loss() {
        let mut tree = Tree::new(1);
        tree.reset();
        assert!(tree.expand(ROOT, &[Move::NULL; 3], &[0.3; 3]));
        assert!(!update_proof(&mut tree, ROOT));
        for (child, plies) in [(1, 4), (2, 2), (3, 6)] {
            tree[child].proof = Proof::Win;
            tree[child].proof_plies = plies;
        }
        assert!(update_proof(&mut tree, ROOT));
        assert_eq!((tree[ROOT].proof, tree[ROOT].proof_plies), (Proof::Loss, 7));
        tree[ROOT].proof = Proof::Unknown;
        tree[3].proof = Proof::Loss;
        tree[3].proof_plies = 0;
        assert!(update_proof(&mut tree, ROOT));
        assert_eq!((tree[ROOT].proof, tree[ROOT].proof_plies), (Proof::Win, 1));
    }
}
