//! The players by name: the one factory ([`new_player`]) over the player seam
//! ([`Player`](crate::player::Player)), above both implementations — the alpha-beta
//! [`Searcher`] (whose `Player` implementation is here, as the search does not know the seam)
//! and MCTS (`mcts::Mcts`, which implements the seam itself). What only some players read
//! (MCTS's numbers and move policy) is given at construction ([`PlayerOptions`]); every
//! player's numbers by name, as hidden USI options and parameters files set them:
//! [`PlayerParams`].

use std::sync::Arc;

use crate::eval::Evaluator;
use crate::mcts::policy::MovePolicy;
use crate::mcts::{Mcts, MctsParams, Mode};
use crate::player::Player;
use crate::search::params_file::{self, ParamsFileError};
use crate::search::{
    Limits, ParamError, ParamSpec, SearchControl, SearchEvent, SearchOptions, SearchParams,
    SearchResult, Searcher,
};
use crate::shogi::Game;

/// The player by default: the alpha-beta search.
pub const ALPHABETA: &str = "alphabeta";
/// Monte Carlo tree search, PUCT over the evaluator (`mcts::Mode::Puct`).
pub const MCTS: &str = Mode::Puct.name();
/// Monte Carlo tree search as seed 003 plays it: UCB1 and random playouts (`mcts::Mode::Uct`).
pub const UCT: &str = Mode::Uct.name();

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

/// What a player is built with: the search options every player holds, and what only some
/// read — MCTS's numbers and its move policy — given here at construction so that the seam
/// ([`Player`]) carries no player's own setters. From [`SearchOptions`] alone: MCTS's default
/// numbers and the shipped move policy.
#[derive(Clone, Default)]
pub struct PlayerOptions {
    pub search: SearchOptions,
    pub mcts: MctsParams,
    /// MCTS's move policy; `None`: the shipped one.
    pub move_policy: Option<Arc<MovePolicy>>,
}

impl From<SearchOptions> for PlayerOptions {
    fn from(search: SearchOptions) -> PlayerOptions {
        PlayerOptions {
            search,
            ..PlayerOptions::default()
        }
    }
}

/// The player called `name` (see [`known_name`]) with `options`: the one place that picks an
/// implementation.
pub fn new_player(
    name: &str,
    options: impl Into<PlayerOptions>,
) -> Result<Box<dyn Player>, String> {
    let PlayerOptions {
        search,
        mcts,
        move_policy,
    } = options.into();
    match known_name(name)? {
        ALPHABETA => Ok(Box::new(Searcher::new(search))),
        MCTS => Ok(Box::new(Mcts::new(Mode::Puct, search, mcts, move_policy))),
        UCT => Ok(Box::new(Mcts::new(Mode::Uct, search, mcts, move_policy))),
        other => unreachable!("{other} is in NAMES without a player"),
    }
}

/// Whether the player called `name` is built with MCTS's numbers and move policy
/// ([`PlayerOptions`]): a session rebuilds such a player when they change.
pub fn takes_mcts_options(name: &str) -> bool {
    [MCTS, UCT].contains(&name)
}

/// Every player's tunable numbers, as hidden USI options and parameters files name them: the
/// search's table, then MCTS's (`search::params`, `mcts::params`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayerParams {
    pub search: SearchParams,
    pub mcts: MctsParams,
}

impl PlayerParams {
    pub const DEFAULT: PlayerParams = PlayerParams {
        search: SearchParams::DEFAULT,
        mcts: MctsParams::DEFAULT,
    };

    /// Every parameter, the search's first, in the order of their tables.
    pub fn specs() -> impl Iterator<Item = &'static ParamSpec> {
        SearchParams::SPECS.iter().chain(MctsParams::SPECS)
    }

    /// The name, default and range of the parameter `name`, in either table.
    pub fn spec(name: &str) -> Option<ParamSpec> {
        SearchParams::spec(name).or_else(|| MctsParams::spec(name))
    }

    /// Sets the parameter `name` of whichever table has it to `value`, in its range.
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), ParamError> {
        if SearchParams::spec(name).is_some() {
            self.search.set(name, value)
        } else {
            self.mcts.set(name, value)
        }
    }

    /// The parameters a parameters file's text gives (`search::params_file`'s format): the
    /// defaults with the file's values set.
    pub fn from_text(text: &str) -> Result<PlayerParams, ParamsFileError> {
        let mut params = PlayerParams::DEFAULT;
        for entry in params_file::parse_with(text, "search parameter", PlayerParams::spec)? {
            params
                .set(entry.spec.name, params_file::round_value(entry.value))
                .expect("parse checked the name and range");
        }
        Ok(params)
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
    fn player_params_are_the_search_table_then_mcts_by_name() {
        let names: Vec<&str> = PlayerParams::specs().map(|s| s.name).collect();
        let tables: Vec<&str> = SearchParams::SPECS
            .iter()
            .chain(MctsParams::SPECS)
            .map(|s| s.name)
            .collect();
        assert_eq!(names, tables);
        let first_mcts = names.iter().position(|n| n.starts_with("mcts_")).unwrap();
        assert!(names[first_mcts..].iter().all(|n| n.starts_with("mcts_")));
        assert_eq!(
            names.iter().collect::<std::collections::HashSet<_>>().len(),
            names.len()
        );
        let params = PlayerParams::from_text("rfp_margin 100\nmcts_c_centi 120\n").unwrap();
        assert_eq!(params.search.rfp_margin, 100);
        assert_eq!(params.mcts.mcts_c_centi, 120);
        assert_eq!(
            PlayerParams::from_text("mcts_c_centi 0\n")
                .unwrap_err()
                .to_string(),
            "line 1: mcts_c_centi: value 0 is outside the parameter's range 1..=2000"
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
