//! The player seam: what plays a move, whatever the algorithm. A [`Player`] is given a game,
//! limits and a stop control; it reports its iterations as [`SearchEvent`]s and returns the
//! best move (and ponder move). It holds its options (hash, threads, MultiPV, strength,
//! parameters: [`SearchOptions`]), its memory (allocated ahead, cleared between games) and its
//! evaluator.
//!
//! Why here, one layer above `search/` and not inside it: a second player (Monte Carlo tree
//! search) is a sibling of alpha-beta, not part of it. This module is the seam only, naming
//! neither implementation: MCTS (`mcts/`) implements it from below the factory, and the
//! factory (`players.rs`, above both) builds either by name. The callers — the USI session and
//! `engine play` (`protocol/`), datagen and self-play (`train/`), the book builder
//! (`book/build/`) — hold a `Box<dyn Player>` from the factory. The search's own types
//! (limits, control, events, results, options) are the seam's vocabulary and stay in
//! `search::types`.

use std::sync::Arc;

use crate::eval::Evaluator;
use crate::search::{Limits, SearchControl, SearchEvent, SearchOptions, SearchResult};
use crate::shogi::Game;

/// Plays moves: one search at a time, on the calling thread (which may be moved to another
/// thread between searches, hence `Send`).
pub trait Player: Send {
    /// The name the factory (`players::new_player`) knows it by.
    fn name(&self) -> &'static str;

    fn options(&self) -> &SearchOptions;

    /// Changes take effect at the next [`allocate`](Player::allocate) or search.
    fn options_mut(&mut self) -> &mut SearchOptions;

    fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>);

    /// Allocates what the options ask for (hash table, threads' memory) now, so that the first
    /// search does not pay for it.
    fn allocate(&mut self);

    /// The hash table's size as held, MiB (less than asked when memory was short).
    fn hash_size_mb(&self) -> usize;

    /// Forgets everything learnt (hash table and move-ordering memory).
    fn clear(&mut self);

    /// Forgets the move-ordering memory at once; the hash table is kept (zeroing a big one
    /// takes a while: see [`clear`](Player::clear)).
    fn clear_heuristics(&mut self);

    /// Searches `game.position()` (its history decides repetitions, its ply limit draws),
    /// reporting to `on_event` (`SearchEvent::Finished` last, exactly once). `best` is `None`
    /// only without a legal move. While `limits.infinite` or `control.ponder` is set, returns
    /// only after `stop` (or ponderhit) as USI requires.
    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_event: &mut dyn FnMut(&SearchEvent),
    ) -> SearchResult;
}
