//! The player seam: what plays a move, whatever the algorithm. A [`Player`] is given a game,
//! limits and a stop control; it reports its iterations as [`SearchEvent`]s and returns the
//! best move (and ponder move). It holds its options (hash, threads, MultiPV, strength,
//! parameters: [`SearchOptions`]), its memory (allocated ahead, cleared between games) and its
//! evaluator.
//!
//! Why here, one layer above `search/` and not inside it: the factory [`new_player`] names every
//! implementation, and a second one (Monte Carlo tree search) is a sibling of alpha-beta, not
//! part of it. The callers — the USI session and `engine play` (`protocol/`), datagen and
//! self-play (`train/`), the book builder (`book/build/`) — name only this module, so a new
//! player plugs in here, by one name, and in the USI option `Search` and the `--search` flags
//! that go through [`new_player`]. The search's own types (limits, control, events, results,
//! options) are the seam's vocabulary and stay in `search::types`.

use std::sync::Arc;

use crate::eval::Evaluator;
use crate::mcts::policy::MovePolicy;
use crate::mcts::{Mcts, Mode};
use crate::search::{Limits, SearchControl, SearchEvent, SearchOptions, SearchResult, Searcher};
use crate::shogi::Game;

/// Plays moves: one search at a time, on the calling thread (which may be moved to another
/// thread between searches, hence `Send`).
pub trait Player: Send {
    /// The name [`new_player`] knows it by.
    fn name(&self) -> &'static str;

    fn options(&self) -> &SearchOptions;

    /// Changes take effect at the next [`allocate`](Player::allocate) or search.
    fn options_mut(&mut self) -> &mut SearchOptions;

    fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>);

    /// The move policy of a player that takes priors from one (MCTS); others ignore it.
    fn set_policy(&mut self, _policy: Arc<MovePolicy>) {}

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

/// The player by default: the alpha-beta search.
pub const ALPHABETA: &str = "alphabeta";
/// Monte Carlo tree search, PUCT over the evaluator (`mcts::Mode::Puct`).
pub const MCTS: &str = "mcts";
/// Monte Carlo tree search as seed 003 plays it: UCB1 and random playouts (`mcts::Mode::Uct`).
pub const UCT: &str = "uct";

/// The names [`new_player`] knows, the default first.
pub const NAMES: &[&str] = &[ALPHABETA, MCTS, UCT];

/// The name among [`NAMES`] that `name` is (case-insensitively); an unknown name is refused
/// with the names known.
pub fn known_name(name: &str) -> Result<&'static str, String> {
    NAMES
        .iter()
        .find(|known| known.eq_ignore_ascii_case(name))
        .copied()
        .ok_or_else(|| format!("unknown search '{name}' (known: {})", NAMES.join(", ")))
}

/// The player called `name` (see [`known_name`]) with `options`: the one place that picks an
/// implementation.
pub fn new_player(name: &str, options: SearchOptions) -> Result<Box<dyn Player>, String> {
    match known_name(name)? {
        ALPHABETA => Ok(Box::new(Searcher::new(options))),
        MCTS => Ok(Box::new(Mcts::new(Mode::Puct, options))),
        UCT => Ok(Box::new(Mcts::new(Mode::Uct, options))),
        other => unreachable!("{other} is in NAMES without a player"),
    }
}

/// The alpha-beta search as a player.
impl Player for Searcher {
    fn name(&self) -> &'static str {
        ALPHABETA
    }

    fn options(&self) -> &SearchOptions {
        Searcher::options(self)
    }

    fn options_mut(&mut self) -> &mut SearchOptions {
        Searcher::options_mut(self)
    }

    fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>) {
        Searcher::set_evaluator(self, evaluator);
    }

    fn allocate(&mut self) {
        Searcher::allocate(self);
    }

    fn hash_size_mb(&self) -> usize {
        Searcher::hash_size_mb(self)
    }

    fn clear(&mut self) {
        Searcher::clear(self);
    }

    fn clear_heuristics(&mut self) {
        Searcher::clear_heuristics(self);
    }

    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_event: &mut dyn FnMut(&SearchEvent),
    ) -> SearchResult {
        Searcher::search(self, game, limits, control, on_event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factory_knows_its_players_and_refuses_other_names() {
        for name in NAMES {
            let player = new_player(&name.to_uppercase(), SearchOptions::default()).unwrap();
            assert_eq!(player.name(), *name);
        }
        let error = new_player("minimax", SearchOptions::default())
            .err()
            .unwrap();
        assert_eq!(
            error,
            "unknown search 'minimax' (known: alphabeta, mcts, uct)"
        );
    }

    #[test]
    fn every_player_searches_through_the_trait() {
        for name in NAMES {
            let mut player = new_player(name, SearchOptions::default()).unwrap();
            let limits = Limits {
                depth: Some(3),
                ..Limits::default()
            };
            let mut finished = 0;
            let result = player.search(
                &Game::startpos(),
                &limits,
                &SearchControl::default(),
                &mut |event| finished += matches!(event, SearchEvent::Finished(_)) as u32,
            );
            assert_eq!(finished, 1);
            assert!(result.best.is_some());
        }
    }
}
