//! For tests, of this crate and of the crates above it: the seeded generator (`splitmix`: the
//! rules depend on no random number crate) and random positions that favour captures, so that
//! hands fill up and drops abound.

use super::position::Position;
use super::random::random_legal_move;
use super::splitmix::SplitMix64;
use super::types::Move;

/// The tests' generator: the rules' one SplitMix64.
pub type TestRng = SplitMix64;

/// `count` positions with at least one legal move, each the end of a random game of 4–79
/// plies in which captures are preferred (7 times in 10); the same `seed` gives the same
/// positions.
pub fn random_positions_with_drops(seed: u64, count: usize) -> Vec<Position> {
    let mut rng = TestRng::new(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut pos = Position::startpos();
        for _ in 0..4 + rng.below(76) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&m| !m.is_drop() && pos.piece_at(m.to()).is_some())
                .collect();
            let mv = if !captures.is_empty() && rng.below(10) < 7 {
                captures[rng.below(captures.len())]
            } else {
                random_legal_move(&pos, &mut rng.draw()).expect("checked above")
            };
            pos.make_move(mv);
        }
        if pos.has_legal_move() {
            positions.push(pos);
        }
    }
    positions
}
