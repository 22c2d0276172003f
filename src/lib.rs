//! 5五将棋 (minishogi) engine.

pub mod search;
pub mod shogi;
