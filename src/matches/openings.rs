//! Start positions for matches: the `position` syntax of USI (`startpos`, or an SFEN, then
//! optional `moves …`), an openings file of such lines, and the built-in set.

use std::path::Path;

use crate::records::usi;
use crate::shogi::{Game, Move, Position};

/// A start position and the moves played from it before the engines take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub start: Position,
    pub moves: Vec<Move>,
}

pub use crate::records::usi::PositionError;

impl Opening {
    /// Parses `[position] (startpos | [sfen] BOARD SIDE [HANDS [NUMBER]]) [moves M…]`, with
    /// moves in USI notation (course notation is accepted too).
    pub fn parse(text: &str) -> Result<Opening, PositionError> {
        let game = usi::parse_position(text)?;
        Ok(Opening {
            start: game.start_position().clone(),
            moves: game.moves().to_vec(),
        })
    }

    /// The game after the opening moves.
    pub fn game(&self) -> Game {
        let mut game = Game::new(self.start.clone());
        for &mv in &self.moves {
            game.play(mv)
                .expect("opening moves were checked when parsed");
        }
        game
    }

    /// The USI `position` command for this opening followed by `extra` moves.
    pub fn position_command(&self, extra: &[Move]) -> String {
        usi::position_command(&self.start, self.moves.iter().chain(extra))
    }
}

/// Reads an openings file: one position per line; `#` starts a comment, blank lines are
/// skipped. Errors name the line.
pub fn parse_openings(text: &str) -> Result<Vec<Opening>, String> {
    let mut openings = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let opening = Opening::parse(line).map_err(|e| format!("line {}: {e}", number + 1))?;
        if opening.game().status().is_over() {
            return Err(format!("line {}: {}", number + 1, PositionError::GameOver));
        }
        openings.push(opening);
    }
    if openings.is_empty() {
        return Err("no positions in the openings file".to_string());
    }
    Ok(openings)
}

pub fn load_openings(path: &Path) -> Result<Vec<Opening>, String> {
    let text = crate::fileio::read_regular_to_string(path)
        .map_err(|e| format!("cannot read openings file {e}"))?;
    parse_openings(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The built-in openings (see the comment at the top of the file for how they were chosen).
pub fn default_openings() -> Vec<Opening> {
    parse_openings(include_str!("default_openings.txt")).expect("built-in openings are valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_lines_in_all_spellings() {
        let start = Opening::parse("startpos").unwrap();
        assert_eq!(start.start, Position::startpos());
        assert!(start.moves.is_empty());
        let a = Opening::parse("position startpos moves 2e1d 4a5b").unwrap();
        let b = Opening::parse("sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 2e1d 4a5b").unwrap();
        let c = Opening::parse("rbsgk/4p/5/P4/KGSBR b - moves 2e1d 4a5b").unwrap();
        let d = Opening::parse("startpos moves 1D2E 5B4A").unwrap(); // course notation
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a, d);
        assert_eq!(a.moves.len(), 2);
        assert_eq!(
            a.position_command(&[]),
            "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 2e1d 4a5b"
        );
        assert_eq!(a.game().plies(), 2);
    }

    #[test]
    fn bad_position_lines_name_the_problem() {
        assert_eq!(Opening::parse("  "), Err(PositionError::Empty));
        assert!(matches!(
            Opening::parse("rbsgk/4p/5/P4 b -"),
            Err(PositionError::Sfen(_))
        ));
        let err = Opening::parse("startpos moves 2e1d 2e1d").unwrap_err();
        assert!(matches!(err, PositionError::Move { index: 1, .. }), "{err}");
        assert!(err.to_string().starts_with("move 2:"), "{err}");
        assert_eq!(
            parse_openings("startpos # the initial position\n")
                .unwrap()
                .len(),
            1
        );
        let err = parse_openings("# c\n\nstartpos\nstartpos moves zz\n").unwrap_err();
        assert!(err.starts_with("line 4:"), "{err}");
        assert!(parse_openings("# only a comment\n").is_err());
    }

    #[test]
    fn built_in_openings_are_distinct_and_playable() {
        let openings = default_openings();
        assert!(openings.len() >= 10);
        let mut keys: Vec<u64> = openings.iter().map(|o| o.game().position().key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), openings.len());
    }
}
