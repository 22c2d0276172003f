//! What engine to start and how: the command line (split like a shell word list), the options
//! set after the handshake, the limits added to every `go`, its own time control.

use super::error::EngineError;
use super::time::TimeControl;

/// How an engine is started and configured.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EngineSpec {
    /// Name used in progress lines and records.
    pub name: String,
    /// Command line, split like a shell word list (quotes and backslashes honoured, no other
    /// shell syntax). A first word `self` stands for this program.
    pub command: String,
    /// `setoption name N value V` sent after the handshake, in order.
    pub options: Vec<(String, String)>,
    /// Extra limits appended to every `go` (e.g. `depth 4`), besides the time control.
    pub go_limits: Vec<(String, u64)>,
    /// A fixed time a move goes out as `go movetime N` rather than USI's `go btime 0 wtime 0
    /// byoyomi N`: for engines (Fairy-Stockfish) that budget byoyomi like a clock and think
    /// a fraction of it.
    #[serde(default)]
    pub movetime_go: bool,
    /// Each side's clock sent in the other's field (`btime` as `wtime`): for engines
    /// (Fairy-Stockfish 11.1) that read USI's sente clock as gote's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub swap_clocks: bool,
    /// The engine's own time control, where it differs from the match's (time odds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

/// Splits a command line into words: whitespace separates, single quotes keep everything
/// literally, double quotes keep whitespace, a backslash escapes the next character.
pub fn split_command(line: &str) -> Result<Vec<String>, EngineError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => {
                            return Err(EngineError::BadCommand(format!(
                                "unterminated ' in '{line}'"
                            )));
                        }
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => word.push(c),
                            None => break,
                        },
                        Some(c) => word.push(c),
                        None => {
                            return Err(EngineError::BadCommand(format!(
                                "unterminated \" in '{line}'"
                            )));
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(EngineError::BadCommand("empty command".to_string()));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(split_command("engine usi").unwrap(), ["engine", "usi"]);
        assert_eq!(
            split_command("  'my engine'  --opt \"a b\" c\\ d ").unwrap(),
            ["my engine", "--opt", "a b", "c d"]
        );
        assert_eq!(split_command("x ''").unwrap(), ["x", ""]);
        assert!(matches!(
            split_command("   "),
            Err(EngineError::BadCommand(_))
        ));
        assert!(matches!(
            split_command("a 'b"),
            Err(EngineError::BadCommand(_))
        ));
    }
}
