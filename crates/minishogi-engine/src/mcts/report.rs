//! What a search says: the root's moves ranked (proven wins first, then by visits, proven
//! losses last), the principal variation by most visits, `info` lines (MultiPV from the
//! root's children; the score from the root's mean value on the project's centipawn scale, or
//! a mate when proven) and the result.

use std::cmp::Reverse;
use std::time::Duration;

use super::tree::{Growth, Node, Proof, ROOT, Tree};
use crate::eval::cp_from_probability;
use crate::search::score::{mated_in, to_public};
use crate::search::{Score, ScoreBound, SearchInfo, SearchResult};
use crate::shogi::Move;

/// How good a child is for the side choosing it, for sorting (greater is better): a move to a
/// proven-lost position (shortest first), then by visits and mean, then drawn and unknown
/// alike, proven-won positions (for the opponent) last, the longest resistance first. Unvisited
/// moves follow their priors.
fn rank(node: &Node) -> (i8, Reverse<u16>, u16, u32, i64, i64) {
    let mean = (node.mean().unwrap_or(0.0) * 1e9) as i64;
    let prior = (f64::from(node.prior) * 1e9) as i64;
    match node.proof {
        Proof::Loss => (1, Reverse(node.proof_plies), 0, node.visits, mean, prior),
        Proof::Win => (-1, Reverse(0), node.proof_plies, node.visits, mean, prior),
        Proof::Unknown | Proof::Draw => (0, Reverse(0), 0, node.visits, mean, prior),
    }
}

/// The children of `index`, best first (stable: ties keep the generation order).
pub fn ranked_children(tree: &Tree, index: usize) -> Vec<usize> {
    let mut children: Vec<usize> = tree[index].children().collect();
    children.sort_by_key(|&c| Reverse(rank(&tree[c])));
    children
}

/// The line from child `first` down, following each node's best child while it has been
/// visited.
pub fn pv_from(tree: &Tree, first: usize) -> Vec<Move> {
    let mut pv = vec![tree[first].mv];
    let mut node = first;
    while tree[node].growth == Growth::Expanded {
        let Some(&best) = ranked_children(tree, node).first() else {
            break;
        };
        if tree[best].visits == 0 && tree[best].proof == Proof::Unknown {
            break;
        }
        pv.push(tree[best].mv);
        node = best;
    }
    pv
}

/// The score of the move to child `index`, for the side choosing it.
fn child_score(node: &Node) -> Score {
    match node.proof {
        Proof::Loss => Score::Mate(i32::from(node.proof_plies) + 1),
        Proof::Win => Score::Mate(-(i32::from(node.proof_plies) + 1)),
        Proof::Draw => Score::Cp(0),
        Proof::Unknown => Score::Cp(cp_from_probability(node.mean().unwrap_or(0.5) as f32)),
    }
}

/// The root's score for its side to move: a mate when proven, else its mean value.
fn root_score(tree: &Tree) -> Score {
    let root = &tree[ROOT];
    match root.proof {
        Proof::Win => Score::Mate(i32::from(root.proof_plies)),
        Proof::Loss => Score::Mate(-i32::from(root.proof_plies)),
        Proof::Draw => Score::Cp(0),
        Proof::Unknown => Score::Cp(cp_from_probability(
            root.mean().map_or(0.5, |mean| 1.0 - mean) as f32,
        )),
    }
}

/// Counts for the `info` lines.
pub struct Progress {
    pub seldepth: u32,
    pub elapsed: Duration,
    /// The root's visits kept from the previous search (tree reuse): not this search's.
    pub reused_visits: u32,
}

/// `multipv` lines, the first the best move's (with the root's score).
pub fn info_lines(tree: &Tree, multipv: usize, progress: &Progress) -> Vec<SearchInfo> {
    let nodes = u64::from(tree[ROOT].visits.saturating_sub(progress.reused_visits));
    let time_ms = progress.elapsed.as_millis() as u64;
    let nps = nodes * 1000 / time_ms.max(1);
    ranked_children(tree, ROOT)
        .into_iter()
        .take(multipv.max(1))
        .enumerate()
        .map(|(i, child)| {
            let pv = pv_from(tree, child);
            SearchInfo {
                depth: pv.len() as u32,
                seldepth: progress.seldepth.max(pv.len() as u32),
                multipv: i as u32 + 1,
                score: if i == 0 {
                    root_score(tree)
                } else {
                    child_score(&tree[child])
                },
                nodes,
                nps,
                time_ms,
                hashfull: tree.permille_used(),
                bound: ScoreBound::Exact,
                pv,
            }
        })
        .collect()
}

/// The search's answer: the best-ranked root move and the reply expected (`nodes`: the
/// root's visits less the `reused_visits` it started with).
pub fn result(tree: &Tree, reused_visits: u32) -> SearchResult {
    let nodes = u64::from(tree[ROOT].visits.saturating_sub(reused_visits));
    let Some(&best) = ranked_children(tree, ROOT).first() else {
        return SearchResult {
            best: None,
            ponder: None,
            score: to_public(mated_in(0)),
            depth: 0,
            nodes,
        };
    };
    let pv = pv_from(tree, best);
    SearchResult {
        best: Some(pv[0]),
        ponder: pv.get(1).copied(),
        score: root_score(tree),
        depth: pv.len() as u32,
        nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Position;

    #[test]
    fn proven_wins_rank_first_then_visits_and_proven_losses_last() {
        let pos = Position::startpos();
        let moves = pos.legal_moves();
        let moves = &moves.as_slice()[..4];
        let mut tree = Tree::new(1);
        tree.reset();
        assert!(tree.expand(ROOT, moves, &[0.25; 4]));
        // 1: many visits; 2: proven lost for us (the opponent wins in 2); 3: a win in 3;
        // 4: few visits.
        tree[1].visits = 50;
        tree[1].value_sum = 30.0;
        tree[2].visits = 60;
        tree[2].proof = Proof::Win;
        tree[2].proof_plies = 2;
        tree[3].visits = 5;
        tree[3].proof = Proof::Loss;
        tree[3].proof_plies = 2;
        tree[4].visits = 10;
        tree[4].value_sum = 9.0;
        tree[ROOT].visits = 126;
        assert_eq!(ranked_children(&tree, ROOT), vec![3, 1, 4, 2]);
        let answer = result(&tree, 0);
        assert_eq!(answer.best, Some(moves[2]));
        assert_eq!(answer.ponder, None);
        let lines = info_lines(
            &tree,
            4,
            &Progress {
                seldepth: 3,
                elapsed: Duration::from_millis(10),
                reused_visits: 26,
            },
        );
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[1].score, Score::Cp(cp_from_probability(0.6)));
        assert_eq!(lines[3].score, Score::Mate(-3));
        assert_eq!(lines[0].nodes, 100, "this search's visits");
    }
}
