//! USI position lines as records: `position sfen BOARD SIDE HANDS NUMBER moves M…` (written),
//! and any spelling USI and the openings files use (read): `[position] (startpos | [sfen]
//! BOARD SIDE [HANDS [NUMBER]]) [moves M…]`, moves in USI or course notation.

use std::fmt;

use super::record::{Reader, Record, RecordError};
use minishogi_rules::{Game, Move, MoveError, Position, SfenError};

/// Why a position line was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionError {
    Empty,
    Sfen(SfenError),
    /// Move number `index` (0-based) of the `moves` list.
    Move {
        index: usize,
        error: MoveError,
    },
    /// The moves end the game, so no engine would get to move.
    GameOver,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Empty => write!(f, "no position given"),
            PositionError::Sfen(e) => write!(f, "{e}"),
            PositionError::Move { index, error } => write!(f, "move {}: {error}", index + 1),
            PositionError::GameOver => write!(f, "the game is already over after these moves"),
        }
    }
}

impl std::error::Error for PositionError {}

/// Parses a position line into the game it describes; every move is checked by the rules.
pub fn parse_position(text: &str) -> Result<Game, PositionError> {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    if words.first() == Some(&"position") {
        words.remove(0);
    }
    let moves_at = words.iter().position(|w| *w == "moves");
    let (head, tail) = match moves_at {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (&words[..], &[][..]),
    };
    let start = match head {
        [] => return Err(PositionError::Empty),
        ["startpos"] => Position::startpos(),
        ["sfen", sfen @ ..] | sfen => {
            Position::from_sfen(&sfen.join(" ")).map_err(PositionError::Sfen)?
        }
    };
    let mut game = Game::new(start);
    game.play_texts(tail)
        .map_err(|(index, error)| PositionError::Move { index, error })?;
    Ok(game)
}

/// The USI `position` command for `moves` from `start`.
pub fn position_command<'a>(start: &Position, moves: impl IntoIterator<Item = &'a Move>) -> String {
    let mut s = format!("position sfen {}", start.to_sfen());
    let mut moves = moves.into_iter().peekable();
    if moves.peek().is_some() {
        s.push_str(" moves");
        for mv in moves {
            s.push(' ');
            s.push_str(&mv.to_string());
        }
    }
    s
}

/// The record as one `position sfen … moves …` line.
pub fn write(record: &Record) -> String {
    format!("{}\n", position_command(&record.start, &record.moves))
}

/// Reads a file holding one position line (blank lines and `#` comments aside). The ending is
/// the rules' verdict on the final position, if it is one.
pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut found: Option<(usize, &str)> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some((first, _)) = found {
            return Err(RecordError::new(
                index + 1,
                format!("a second position line (the first is line {first}); one game a file"),
            ));
        }
        found = Some((index + 1, line));
    }
    let (line, text) = found.ok_or_else(|| RecordError::new(0, "no position line"))?;
    let game = parse_position(text).map_err(|e| RecordError::new(line, e.to_string()))?;
    let mut reader = Reader::new(game.start_position().clone());
    reader.game = game;
    reader.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The spellings of position lines are tested with `matches::openings`, which reads them.

    #[test]
    fn written_lines_name_the_sfen_always() {
        assert_eq!(
            position_command(&Position::startpos(), &[]),
            "position sfen rbsgk/4p/5/P4/KGSBR b - 1"
        );
        let record = read("startpos moves 2e1d").unwrap();
        assert_eq!(
            write(&record),
            "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 2e1d\n"
        );
    }

    #[test]
    fn files_hold_one_line_and_errors_name_it() {
        let record = read("# a game\n\nstartpos moves 2e1d\n").unwrap();
        assert_eq!(record.moves.len(), 1);
        assert_eq!(record.ending, None);
        let e = read("startpos\nstartpos\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = read("\n# c\nstartpos moves 2e1d 2e1d\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.starts_with("move 2:"), "{e}");
        assert!(read("# nothing\n").is_err());
    }
}
