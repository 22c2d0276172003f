//! The MCTS-solver: results known for certain. A position where the game is over (as `Game`
//! judges it: mate, no legal move, 千日手 and its perpetual-check exception, the ply limit) is
//! proven at its first visit; a mate in one is found when a node is expanded; and proofs
//! propagate up: a node wins if one move leads to a lost position, loses if every move leads to
//! a won one. Draws (the ply limit) are exact leaves but do not propagate. A node the search
//! keeps returning to may also be searched for a mate in three (`prove_mate_in_three`), or for
//! a longer mate by checks (`prove_mate_by_checks`).

use super::params::MctsParams;
use super::tree::{Growth, Proof, Tree};
use crate::search::mate::{MateMemory, mate_within};
use crate::shogi::{Color, Game, GameStatus, Move};

/// The mate search by checks at a tree node: when, how deep, how many nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MateProbe {
    /// A node is searched when its visits reach this (0: never).
    pub visits: u32,
    /// The longest mate looked for, in plies.
    pub plies: u32,
    /// The solver's nodes at one tree node.
    pub nodes: u64,
}

/// The mate search's table: 2^16 entries, 1 MiB a thread.
const MATE_TABLE_BITS: u32 = 16;

impl MateProbe {
    pub fn from_params(params: &MctsParams) -> MateProbe {
        MateProbe {
            visits: params.mcts_mate_visits as u32,
            plies: params.mcts_mate_plies as u32,
            nodes: params.mcts_mate_nodes as u64,
        }
    }

    /// A thread's memory for the search, `None` when it is off.
    pub fn memory(&self) -> Option<MateMemory> {
        (self.visits > 0).then(|| MateMemory::new(MATE_TABLE_BITS))
    }
}

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

/// Looks for a mate in three from expanded node `index`, whose position is `game`'s: a child's
/// move that checks, after which every evasion allows a mate in one. If one is found, that
/// child is proven lost for its side to move (in two plies) and the node won (in three);
/// whether one was. `probe` is scratch. Lines that would end in a 千日手 (a fourth occurrence
/// on the way) or pass the ply limit are not counted as mates: the rules' `Game` judges them.
pub fn prove_mate_in_three(tree: &mut Tree, index: usize, game: &Game, probe: &mut Game) -> bool {
    if game
        .max_plies()
        .is_some_and(|limit| game.plies() + 3 > limit as usize)
    {
        return false;
    }
    let mating = tree[index].children().find(|&child| {
        tree[child].proof == Proof::Unknown && mates_in_two_more(game, tree[child].mv, probe)
    });
    let Some(child) = mating else {
        return false;
    };
    prove_child_lost(tree, index, child, 2)
}

/// Marks `child` of node `index` lost for its side to move in `plies`, as a mate search found
/// it, and re-derives the node's proof (now a win); whether the node became proven.
fn prove_child_lost(tree: &mut Tree, index: usize, child: usize, plies: u16) -> bool {
    let node = &mut tree[child];
    node.proof = Proof::Loss;
    node.proof_plies = plies;
    if node.growth == Growth::Fresh {
        node.growth = Growth::Leaf;
    }
    update_proof(tree, index)
}

/// Looks for a mate by checks from expanded node `index`, whose position is `game`'s, within
/// the probe's plies and nodes (and the game's ply limit). If one is found, the child of its
/// first move is proven lost for its side to move and the node won; whether it was. Lines
/// through a position of the game before (or earlier on the line) are not counted, so no mate
/// found runs into 千日手.
pub fn prove_mate_by_checks(
    tree: &mut Tree,
    index: usize,
    game: &Game,
    memory: &mut MateMemory,
    probe: &MateProbe,
) -> bool {
    let plies = match game.max_plies() {
        Some(limit) => probe
            .plies
            .min((limit as usize).saturating_sub(game.plies()) as u32),
        None => probe.plies,
    };
    if plies < 3 {
        return false;
    }
    let history = game.history();
    let earlier = history[..history.len() - 1].iter().map(|entry| entry.key);
    let Some(line) = mate_within(game.position(), earlier, memory, plies, probe.nodes) else {
        return false;
    };
    let Some(child) = tree[index].children().find(|&c| tree[c].mv == line[0]) else {
        return false;
    };
    if tree[child].proof != Proof::Unknown {
        return false;
    }
    prove_child_lost(tree, index, child, (line.len() - 1) as u16)
}

