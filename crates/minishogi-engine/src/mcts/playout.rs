//! The seed's playout: uniformly random legal moves to the end of the game (the rules core's
//! random mover, judged by `Game`: mate, no legal move, 千日手, the ply limit), scored for the
//! side to move where it started.

use rand::Rng;

use crate::shogi::random::play_random_moves;
use crate::shogi::{Color, Game, GameStatus};

/// A playout stops as a draw after this many plies when the game has no ply limit of its own
/// (random play in minishogi almost always ends sooner: drops give mates).
pub const PLAYOUT_PLIES: usize = 512;

/// The value of `status` for `side`: 1 for a win, 0 for a loss, ½ for a draw (or a game not
/// over).
pub fn value_for(status: GameStatus, side: Color) -> f64 {
    match status {
        GameStatus::Win { winner, .. } => {
            if winner == side {
                1.0
            } else {
                0.0
            }
        }
        GameStatus::Draw(_) | GameStatus::Ongoing => 0.5,
    }
}

/// Plays `game` out at random and returns the result for the side to move at the start.
pub fn random_playout(game: &mut Game, rng: &mut impl Rng) -> f64 {
    let side = game.position().side_to_move();
    play_random_moves(game, PLAYOUT_PLIES, &mut |n| rng.gen_range(0..n));
    value_for(game.status(), side)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Every playout is a sequence of legal moves that ends the game (or reaches the cap), and
    /// its value is the result for the side that started.
    #[test]
    fn playouts_are_legal_to_the_end() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut ended = 0;
        for _ in 0..200 {
            let mut game = Game::startpos();
            let value = random_playout(&mut game, &mut rng);
            let mut replay = Game::startpos();
            for &mv in game.moves() {
                assert!(replay.position().is_legal(mv), "{mv} illegal in replay");
                replay.play(mv).unwrap();
            }
            let status = replay.status();
            assert_eq!(status, game.status());
            if status.is_over() {
                ended += 1;
            } else {
                assert_eq!(game.plies(), PLAYOUT_PLIES);
            }
            assert_eq!(value, value_for(status, Color::Sente));
        }
        assert!(ended > 150, "most random games end: {ended}");
    }
}
