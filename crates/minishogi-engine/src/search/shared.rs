//! What all threads of one search share: the table, limits, options, stop flags and node
//! counts. Its own module, below both the threads (`threads.rs`, which build it) and the
//! workers (`worker.rs`, which read it), so that neither names the other back.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use super::params::SearchParams;
use super::skill::Skill;
use super::tt::TranspositionTable;
use super::{Limits, SearchControl, SearchFeatures};
use crate::shogi::game::HistoryEntry;
use crate::shogi::{Move, Position};

/// What all threads of one search share.
pub(super) struct Shared<'a> {
    pub(super) tt: &'a TranspositionTable,
    pub(super) control: &'a SearchControl,
    pub(super) limits: &'a Limits,
    pub(super) features: SearchFeatures,
    pub(super) params: SearchParams,
    pub(super) multipv: usize,
    /// Below full strength: the level, whose move is chosen among the MultiPV candidates.
    pub(super) skill: Option<Skill>,
    pub(super) max_plies: Option<u32>,
    /// Stops the helpers when the main thread is done.
    pub(super) abort: AtomicBool,
    /// Per-thread node counts, published at each poll.
    pub(super) nodes: Vec<AtomicU64>,
    /// Each helper's best root move after its last completed iteration, by thread id (0, the
    /// main thread's, stays empty): published as they go, so that the main thread never waits
    /// for them to vote.
    pub(super) best: Vec<Mutex<Option<ThreadBest>>>,
    pub(super) root: &'a Position,
    pub(super) root_moves: Vec<Move>,
    pub(super) history: &'a [HistoryEntry],
}

/// A thread's best root move after an iteration it completed, for the vote.
#[derive(Clone, Debug)]
pub(super) struct ThreadBest {
    pub(super) mv: Move,
    pub(super) score: i32,
    pub(super) depth: i32,
    pub(super) pv: Vec<Move>,
}

impl Shared<'_> {
    pub(super) fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Relaxed)).sum()
    }
}