/// Whether the legal move `mv` checks, and every reply to it leaves a mate in one.
fn mates_in_two_more(game: &Game, mv: Move, probe: &mut Game) -> bool {
    let pos = game.position();
    if !pos.gives_check(mv) {
        return false;
    }
    let checked = pos.after(mv);
    if game.repetition_verdict_after(&checked).is_some() {
        return false;
    }
    probe.clone_from(game);
    probe.play_legal(mv);
    let evasions = checked.legal_moves();
    // No evasion is a mate in one, which the node's expansion has already found.
    if evasions.is_empty() {
        return false;
    }
    let mut reply = checked;
    evasions.iter().all(|&evasion| {
        let undo = reply.make_move(evasion);
        let mated =
            probe.repetition_verdict_after(&reply).is_none() && reply.mate_in_one().is_some();
        reply.unmake_move(evasion, undo);
        mated
    })
}

#[cfg(test)]
mod tests {
    use super::super::tree::ROOT;
    use super::*;
    use crate::shogi::Position;

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

    /// The checking first moves of a mate in three, by brute force: every legal move, judged
    /// by the position after it (in check, not mated), every reply, and every answer to it.
    fn checking_mates_in_three(pos: &Position) -> Vec<Move> {
        let mated_in_one =
            |p: &Position| p.legal_moves().iter().any(|&m| p.after(m).is_checkmate());
        pos.legal_moves()
            .iter()
            .copied()
            .filter(|&m| {
                let checked = pos.after(m);
                let replies = checked.legal_moves();
                checked.in_check()
                    && !replies.is_empty()
                    && replies.iter().all(|&r| mated_in_one(&checked.after(r)))
            })
            .collect()
    }

    /// A tree whose root (the position of `game`) has every legal move as a child.
    fn expanded_root(game: &Game) -> Tree {
        let mut tree = Tree::new(1);
        tree.reset();
        let moves = game.position().legal_moves();
        let priors = vec![1.0 / moves.len() as f32; moves.len()];
        assert!(tree.expand(ROOT, moves.as_slice(), &priors));
        tree
    }

    /// The root's one child proven lost (a probe proves exactly one).
    fn only_lost_child(tree: &Tree) -> usize {
        let proven: Vec<_> = tree[ROOT]
            .children()
            .filter(|&c| tree[c].proof == Proof::Loss)
            .collect();
        assert_eq!(proven.len(), 1);
        proven[0]
    }

    #[test]
    fn a_mate_in_three_proves_its_check_and_the_node() {
        // Random positions with drops, each compared with brute force.
        let mut found = 0;
        for pos in crate::shogi::testing::random_positions_with_drops(33, 3000) {
            if pos.clone().mate_in_one().is_some() {
                continue;
            }
            let expected = checking_mates_in_three(&pos);
            let game = Game::new(pos);
            let mut tree = expanded_root(&game);
            let mut probe = game.clone();
            let proved = prove_mate_in_three(&mut tree, ROOT, &game, &mut probe);
            assert_eq!(
                proved,
                !expected.is_empty(),
                "{}",
                game.position().to_sfen()
            );
            if proved {
                found += 1;
                assert_eq!((tree[ROOT].proof, tree[ROOT].proof_plies), (Proof::Win, 3));
                let child = &tree[only_lost_child(&tree)];
                assert!(expected.contains(&child.mv), "{}", child.mv);
                assert_eq!((child.proof_plies, child.growth), (2, Growth::Leaf));
            } else {
                assert_eq!(tree[ROOT].proof, Proof::Unknown);
            }
        }
        assert!(found >= 10, "only {found} positions with a mate in three");
    }

