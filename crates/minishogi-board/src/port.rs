//! The engines' side of the board: the board asks for jobs for an engine in a role (the
//! opponent, the analyser) and is told what the engine reported. The transport runs the
//! engines — processes natively, a Web Worker in the page — and carries jobs and reports.
//! Every report carries its job's `Purpose`, so the board can tell a stale answer from the one
//! it waits for, and the `serial` of the engine's start, so that an engine since replaced is
//! not heard.

use serde::{Deserialize, Serialize};

use crate::view::Event;

/// What an engine is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// It plays the engine's side of the game.
    Opponent,
    /// It analyses the cursor's position, and searches for mates.
    Analyser,
}

/// What a search is for; reports carry it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Purpose {
    /// The engine's move in the game at `node`, of game number `game`.
    Play { game: u64, node: usize },
    /// Analysis of `node` of game `game` (until stopped).
    Analyse { game: u64, node: usize },
    /// A mate search from `node` of game `game`.
    Mate { game: u64, node: usize },
    /// One position of a review of game `game`'s line.
    Review { game: u64, node: usize },
}

impl Purpose {
    /// The game the search belongs to: node numbers start again with each game.
    pub fn game(self) -> u64 {
        match self {
            Purpose::Play { game, .. }
            | Purpose::Analyse { game, .. }
            | Purpose::Mate { game, .. }
            | Purpose::Review { game, .. } => game,
        }
    }

    /// The node searched.
    pub fn node(self) -> usize {
        match self {
            Purpose::Play { node, .. }
            | Purpose::Analyse { node, .. }
            | Purpose::Mate { node, .. }
            | Purpose::Review { node, .. } => node,
        }
    }
}

/// A job for an engine. A new job ends the search before it: the transport sends `stop`
/// and waits for that search's last line (reporting it) before it starts the next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Job {
    Search {
        /// `position …` line.
        position: String,
        /// `go …` line.
        go: String,
        purpose: Purpose,
    },
    Stop,
    /// `setoption`s, sent with the engine idle, then `isready`. Options the engine did not
    /// declare are left out.
    Options(Vec<(String, String)>),
}

/// What an engine said, as the transport hands it to the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Report {
    /// The search for `purpose` was sent to the engine (a clock starts from here, not from
    /// the job: starting an engine takes a while).
    Started { purpose: Purpose },
    /// An `info` line of the search for `purpose` (not `info string`).
    Info { purpose: Purpose, line: String },
    /// The search's `bestmove` token (`resign`, `win` or a move).
    BestMove { purpose: Purpose, token: String },
    /// A mate search's `checkmate …` line, after the word.
    Checkmate { purpose: Purpose, rest: String },
    /// The engine failed (did not start, exited, stopped answering); it is gone.
    Failed(String),
}

/// What the board asks of its transport, in order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Command {
    /// Something for the pages.
    Event(Event),
    /// Start the engine `engine` in `role` with `options` set at its handshake, replacing the
    /// one in that role; its reports carry `serial`.
    Start {
        role: Role,
        serial: u64,
        engine: String,
        options: Vec<(String, String)>,
    },
    /// A job for the engine in `role`.
    Job { role: Role, job: Job },
    /// The engine in `role` is no longer needed: end it.
    Close { role: Role },
}
