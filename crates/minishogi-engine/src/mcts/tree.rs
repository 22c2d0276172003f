//! The search tree as a pool of nodes: allocated once at the size `USI_Hash` allows, reused
//! by every search (emptied, never freed), and never grown past its capacity. A node is one
//! position reached by one path from the root; its children lie next to each other in the
//! pool, so a node names them by a first index and a count.
//!
//! A tree, not a graph: repetitions (千日手) depend on the path, and in a tree every node has
//! exactly one, so the rules' verdict at a node is exact.

use crate::shogi::Move;

/// What is known for certain about a node's position, from the view of its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    Unknown,
    /// The side to move wins (with best play; `plies` to the end of the game).
    Win,
    /// The side to move loses.
    Loss,
    /// The game ends drawn here (the ply limit).
    Draw,
}

/// How far a node has grown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Not visited yet: its status is not known.
    Fresh,
    /// Visited, its children in the pool.
    Expanded,
    /// Visited but left without children: the game is over here, or the pool was full.
    Leaf,
}

/// One node. `value_sum` is from the view of the side that played `mv` (the parent's side to
/// move), so that a parent picks the child of the highest mean.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub mv: Move,
    pub growth: Growth,
    pub proof: Proof,
    /// Plies to the end of the game when proven (shortest win found, longest loss).
    pub proof_plies: u16,
    pub child_count: u16,
    pub first_child: u32,
    pub prior: f32,
    pub visits: u32,
    /// Simulations under way through this node (other threads): counted as visits lost, so
    /// that threads spread over the tree.
    pub virtual_loss: u32,
    pub value_sum: f64,
}

impl Node {
    pub fn new(mv: Move, prior: f32) -> Node {
        Node {
            mv,
            growth: Growth::Fresh,
            proof: Proof::Unknown,
            proof_plies: 0,
            child_count: 0,
            first_child: 0,
            prior,
            visits: 0,
            virtual_loss: 0,
            value_sum: 0.0,
        }
    }

    /// The mean value for the side that played `mv`, in [0, 1]; `None` before any visit.
    pub fn mean(&self) -> Option<f64> {
        (self.visits > 0).then(|| self.value_sum / f64::from(self.visits))
    }

    /// The children's index range in the pool.
    pub fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + self.child_count as usize
    }
}

/// The root's index: the first node of the pool.
pub const ROOT: usize = 0;

/// The node pool.
pub struct Tree {
    nodes: Vec<Node>,
    capacity: usize,
    /// `USI_Hash` as asked (the pool may hold less when memory was short).
    requested_mb: usize,
}

impl Tree {
    /// The number of nodes `mb` MiB hold (at least a root and a full set of its children).
    pub fn capacity_for(mb: usize) -> usize {
        (mb.max(1) << 20) / std::mem::size_of::<Node>()
    }

    /// An empty pool of `mb` MiB, or of the largest halving of it that the system can give
    /// (see `memory::large_buffer_limit`): [`bytes`](Tree::bytes) tells. The memory is reserved
    /// now (the system maps it as it is first written).
    pub fn new(mb: usize) -> Tree {
        let limit_mb =
            crate::memory::large_buffer_limit().map_or(usize::MAX, |b| (b >> 20) as usize);
        let mut size_mb = mb.max(1);
        while size_mb > limit_mb && size_mb > 1 {
            size_mb /= 2;
        }
        loop {
            let capacity = Tree::capacity_for(size_mb);
            let mut nodes = Vec::new();
            if nodes.try_reserve_exact(capacity).is_ok() {
                return Tree {
                    nodes,
                    capacity,
                    requested_mb: mb,
                };
            }
            if size_mb == 1 {
                // Not even 1 MiB: a pool of the root alone.
                return Tree {
                    nodes: Vec::with_capacity(1),
                    capacity: 1,
                    requested_mb: mb,
                };
            }
            size_mb /= 2;
        }
    }

