//! The opening book as the engine plays from it: YaneuraOu's text format (`format`, over the
//! rules alone), when and which book move is played (`choice`), and loading a book file (here).
//! Building books (`engine book`) is the lab's: `src/book/build/` in the root package.

pub mod choice;
pub mod format;

use std::path::Path;

pub use choice::{DEFAULT_MAX_PLY, MoveChoice};
pub use format::{Book, BookEntry, BookMove};

/// A book file as read, with the moves left out of it (illegal in their position…), each
/// message naming the file and line (`book.db:12: …`).
pub struct LoadedBook {
    pub book: Book,
    pub warnings: Vec<String>,
}

/// Reads a book file. An error names the file and the line (`book.db:12: …`); the warnings
/// are also logged.
pub fn load(path: &Path) -> Result<LoadedBook, String> {
    let text =
        crate::fileio::read_regular_to_string(path).map_err(|e| format!("cannot read book {e}"))?;
    let read =
        format::read(&text).map_err(|e| format!("{}:{}: {}", path.display(), e.line, e.message))?;
    let warnings: Vec<String> = read
        .warnings
        .iter()
        .map(|(line, message)| format!("{}:{line}: {message}", path.display()))
        .collect();
    for warning in &warnings {
        log::warn!("{warning}");
    }
    Ok(LoadedBook {
        book: read.book,
        warnings,
    })
}
