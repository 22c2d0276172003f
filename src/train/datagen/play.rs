//! One self-play game of `engine datagen`: an opening with random plies, then the full search
//! at a node budget for both sides, every searched position recorded, decided games adjudicated.
//! A game depends only on its seed, the settings and the network: the player starts each game
//! empty and searches with one thread and node limits, so any machine plays the same game.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::format::{Ending, GameRecord, GameSettings, PositionRecord, SoftRule};
use crate::matches::openings::Opening;
use crate::player::Player;
use crate::search::score::to_stored;
use crate::search::{Limits, Score, SearchControl, SearchResult};
use crate::shogi::random::play_random_moves;
use crate::shogi::{Color, Game, GameStatus};
use crate::train::packed::PackedPosition;

/// Draws of an opening before the last one is kept whatever its score.
const OPENING_ATTEMPTS: u32 = 50;

/// What it cost to play a game: the searches made (openings drawn again included) and their
/// nodes. Not stored in the shard; the run's report sums it (nodes a position).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameCost {
    pub searches: u64,
    pub nodes: u64,
}

/// Plays game `index` (seeded by `seed`) with `player`. `openings` empty = the start position.
/// Returns `None` if `abort` was set meanwhile.
pub fn play_game(
    player: &mut dyn Player,
    settings: &GameSettings,
    openings: &[Opening],
    index: u64,
    seed: u64,
    abort: &AtomicBool,
) -> Option<GameRecord> {
    play_game_with_cost(player, settings, openings, index, seed, abort).map(|(game, _)| game)
}

/// [`play_game`], with what the game cost.
pub fn play_game_with_cost(
    player: &mut dyn Player,
    settings: &GameSettings,
    openings: &[Opening],
    index: u64,
    seed: u64,
    abort: &AtomicBool,
) -> Option<(GameRecord, GameCost)> {
    let mut cost = GameCost::default();
    let game = play(player, settings, openings, index, seed, abort, &mut cost)?;
    Some((game, cost))
}

fn play(
    player: &mut dyn Player,
    settings: &GameSettings,
    openings: &[Opening],
    index: u64,
    seed: u64,
    abort: &AtomicBool,
    cost: &mut GameCost,
) -> Option<GameRecord> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let limits = Limits {
        nodes: Some(settings.hard_nodes),
        soft_nodes: Some(settings.soft_nodes),
        soft_nodes_predicted: settings.soft_rule == SoftRule::Predicted,
        ..Limits::default()
    };
    let control = SearchControl::default();
    let mut search = |player: &mut dyn Player, game: &Game| -> SearchResult {
        let result = player.search(game, &limits, &control, &mut |_| {});
        cost.searches += 1;
        cost.nodes += result.nodes;
        result
    };

    // The opening: random plies from a drawn start, drawn again while the side to move's
    // score is out of balance (or the random plies ended the game).
    let (mut game, mut first) = {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut game = match openings.len() {
                0 => Game::startpos(),
                n => openings[rng.gen_range(0..n)].game(),
            };
            game.set_max_plies(Some(settings.max_plies));
            play_random_moves(&mut game, settings.random_plies as usize, &mut |n| {
                rng.gen_range(0..n)
            });
            if game.status().is_over() {
                if attempt < OPENING_ATTEMPTS {
                    continue;
                }
                // Nothing but finished openings: an empty game record says so.
                return Some(finish(index, &game, Vec::new(), None));
            }
            player.clear();
            let result = search(player, &game);
            let balanced = match result.score {
                Score::Cp(cp) => cp.abs() <= settings.max_opening_score,
                Score::Mate(_) => false,
            };
            if balanced || attempt >= OPENING_ATTEMPTS {
                break (game, Some(result));
            }
        }
    };

    let mut positions = Vec::new();
    let mut streak: Option<(Color, u32)> = None;
    loop {
        if game.status().is_over() {
            return Some(finish(index, &game, positions, None));
        }
        if abort.load(Ordering::Relaxed) {
            return None;
        }
        let result = match first.take() {
            Some(result) => result,
            None => search(player, &game),
        };
        let pos = game.position();
        let mover = pos.side_to_move();
        let Some(best) = result.best else {
            // No legal move: the rules have ended the game (checked above); defensive.
            return Some(finish(index, &game, positions, None));
        };
        positions.push(PositionRecord {
            position: PackedPosition::pack(pos),
            score: to_stored(result.score),
            best_move: best.raw(),
            ply: game.plies().min(u16::MAX as usize) as u16,
            in_check: pos.in_check(),
            best_is_capture: pos.piece_at(best.to()).is_some(),
        });
        match result.score {
            Score::Mate(n) if n > 0 => {
                return Some(finish(
                    index,
                    &game,
                    positions,
                    Some((mover, Ending::SearchMate)),
                ));
            }
            Score::Mate(_) => {
                return Some(finish(
                    index,
                    &game,
                    positions,
                    Some((!mover, Ending::SearchMate)),
                ));
            }
            Score::Cp(cp) if settings.adjudicate_score > 0 => {
                let leader = if cp >= settings.adjudicate_score {
                    Some(mover)
                } else if cp <= -settings.adjudicate_score {
                    Some(!mover)
                } else {
                    None
                };
                streak = match (leader, streak) {
                    (Some(c), Some((s, n))) if c == s => Some((c, n + 1)),
                    (Some(c), _) => Some((c, 1)),
                    (None, _) => None,
                };
                if let Some((winner, n)) = streak
                    && n >= settings.adjudicate_plies
                {
                    return Some(finish(
                        index,
                        &game,
                        positions,
                        Some((winner, Ending::Score)),
                    ));
                }
            }
            Score::Cp(_) => {}
        }
        game.play(best).expect("the search returns legal moves");
    }
}

