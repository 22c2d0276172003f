//! Random play over legal moves: random openings (`engine datagen`), and positions for tests,
//! benchmarks and examples. The caller brings the randomness as `draw`, where `draw(n)` is an
//! index uniform in `0..n` (with `rand`: `&mut |n| rng.gen_range(0..n)`), so that the rules need
//! no generator of their own. Every move is `draw(number of legal moves)` over the legal moves in
//! generation order, so a seeded generator always gives the same games.

use super::game::Game;
use super::position::Position;
use super::types::Move;

/// A uniformly random legal move of `pos`, or `None` when it has none.
pub fn random_legal_move(pos: &Position, draw: &mut impl FnMut(usize) -> usize) -> Option<Move> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    Some(moves.as_slice()[draw(moves.len())])
}

/// Plays up to `plies` random legal moves in `game`, stopping early when the game is over.
pub fn play_random_moves(game: &mut Game, plies: usize, draw: &mut impl FnMut(usize) -> usize) {
    for _ in 0..plies {
        if game.status().is_over() {
            return;
        }
        let Some(mv) = random_legal_move(game.position(), draw) else {
            return;
        };
        game.play(mv).expect("a generated move is legal");
    }
}

/// `n` positions from random playouts over legal moves: every position along each game, games
/// of 1 to `max_plies - 1` plies (`1 + draw(max_plies - 1)`), ending early at mate. A spread of
/// openings, middlegames and endgames for tests and benchmarks of the evaluator.
pub fn random_positions(
    n: usize,
    max_plies: usize,
    draw: &mut impl FnMut(usize) -> usize,
) -> Vec<Position> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::startpos();
        for _ in 0..1 + draw(max_plies - 1) {
            if out.len() >= n {
                break;
            }
            let Some(mv) = random_legal_move(&pos, draw) else {
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
pub fn random_position(draw: &mut impl FnMut(usize) -> usize) -> Position {
    'game: loop {
        let mut pos = Position::startpos();
        let plies = draw(60);
        for _ in 0..plies {
            let Some(mv) = random_legal_move(&pos, draw) else {
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
    use crate::testing::TestRng;

    #[test]
    fn random_play_is_legal_and_seeded() {
        let mut rng = TestRng::new(5);
        let mut game = Game::startpos();
        play_random_moves(&mut game, 30, &mut rng.draw());
        assert!(game.plies() > 0);
        let positions = |seed| random_positions(50, 40, &mut TestRng::new(seed).draw());
        assert_eq!(positions(3), positions(3));
        assert_eq!(positions(3).len(), 50);
        let pos = random_position(&mut rng.draw());
        assert!(pos.has_legal_move());
        assert!(
            pos.legal_moves()
                .as_slice()
                .contains(&random_legal_move(&pos, &mut rng.draw()).unwrap())
        );
    }
}
