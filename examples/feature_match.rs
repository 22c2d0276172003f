//! A/B match of the search against itself with one selective technique switched off: the
//! default search plays one with FEATURE off (null_move, lmr, shallow_pruning or
//! check_extension), each random 4-ply opening with both colours, a fixed node count per move,
//! games refereed by `Game` (mate, no legal move, 千日手, perpetual check) and drawn at 150 plies.
//!
//! cargo run --release --example feature_match -- [FEATURE] [GAMES] [NODES]
//!     (defaults: null_move 100 20000)
//!
//! Matches between builds or engines are `engine match`; this one needs no USI option for the
//! switches.

use engine::search::{Limits, SearchControl, SearchFeatures, SearchOptions, Searcher};
use engine::shogi::{Color, Game, GameStatus, Move, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Plays one game between `players` (sente first) from `opening`.
fn play_game(
    players: [&mut Searcher; 2],
    opening: &[Move],
    nodes: u64,
    max_plies: u32,
) -> GameStatus {
    let mut game = Game::startpos();
    game.set_max_plies(Some(max_plies));
    for &mv in opening {
        game.play(mv).expect("opening move is legal");
    }
    let [sente, gote] = players;
    sente.clear();
    gote.clear();
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    while !game.status().is_over() {
        let player = if game.position().side_to_move() == Color::Sente {
            &mut *sente
        } else {
            &mut *gote
        };
        let r = player.search(&game, &limits, &SearchControl::default(), &mut |_| {});
        game.play(r.best.expect("the game is not over"))
            .expect("legal");
    }
    game.status()
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let feature = args.next().unwrap_or_else(|| "null_move".into());
    let number = |a: Option<String>, default: u64| -> Result<u64, String> {
        a.map_or(Ok(default), |s| s.parse().map_err(|e| format!("{s}: {e}")))
    };
    let games = number(args.next(), 100)? as usize;
    let nodes = number(args.next(), 20_000)?;
    let mut without = SearchFeatures::default();
    match feature.as_str() {
        "null_move" => without.null_move = false,
        "lmr" => without.lmr = false,
        "shallow_pruning" => without.shallow_pruning = false,
        "check_extension" => without.check_extension = false,
        other => return Err(format!("unknown feature {other}")),
    }
    let options = |features| SearchOptions {
        hash_mb: 16,
        features,
        ..SearchOptions::default()
    };
    let mut rng = StdRng::seed_from_u64(99);
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for pair in 0..games / 2 {
        // A random 4-ply opening that leaves a game to play.
        let opening = loop {
            let mut pos = Position::startpos();
            let mut moves = Vec::new();
            for _ in 0..4 {
                let legal = pos.legal_moves();
                let mv = legal[rng.gen_range(0..legal.len())];
                pos.make_move(mv);
                moves.push(mv);
            }
            if pos.has_legal_move() {
                break moves;
            }
        };
        for with_as in [Color::Sente, Color::Gote] {
            let mut with = Searcher::new(options(SearchFeatures::default()));
            let mut other = Searcher::new(options(without));
            let players = if with_as == Color::Sente {
                [&mut with, &mut other]
            } else {
                [&mut other, &mut with]
            };
            match play_game(players, &opening, nodes, 150) {
                GameStatus::Win { winner, .. } if winner == with_as => wins += 1,
                GameStatus::Win { .. } => losses += 1,
                _ => draws += 1,
            }
        }
        let n = (wins + losses + draws) as f64;
        let score = (wins as f64 + draws as f64 / 2.0) / n;
        println!(
            "pair {pair}: with {feature}: +{wins} -{losses} ={draws}  score {:.3}  elo {:+.0}",
            score,
            -400.0 * (1.0 / score.clamp(0.001, 0.999) - 1.0).log10()
        );
    }
    Ok(())
}
