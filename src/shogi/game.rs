//! A game: the moves played from a start position, the key/check history, and the result by
//! the rules (no legal move loses; 千日手 with its perpetual-check exception; optional ply limit).

use super::notation::MoveError;
use super::position::Position;
use super::types::{Color, Move};
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

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::Checkmate => "checkmate",
            EndReason::NoLegalMove => "no legal move",
            EndReason::Repetition => "fourfold repetition",
            EndReason::PerpetualCheck => "perpetual check",
            EndReason::MaxPlies => "ply limit",
        })
    }
}

/// The state of a game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameStatus {
    Ongoing,
    Win { winner: Color, reason: EndReason },
    Draw(EndReason),
}

impl GameStatus {
    pub fn is_over(self) -> bool {
        self != GameStatus::Ongoing
    }
}

impl fmt::Display for GameStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameStatus::Ongoing => f.write_str("ongoing"),
            GameStatus::Win { winner, reason } => write!(f, "{winner:?} wins by {reason}"),
            GameStatus::Draw(reason) => write!(f, "draw by {reason}"),
        }
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

/// How many times a position must occur for 千日手.
pub const REPETITION_OCCURRENCES: usize = 4;

/// The loser of a repetition cycle and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RepetitionVerdict {
    pub loser: Color,
    /// `Repetition` (sente loses) or `PerpetualCheck` (the checking side loses).
    pub reason: EndReason,
}

/// Judges the cycle from `history[first]` to the last entry, which must be the same position.
/// `side_to_move` is the side to move in the last entry (entries alternate sides).
///
/// If exactly one side gave check with every one of its moves in the cycle, that side loses
/// (perpetual check); otherwise — no perpetual check, or both sides checking throughout —
/// sente loses.
pub fn cycle_verdict(
    history: &[HistoryEntry],
    first: usize,
    side_to_move: Color,
) -> RepetitionVerdict {
    let last = history.len() - 1;
    debug_assert!(first < last && history[first].key == history[last].key);
    // Entry j was reached by a move of the side not to move at j, and `in_check` says whether
    // that move gave check. Entries with the parity of `last` were reached by `!side_to_move`.
    let mut opponent_always_checked = true; // `!side_to_move`, who completed the cycle
    let mut mover_always_checked = true; // `side_to_move`
    for (j, entry) in history.iter().enumerate().take(last + 1).skip(first + 1) {
        if (last - j) % 2 == 0 {
            opponent_always_checked &= entry.in_check;
        } else {
            mover_always_checked &= entry.in_check;
        }
    }
    match (opponent_always_checked, mover_always_checked) {
        (true, false) => RepetitionVerdict {
            loser: !side_to_move,
            reason: EndReason::PerpetualCheck,
        },
        (false, true) => RepetitionVerdict {
            loser: side_to_move,
            reason: EndReason::PerpetualCheck,
        },
        _ => RepetitionVerdict {
            loser: Color::Sente,
            reason: EndReason::Repetition,
        },
    }
}

/// The 千日手 verdict if the last entry of `history` is the fourth occurrence of its position;
/// `None` otherwise. `side_to_move` is the side to move in the last entry.
///
/// Search and referee both use this (search may call [`cycle_verdict`] on earlier repetitions).
pub fn repetition_verdict(
    history: &[HistoryEntry],
    side_to_move: Color,
) -> Option<RepetitionVerdict> {
    let last = history.len().checked_sub(1)?;
    let key = history[last].key;
    // The key includes the side to move, so only entries of the same parity can match.
    let mut occurrences = 1;
    let mut first = last;
    let mut j = last;
    while j >= 2 {
        j -= 2;
        if history[j].key == key {
            occurrences += 1;
            first = j;
        }
    }
    if occurrences < REPETITION_OCCURRENCES {
        return None;
    }
    Some(cycle_verdict(history, first, side_to_move))
}

/// A game in progress (or finished): start position, moves, history and result.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    history: Vec<HistoryEntry>,
    max_plies: Option<u32>,
    /// The result by the rules of play (mate, no move, repetition), ignoring the ply limit.
    rules_status: GameStatus,
}

impl Game {
    pub fn new(position: Position) -> Game {
        let mut game = Game {
            start: position.clone(),
            history: vec![HistoryEntry::of(&position)],
            position,
            moves: Vec::new(),
            max_plies: None,
            rules_status: GameStatus::Ongoing,
        };
        game.rules_status = game.judge();
        game
    }

    pub fn startpos() -> Game {
        Game::new(Position::startpos())
    }

    /// Plays a legal move. An illegal move, or any move once the game is over, is refused with
    /// `MoveError::Illegal` and leaves the game unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        let status = self.status();
        if status.is_over() {
            return Err(MoveError::Illegal {
                input: mv.to_string(),
                reason: format!("the game is over ({status})"),
            });
        }
        if !self.position.is_legal(mv) {
            return Err(MoveError::Illegal {
                input: mv.to_string(),
                reason: self.position.explain_illegal(mv),
            });
        }
        self.position.make_move(mv);
        self.moves.push(mv);
        self.history.push(HistoryEntry::of(&self.position));
        self.rules_status = self.judge();
        Ok(())
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        &self.start
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// One entry per position, the start position included (so `moves().len() + 1` entries).
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// Number of moves played.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// A draw once this many moves have been played without another result (`None` or
    /// `Some(0)` = no limit, as the engine option's 0).
    pub fn set_max_plies(&mut self, max_plies: Option<u32>) {
        self.max_plies = max_plies.filter(|&n| n > 0);
    }

    pub fn max_plies(&self) -> Option<u32> {
        self.max_plies
    }

    /// The result so far. A decisive result on the last allowed ply takes precedence over the
    /// ply limit.
    pub fn status(&self) -> GameStatus {
        if self.rules_status.is_over() {
            return self.rules_status;
        }
        match self.max_plies {
            Some(limit) if self.moves.len() as u64 >= u64::from(limit) => {
                GameStatus::Draw(EndReason::MaxPlies)
            }
            _ => GameStatus::Ongoing,
        }
    }

    /// Judges the current position: repetition first (the position repeats one that had legal
    /// moves, so the two cannot both apply), then the absence of legal moves.
    fn judge(&self) -> GameStatus {
        let side = self.position.side_to_move();
        if let Some(verdict) = repetition_verdict(&self.history, side) {
            return GameStatus::Win {
                winner: !verdict.loser,
                reason: verdict.reason,
            };
        }
        if !self.position.has_legal_move() {
            let reason = if self.position.in_check() {
                EndReason::Checkmate
            } else {
                EndReason::NoLegalMove
            };
            return GameStatus::Win {
                winner: !side,
                reason,
            };
        }
        GameStatus::Ongoing
    }
}
