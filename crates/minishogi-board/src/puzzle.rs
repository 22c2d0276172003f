//! A puzzle as the board plays it: a position, the solution (the solver's moves and the
//! opponent's replies, ending with the solver's), and how far the person has come. The page
//! reads the puzzle file and passes one puzzle's fields (`PuzzleStart`); the rules here judge
//! the person's moves: the solution's move is right, and so is any move that mates at once
//! (the rules say whether the position after it is checkmate); anything else fails the puzzle.

use serde::{Deserialize, Serialize};

use crate::shogi::{Color, Move, Position};

/// The longest solution a puzzle may have, in plies: far beyond any puzzle's, and it bounds
/// what a page can make the core check.
pub const MAX_SOLUTION_PLIES: usize = 99;
/// The longest puzzle id, in characters.
pub const MAX_ID_CHARS: usize = 64;

/// What a page asks to start a puzzle with: one puzzle of the file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleStart {
    pub id: String,
    /// The position, the solver to move.
    pub sfen: String,
    /// The solution in USI: the solver's move, the opponent's reply, …, the solver's move.
    pub moves: Vec<String>,
}

/// Where a puzzle stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PuzzleStatus {
    Solving,
    Solved,
    Failed,
}

/// The hint for the solver's next move: where it starts, or the piece it drops.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Hint {
    /// The USI square of the piece to move (`2c`).
    Square(String),
    /// The SFEN letter of the piece to drop, upper case (`G`).
    Drop(char),
}

/// What the person's move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The solution's move; the opponent replies with `reply`.
    Right { reply: Move },
    /// The solution's last move, or any move that mates: solved.
    Solved,
    /// Anything else: the puzzle is failed.
    Wrong,
}

/// A puzzle under way or over.
#[derive(Clone, Debug)]
pub struct Puzzle {
    pub id: String,
    pub start: Position,
    pub solution: Vec<Move>,
    /// Plies of the solution played so far (the line from the start follows the solution up to
    /// here).
    pub played: usize,
    /// The tree's node where the solver is to move now (or was, when the puzzle ended).
    pub node: usize,
    pub status: PuzzleStatus,
    /// Whether the person asked for a hint for the move to play now.
    pub hint_shown: bool,
    /// Hints asked for in this puzzle.
    pub hints: u32,
    /// The move that failed the puzzle, if one did (none when the person gave up).
    pub wrong: Option<Move>,
}

impl Puzzle {
    /// Checks a puzzle as a page passes it: the position reads, the solution is legal move by
    /// move and ends with the solver's move (an odd number of plies).
    pub fn new(start: &PuzzleStart) -> Result<Puzzle, String> {
        let id = start.id.trim();
        if id.is_empty() || id.chars().count() > MAX_ID_CHARS || id.chars().any(char::is_control) {
            return Err(format!(
                "puzzle id {:?}: 1 to {MAX_ID_CHARS} printable characters",
                start.id
            ));
        }
        let position = Position::from_sfen(start.sfen.trim())
            .map_err(|e| format!("puzzle {id}: SFEN: {e}"))?;
        let plies = start.moves.len();
        if plies == 0 || plies.is_multiple_of(2) || plies > MAX_SOLUTION_PLIES {
            return Err(format!(
                "puzzle {id}: the solution has {plies} moves; it needs an odd number (the \
                 solver's first and last), at most {MAX_SOLUTION_PLIES}"
            ));
        }
        let mut pos = position.clone();
        let mut solution = Vec::with_capacity(plies);
        for (i, text) in start.moves.iter().enumerate() {
            let mv = pos
                .parse_usi_move(text.trim())
                .map_err(|e| format!("puzzle {id}: solution move {} ({text}): {e}", i + 1))?;
            pos.make_move(mv);
            solution.push(mv);
        }
        Ok(Puzzle {
            id: id.to_string(),
            start: position,
            solution,
            played: 0,
            node: 0,
            status: PuzzleStatus::Solving,
            hint_shown: false,
            hints: 0,
            wrong: None,
        })
    }

    /// The side that solves (to move at the start).
    pub fn solver(&self) -> Color {
        self.start.side_to_move()
    }

    pub fn solving(&self) -> bool {
        self.status == PuzzleStatus::Solving
    }

    /// The solver's moves in the solution, and how many of them have been played.
    pub fn solver_moves(&self) -> (usize, usize) {
        (self.solution.len().div_ceil(2), self.played.div_ceil(2))
    }

    /// Judges the solver's move `mv` in `pos`, the puzzle's position now.
    pub fn judge(&self, pos: &Position, mv: Move) -> Verdict {
        let Some(&expected) = self.solution.get(self.played) else {
            return Verdict::Wrong;
        };
        // A mate ends the game, whatever the solution goes on with.
        if pos.after(mv).is_checkmate() {
            return Verdict::Solved;
        }
        if mv != expected {
            return Verdict::Wrong;
        }
        match self.solution.get(self.played + 1) {
            Some(&reply) => Verdict::Right { reply },
            None => Verdict::Solved,
        }
    }

    /// The hint for the solver's next move, while solving.
    pub fn hint(&self) -> Option<Hint> {
        if !self.solving() {
            return None;
        }
        let mv = *self.solution.get(self.played)?;
        Some(match (mv.from(), mv.dropped()) {
            (Some(from), _) => Hint::Square(from.to_string()),
            (None, Some(kind)) => Hint::Drop(kind.usi_letter().to_ascii_uppercase()),
            (None, None) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(sfen: &str, moves: &[&str]) -> PuzzleStart {
        PuzzleStart {
            id: "t1".to_string(),
            sfen: sfen.to_string(),
            moves: moves.iter().map(|m| m.to_string()).collect(),
        }
    }

    /// Gote's king alone on 1a; sente's gold on 2c and one in hand: G*1b and G*2b both mate.
    const MATE_IN_ONE: &str = "4k/5/3G1/5/K4 b G 1";

    #[test]
    fn the_solution_and_any_mate_are_right_and_other_moves_wrong() {
        let puzzle = Puzzle::new(&start(MATE_IN_ONE, &["G*2b"])).unwrap();
        let pos = puzzle.start.clone();
        let mv = |text: &str| pos.parse_usi_move(text).unwrap();
        assert_eq!(puzzle.judge(&pos, mv("G*2b")), Verdict::Solved);
        assert!(pos.after(mv("G*1b")).is_checkmate());
        assert_eq!(puzzle.judge(&pos, mv("G*1b")), Verdict::Solved);
        assert_eq!(puzzle.judge(&pos, mv("2c2b")), Verdict::Wrong);
        assert_eq!(puzzle.solver(), Color::Sente);
        assert_eq!(puzzle.hint(), Some(Hint::Drop('G')));
    }

    #[test]
    fn bad_puzzles_are_refused_naming_what_is_wrong() {
        for (bad, says) in [
            (start("not a position", &["G*2b"]), "SFEN"),
            (start(MATE_IN_ONE, &[]), "odd number"),
            (start(MATE_IN_ONE, &["G*2b", "1a1b"]), "odd number"),
            (start(MATE_IN_ONE, &["5e5d", "1a2a", "zz"]), "move 3"),
            (start(MATE_IN_ONE, &["5e5d", "1a2a", "1a1b"]), "move 3"),
        ] {
            let error = Puzzle::new(&bad).unwrap_err();
            assert!(error.contains(says), "{error}");
        }
        let mut nameless = start(MATE_IN_ONE, &["G*2b"]);
        nameless.id = " ".to_string();
        assert!(Puzzle::new(&nameless).unwrap_err().contains("id"));
    }
}
