//! The lab's one USI client: every place that drives a USI engine as a process (the match
//! referee, `engine ttd`, `engine tune` and `engine scale` through matches, the GUI) starts,
//! talks to and reads it through here.
//!
//! By job: what to start (`spec.rs`), the process and its lines with deadlines (`process.rs`),
//! the handshake and options (`handshake.rs`), one search (`search.rs`), the time control and seconds from the command line (`time.rs`); `error.rs` is
//! what can go wrong on the way.

mod error;
mod handshake;
mod process;
mod search;
mod spec;
mod time;

pub use error::EngineError;
pub use handshake::EngineId;
// The `info` reader is the engine crate's, which the board's session core shares.
pub use minishogi_engine::protocol::info::{Bound, Info, Score, parse_info};
pub use process::EngineProcess;
pub use search::BestMove;
pub use spec::{EngineSpec, split_command};
pub use time::{TimeControl, positive_seconds, seconds};
