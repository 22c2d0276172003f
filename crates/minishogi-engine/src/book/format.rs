//! The opening book in YaneuraOu's text format (`#YANEURAOU-DB2016 1.00`), read and written.
//!
//! ```text
//! #YANEURAOU-DB2016 1.00
//! sfen rbsgk/4p/5/P4/KGSBR b - 1
//! 2e2d 4a4b 35 12 3
//! 5e4d none -10 12 1
//! ```
//!
//! A `sfen` line names a position (its move number may be left out); the move lines after it
//! are `<move> <ponder move | none> <value> <depth> <count>`: the value is for the side to move
//! in that position (the side that plays the move), in centipawns, mates as ±(32000 − plies)
//! (the stored score scale, whose owner is `search::score::to_stored`; this format only keeps
//! the number);
//! the depth is the search depth behind the value (0 when it comes from games); the count is
//! how often the move was played (a weight). Lines starting with `#` or `//` are comments.
//!
//! Reading is tolerant where YaneuraOu's books differ (a missing move number, missing trailing
//! fields, CR LF, a byte order mark, a position given twice) and strict where a line cannot be
//! understood: that is an error naming the line. A well-formed move that is not legal in its
//! position is a warning and is left out, so a book never makes the engine play an illegal
//! move. Positions are identified by board, hands and side to move: the move number is kept
//! only to be written back.
//!
//! Depends only on the rules core.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::fmt;

use crate::shogi::{Move, MoveError, Position};

/// The first line of a book file.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// One move of a book position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    /// The expected reply (legal after `mv`), if the book knows one.
    pub ponder: Option<Move>,
    /// For the side playing `mv`: centipawns, mates as ±(32000 − plies) (the stored score scale
    /// of `search::score::to_stored`).
    pub value: i32,
    /// Search depth behind `value`; 0 for values from game results.
    pub depth: i32,
    /// How often the move was played, or another weight; the weighted choice draws by it.
    pub count: u64,
}

/// A book position: its moves, in the book's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookEntry {
    /// The SFEN move number the position was written with, if any (written back as read).
    pub move_number: Option<u32>,
    pub moves: Vec<BookMove>,
}

/// The book: positions keyed by board, side to move and hands (the SFEN without its move
/// number), so that a position is found whatever its move number and however it was reached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    entries: BTreeMap<String, BookEntry>,
}

/// The key of a position in a book: its SFEN without the move number.
pub fn position_key(pos: &Position) -> String {
    let sfen = pos.to_sfen();
    match sfen.rsplit_once(' ') {
        Some((key, _number)) => key.to_string(),
        None => sfen,
    }
}

impl Book {
    pub fn new() -> Book {
        Book::default()
    }

    /// The entry of `pos`, whatever its move number.
    pub fn get(&self, pos: &Position) -> Option<&BookEntry> {
        self.entries.get(&position_key(pos))
    }

    /// The entry of `pos`, made empty (with `pos`'s move number) if it is not in the book yet.
    pub fn entry_mut(&mut self, pos: &Position) -> &mut BookEntry {
        self.entries
            .entry(position_key(pos))
            .or_insert_with(|| BookEntry {
                move_number: Some(pos.move_number()),
                moves: Vec::new(),
            })
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Moves over all positions.
    pub fn move_count(&self) -> usize {
        self.entries.values().map(|e| e.moves.len()).sum()
    }

    /// Each position's key (SFEN without move number) and entry, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &BookEntry)> {
        self.entries.iter().map(|(k, e)| (k.as_str(), e))
    }

    /// Each position's key and entry, to change the entries.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut BookEntry)> {
        self.entries.iter_mut().map(|(k, e)| (k.as_str(), e))
    }

    /// The position of a key from [`Book::iter`], with the entry's move number.
    pub fn position_of(key: &str, entry: &BookEntry) -> Position {
        let mut pos = Position::from_sfen(key).expect("book keys are valid SFENs");
        if let Some(n) = entry.move_number {
            pos.set_move_number(n);
        }
        pos
    }
}

/// A line of a book file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError {
    /// 1-based.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for BookError {}

/// A book as read, with what was left out of it and why: (1-based line, message).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadBook {
    pub book: Book,
    pub warnings: Vec<(usize, String)>,
}

/// The position whose move lines are being read.
struct Section {
    key: String,
    pos: Position,
}

