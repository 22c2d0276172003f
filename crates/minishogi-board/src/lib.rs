//! The board's session core: what `engine gui` and the static page both play by. It keeps the
//! game tree, who plays each side, the clocks, the engines' jobs and what they found, and
//! decides what runs: the engine searches when the cursor is at the end of the line, the game
//! is on and its side is to move; the clock of the side to move runs then too; analysis
//! follows the cursor.
//!
//! It does no I/O of its own. A transport calls it (a person's move, a new game, a tick of
//! the clock, an engine's report) and carries out what it asks for, in order, from
//! [`Board::take_commands`]: events for the pages and jobs for the engines (`port.rs`).
//! Natively the transport is the lab's HTTP server with engines as processes; in the static
//! page it is the WebAssembly module of `minishogi-web` with the engine in a Web Worker.
//!
//! By job: the game tree (`tree.rs`), the clocks (`clock.rs`), moves in both notations
//! (`notation.rs`), the engines' side (`port.rs`), the session's state and its rules
//! (`session.rs`), puzzles (`puzzle.rs`), what the pages are sent (`view.rs`), the editor's
//! position checked (`setup.rs`), and the calls (`board.rs`).

mod board;
pub mod clock;
pub mod notation;
pub mod port;
pub mod puzzle;
pub mod review;
mod session;
pub mod setup;
pub mod tree;
pub mod view;

pub use board::{
    Board, MAX_MULTIPV, NEWCOMER_LEVEL, NewGame, REVIEW_NODES, RecordFile, record_format,
};
pub use minishogi_engine::protocol::info::{Bound, Info, Score, parse_info};
pub use minishogi_records as records;
pub use minishogi_rules as shogi;
pub use port::{Command, Job, Purpose, Report, Role};
pub use puzzle::PuzzleStart;
pub use session::SELF_ENGINE;
pub use view::Player;
