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
}
