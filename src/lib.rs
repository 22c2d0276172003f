//! 5五将棋 (minishogi) engine.

pub mod matches;
pub mod protocol;
pub mod shogi;
