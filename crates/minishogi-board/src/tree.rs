//! The game as the page sees it: a tree of moves from a start position (every branch played
//! from an earlier position is kept as a variation), a cursor, and for each node the line
//! that runs through it. Every move is checked by the rules core (`shogi::Game`).

use crate::shogi::{Game, GameStatus, Move, Position};

/// The most moves a line may have (records included): bounds the memory a page can make the
/// server use.
pub const MAX_LINE_MOVES: usize = 2_000;

/// The most nodes the tree may hold, all variations together.
pub const MAX_NODES: usize = 20_000;

/// One position of the tree: the move that led to it from its parent.
#[derive(Clone, Debug)]
pub struct Node {
    pub parent: Option<usize>,
    pub mv: Option<Move>,
    /// Moves played from here, the first played first.
    pub children: Vec<usize>,
    /// The child the line continues with (the one last visited).
    pub chosen: Option<usize>,
    pub ply: usize,
}

#[derive(Clone, Debug)]
pub struct Tree {
    start: Position,
    nodes: Vec<Node>,
    cursor: usize,
    /// The game from the start to the cursor (history for repetition and the result).
    game: Game,
}

impl Tree {
    pub fn new(start: Position) -> Tree {
        Tree {
            game: Game::new(start.clone()),
            start,
            nodes: vec![Node {
                parent: None,
                mv: None,
                children: Vec::new(),
                chosen: None,
                ply: 0,
            }],
            cursor: 0,
        }
    }

