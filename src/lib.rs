//! 5五将棋 (minishogi) engine.

pub mod fileio;
pub mod nn;
pub mod shogi;
pub mod train;
