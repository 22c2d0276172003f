//! `engine tune`: tuning the search's (or the classical evaluator's) parameters by matches, with SPSA (as chess engines use
//! it) or the seed's particle swarm. The parameters come from a parameters file
//! (`search::params_file`: name, value, min, max, step); each step plays a match of the engine
//! against itself with the match runner and moves the values; the state (values, random
//! generator, swarm, the run's rows) is written atomically after every step, so a stopped run
//! continues where it was.
//!
//! - [`space`]: the tuned parameters, their ranges, and the parameters file written back.
//! - [`spsa`], [`pso`]: the two methods, on any [`Objective`] (a match, or a toy function in
//!   the tests).
//! - [`state`]: the state file. [`report`]: the run's CSV and SVG plot.
//! - [`games`]: the objective that plays matches. [`cli`]: the command, its run loop and
//!   progress display; [`args`]: its arguments, and what is tuned (search parameters or the
//!   classical evaluator's).
//! - [`texel`]: the fast fitness — Texel's method, the logistic loss of the classical
//!   evaluation on datagen positions — with the same swarm and SPSA.

pub mod args;
pub mod cli;
pub mod games;
pub mod pso;
pub mod report;
pub mod rng;
pub mod space;
pub mod spsa;
pub mod state;
pub mod texel;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

/// Results of a match from the first side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
}

impl Outcome {
    pub fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    /// Points per game, 0..=1 (0.5 for no games).
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (self.wins as f64 + 0.5 * self.draws as f64) / n as f64,
        }
    }
}

/// What the tuners measure: how values `a` fare against values `b`.
pub trait Objective {
    /// Plays `a` against `b` (values within their ranges, not rounded; `names` label them) for
    /// one step's games and returns `a`'s results. `round` numbers the comparisons that belong
    /// together (SPSA's step, PSO's iteration), so that an implementation can give them the
    /// same openings and others different ones.
    fn play(
        &mut self,
        a: &[f64],
        b: &[f64],
        names: [&str; 2],
        round: usize,
    ) -> Result<Outcome, String>;
}
