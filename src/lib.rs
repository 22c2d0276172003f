//! 5五将棋 (minishogi) engine.

pub mod shogi;
pub mod tools;
