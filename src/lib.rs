//! 5五将棋 (minishogi) engine.

pub mod nn;
pub mod shogi;
