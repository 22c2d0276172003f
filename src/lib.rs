//! 5五将棋 (minishogi) engine.

pub mod protocol;
pub mod search;
pub mod shogi;
