//! Text protocols the engine speaks.

pub mod course;
