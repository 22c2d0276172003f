//! 5五将棋 (minishogi) engine.

pub mod shogi;