/// The record of a finished game: `adjudicated` overrides the game's own status.
fn finish(
    index: u64,
    game: &Game,
    positions: Vec<PositionRecord>,
    adjudicated: Option<(Color, Ending)>,
) -> GameRecord {
    let (winner, ending) = match adjudicated {
        Some((winner, ending)) => (Some(winner.into()), ending),
        None => match game.status() {
            GameStatus::Win { winner, .. } => (Some(winner.into()), Ending::Rules),
            GameStatus::Draw(_) | GameStatus::Ongoing => (None, Ending::MaxPlies),
        },
    };
    GameRecord {
        index,
        winner,
        ending,
        positions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchOptions;
    use crate::train::datagen::format::{Ending, Side};

    fn settings() -> GameSettings {
        GameSettings {
            soft_nodes: 300,
            soft_rule: SoftRule::Started,
            hard_nodes: 3000,
            random_plies: 6,
            max_opening_score: 1000,
            adjudicate_score: 3000,
            adjudicate_plies: 6,
            max_plies: 200,
            hash_mb: 1,
        }
    }

    #[test]
    fn a_game_is_a_chain_of_searched_moves_with_a_consistent_result() {
        let options = SearchOptions {
            hash_mb: 1,
            ..SearchOptions::default()
        };
        let mut player = crate::players::new_player(crate::players::ALPHABETA, options).unwrap();
        player.set_evaluator(crate::nn::engine_evaluator());
        let searcher = &mut *player;
        let abort = AtomicBool::new(false);
        for seed in 0..4 {
            let game = play_game(searcher, &settings(), &[], seed, seed, &abort).unwrap();
            assert_eq!(game.index, seed);
            assert!(!game.positions.is_empty());
            // After the random plies, each position follows from the last by its best move.
            assert_eq!(game.positions[0].ply, settings().random_plies as u16);
            for pair in game.positions.windows(2) {
                let pos = pair[0].position.unpack().unwrap();
                let mv = pair[0].best_move();
                assert!(pos.is_legal(mv), "{mv} in {}", pos.to_sfen());
                assert_eq!(pair[0].best_is_capture, pos.piece_at(mv.to()).is_some());
                assert_eq!(pair[0].in_check, pos.in_check());
                assert_eq!(PackedPosition::pack(&pos.after(mv)), pair[1].position);
                assert_eq!(pair[1].ply, pair[0].ply + 1);
            }
            let last = game.positions.last().unwrap();
            let mover = if last.position.gote_to_move() {
                Side::Gote
            } else {
                Side::Sente
            };
            match game.ending {
                // The search's mate decides: the side it favours wins.
                Ending::SearchMate => {
                    assert!(last.is_mate_score());
                    let winner = if last.score > 0 { mover } else { other(mover) };
                    assert_eq!(game.winner, Some(winner));
                }
                Ending::Score => {
                    assert!(last.score.abs() >= settings().adjudicate_score);
                    let winner = if last.score > 0 { mover } else { other(mover) };
                    assert_eq!(game.winner, Some(winner));
                }
                // By the rules the game ended after the last move; the loser is to move then.
                Ending::Rules => {
                    let end = last.position.unpack().unwrap().after(last.best_move());
                    assert!(game.winner.is_some());
                    if !end.has_legal_move() {
                        assert_eq!(game.winner, Some(mover), "the last mover mated");
                    }
                }
                Ending::MaxPlies => assert_eq!(game.winner, None),
            }
            // The same seed plays the same game, whatever the searcher did before; its cost is
            // a search a position (and one for each opening drawn again), each within the
            // hard node limit.
            let (again, cost) =
                play_game_with_cost(searcher, &settings(), &[], seed, seed, &abort).unwrap();
            assert_eq!(again, game);
            let positions = game.positions.len() as u64;
            assert!(cost.searches >= positions, "{cost:?}");
            assert!(cost.searches <= positions + u64::from(OPENING_ATTEMPTS));
            assert!(cost.nodes >= cost.searches, "{cost:?}");
            assert!(
                cost.nodes <= cost.searches * settings().hard_nodes,
                "{cost:?}"
            );
        }
        // An abort ends a game without a record.
        abort.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(play_game(searcher, &settings(), &[], 9, 9, &abort).is_none());
    }

    fn other(side: Side) -> Side {
        match side {
            Side::Sente => Side::Gote,
            Side::Gote => Side::Sente,
        }
    }
}
