//! The lab's command-line tools; `src/main.rs` only wires them. (`perft` and `eval` are the
//! playing engine's: `minishogi_engine::commands`.)

pub mod convert;
pub mod plot;
pub mod puzzles;
pub mod review;
pub mod scale;
pub mod ttd;
pub mod weights;
pub mod winrate;
