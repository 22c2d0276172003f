//! The opening book: YaneuraOu's text format (`format`, over the rules core alone), when and
//! which book move is played (`choice`), and `engine book`, which builds books from games and
//! from the engine's own search (`build`).

pub mod build;
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