    /// A pool of no nodes, holding no memory (while the tree is lent to a search).
    pub fn none() -> Tree {
        Tree {
            nodes: Vec::new(),
            capacity: 0,
            requested_mb: 0,
        }
    }

    /// Makes the pool hold `mb` MiB, keeping it when the size is unchanged.
    pub fn resize(&mut self, mb: usize) {
        if mb != self.requested_mb {
            *self = Tree::new(mb);
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Nodes in use.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Bytes the pool holds (its reservation, not its use).
    pub fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
    }

    /// Empties the pool and puts a fresh root in it.
    pub fn reset(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node::new(Move::NULL, 1.0));
    }

    /// Permille of the pool in use.
    pub fn permille_used(&self) -> u32 {
        (self.nodes.len() * 1000 / self.capacity.max(1)) as u32
    }

    /// Gives node `parent` the children `moves` with their `priors`; `false` (and nothing
    /// changed) when the pool has no room for them all.
    pub fn expand(&mut self, parent: usize, moves: &[Move], priors: &[f32]) -> bool {
        let first = self.nodes.len();
        if first + moves.len() > self.capacity || moves.len() > usize::from(u16::MAX) {
            return false;
        }
        self.nodes.extend(
            moves
                .iter()
                .zip(priors)
                .map(|(&mv, &prior)| Node::new(mv, prior)),
        );
        let node = &mut self.nodes[parent];
        node.first_child = first as u32;
        node.child_count = moves.len() as u16;
        node.growth = Growth::Expanded;
        true
    }
}

impl Tree {
    /// Keeps only the subtree under node `root` (expanded, not the root), which becomes the
    /// root: the next search starts with what this one learnt below the moves since played.
    /// At most `max_nodes` are kept: past that, only the nodes of the most visits keep their
    /// children (a node has at least its children's visits, so those form a tree from the
    /// root); the others keep their statistics and grow again when next visited. So does a
    /// node left without children when the pool was full. The next search then has room to
    /// grow, where a pool kept whole would start full.
    ///
    /// In place, in one pass: children always lie after their parent in the pool, so the
    /// kept nodes, moved to the front in their order, only ever move down, and a node's
    /// children stay next to each other. The marks and their running counts take about 1/170
    /// of the pool's memory for the time of the call.
    pub fn keep_subtree(&mut self, root: usize, max_nodes: usize) {
        let len = self.nodes.len();
        let words = len.div_ceil(64);
        let mut kept = vec![0u64; words];
        let is_kept = |kept: &[u64], i: usize| kept[i / 64] >> (i % 64) & 1 == 1;
        let min_visits = self.visits_to_keep_children(root, max_nodes.max(1));
        kept[root / 64] |= 1 << (root % 64);
        for i in root..len {
            if !is_kept(&kept, i) {
                continue;
            }
            let node = &mut self.nodes[i];
            if node.growth == Growth::Leaf && node.proof == Proof::Unknown {
                // Left without children by a full pool: it may grow now.
                node.growth = Growth::Fresh;
            }
            if node.child_count == 0 {
                continue;
            }
            if node.visits < min_visits {
                node.child_count = 0;
                node.first_child = 0;
                node.growth = if node.proof == Proof::Unknown {
                    Growth::Fresh
                } else {
                    Growth::Leaf
                };
                continue;
            }
            for child in self.nodes[i].children() {
                kept[child / 64] |= 1 << (child % 64);
            }
        }
        // Kept nodes before each word: a node's new index is the kept nodes before it.
        let mut before = Vec::with_capacity(words);
        let mut count = 0u32;
        for word in &kept {
            before.push(count);
            count += word.count_ones();
        }
        let new_index = |i: usize| {
            let below = kept[i / 64] & ((1u64 << (i % 64)) - 1);
            (before[i / 64] + below.count_ones()) as usize
        };
        for i in root..len {
            if !is_kept(&kept, i) {
                continue;
            }
            let mut node = self.nodes[i];
            if node.child_count > 0 {
                node.first_child = new_index(node.first_child as usize) as u32;
            }
            self.nodes[new_index(i)] = node;
        }
        self.nodes.truncate(count as usize);
        let new_root = &mut self.nodes[ROOT];
        new_root.mv = Move::NULL;
        new_root.prior = 1.0;
    }

