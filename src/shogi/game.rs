//! TEMPORARY STAND-IN, written on branch `usi` only so that the USI protocol compiles before
//! the lead's `game.rs` lands on main; it follows the agreed signatures and is replaced by the
//! real file at merge.

use super::notation::MoveError;
use super::position::Position;
use super::types::{Color, Move};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    pub key: u64,
    pub in_check: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Checkmate,
    NoLegalMove,
    Repetition,
    PerpetualCheck,
    MaxPlies,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Ongoing,
    Win { winner: Color, reason: EndReason },
    Draw(EndReason),
}

#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    moves: Vec<Move>,
    history: Vec<HistoryEntry>,
    max_plies: Option<u32>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        let entry = HistoryEntry {
            key: start.key(),
            in_check: start.in_check(),
        };
        Game {
            position: start,
            moves: Vec::new(),
            history: vec![entry],
            max_plies: None,
        }
    }

    pub fn startpos() -> Game {
        Game::new(Position::startpos())
    }

    pub fn set_max_plies(&mut self, limit: Option<u32>) {
        self.max_plies = limit;
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
        if !self.position.is_legal(mv) {
            return Err(MoveError::Illegal {
                input: mv.to_string(),
                reason: self.position.explain_illegal(mv),
            });
        }
        self.position.make_move(mv);
        self.moves.push(mv);
        self.history.push(HistoryEntry {
            key: self.position.key(),
            in_check: self.position.in_check(),
        });
        Ok(())
    }

    pub fn status(&self) -> GameStatus {
        let to_move = self.position.side_to_move();
        if !self.position.has_legal_move() {
            let reason = if self.position.in_check() {
                EndReason::Checkmate
            } else {
                EndReason::NoLegalMove
            };
            return GameStatus::Win {
                winner: !to_move,
                reason,
            };
        }
        let last = self.history.len() - 1;
        let key = self.history[last].key;
        let first = self
            .history
            .iter()
            .position(|e| e.key == key)
            .unwrap_or(last);
        if self.history.iter().filter(|e| e.key == key).count() >= 4 {
            // Positions after the mover's moves alternate; check whether either side checked
            // with every move since the first occurrence.
            let checked_all = |offset: usize| {
                (first + 1..=last)
                    .filter(|i| (i - first) % 2 == offset)
                    .all(|i| self.history[i].in_check)
            };
            // The side that moved last made the moves at odd offsets from `last`.
            let last_mover = !to_move;
            if checked_all((last - first) % 2) {
                return GameStatus::Win {
                    winner: !last_mover,
                    reason: EndReason::PerpetualCheck,
                };
            }
            if checked_all((last - first + 1) % 2) {
                return GameStatus::Win {
                    winner: last_mover,
                    reason: EndReason::PerpetualCheck,
                };
            }
            return GameStatus::Win {
                winner: Color::Gote,
                reason: EndReason::Repetition,
            };
        }
        if self.max_plies.is_some_and(|m| self.moves.len() as u32 >= m) {
            return GameStatus::Draw(EndReason::MaxPlies);
        }
        GameStatus::Ongoing
    }
}
