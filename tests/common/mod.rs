//! What the lab's tests share: a USI engine over pipes (the engine crate's test helper, here
//! spawning the lab's `engine`) and the board's server.
#![allow(dead_code)] // each test file uses part of it

pub mod browser;
pub mod gui;
#[path = "../../crates/minishogi-engine/tests/common/usi_engine.rs"]
mod usi_engine;

#[allow(unused_imports)] // the board's tests use `gui` alone
pub use usi_engine::*;
