//! Random play over legal moves: random openings (`engine datagen`), and positions for tests,
//! benchmarks and examples. Every move is drawn as `rng.gen_range(0..n)` over the legal moves
//! in generation order, so a seed always gives the same games.

use rand::Rng;

use super::game::Game;
use super::position::Position;
use super::types::Move;

/// A uniformly random legal move of `pos`, or `None` when it has none.
pub fn random_legal_move(pos: &Position, rng: &mut impl Rng) -> Option<Move> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    Some(moves.as_slice()[rng.gen_range(0..moves.len())])
}

/// Plays up to `plies` random legal moves in `game`, stopping early when the game is over.
pub fn play_random_moves(game: &mut Game, plies: usize, rng: &mut impl Rng) {
    for _ in 0..plies {
        if game.status().is_over() {
            return;
        }
        let Some(mv) = random_legal_move(game.position(), rng) else {
            return;
        };
        game.play(mv).expect("a generated move is legal");
    }
}

/// `n` positions from seeded random playouts over legal moves: every position along each game,
/// games of 1 to `max_plies - 1` plies, ending early at mate. A spread of openings, middlegames
/// and endgames for tests and benchmarks of the evaluator.
pub fn random_positions(n: usize, seed: u64, max_plies: usize) -> Vec<Position> {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::startpos();
        for _ in 0..rng.gen_range(1..max_plies) {
            if out.len() >= n {
                break;
            }
            let Some(mv) = random_legal_move(&pos, &mut rng) else {
                break;
            };
            pos.make_move(mv);
            out.push(pos.clone());
        }
    }
    out
}

/// A random position reached by up to 59 random legal moves from the start, not finished
/// (the side to move has a legal move).
pub fn random_position(rng: &mut impl Rng) -> Position {
    'game: loop {
        let mut pos = Position::startpos();
        let plies = rng.gen_range(0..60);
        for _ in 0..plies {
            let Some(mv) = random_legal_move(&pos, rng) else {
                continue 'game;
            };
            pos.make_move(mv);
        }
        if pos.has_legal_move() {
            return pos;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn random_play_is_legal_and_seeded() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut game = Game::startpos();
        play_random_moves(&mut game, 30, &mut rng);
        assert!(game.plies() > 0);
        assert_eq!(random_positions(50, 3, 40), random_positions(50, 3, 40));
        assert_eq!(random_positions(50, 3, 40).len(), 50);
        let pos = random_position(&mut rng);
        assert!(pos.has_legal_move());
        assert!(
            pos.legal_moves()
                .as_slice()
                .contains(&random_legal_move(&pos, &mut rng).unwrap())
        );
    }
}
