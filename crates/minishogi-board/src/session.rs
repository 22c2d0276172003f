//! The session behind the page, as `Board` keeps it: the game tree, who plays, the clocks,
//! the engines at work and what they found, and the rules read from them (the result,
//! whether the game is over, the engine's `position` and `go` lines).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::Score;
use crate::clock::Clock;
use crate::port::{Command, Job, Role};
use crate::records;
use crate::shogi::{Color, GameStatus, Position};
use crate::tree::Tree;

/// Who plays a side: a person at the page or the session's engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    Human,
    Engine,
}

/// A game ended other than by the rules' verdict on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ended {
    pub(super) winner: Option<Color>,
    pub(super) reason: &'static str,
    /// The node where it ended.
    pub(super) node: usize,
}

/// An engine at work for the page, with what it was started with.
pub(super) struct Slot {
    /// Which start this is: reports of an engine since replaced are ignored.
    pub(super) serial: u64,
    pub(super) options: Vec<(String, String)>,
}

/// The session state.
pub(super) struct Session {
    pub(super) tree: Tree,
    pub(super) players: [Player; 2],
    pub(super) engine: String,
    pub(super) level: Option<u32>,
    pub(super) elo: Option<i32>,
    pub(super) clock: Option<Clock>,
    pub(super) movetime_ms: u64,
    pub(super) ended: Option<Ended>,
    /// Which game this is: the engine's answers for an earlier game are ignored.
    pub(super) game_id: u64,
    pub(super) opponent: Option<Slot>,
    /// The node the opponent searches, while it does.
    pub(super) thinking: Option<usize>,
    pub(super) analyser: Option<Slot>,
    pub(super) analysis_on: bool,
    pub(super) multipv: u32,
    /// The node being analysed (or mate-searched), while one is.
    pub(super) analysing: Option<usize>,
    /// The best score seen for each node, from sente's view.
    pub(super) evals: HashMap<usize, (Score, u32)>,
    pub(super) error: Option<String>,
    pub(super) serial: u64,
    /// Counts the states sent: a page keeps the highest it has seen.
    pub(super) version: u64,
    /// What the transport is to do, in order, since it last took them.
    pub(super) commands: Vec<Command>,
}

impl Session {
    pub(super) fn new_game_id(&mut self) {
        self.game_id += 1;
        self.ended = None;
        self.thinking = None;
        self.evals.clear();
        if self.opponent.is_some() {
            self.send(Role::Opponent, Job::Stop);
        }
        self.error = None;
    }

    /// A job for the engine in `role`.
    pub(super) fn send(&mut self, role: Role, job: Job) {
        self.commands.push(Command::Job { role, job });
    }

    /// The engine in `role`, if any.
    pub(super) fn slot(&mut self, role: Role) -> &mut Option<Slot> {
        match role {
            Role::Opponent => &mut self.opponent,
            Role::Analyser => &mut self.analyser,
        }
    }

    /// Ends the engine in `role`, if there is one.
    pub(super) fn close(&mut self, role: Role) {
        if self.slot(role).take().is_some() {
            self.commands.push(Command::Close { role });
        }
    }

    pub(super) fn stop_clock(&mut self, moved: bool) {
        if let Some(clock) = &mut self.clock {
            clock.stop(moved);
        }
    }

    pub(super) fn end(&mut self, winner: Option<Color>, reason: &'static str) {
        self.ended = Some(Ended {
            winner,
            reason,
            node: self.tree.cursor(),
        });
    }

    /// The result at the end of the line: (winner, reason, ply).
    pub(super) fn result(&self) -> Option<(Option<Color>, &'static str, usize)> {
        let end = self.tree.line_end();
        let ply = self.tree.node(end).map_or(0, |n| n.ply);
        if let Some(ended) = self.ended.filter(|e| e.node == end) {
            return Some((ended.winner, ended.reason, ply));
        }
        if !self.tree.at_line_end() {
            // The rules' verdict is known at the cursor only; the page asks at the end.
            return None;
        }
        match self.tree.status() {
            GameStatus::Ongoing => None,
            GameStatus::Win { winner, reason } => Some((Some(winner), reason.name(), ply)),
            GameStatus::Draw(reason) => Some((None, reason.name(), ply)),
        }
    }

    /// Why the game is over at the cursor, if it is.
    pub(super) fn game_over_reason(&self) -> Option<&'static str> {
        if let Some(ended) = self.ended.filter(|e| e.node == self.tree.cursor()) {
            return Some(ended.reason);
        }
        match self.tree.status() {
            GameStatus::Ongoing => None,
            GameStatus::Win { reason, .. } | GameStatus::Draw(reason) => Some(reason.name()),
        }
    }

    pub(super) fn position_at(&self, node: usize) -> Position {
        let mut pos = self.tree.position_before(node);
        if let Some(mv) = self.tree.node(node).and_then(|n| n.mv) {
            pos.make_move(mv);
        }
        pos
    }

    /// The USI `position` line of the cursor.
    pub(super) fn position_line(&self) -> String {
        let game = self.tree.game();
        records::usi::position_command(game.start_position(), game.moves())
    }

    /// The `go` line for the engine to move.
    pub(super) fn go_line(&self) -> String {
        match &self.clock {
            Some(clock) => {
                let c = &clock.settings;
                let mut go = format!(
                    "go btime {} wtime {}",
                    clock.left_now(Color::Sente),
                    clock.left_now(Color::Gote)
                );
                if c.increment_ms > 0 {
                    go += &format!(" binc {} winc {}", c.increment_ms, c.increment_ms);
                }
                if c.byoyomi_ms > 0 || c.increment_ms == 0 {
                    go += &format!(" byoyomi {}", c.byoyomi_ms);
                }
                go
            }
            None => format!("go movetime {}", self.movetime_ms),
        }
    }
}
