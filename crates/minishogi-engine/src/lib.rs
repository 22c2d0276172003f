//! The playing minishogi engine: what a program that only plays needs, and nothing of the lab.
//!
//! - [`eval`]: the `Evaluator` trait, the centipawn scale, material.
//! - [`nn`]: the neural evaluator's inference (float and quantised) and its weights file; the
//!   embedded `weights/default.bin`.
//! - [`search`]: the alpha-beta `Searcher` and everything it owns (time, TT, skill levels, the
//!   mate solver); [`bench`] its signature, `engine bench`.
//! - [`player`]: the player seam, the `Player` trait; [`mcts`] the second player;
//!   [`players`] the factory every caller goes through, above both players.
//! - [`protocol`]: the USI session (and its UCI dialect) and the course protocol.
//! - [`book`]: the opening book's format, loading and move choice (the session plays from it).
//! - [`fileio`], [`memory`]: files read safely and written atomically; the memory there is.
//! - [`testing`]: seeded random positions for tests, benchmarks and examples.
//!
//! The rules are the `minishogi-rules` crate, re-exported as [`shogi`]. The lab (trainers,
//! matches, tuner, tools, plots, the book builder, the GUI) is the root package `engine` on top;
//! `docs/architecture.md` draws the graph and says where new code goes.

pub use minishogi_rules as shogi;

pub mod bench;
pub mod book;
pub mod commands;
pub mod eval;
pub mod fileio;
pub mod mcts;
pub mod memory;
pub mod nn;
pub mod platform;
pub mod player;
pub mod players;
pub mod protocol;
pub mod search;
pub mod testing;