    /// A tree holding one line: `moves` played from `start`, the cursor at its end.
    pub fn from_line(start: Position, moves: &[Move]) -> Result<Tree, String> {
        if moves.len() > MAX_LINE_MOVES {
            return Err(format!(
                "{} moves: more than the {MAX_LINE_MOVES} a game may have here",
                moves.len()
            ));
        }
        let mut tree = Tree::new(start);
        for (i, &mv) in moves.iter().enumerate() {
            tree.play(mv).map_err(|e| format!("move {}: {e}", i + 1))?;
        }
        Ok(tree)
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn node(&self, id: usize) -> Option<&Node> {
        self.nodes.get(id)
    }

    /// The game from the start to the cursor.
    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn position(&self) -> &Position {
        self.game.position()
    }

    pub fn status(&self) -> GameStatus {
        self.game.status()
    }

    /// Plays `mv` at the cursor: follows the child that has it, or adds a new one (a
    /// variation when the cursor had children already). The cursor moves to it.
    pub fn play(&mut self, mv: Move) -> Result<usize, String> {
        if let Some(&child) = self.nodes[self.cursor]
            .children
            .iter()
            .find(|&&c| self.nodes[c].mv == Some(mv))
        {
            self.goto(child)?;
            return Ok(child);
        }
        let ply = self.nodes[self.cursor].ply + 1;
        if ply > MAX_LINE_MOVES {
            return Err(format!("a line may have at most {MAX_LINE_MOVES} moves"));
        }
        if self.nodes.len() >= MAX_NODES {
            return Err(format!(
                "the game tree holds its limit of {MAX_NODES} moves"
            ));
        }
        self.game.play(mv).map_err(|e| e.to_string())?;
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent: Some(self.cursor),
            mv: Some(mv),
            children: Vec::new(),
            chosen: None,
            ply,
        });
        let parent = &mut self.nodes[self.cursor];
        parent.children.push(id);
        parent.chosen = Some(id);
        self.cursor = id;
        Ok(id)
    }

    /// The nodes from the start (0) to `id`.
    fn path_to(&self, id: usize) -> Vec<usize> {
        let mut path = vec![id];
        let mut at = id;
        while let Some(parent) = self.nodes[at].parent {
            path.push(parent);
            at = parent;
        }
        path.reverse();
        path
    }

    /// Moves the cursor to node `id`; the line now runs through it.
    pub fn goto(&mut self, id: usize) -> Result<(), String> {
        if id >= self.nodes.len() {
            return Err(format!("no move with node number {id}"));
        }
        let path = self.path_to(id);
        let mut game = Game::new(self.start.clone());
        for pair in path.windows(2) {
            let mv = self.nodes[pair[1]].mv.expect("only the root has no move");
            game.play(mv)
                .map_err(|e| format!("the tree holds an illegal move: {e}"))?;
            self.nodes[pair[0]].chosen = Some(pair[1]);
        }
        self.game = game;
        self.cursor = id;
        Ok(())
    }

    /// The nodes of the line through the cursor, after the start: up to the cursor, then on by
    /// each node's chosen child.
    pub fn line(&self) -> Vec<usize> {
        let mut line = self.path_to(self.cursor);
        let mut at = self.cursor;
        while let Some(next) = self.nodes[at].chosen {
            line.push(next);
            at = next;
        }
        line.remove(0);
        line
    }

    /// The moves of the line through the cursor.
    pub fn line_moves(&self) -> Vec<Move> {
        self.line()
            .into_iter()
            .map(|id| self.nodes[id].mv.expect("only the root has no move"))
            .collect()
    }

    /// The last node of the line through the cursor.
    pub fn line_end(&self) -> usize {
        self.line().last().copied().unwrap_or(0)
    }

    /// Whether the cursor is at the end of its line (where a game goes on).
    pub fn at_line_end(&self) -> bool {
        self.nodes[self.cursor].chosen.is_none()
    }

    /// Takes back the cursor's move: the node and everything after it go, and the cursor moves
    /// to its parent. `false` at the start.
    pub fn take_back(&mut self) -> bool {
        let Some(parent) = self.nodes[self.cursor].parent else {
            return false;
        };
        let removed = self.cursor;
        // Removing the node's subtree would renumber nodes; unlinking it is enough (it can no
        // longer be reached), and the ids the page holds stay valid.
        let siblings = &mut self.nodes[parent].children;
        siblings.retain(|&c| c != removed);
        self.nodes[parent].chosen = siblings.last().copied();
        let _ = self.goto(parent);
        // The line goes on by the remaining variation only if one was chosen before.
        self.nodes[parent].chosen = None;
        true
    }

    /// The moves played at the same point as node `id`, other than it.
    pub fn siblings(&self, id: usize) -> Vec<usize> {
        match self.nodes[id].parent {
            Some(parent) => self.nodes[parent]
                .children
                .iter()
                .copied()
                .filter(|&c| c != id)
                .collect(),
            None => Vec::new(),
        }
    }

    /// The position before node `id`'s move (for its notation).
    pub fn position_before(&self, id: usize) -> Position {
        let mut pos = self.start.clone();
        let path = self.path_to(id);
        for &node in path.iter().take(path.len() - 1).skip(1) {
            pos.make_move(self.nodes[node].mv.expect("only the root has no move"));
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(tree: &Tree, text: &str) -> Move {
        tree.position().parse_usi_move(text).unwrap()
    }

    fn play(tree: &mut Tree, text: &str) -> usize {
        let m = mv(tree, text);
        tree.play(m).unwrap()
    }

    #[test]
    fn a_move_from_an_earlier_position_is_a_variation_and_the_line_follows_the_cursor() {
        assert_eq!(
            Tree::new(Position::startpos()).position_before(0).to_sfen(),
            Position::startpos().to_sfen()
        );
        let mut tree = Tree::new(Position::startpos());
        let a = play(&mut tree, "2e3d");
        let b = play(&mut tree, "4a3b");
        play(&mut tree, "1e1d");
        assert_eq!(tree.line().len(), 3);
        tree.goto(a).unwrap();
        assert_eq!(tree.line().len(), 3, "going back keeps the line");
        assert!(!tree.at_line_end());
        let c = play(&mut tree, "2a2b");
        assert_eq!(tree.line(), vec![a, c]);
        assert_eq!(tree.siblings(c), vec![b]);
        tree.goto(b).unwrap();
        assert_eq!(tree.line().len(), 3, "the old line again");
        assert_eq!(tree.position().to_sfen(), {
            let mut p = Position::startpos();
            for m in ["2e3d", "4a3b"] {
                let m = p.parse_usi_move(m).unwrap();
                p.make_move(m);
            }
            p.to_sfen()
        });
        // Playing the move a child already has follows it.
        tree.goto(a).unwrap();
        assert_eq!(play(&mut tree, "4a3b"), b);
    }

    #[test]
    fn illegal_moves_and_unknown_nodes_leave_the_tree_unchanged() {
        let mut tree = Tree::new(Position::startpos());
        play(&mut tree, "2e3d");
        let before = tree.position().to_sfen();
        let bad = Move::board(
            crate::shogi::Square::new(1, 4),
            crate::shogi::Square::new(1, 0),
            false,
        );
        assert!(tree.play(bad).is_err());
        assert!(tree.goto(99).is_err());
        assert_eq!(tree.position().to_sfen(), before);
        assert_eq!(tree.line().len(), 1);
    }

    #[test]
    fn take_back_removes_the_move_and_what_followed() {
        let mut tree = Tree::new(Position::startpos());
        play(&mut tree, "2e3d");
        let b = play(&mut tree, "4a3b");
        play(&mut tree, "1e1d");
        tree.goto(b).unwrap();
        assert!(tree.take_back());
        assert_eq!(tree.line().len(), 1);
        assert!(tree.at_line_end());
        assert!(tree.take_back());
        assert!(!tree.take_back());
        assert_eq!(tree.position().to_sfen(), Position::startpos().to_sfen());
    }
}
