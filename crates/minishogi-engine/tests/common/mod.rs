//! What the engine crate's protocol tests share: the engine spawned over pipes.
#![allow(dead_code)] // each test file uses part of it

mod usi_engine;

pub use usi_engine::*;
