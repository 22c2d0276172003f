//! The puzzle file, `web/page/puzzles/minishogi-puzzles.json` (the format the board's puzzle
//! mode reads; docs/puzzles.md): `{"version": 1, "generated_by": …, "puzzles": [PUZZLE, …]}`,
//! written one puzzle a line.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::fileio;

/// The format's version.
pub const VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Mate,
    Advantage,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Puzzle {
    pub id: String,
    /// The position, the solver to move.
    pub sfen: String,
    /// The solution, USI: the solver's move, the reply, …, the solver's move.
    pub moves: Vec<String>,
    pub kind: Kind,
    /// Mate in this many of the solver's moves (mates only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mate: Option<u32>,
    /// Every solver move gives check (mates only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tsume: Option<bool>,
    pub themes: Vec<String>,
    /// 1 (easiest) to 5.
    pub difficulty: u8,
    pub source: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleFile {
    pub version: u32,
    pub generated_by: String,
    pub puzzles: Vec<Puzzle>,
}

impl PuzzleFile {
    /// The file's text: the header, then one puzzle a line (short lines, small diffs).
    pub fn to_text(&self) -> Result<String, String> {
        let mut text = format!(
            "{{\"version\": {}, \"generated_by\": {},\n \"puzzles\": [\n",
            self.version,
            serde_json::to_string(&self.generated_by).map_err(|e| e.to_string())?
        );
        for (i, puzzle) in self.puzzles.iter().enumerate() {
            let line = serde_json::to_string(puzzle).map_err(|e| e.to_string())?;
            let comma = if i + 1 < self.puzzles.len() { "," } else { "" };
            text.push_str(&format!("  {line}{comma}\n"));
        }
        text.push_str(" ]}\n");
        Ok(text)
    }

    pub fn from_text(text: &str) -> Result<PuzzleFile, String> {
        let file: PuzzleFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if file.version != VERSION {
            return Err(format!(
                "version {}: this program reads version {VERSION}",
                file.version
            ));
        }
        Ok(file)
    }

    pub fn read(path: &Path) -> Result<PuzzleFile, String> {
        let bytes = fileio::read_regular(path).map_err(|e| format!("cannot read {e}"))?;
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8", path.display()))?;
        PuzzleFile::from_text(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Writes the file atomically (a temporary file renamed over it).
    pub fn write(&self, path: &Path) -> Result<(), String> {
        fileio::create_parent_dir(path).map_err(|e| format!("cannot create the folder {e}"))?;
        fileio::write_atomic(path, self.to_text()?.as_bytes())
            .map_err(|e| format!("cannot write {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_reads_back_and_keeps_the_agreed_fields() {
        let file = PuzzleFile {
            version: VERSION,
            generated_by: "engine puzzles \"x\"".into(),
            puzzles: vec![
                Puzzle {
                    id: "p0001".into(),
                    sfen: "4k/5/5/5/K4 b G 1".into(),
                    moves: vec!["G*1b".into()],
                    kind: Kind::Mate,
                    mate: Some(1),
                    tsume: Some(true),
                    themes: vec!["mateIn1".into()],
                    difficulty: 1,
                    source: "test".into(),
                },
                Puzzle {
                    id: "p0002".into(),
                    sfen: "4k/5/5/5/K4 b G 1".into(),
                    moves: vec!["G*1b".into()],
                    kind: Kind::Advantage,
                    mate: None,
                    tsume: None,
                    themes: vec!["advantage".into()],
                    difficulty: 2,
                    source: "test".into(),
                },
            ],
        };
        let text = file.to_text().unwrap();
        assert_eq!(PuzzleFile::from_text(&text).unwrap(), file);
        assert!(
            text.contains(r#""kind":"mate","mate":1,"tsume":true"#),
            "{text}"
        );
        assert!(!text.lines().nth(3).unwrap().contains("tsume"), "{text}");
        assert!(PuzzleFile::from_text(&text.replace("\"version\": 1", "\"version\": 2")).is_err());
    }
}
