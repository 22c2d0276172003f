//! The opening book in a USI session: what the book options set, the book loaded from
//! `BookFile`, and the answer to a `go` from it.

use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::book::choice::{choose, within_book_plies};
use crate::book::{Book, BookMove, DEFAULT_MAX_PLY, MoveChoice};
use crate::shogi::{Game, Move};

/// The book options and the book they loaded.
pub struct SessionBook {
    /// `USI_OwnBook`.
    pub own_book: bool,
    /// `BookMaxPly`.
    pub max_ply: u32,
    /// `BookMoveChoice`.
    pub choice: MoveChoice,
    /// The book of `BookFile` and that file's name; `None` without one.
    loaded: Option<(String, Book)>,
    /// Draws the weighted choice; seeded from the system, so that games differ.
    rng: SmallRng,
}

/// What `go` answers from the book: an `info string` note and the `bestmove` line.
pub struct BookAnswer {
    pub note: String,
    pub bestmove: String,
}

impl SessionBook {
    pub fn new() -> SessionBook {
        SessionBook {
            own_book: true,
            max_ply: DEFAULT_MAX_PLY,
            choice: MoveChoice::DEFAULT,
            loaded: None,
            rng: SmallRng::from_entropy(),
        }
    }

    /// Loads the book of `path` (empty: no book) and says so; a file that cannot be read
    /// leaves the current book in place, and the error says which that is.
    pub fn load(&mut self, path: &str) -> Result<String, String> {
        if path.is_empty() {
            self.loaded = None;
            return Ok("BookFile: no book".to_string());
        }
        match crate::book::load(std::path::Path::new(path)) {
            Ok(read) => {
                let mut note = format!(
                    "BookFile: {} positions, {} moves from {path}",
                    read.book.len(),
                    read.book.move_count()
                );
                if let Some(first) = read.warnings.first() {
                    note.push_str(&format!(
                        "; {} lines left out (the first: {first})",
                        read.warnings.len()
                    ));
                }
                self.loaded = Some((path.to_string(), read.book));
                Ok(note)
            }
            Err(e) => Err(format!("{e}; {}", self.describe("keeping"))),
        }
    }

    /// What `isready` says of the book.
    pub fn summary(&self) -> String {
        match &self.loaded {
            Some(_) if !self.own_book => self.describe("USI_OwnBook off, holding"),
            Some(_) => self.describe("playing from"),
            None => "no opening book".to_string(),
        }
    }

    /// `<verb> the book of FILE (N positions)` or `<verb> no book`.
    pub fn describe(&self, verb: &str) -> String {
        match &self.loaded {
            Some((path, book)) => format!("{verb} the book of {path} ({} positions)", book.len()),
            None => format!("{verb} no book"),
        }
    }

    /// The book's answer to a `go` in `game`'s position, if the options allow one and the
    /// position has a playable book move: legal, among `searchmoves` when some are given, and
    /// not ending the game by 千日手.
    pub fn answer(&mut self, game: &Game, searchmoves: &[Move]) -> Option<BookAnswer> {
        let (_, book) = self.loaded.as_ref().filter(|_| self.own_book)?;
        let pos = game.position();
        if !within_book_plies(pos, self.max_ply) {
            return None;
        }
        let entry = book.get(pos)?;
        let playable = |m: &BookMove| {
            pos.is_legal(m.mv)
                && (searchmoves.is_empty() || searchmoves.contains(&m.mv))
                && game.repetition_verdict_after(&pos.after(m.mv)).is_none()
        };
        let chosen = choose(entry, self.choice, playable, &mut self.rng)?;
        let ponder = chosen.ponder.filter(|&p| pos.after(chosen.mv).is_legal(p));
        let note = format!(
            "book move {} (value {}, depth {}, count {}; {} choice among {})",
            chosen.mv,
            chosen.value,
            chosen.depth,
            chosen.count,
            self.choice.name(),
            entry.moves.len()
        );
        let bestmove = match ponder {
            Some(p) => format!("bestmove {} ponder {p}", chosen.mv),
            None => format!("bestmove {}", chosen.mv),
        };
        Some(BookAnswer { note, bestmove })
    }
}