    /// The fewest visits a node of the subtree under `root` needs to keep its children so that
    /// at most `max_nodes` are kept (0: the whole subtree fits).
    fn visits_to_keep_children(&self, root: usize, max_nodes: usize) -> u32 {
        // The subtree lies at `root` and after it: when all of that fits, so does the subtree.
        if self.nodes.len() - root <= max_nodes {
            return 0;
        }
        // The expanded nodes of the subtree, with their visits and children.
        let mut expanded = Vec::new();
        let mut stack = vec![root];
        let mut total = 1;
        while let Some(i) = stack.pop() {
            let node = &self.nodes[i];
            if node.child_count > 0 {
                expanded.push((node.visits, node.child_count as usize));
                total += node.child_count as usize;
                stack.extend(node.children());
            }
        }
        if total <= max_nodes {
            return 0;
        }
        // Most visited first; a group of equal visits is kept whole or not at all.
        expanded.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        let mut kept = 1;
        let mut threshold = u32::MAX;
        let mut i = 0;
        while i < expanded.len() {
            let visits = expanded[i].0;
            let group: usize = expanded[i..]
                .iter()
                .take_while(|e| e.0 == visits)
                .map(|e| e.1)
                .sum();
            if kept + group > max_nodes {
                break;
            }
            kept += group;
            threshold = visits;
            i += expanded[i..].iter().take_while(|e| e.0 == visits).count();
        }
        threshold
    }
}

impl std::ops::Index<usize> for Tree {
    type Output = Node;
    fn index(&self, i: usize) -> &Node {
        &self.nodes[i]
    }
}

