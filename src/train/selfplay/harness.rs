//! The in-process match harness of the progress measurements: greedy games between two
//! players from shared seeded openings, colours swapped. (The USI match runner, between engine
//! processes, is `matches`.)

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::players::{Player, Policy, game_seed, play_out, random_opening};
use crate::shogi::{Color, Game, GameStatus};

/// Result of a progress match, from the candidate's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MatchScore {
    pub games: usize,
    pub wins: usize,
    pub losses: usize,
    pub draws: usize,
}

impl MatchScore {
    /// Points per game: win 1, draw ½.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }
}

/// Plays `games` greedy games (rounded up to pairs) between `candidate` and `opponent`, one-ply
/// or with a search of `depth`: each pair starts from the same seeded random opening (2 to 4
/// plies), the candidate playing sente in one and gote in the other. The openings depend on
/// `seed` only, so matches of successive networks are played from the same positions.
pub fn play_match(
    candidate: Player,
    opponent: Player,
    games: usize,
    max_plies: u32,
    depth: u32,
    seed: u64,
) -> MatchScore {
    let pairs = games.div_ceil(2);
    let policy = Policy {
        temperature: 0.0,
        depth,
        epsilon: 0.0,
    };
    // Half-points of the candidate per game: 2 win, 1 draw, 0 loss.
    let outcomes: Vec<[u8; 2]> = (0..pairs)
        .into_par_iter()
        .map(|p| {
            let mut rng = SmallRng::seed_from_u64(game_seed(seed, u64::MAX, p as u64));
            let mut opening = Game::startpos();
            opening.set_max_plies(Some(max_plies));
            let plies = rng.gen_range(2..=4);
            random_opening(&mut opening, plies, &mut rng);
            let mut points = [0; 2];
            for (k, candidate_color) in [Color::Sente, Color::Gote].into_iter().enumerate() {
                let players = if candidate_color == Color::Sente {
                    [candidate, opponent]
                } else {
                    [opponent, candidate]
                };
                let (game, _) = play_out(opening.clone(), players, policy, &mut rng);
                points[k] = match game.status() {
                    GameStatus::Win { winner, .. } if winner == candidate_color => 2,
                    GameStatus::Win { .. } => 0,
                    _ => 1,
                };
            }
            points
        })
        .collect();
    let mut result = MatchScore::default();
    for p in outcomes.iter().flatten() {
        result.games += 1;
        match p {
            2 => result.wins += 1,
            0 => result.losses += 1,
            _ => result.draws += 1,
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn;
    use std::sync::Arc;

    #[test]
    fn a_network_scores_half_against_itself() {
        let net = Arc::new(nn::NetworkEvaluator::with_default_network());
        // Each opening is played from both sides by the same deterministic player, so every
        // pair scores exactly one point in total; one-ply and with a depth-2 search.
        for depth in [0, 2] {
            let m = play_match(Player::Net(&net), Player::Net(&net), 8, 60, depth, 5);
            assert_eq!(m.games, 8);
            assert_eq!(m.wins + m.losses + m.draws, 8);
            assert_eq!(m.score(), 0.5, "depth {depth}");
        }
        // The material player plays, with or without search.
        for depth in [0, 2] {
            let m = play_match(Player::Net(&net), Player::Material, 4, 40, depth, 5);
            assert_eq!(m.wins + m.losses + m.draws, 4, "depth {depth}");
        }
    }
}
