//! What a game's history holds and how a game can end: the types that the game record (`game`)
//! and the repetition judge (`repetition`) both name, in a module of their own so that neither
//! of the two names the other back.

use super::position::Position;
use std::fmt;

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check but has no legal move (a loss, like checkmate).
    NoLegalMove,
    /// 千日手: the same position occurred for the fourth time; sente loses.
    Repetition,
    /// 千日手 where one side gave check with every move of the cycle; that side loses.
    PerpetualCheck,
    /// The configured ply limit was reached (a draw).
    MaxPlies,
}

impl EndReason {
    /// The reason in words, as reports, records and the GUI name it.
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::NoLegalMove => "no legal move",
            EndReason::Repetition => "fourfold repetition",
            EndReason::PerpetualCheck => "perpetual check",
            EndReason::MaxPlies => "ply limit",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One position of a game, as far as repetition judgement needs it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct HistoryEntry {
    /// Zobrist key: board, both hands and side to move.
    pub key: u64,
    /// Whether the side to move is in check, i.e. whether the move that led here gave check.
    pub in_check: bool,
}

impl HistoryEntry {
    pub fn of(pos: &Position) -> HistoryEntry {
        HistoryEntry {
            key: pos.key(),
            in_check: pos.in_check(),
        }
    }
}
