//! Command-line tools built on the rules core (perft, ...). `src/main.rs` only wires them.

pub mod perft;
