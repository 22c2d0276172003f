//! The text protocols the engine speaks on standard input and output.

pub mod course;
pub mod info;
pub mod usi;
