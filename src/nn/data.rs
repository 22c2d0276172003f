//! Labelled positions that need no search: the seed's "mate and pre-mate" pretraining data.
//!
//! Seeded random playouts over legal moves; whenever the side to move has a mating move, the
//! position is labelled 1 (the side to move wins) and the position after the mate 0 (the side
//! to move has lost). Used to measure network shapes and training throughput; a pretraining
//! command can use it as its first stage.

use super::features::{Features, NUM_FEATURES};
use super::train::Dataset;
use crate::shogi::{Move, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Longest random game before starting a new one.
const MAX_PLIES: usize = 200;

/// A mating move of the side to move, if there is one.
pub fn find_mate_in_one(pos: &Position) -> Option<Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .find(|&mv| pos.gives_check(mv) && pos.after(mv).is_checkmate())
}

/// `pairs` (pre-mate, mated) position pairs with targets 1 and 0, deterministic in `seed`.
pub fn mate_positions(pairs: usize, seed: u64) -> Vec<(Position, f32)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(2 * pairs);
    while out.len() < 2 * pairs {
        let mut pos = Position::startpos();
        for _ in 0..MAX_PLIES {
            if out.len() >= 2 * pairs {
                break;
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if let Some(mate) = find_mate_in_one(&pos) {
                out.push((pos.clone(), 1.0));
                out.push((pos.after(mate), 0.0));
            }
            let mv = moves.as_slice()[rng.gen_range(0..moves.len())];
            pos.make_move(mv);
        }
    }
    out
}

/// Feature rows of [`mate_positions`]: `n` examples (rounded up to even), half of each label.
pub fn mate_dataset(n: usize, seed: u64) -> Dataset {
    let positions = mate_positions(n.div_ceil(2), seed);
    let mut data = Dataset::with_capacity(NUM_FEATURES, positions.len());
    let mut f = Features::new();
    for (pos, target) in &positions {
        f.extract(pos);
        data.push(f.values(), *target);
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_true() {
        let positions = mate_positions(300, 4);
        assert_eq!(positions.len(), 600);
        for pair in positions.chunks(2) {
            let (pre, t1) = &pair[0];
            let (mated, t0) = &pair[1];
            assert_eq!((*t1, *t0), (1.0, 0.0));
            assert!(find_mate_in_one(pre).is_some());
            assert!(mated.is_checkmate());
            assert_ne!(pre.side_to_move(), mated.side_to_move());
        }
        // Deterministic in the seed.
        assert_eq!(mate_positions(50, 4), positions[..100].to_vec());
    }

    #[test]
    fn dataset_rows_are_the_features() {
        let d = mate_dataset(40, 9);
        let positions = mate_positions(20, 9);
        assert_eq!(d.len(), 40);
        for (i, (pos, t)) in positions.iter().enumerate() {
            assert_eq!(
                d.features(i),
                Features::from_position(pos).values().as_slice()
            );
            assert_eq!(d.target(i), *t);
        }
    }
}