    /// The mate search by checks at a node, with one memory kept over every position, against
    /// a fresh solver for each (the memory must not change an answer), the brute force for
    /// mates in three, and the rules for the lines.
    #[test]
    fn a_mate_by_checks_proves_its_first_move_and_the_node() {
        let probe = MateProbe {
            visits: 1,
            plies: 5,
            nodes: u64::MAX,
        };
        let mut kept = probe.memory().expect("a memory");
        let (mut threes, mut fives) = (0, 0);
        for pos in crate::shogi::testing::random_positions_with_drops(34, 1500) {
            if pos.clone().mate_in_one().is_some() {
                continue;
            }
            let mut fresh = MateMemory::new(12);
            let line = mate_within(&pos, [], &mut fresh, 5, u64::MAX);
            let game = Game::new(pos.clone());
            let mut tree = expanded_root(&game);
            let proved = prove_mate_by_checks(&mut tree, ROOT, &game, &mut kept, &probe);
            assert_eq!(proved, line.is_some(), "{}", pos.to_sfen());
            let Some(line) = line else {
                assert!(
                    checking_mates_in_three(&pos).is_empty(),
                    "{}",
                    pos.to_sfen()
                );
                assert_eq!(tree[ROOT].proof, Proof::Unknown);
                continue;
            };
            let mut p = pos.clone();
            for (i, &mv) in line.iter().enumerate() {
                assert!(p.is_legal(mv), "{}: {mv}", pos.to_sfen());
                assert!(i % 2 == 1 || p.gives_check(mv), "{}: {mv}", pos.to_sfen());
                p.make_move(mv);
            }
            assert!(p.is_checkmate(), "{}", pos.to_sfen());
            let shortest_is_three = !checking_mates_in_three(&pos).is_empty();
            assert_eq!(line.len() == 3, shortest_is_three, "{}", pos.to_sfen());
            if shortest_is_three {
                threes += 1;
            } else {
                fives += 1;
            }
            let plies = line.len() as u16;
            assert_eq!(
                (tree[ROOT].proof, tree[ROOT].proof_plies),
                (Proof::Win, plies)
            );
            let child = &tree[only_lost_child(&tree)];
            assert_eq!((child.mv, child.proof_plies), (line[0], plies - 1));
        }
        assert!(
            threes >= 5 && fives >= 5,
            "{threes} mates in three, {fives} in five"
        );
    }

    #[test]
    fn no_mate_by_checks_through_a_position_of_the_game_before() {
        let probe = MateProbe {
            visits: 1,
            plies: 3,
            nodes: u64::MAX,
        };
        for pos in crate::shogi::testing::random_positions_with_drops(33, 3000) {
            let checks = checking_mates_in_three(&pos);
            if pos.clone().mate_in_one().is_some() || checks.len() != 1 {
                continue;
            }
            let mut memory = probe.memory().expect("a memory");
            let after = pos.after(checks[0]).key();
            assert!(mate_within(&pos, [], &mut memory, 3, u64::MAX).is_some());
            // The position after the only mating check stood on the board before (with the
            // same side to move): the line would repeat it, so it is not counted.
            assert_eq!(mate_within(&pos, [after], &mut memory, 3, u64::MAX), None);
            // Nor past the game's ply limit, nor beyond the node budget.
            let mut game = Game::new(pos);
            game.set_max_plies(Some(2));
            let mut tree = expanded_root(&game);
            assert!(!prove_mate_by_checks(
                &mut tree,
                ROOT,
                &game,
                &mut memory,
                &probe
            ));
            game.set_max_plies(Some(3));
            let few_nodes = MateProbe { nodes: 1, ..probe };
            let mut fresh = probe.memory().expect("a memory");
            assert!(!prove_mate_by_checks(
                &mut tree, ROOT, &game, &mut fresh, &few_nodes
            ));
            assert!(prove_mate_by_checks(
                &mut tree,
                ROOT,
                &game,
                &mut memory,
                &probe
            ));
            return;
        }
        panic!("no position with a single mate in three");
    }

    #[test]
    fn no_mate_in_three_past_the_ply_limit() {
        for pos in crate::shogi::testing::random_positions_with_drops(33, 3000) {
            if pos.clone().mate_in_one().is_some() || checking_mates_in_three(&pos).is_empty() {
                continue;
            }
            let mut game = Game::new(pos);
            let mut probe = game.clone();
            game.set_max_plies(Some(2));
            let mut tree = expanded_root(&game);
            assert!(!prove_mate_in_three(&mut tree, ROOT, &game, &mut probe));
            game.set_max_plies(Some(3));
            assert!(prove_mate_in_three(&mut tree, ROOT, &game, &mut probe));
            return;
        }
        panic!("no position with a mate in three");
    }
}
