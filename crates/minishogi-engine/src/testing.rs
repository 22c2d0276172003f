//! For tests, benchmarks and examples: the rules' random play (`shogi::random`, which brings no
//! generator of its own) drawn from `rand`'s seeded `StdRng`, so that a seed always gives the same
//! positions.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::shogi::Position;

/// The `draw` of `shogi::random` from `StdRng` seeded with `seed`: `draw(n)` is
/// `rng.gen_range(0..n)`.
pub fn seeded_draw(seed: u64) -> impl FnMut(usize) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    move |n| rng.gen_range(0..n)
}

/// `n` positions along random games of 1 to `max_plies - 1` plies from `seed`
/// (`shogi::random::random_positions`): a spread of openings, middlegames and endgames for tests
/// and benchmarks of the evaluator.
pub fn random_positions(n: usize, seed: u64, max_plies: usize) -> Vec<Position> {
    crate::shogi::random::random_positions(n, max_plies, &mut seeded_draw(seed))
}
