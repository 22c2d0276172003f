//! 5五将棋 (minishogi) engine.

pub mod book;
pub mod eval;
pub mod fileio;
pub mod gui;
pub mod matches;
pub mod mcts;
pub mod memory;
pub mod nn;
pub mod player;
pub mod plot;
pub mod protocol;
pub mod records;
pub mod search;
pub mod shogi;
pub mod tools;
pub mod train;
pub mod tune;
