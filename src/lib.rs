//! 5五将棋 (minishogi) engine: the lab (training, data generation, matches, tuning, tools, plots,
//! the book builder, the GUI) on top of the playing engine (`minishogi-engine`) and the rules
//! (`minishogi-rules`). Their modules are re-exported here, so that `engine::search`,
//! `engine::shogi`, … (and `crate::search`, … in the lab) name them as one library.

pub use minishogi_records as records;

pub use minishogi_engine::{
    bench, commands, eval, fileio, mcts, memory, nn, player, players, protocol, search, shogi,
    testing,
};

pub mod book;
pub mod gui;
pub mod matches;
pub mod plot;
pub mod tools;
pub mod train;
pub mod tune;
pub mod usi_client;
