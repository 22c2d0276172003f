//! The rules of minishogi (5五将棋): types, bitboards, positions, move generation and a test of
//! one move's legality, notations and game status, random play (and the seeded generator
//! `splitmix`). A crate of its own with no
//! dependencies at all (`tests/crate_graph.rs`): everything else stands on it, and nothing here
//! knows of engines.
//! The playing engine re-exports it as `minishogi_engine::shogi`, the lab as `engine::shogi`.

pub mod bitboard;
pub mod display;
pub mod fen;
pub mod game;
pub mod history;
pub mod legality;
pub mod mate1;
pub mod mate_oracle;
pub mod movegen;
pub mod notation;
pub mod position;
pub mod random;
pub mod repetition;
pub mod splitmix;
pub mod testing;
pub mod types;

pub use bitboard::Bitboard;
pub use fen::FenError;
pub use game::{EndReason, Game, GameStatus, HistoryEntry};
pub use movegen::{
    GenKind, MAX_MOVES, MAX_PERFT_DEPTH, MoveList, perft, perft_divide, perft_until,
};
pub use notation::{MoveError, SfenError};
pub use position::{Position, Undo};
pub use repetition::{
    REPETITION_OCCURRENCES, RepetitionVerdict, cycle_verdict, repetition_verdict,
    repetition_verdict_after,
};
pub use types::{Color, Hand, Move, Piece, PieceKind, Square};
