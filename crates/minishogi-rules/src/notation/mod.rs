//! Notations: SFEN positions, USI moves (`5d5c`, `3a3e+`, `P*3c`) and course moves (`2A3A`,
//! `5C1CN`, `3CFU`), parsed by hand. Every malformed input is a typed error whose message names
//! the bad part; a move that parses but is illegal in the position is a distinct error.
//!
//! `sfen.rs` reads and writes positions, `moves.rs` reads moves of either notation, `illegal.rs`
//! says why a well-formed move is not legal; here the errors they return.

mod illegal;
mod moves;
mod sfen;
#[cfg(test)]
mod tests;

pub(super) use moves::{RawMove, parse_usi_raw};
pub(super) use sfen::{HAND_ORDER, parse_board, validate};

use std::fmt;

use super::types::{Color, Square};

/// What was wrong with an SFEN string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenError {
    /// A required field is absent (`board`, `side to move`).
    MissingField(&'static str),
    /// More than the four SFEN fields.
    TrailingInput(String),
    RankCount(usize),
    /// A rank describes the wrong number of squares.
    RankWidth {
        rank: char,
        squares: usize,
    },
    /// A character or token in the board field that is not a piece or an empty-run digit.
    BadBoardToken {
        rank: char,
        token: String,
    },
    BadSide(String),
    BadHand(String),
    BadMoveNumber(String),
    /// More pieces of a kind (counting both sides, board and hands) than the game has.
    TooManyPieces {
        kind: char,
        count: usize,
    },
    /// Each side must have exactly one king.
    KingCount {
        color: Color,
        count: usize,
    },
    /// A pawn (unpromoted) on the last rank of its side, where it could never move.
    PawnOnLastRank {
        color: Color,
        file: u8,
    },
    /// Two unpromoted pawns of a side on one file (二歩).
    TwoPawnsOnFile {
        color: Color,
        file: u8,
    },
    /// The side not to move is in check: its king could be taken.
    NotToMoveInCheck {
        color: Color,
    },
    /// A position set up piece by piece names a square twice.
    SquareTwice(Square),
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenError::MissingField(what) => write!(f, "sfen is missing the {what} field"),
            SfenError::TrailingInput(s) => write!(f, "unexpected text after sfen: '{s}'"),
            SfenError::RankCount(n) => write!(f, "sfen has {n} ranks, expected 5"),
            SfenError::RankWidth { rank, squares } => {
                write!(f, "sfen rank '{rank}' has {squares} squares, expected 5")
            }
            SfenError::BadBoardToken { rank, token } => {
                write!(f, "bad piece '{token}' in sfen rank '{rank}'")
            }
            SfenError::BadSide(s) => write!(f, "bad side to move '{s}', expected 'b' or 'w'"),
            SfenError::BadHand(s) => write!(f, "bad pieces in hand '{s}'"),
            SfenError::BadMoveNumber(s) => write!(f, "bad move number '{s}'"),
            SfenError::TooManyPieces { kind, count } => {
                write!(
                    f,
                    "sfen has {count} pieces of kind '{kind}', at most 2 exist"
                )
            }
            SfenError::KingCount { color, count } => {
                write!(f, "sfen has {count} {color:?} kings, expected 1")
            }
            SfenError::PawnOnLastRank { color, file } => write!(
                f,
                "illegal position: {color:?} pawn on its last rank (file {file})"
            ),
            SfenError::TwoPawnsOnFile { color, file } => {
                write!(f, "illegal position: two {color:?} pawns on file {file}")
            }
            SfenError::NotToMoveInCheck { color } => {
                write!(f, "illegal position: {color:?}, not to move, is in check")
            }
            SfenError::SquareTwice(square) => write!(f, "two pieces on square {square}"),
        }
    }
}

impl std::error::Error for SfenError {}

/// What was wrong with a move string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move in the notation: names the bad part.
    Syntax { input: String, reason: String },
    /// The text is a well-formed move that is not legal in the position.
    Illegal { input: String, reason: String },
}

impl MoveError {
    pub(crate) fn syntax(input: &str, reason: impl Into<String>) -> MoveError {
        MoveError::Syntax {
            input: input.to_string(),
            reason: reason.into(),
        }
    }

    pub fn is_illegal(&self) -> bool {
        matches!(self, MoveError::Illegal { .. })
    }
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax { input, reason } => write!(f, "{reason} in '{input}'"),
            MoveError::Illegal { input, reason } => write!(f, "illegal move '{input}': {reason}"),
        }
    }
}

impl std::error::Error for MoveError {}
