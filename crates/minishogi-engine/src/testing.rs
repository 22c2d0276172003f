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

/// Pairs of positions for tests of what changes between two: from each of `n` random positions
/// (as [`random_positions`]), the result of every legal move, the position itself (a null
/// change) and the next, unrelated position.
pub fn position_pairs(n: usize, seed: u64, max_plies: usize) -> Vec<(Position, Position)> {
    let positions = random_positions(n, seed, max_plies);
    let mut pairs = Vec::new();
    for (k, before) in positions.iter().enumerate() {
        for &mv in before.legal_moves().iter() {
            pairs.push((before.clone(), before.after(mv)));
        }
        pairs.push((before.clone(), before.clone()));
        pairs.push((before.clone(), positions[(k + 1) % positions.len()].clone()));
    }
    pairs
}
