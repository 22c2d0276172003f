//! Monte Carlo tree search, the second player beside alpha-beta (`players::new_player`'s
//! `mcts` and `uct`). Two modes:
//! - [`Mode::Uct`], seed 003's player: UCB1 over the moves, each leaf valued by one playout of
//!   uniformly random legal moves to the end of the game;
//! - [`Mode::Puct`]: PUCT with priors from the learned move policy (`policy`, trained on the
//!   alpha-beta search's choices; the switch `mcts_policy` off: the move ordering's classes,
//!   `prior`), each leaf valued by the evaluator (the network in play).
//!
//! Both prove what they can (`solver`: finished games, mates in one at expansion, proofs
//! propagated; optionally mates by checks at nodes visited often, by `search::mate`), judge repetitions and the ply limit by `Game` (the rules' one owner), keep
//! their tree in a pool sized by `USI_Hash` (`tree`), search on `Threads` threads sharing the
//! tree with virtual losses (`search`), and report as the alpha-beta search does (`report`).
//!
//! Where things are: `tree` (the node pool), `select` (UCB1 and PUCT), `policy` and `prior`
//! (PUCT's priors), `leaf` (a PUCT leaf's value, after a quiescence search), `playout`,
//! `solver`, `search` (simulations and limits), `report` (ranking, pv, info lines),
//! `params` (MCTS's numbers), `player` (the [`Mcts`] player: options, threads, the `Player`
//! trait).

mod leaf;
pub mod params;
mod player;
mod playout;
pub mod policy;
mod prior;
mod report;
mod search;
mod select;
mod solver;
mod tree;

pub use params::MctsParams;
pub use player::Mcts;
pub use playout::{PLAYOUT_PLIES, random_playout};
pub use prior::{PriorShape, priors as ordering_priors};
pub use tree::Node;

/// How leaves are valued and children chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// UCB1 and random playouts (seed 003).
    Uct,
    /// PUCT over the evaluator, priors from the move policy.
    Puct,
}

impl Mode {
    /// The name the player of this mode goes by (`players::new_player`'s, USI `Search`).
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Uct => "uct",
            Mode::Puct => "mcts",
        }
    }
}
