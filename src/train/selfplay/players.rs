//! Who chooses the moves — the network being trained (one-ply softmax or a search) or the
//! material-greedy yardstick — and the self-play game itself.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::nn::{self, Features};
use crate::player::Player as SearchPlayer;
use crate::players::{self as search_players, new_player};
use crate::search::{Limits, SearchControl, SearchOptions};
use crate::shogi::{Game, GameStatus, Move, Position};

/// How moves are chosen.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// Softmax temperature over the movers' logits; 0 = always the best move.
    pub temperature: f32,
    /// Alpha-beta depth of the move choice (0 = the one-ply softmax above).
    pub depth: u32,
    /// With `depth > 0`: share of moves still chosen by the one-ply softmax, for variety.
    pub epsilon: f32,
}

impl Policy {
    /// The one-ply policy at `temperature`.
    pub const fn one_ply(temperature: f32) -> Policy {
        Policy {
            temperature,
            depth: 0,
            epsilon: 0.0,
        }
    }
}

/// Transposition table of the per-game searcher of `--depth` self-play: shallow searches need
/// little, and every game allocates its own.
const SELFPLAY_HASH_MB: usize = 2;

/// One finished game: every position from the start to the end, the moves between them, the
/// network's value of each position (side to move's win probability) and the result.
#[derive(Clone, Debug)]
pub struct SelfplayGame {
    pub positions: Vec<Position>,
    pub moves: Vec<Move>,
    pub values: Vec<f32>,
    pub status: GameStatus,
}