impl std::ops::IndexMut<usize> for Tree {
    fn index_mut(&mut self, i: usize) -> &mut Node {
        &mut self.nodes[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_never_grows_past_its_capacity() {
        let mut tree = Tree::new(1);
        let capacity = tree.capacity();
        assert!(capacity * std::mem::size_of::<Node>() <= 1 << 20);
        assert!(tree.bytes() <= 1 << 20);
        tree.reset();
        let moves = vec![Move::NULL; 1000];
        let priors = vec![0.001; 1000];
        let mut parent = ROOT;
        while tree.expand(parent, &moves, &priors) {
            parent = tree.len() - 1;
        }
        assert!(tree.len() <= capacity);
        assert!(tree.len() + 1000 > capacity, "stopped only when full");
        assert!(tree.bytes() <= 1 << 20, "never reallocated");
        assert_eq!(tree[parent].growth, Growth::Fresh);
        tree.reset();
        assert_eq!(tree.len(), 1);
    }

    #[test]
    fn a_kept_subtree_keeps_its_shape_and_statistics() {
        // Root with 3 children; child 2 and child 1 expanded (in that order), a grandchild of
        // child 2 expanded last: the subtree of child 2 is spread over the pool.
        let mut tree = Tree::new(1);
        tree.reset();
        let mv = |n: u16| Move::from_raw(n);
        assert!(tree.expand(ROOT, &[mv(1), mv(2), mv(3)], &[0.2, 0.5, 0.3]));
        assert!(tree.expand(2, &[mv(21), mv(22)], &[0.6, 0.4]));
        assert!(tree.expand(1, &[mv(11)], &[1.0]));
        assert!(tree.expand(5, &[mv(221), mv(222), mv(223)], &[0.1, 0.1, 0.8]));
        for i in 0..tree.len() {
            tree[i].visits = 100 + i as u32;
        }
        tree.keep_subtree(2, tree.capacity());
        assert_eq!(tree.len(), 1 + 2 + 3);
        assert_eq!(tree[ROOT].visits, 102);
        let children: Vec<_> = tree[ROOT].children().map(|c| tree[c].mv).collect();
        assert_eq!(children, [mv(21), mv(22)]);
        let second = tree[ROOT].children().nth(1).unwrap();
        assert_eq!(tree[second].visits, 105);
        let grandchildren: Vec<_> = tree[second].children().map(|c| tree[c].mv).collect();
        assert_eq!(grandchildren, [mv(221), mv(222), mv(223)]);
        assert_eq!(tree[tree[second].first_child as usize].visits, 107);
        assert!(tree.expand(ROOT + 1, &[mv(7)], &[1.0]), "room again");
    }

    #[test]
    fn a_kept_subtree_too_big_keeps_the_most_visited_branches() {
        // Root with 3 children, each expanded: child 1 (visits 50) with 4 children, child 2
        // (visits 30) with 3, child 3 (visits 10) with 2, one of which (visits 6) with 2 more.
        let mut tree = Tree::new(1);
        tree.reset();
        let mv = |n: u16| Move::from_raw(n);
        assert!(tree.expand(ROOT, &[mv(1), mv(2), mv(3)], &[0.5, 0.3, 0.2]));
        assert!(tree.expand(1, &[mv(11), mv(12), mv(13), mv(14)], &[0.25; 4]));
        assert!(tree.expand(2, &[mv(21), mv(22), mv(23)], &[0.3; 3]));
        assert!(tree.expand(3, &[mv(31), mv(32)], &[0.5; 2]));
        let deep = tree[3].first_child as usize;
        assert!(tree.expand(deep, &[mv(311), mv(312)], &[0.5; 2]));
        for (node, visits) in [(ROOT, 91), (1, 50), (2, 30), (3, 10), (deep, 6)] {
            tree[node].visits = visits;
        }
        tree[deep + 1].visits = 3;
        // A leaf left without children by a full pool.
        let full = tree[1].first_child as usize;
        tree[full].growth = Growth::Leaf;
        tree[full].visits = 2;
        // Room for 1 + 3 + 4 + 3 = 11 nodes: the root's, child 1's and child 2's children.
        tree.keep_subtree(ROOT, 12);
        assert_eq!(tree.len(), 11);
        assert_eq!(tree[ROOT].visits, 91);
        let children: Vec<_> = tree[ROOT].children().collect();
        assert_eq!(tree[children[0]].child_count, 4);
        assert_eq!(tree[children[1]].child_count, 3);
        // Child 3 keeps its statistics and grows again when next visited.
        let third = &tree[children[2]];
        assert_eq!(
            (third.mv, third.visits, third.child_count, third.growth),
            (mv(3), 10, 0, Growth::Fresh)
        );
        // The leaf of the full pool may grow again.
        let first_grandchild = tree[children[0]].first_child as usize;
        assert_eq!(tree[first_grandchild].growth, Growth::Fresh);
        assert_eq!(tree[first_grandchild].visits, 2);
        // A node proven keeps its proof when its children go.
        let mut tree2 = Tree::new(1);
        tree2.reset();
        assert!(tree2.expand(ROOT, &[mv(1), mv(2)], &[0.5; 2]));
        assert!(tree2.expand(1, &[mv(11)], &[1.0]));
        tree2[ROOT].visits = 5;
        tree2[1].visits = 1;
        tree2[1].proof = Proof::Win;
        tree2.keep_subtree(ROOT, 3);
        assert_eq!(tree2.len(), 3);
        assert_eq!(
            (tree2[1].growth, tree2[1].proof),
            (Growth::Leaf, Proof::Win)
        );
        // Everything fits: nothing is cut.
        let mut tree3 = Tree::new(1);
        tree3.reset();
        assert!(tree3.expand(ROOT, &[mv(1), mv(2)], &[0.5; 2]));
        assert!(tree3.expand(1, &[mv(11)], &[1.0]));
        tree3.keep_subtree(ROOT, 4);
        assert_eq!(tree3.len(), 4);
    }
}
