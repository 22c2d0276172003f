//! The rules of minishogi: types, bitboards, positions, move generation, notations and game
//! status, random play. Depends on nothing else in the crate.

pub mod bitboard;
pub mod display;
pub mod fen;
pub mod game;
pub mod mate1;
pub mod movegen;
pub mod notation;
pub mod position;
pub mod random;
pub mod repetition;
#[cfg(test)]
pub(crate) mod testing;
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