impl SelfplayGame {
    /// Result for the side to move in the final position: 0 lost, 1 won, ½ drawn.
    pub fn final_return(&self) -> f32 {
        let last = self.positions.last().expect("a game has a position");
        match self.status {
            GameStatus::Win { winner, .. } if winner == last.side_to_move() => 1.0,
            GameStatus::Win { .. } => 0.0,
            GameStatus::Draw(_) | GameStatus::Ongoing => 0.5,
        }
    }

    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

/// Deterministic seed of game `game` of iteration `iteration` (SplitMix64 finaliser over the mix).
pub fn game_seed(seed: u64, iteration: u64, game: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(iteration.wrapping_mul(0xBF58_476D_1CE4_E5B9))
        .wrapping_add(game.wrapping_mul(0x94D0_49BB_1331_11EB))
        .wrapping_add(0x2545_F491_4F6C_DD1D);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Score (in logits, for the mover) of a move that ends the game by the rules.
const DECISIVE_LOGIT: f32 = 30.0;

/// Who chooses the moves of one side: a network, or the material-greedy baseline.
#[derive(Clone, Copy, Debug)]
pub enum Player<'a> {
    Net(&'a Arc<nn::NetworkEvaluator>),
    /// Material count (board and hands, `PieceKind::value`): an absolute yardstick that does
    /// not move with the networks being trained. One-ply with ties broken at random, or with a
    /// depth the search with its material evaluator.
    Material,
}

/// Material balance for the side to move, in pawns (no bonus for pieces in hand).
fn material(pos: &Position) -> f32 {
    crate::eval::material_balance(pos, 0) as f32 / 100.0
}

/// The mover's score of every legal move: `−logit V(s')`, i.e. the logit of `1 − V(s')`, or
/// ±[`DECISIVE_LOGIT`] where the move ends the game (mate, no legal move, or a 千日手 verdict —
/// the rules are exact there, so the evaluator is not asked).
fn score_moves(
    player: Player,
    game: &Game,
    moves: &[Move],
    features: &mut Features,
    rng: &mut SmallRng,
) -> Vec<f32> {
    let pos = game.position();
    let mover = pos.side_to_move();
    moves
        .iter()
        .map(|&mv| {
            let child = pos.after(mv);
            if !child.has_legal_move() {
                return DECISIVE_LOGIT;
            }
            if let Some(v) = game.repetition_verdict_after(&child) {
                return if v.loser == mover {
                    -DECISIVE_LOGIT
                } else {
                    DECISIVE_LOGIT
                };
            }
            match player {
                Player::Net(net) => {
                    features.extract(&child);
                    -net.fast().logit(features)
                }
                Player::Material => -material(&child) + rng.r#gen::<f32>() * 0.01,
            }
        })
        .collect()
}

/// Index of the chosen move: the best score at temperature 0 (first of equals), else a sample
/// of the softmax `exp(score / T)`.
fn choose(scores: &[f32], temperature: f32, rng: &mut SmallRng) -> usize {
    let (best, &max) = scores
        .iter()
        .enumerate()
        .fold((0, &f32::NEG_INFINITY), |acc, (i, s)| {
            if *s > *acc.1 { (i, s) } else { acc }
        });
    if temperature <= 0.0 {
        return best;
    }
    let weights: Vec<f32> = scores
        .iter()
        .map(|s| ((s - max) / temperature).exp())
        .collect();
    let total: f32 = weights.iter().sum();
    let mut x = rng.r#gen::<f32>() * total;
    for (i, w) in weights.iter().enumerate() {
        x -= w;
        if x <= 0.0 {
            return i;
        }
    }
    best
}

/// Plays `random_plies` uniformly random moves from the start position (stopping early if the
/// game ends).
pub(super) fn random_opening(game: &mut Game, random_plies: usize, rng: &mut SmallRng) {
    for _ in 0..random_plies {
        if game.status().is_over() {
            return;
        }
        let moves = game.position().legal_moves();
        let mv = *moves.choose(rng).expect("an ongoing game has a legal move");
        game.play(mv).expect("legal move");
    }
}

/// A fresh searcher for `player`'s moves: its network, or the search's material evaluator.
fn searcher_for(player: Player) -> Box<dyn SearchPlayer> {
    let options = SearchOptions {
        hash_mb: SELFPLAY_HASH_MB,
        threads: 1,
        ..SearchOptions::default()
    };
    let mut searcher =
        new_player(search_players::ALPHABETA, options).expect("the default search is known");
    if let Player::Net(evaluator) = player {
        searcher.set_evaluator(evaluator.clone());
    }
    searcher
}

/// Plays one game to its end with `players[color]` choosing for each side. With
/// `policy.depth > 0` each side's moves come from a search of that depth (its own searcher),
/// except an `epsilon` share chosen by the one-ply softmax.
pub(super) fn play_out(
    mut game: Game,
    players: [Player; 2],
    policy: Policy,
    rng: &mut SmallRng,
) -> (Game, Vec<Position>) {
    let mut searchers: Vec<Box<dyn SearchPlayer>> = if policy.depth > 0 {
        players.iter().map(|&p| searcher_for(p)).collect()
    } else {
        Vec::new()
    };
    let mut features = Features::new();
    let mut positions: Vec<Position> = Vec::new();
    // Reconstruct the positions of the opening already played.
    let mut pos = game.start_position().clone();
    positions.push(pos.clone());
    for &mv in game.moves() {
        pos.make_move(mv);
        positions.push(pos.clone());
    }
    while !game.status().is_over() {
        let side = game.position().side_to_move().index();
        if policy.depth > 0
            && rng.r#gen::<f32>() >= policy.epsilon
            && let Some(searcher) = searchers.get_mut(side)
        {
            let limits = Limits {
                depth: Some(policy.depth),
                ..Limits::default()
            };
            let result = searcher.search(&game, &limits, &SearchControl::default(), &mut |_| {});
            let mv = result.best.expect("an ongoing game has a legal move");
            game.play(mv).expect("the search returns legal moves");
            positions.push(game.position().clone());
            continue;
        }
        let moves = game.position().legal_moves();
        let player = players[side];
        let scores = score_moves(player, &game, &moves, &mut features, rng);
        let mv = moves[choose(&scores, policy.temperature, rng)];
        game.play(mv).expect("chosen among legal moves");
        positions.push(game.position().clone());
    }
    (game, positions)
}

/// Plays one self-play game: random opening, then the policy for both sides.
pub fn play_selfplay_game(
    evaluator: &Arc<nn::NetworkEvaluator>,
    policy: Policy,
    max_plies: u32,
    random_plies: usize,
    seed: u64,
) -> SelfplayGame {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::startpos();
    game.set_max_plies(Some(max_plies));
    let opening = rng.gen_range(0..=random_plies);
    random_opening(&mut game, opening, &mut rng);
    let (game, positions) = play_out(game, [Player::Net(evaluator); 2], policy, &mut rng);
    let net = evaluator.fast();
    let mut features = Features::new();
    let values = positions
        .iter()
        .map(|p| {
            features.extract(p);
            nn::sigmoid(net.logit(&features))
        })
        .collect();
    SelfplayGame {
        positions,
        moves: game.moves().to_vec(),
        values,
        status: game.status(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::{Color, EndReason, PieceKind};

    #[test]
    fn choice_is_greedy_at_zero_temperature_and_follows_the_softmax() {
        let mut rng = SmallRng::seed_from_u64(3);
        assert_eq!(choose(&[0.1, 2.0, -1.0, 2.0], 0.0, &mut rng), 1);
        let mut counts = [0usize; 2];
        for _ in 0..4000 {
            counts[choose(&[0.0, 1.0f32.ln() + 1.0], 1.0, &mut rng)] += 1;
        }
        // p(1) = e / (1 + e) ≈ 0.731.
        let p1 = counts[1] as f64 / 4000.0;
        assert!((p1 - 0.731).abs() < 0.03, "{p1}");
    }

    #[test]
    fn games_are_legal_and_deterministic() {
        let net = Arc::new(nn::NetworkEvaluator::with_default_network());
        let searching = Policy {
            temperature: 0.5,
            depth: 2,
            epsilon: 0.2,
        };
        for seed in 0..8 {
            // The last two games choose their moves by a depth-2 search.
            let policy = if seed < 6 {
                Policy::one_ply(0.5)
            } else {
                searching
            };
            let r = play_selfplay_game(&net, policy, 60, 4, seed);
            assert_eq!(r.positions.len(), r.moves.len() + 1);
            assert_eq!(r.values.len(), r.positions.len());
            assert!(r.status.is_over());
            let mut game = Game::startpos();
            game.set_max_plies(Some(60));
            for (i, &mv) in r.moves.iter().enumerate() {
                assert_eq!(game.position(), &r.positions[i]);
                assert!(game.position().is_legal(mv), "game {seed} ply {i}: {mv}");
                game.play(mv).unwrap();
            }
            assert_eq!(game.position(), r.positions.last().unwrap());
            assert_eq!(game.status(), r.status);
            if let GameStatus::Draw(reason) = r.status {
                assert_eq!(reason, EndReason::MaxPlies);
                assert_eq!(r.plies(), 60);
            }
            let again = play_selfplay_game(&net, policy, 60, 4, seed);
            assert_eq!(again.moves, r.moves);
            assert_eq!(again.values, r.values);
        }
    }

    #[test]
    fn final_return_is_from_the_last_side_to_move() {
        let net = Arc::new(nn::NetworkEvaluator::with_default_network());
        let r = play_selfplay_game(&net, Policy::one_ply(1.0), 200, 4, 11);
        let last = r.positions.last().unwrap();
        match r.status {
            GameStatus::Win { winner, reason } => {
                let expected = if winner == last.side_to_move() {
                    1.0
                } else {
                    0.0
                };
                assert_eq!(r.final_return(), expected);
                if matches!(reason, EndReason::Checkmate | EndReason::NoLegalMove) {
                    assert_eq!(r.final_return(), 0.0);
                }
            }
            _ => assert_eq!(r.final_return(), 0.5),
        }
    }

    #[test]
    fn material_counts_board_and_hands_for_the_side_to_move() {
        let start = Position::startpos();
        assert_eq!(material(&start), 0.0);
        let mut pos = start.clone();
        pos.set_hand_count(Color::Sente, PieceKind::Rook, 1);
        assert_eq!(material(&pos), 10.0);
        pos.set_side_to_move(Color::Gote);
        assert_eq!(material(&pos), -10.0);
    }
}