/// Reads a book file's text.
pub fn read(text: &str) -> Result<ReadBook, BookError> {
    let mut read = ReadBook::default();
    // Where each position was first given, to name it when it comes again.
    let mut first_line: BTreeMap<String, usize> = BTreeMap::new();
    let mut section: Option<Section> = None;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw.trim();
        let error = |message: String| BookError {
            line: number,
            message,
        };
        if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
            continue;
        }
        if let Some(sfen) = sfen_of(line) {
            let pos = Position::from_sfen(sfen).map_err(|e| error(format!("{e}")))?;
            let key = position_key(&pos);
            let given_number = sfen.split_whitespace().count() == 4;
            match first_line.entry(key.clone()) {
                Entry::Vacant(v) => {
                    v.insert(number);
                    read.book.entries.insert(
                        key.clone(),
                        BookEntry {
                            move_number: given_number.then(|| pos.move_number()),
                            moves: Vec::new(),
                        },
                    );
                }
                Entry::Occupied(o) => read.warnings.push((
                    number,
                    format!(
                        "the position of line {} again; its moves are added to it",
                        o.get()
                    ),
                )),
            }
            section = Some(Section { key, pos });
            continue;
        }
        let Some(Section { key, pos }) = &section else {
            return Err(error(format!(
                "a move line before any 'sfen' line: '{line}'"
            )));
        };
        match move_line(pos, line).map_err(error)? {
            Parsed::Move(book_move, ponder_warning) => {
                let entry = read.book.entries.get_mut(key).expect("section's entry");
                if entry.moves.iter().any(|m| m.mv == book_move.mv) {
                    read.warnings.push((
                        number,
                        format!(
                            "move {} given twice for this position; the first is kept",
                            book_move.mv
                        ),
                    ));
                    continue;
                }
                if let Some(w) = ponder_warning {
                    read.warnings.push((number, w));
                }
                entry.moves.push(book_move);
            }
            Parsed::Skipped(why) => read.warnings.push((number, format!("{why}; skipped"))),
        }
    }
    Ok(read)
}

/// The SFEN of a `sfen …` line.
fn sfen_of(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("sfen")?;
    rest.starts_with(char::is_whitespace).then(|| rest.trim())
}

enum Parsed {
    /// A move, and a warning if its ponder move was left out.
    Move(BookMove, Option<String>),
    /// A well-formed line whose move cannot be played here: why.
    Skipped(String),
}

/// Reads `<move> [<ponder>|none [<value> [<depth> [<count>]]]]` in `pos`. Missing fields are
/// ponder none, value 0, depth 0 and count 1, as YaneuraOu reads them.
fn move_line(pos: &Position, line: &str) -> Result<Parsed, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() > 5 {
        return Err(format!(
            "a move line has at most 5 fields (move, ponder, value, depth, count), this one {}: \
             '{line}'",
            fields.len()
        ));
    }
    fn number<T: std::str::FromStr>(field: Option<&&str>, what: &str) -> Result<Option<T>, String> {
        field
            .map(|text| {
                text.parse()
                    .map_err(|_| format!("bad {what} '{text}' (a whole number)"))
            })
            .transpose()
    }
    // Every field is checked before the move is judged, so a malformed line is an error even
    // when its move would be skipped.
    let value = number(fields.get(2), "value")?.unwrap_or(0);
    let depth = number(fields.get(3), "depth")?.unwrap_or(0);
    let count = number(fields.get(4), "count")?.unwrap_or(1);
    let ponder_text = fields.get(1).copied().filter(|&p| p != "none");
    let text = fields[0];
    if matches!(text, "resign" | "win" | "none" | "pass" | "0000") {
        return Ok(Parsed::Skipped(format!("'{text}' is not a move to play")));
    }
    let mv = match pos.parse_usi_move(text) {
        Ok(mv) => mv,
        Err(e @ MoveError::Syntax { .. }) => return Err(format!("bad move: {e}")),
        Err(e @ MoveError::Illegal { .. }) => {
            // The ponder move's spelling does not depend on the position it is read in.
            if let Some(Err(e @ MoveError::Syntax { .. })) =
                ponder_text.map(|p| pos.parse_usi_move(p))
            {
                return Err(format!("bad ponder move: {e}"));
            }
            return Ok(Parsed::Skipped(e.to_string()));
        }
    };
    let mut ponder_warning = None;
    let ponder = match ponder_text {
        None => None,
        Some(text) => match pos.after(mv).parse_usi_move(text) {
            Ok(reply) => Some(reply),
            Err(e @ MoveError::Illegal { .. }) => {
                ponder_warning = Some(format!("ponder move after {mv}: {e}; left out"));
                None
            }
            Err(e @ MoveError::Syntax { .. }) => return Err(format!("bad ponder move: {e}")),
        },
    };
    Ok(Parsed::Move(
        BookMove {
            mv,
            ponder,
            value,
            depth,
            count,
        },
        ponder_warning,
    ))
}

