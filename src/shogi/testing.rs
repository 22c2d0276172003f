//! Test positions shared by unit tests: random games from the start position that favour
//! captures, so that hands fill up and drops abound.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::position::Position;
use super::random::random_legal_move;
use super::types::Move;

/// `count` positions with at least one legal move, each the end of a random game of 4–79
/// plies in which captures are preferred; the same `seed` gives the same positions.
pub fn random_positions_with_drops(seed: u64, count: usize) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut pos = Position::startpos();
        for _ in 0..rng.gen_range(4..80) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&m| !m.is_drop() && pos.piece_at(m.to()).is_some())
                .collect();
            let mv = if !captures.is_empty() && rng.gen_bool(0.7) {
                captures[rng.gen_range(0..captures.len())]
            } else {
                random_legal_move(&pos, &mut rng).expect("checked above")
            };
            pos.make_move(mv);
        }
        if pos.has_legal_move() {
            positions.push(pos);
        }
    }
    positions
}
