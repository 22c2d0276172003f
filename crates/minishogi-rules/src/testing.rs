//! For tests, of this crate and of the crates above it: a small seeded generator (the rules
//! depend on no random number crate) and random positions that favour captures, so that hands
//! fill up and drops abound.

use super::position::Position;
use super::random::random_legal_move;
use super::types::Move;

/// SplitMix64: a seeded generator good enough to spread test positions (not for statistics).
#[derive(Clone, Debug)]
pub struct TestRng(u64);

impl TestRng {
    pub fn new(seed: u64) -> TestRng {
        TestRng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// An index in `0..n` (`n > 0`); the modulo bias is negligible for the small `n` of tests.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `below` as the `draw` of [`crate::random`].
    pub fn draw(&mut self) -> impl FnMut(usize) -> usize + '_ {
        |n| self.below(n)
    }
}

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