/// The book as a file's text: the header, `comments` (each a `# …` line, saying how the book
/// was made), then the positions in key order, each with its moves in the book's order.
pub fn write(book: &Book, comments: &[String]) -> String {
    let mut out = String::with_capacity(64 * (book.len() + book.move_count()) + 32);
    out.push_str(HEADER);
    out.push('\n');
    for comment in comments {
        for line in comment.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
    }
    for (key, entry) in book.iter() {
        out.push_str("sfen ");
        out.push_str(key);
        if let Some(n) = entry.move_number {
            out.push_str(&format!(" {n}"));
        }
        out.push('\n');
        for m in &entry.moves {
            let ponder = m.ponder.map_or("none".to_string(), |p| p.to_string());
            out.push_str(&format!(
                "{} {ponder} {} {} {}\n",
                m.mv, m.value, m.depth, m.count
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    // The stored score scale's owner (test code only: the format itself keeps any number).
    use crate::search::Score;
    use crate::search::score::to_stored;

    fn startpos_after(moves: &[&str]) -> Position {
        let mut pos = Position::startpos();
        for text in moves {
            let mv = pos.parse_usi_move(text).unwrap();
            pos.make_move(mv);
        }
        pos
    }

    fn book_move(pos: &Position, mv: &str, ponder: Option<&str>, value: i32) -> BookMove {
        let mv = pos.parse_usi_move(mv).unwrap();
        BookMove {
            mv,
            ponder: ponder.map(|p| pos.after(mv).parse_usi_move(p).unwrap()),
            value,
            depth: 7,
            count: 3,
        }
    }

    fn small_book() -> Book {
        let mut book = Book::new();
        let start = Position::startpos();
        let entry = book.entry_mut(&start);
        entry
            .moves
            .push(book_move(&start, "3e3d", Some("3a3b"), 35));
        entry.moves.push(book_move(&start, "5e4d", None, -12));
        let later = startpos_after(&["3e3d", "3a3b"]);
        book.entry_mut(&later).moves.push(book_move(
            &later,
            "4e4d",
            Some("2a2b"),
            to_stored(Score::Mate(5)),
        ));
        let mut no_number = startpos_after(&["3e3d"]);
        no_number.set_move_number(1);
        book.entries.insert(
            position_key(&no_number),
            BookEntry {
                move_number: None,
                moves: vec![book_move(&no_number, "1a2b", None, -30)],
            },
        );
        book
    }

    #[test]
    fn written_books_read_back_the_same() {
        let book = small_book();
        let text = write(&book, &["made by a test".to_string()]);
        assert!(
            text.starts_with("#YANEURAOU-DB2016 1.00\n# made by a test\nsfen "),
            "{text}"
        );
        assert!(
            text.contains("sfen rbsgk/4p/5/P4/KGSBR b - 1\n3e3d 3a3b 35 7 3\n5e4d none -12 7 3\n"),
            "{text}"
        );
        let read = read(&text).unwrap();
        assert_eq!(read.warnings, Vec::new());
        assert_eq!(read.book, book);
        assert_eq!(write(&read.book, &["made by a test".to_string()]), text);
        assert_eq!((book.len(), book.move_count()), (3, 4));
    }

    #[test]
    fn positions_are_found_whatever_their_move_number_and_move_order() {
        let book = read("sfen rbsgk/4p/5/P4/KGSBR b - 1\n3e3d none 5 1 1\n")
            .unwrap()
            .book;
        let mut pos = Position::startpos();
        pos.set_move_number(40);
        assert_eq!(book.get(&pos).unwrap().moves.len(), 1);
        assert_eq!(book.get(&pos).unwrap().move_number, Some(1));
        // The start position again after a king's walk, at move 5.
        let again = startpos_after(&["5e4d", "1a2b", "4d5e", "2b1a"]);
        assert_eq!(again.move_number(), 5);
        assert!(book.get(&again).is_some());

        // One position reached by two move orders.
        let orders = [
            startpos_after(&["3e3d", "3a3b", "4e4d"]),
            startpos_after(&["4e4d", "3a3b", "3e3d"]),
        ];
        let text = format!("sfen {}\n1a2b none 0 0 1\n", orders[0].to_sfen());
        let book = read(&text).unwrap().book;
        for pos in &orders {
            assert_eq!(book.get(pos).unwrap().moves[0].mv.to_string(), "1a2b");
        }
        assert!(book.get(&Position::startpos()).is_none());
    }

    #[test]
    fn tolerated_spellings() {
        let text = "\u{feff}#YANEURAOU-DB2016 1.00\r\n// a comment\r\n\r\n\
                    sfen rbsgk/4p/5/P4/KGSBR b -\r\n3e3d\r\n5e4d none\r\n1e1d 1a2b -3\r\n\
                    sfen  rbsgk/4p/5/P4/KGSBR b - 1 \r\n4e4d none 1 2 \r\n";
        let read = read(text).unwrap();
        let entry = read.book.get(&Position::startpos()).unwrap();
        assert_eq!(entry.move_number, None);
        let summary: Vec<(String, Option<String>, i32, i32, u64)> = entry
            .moves
            .iter()
            .map(|m| {
                (
                    m.mv.to_string(),
                    m.ponder.map(|p| p.to_string()),
                    m.value,
                    m.depth,
                    m.count,
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("3e3d".into(), None, 0, 0, 1),
                ("5e4d".into(), None, 0, 0, 1),
                ("1e1d".into(), Some("1a2b".into()), -3, 0, 1),
                ("4e4d".into(), None, 1, 2, 1),
            ]
        );
        assert_eq!(read.warnings.len(), 1, "{:?}", read.warnings);
        assert_eq!(read.warnings[0].0, 8);
        assert!(
            read.warnings[0]
                .1
                .starts_with("the position of line 4 again"),
            "{:?}",
            read.warnings
        );
    }

    #[test]
    fn malformed_lines_are_errors_naming_the_line() {
        let start = "sfen rbsgk/4p/5/P4/KGSBR b - 1\n";
        let cases = [
            (
                "3e3d none 0 0 1\n".to_string(),
                1,
                "a move line before any 'sfen' line",
            ),
            (
                "#c\nsfen rbsgk/4p/5/P4/KGSBR x - 1\n".into(),
                2,
                "bad side to move",
            ),
            (
                "sfen lnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL b - 1\n".into(),
                1,
                "9 ranks",
            ),
            (format!("{start}7g7f none 0 0 1\n"), 2, "bad move"),
            (format!("{start}3e3d none ten 0 1\n"), 2, "bad value 'ten'"),
            (format!("{start}3e3d none 1 0.5 1\n"), 2, "bad depth"),
            (format!("{start}3e3d none 1 0 -1\n"), 2, "bad count"),
            (format!("{start}3e3d x 1 0 1\n"), 2, "bad ponder move"),
            // An illegal move's line is still checked whole.
            (format!("{start}2e2c none 1 0 x\n"), 2, "bad count"),
            (format!("{start}2e2c 9z9z 1 0 1\n"), 2, "bad ponder move"),
            (
                format!("{start}\n3e3d none 1 2 3 4\n"),
                3,
                "at most 5 fields",
            ),
        ];
        for (text, line, message) in cases {
            let err = read(&text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.message.contains(message), "{text:?}: {err}");
            assert!(err.to_string().starts_with(&format!("line {line}: ")));
        }
    }

    #[test]
    fn illegal_moves_are_skipped_with_a_warning() {
        let text = "sfen rbsgk/4p/5/P4/KGSBR b - 1\n\
                    2e2c none 50 1 9\n\
                    P*3c none 50 1 9\n\
                    3e3d 3e3d 10 1 2\n\
                    resign none 0 0 1\n\
                    5e4d none 1 1 1\n\
                    5e4d none 2 2 2\n";
        let read = read(text).unwrap();
        let entry = read.book.get(&Position::startpos()).unwrap();
        let moves: Vec<String> = entry.moves.iter().map(|m| m.mv.to_string()).collect();
        assert_eq!(moves, ["3e3d", "5e4d"]);
        assert_eq!(entry.moves[0].ponder, None);
        assert_eq!(entry.moves[1].value, 1);
        let expected = [
            (2, "illegal move '2e2c'"),
            (3, "illegal move 'P*3c'"),
            (4, "ponder move after 3e3d: illegal move '3e3d'"),
            (5, "'resign' is not a move to play; skipped"),
            (7, "move 5e4d given twice"),
        ];
        assert_eq!(read.warnings.len(), expected.len(), "{:?}", read.warnings);
        for ((line, warning), (expected_line, start)) in read.warnings.iter().zip(expected) {
            assert_eq!(*line, expected_line, "{warning}");
            assert!(warning.starts_with(start), "{warning}");
        }
    }
}
