//! Command-line tools (perft, eval, ...). `src/main.rs` only wires them.

pub mod convert;
pub mod eval;
pub mod mate_oracle;
pub mod perft;
pub mod plot;
pub mod scale;
pub mod ttd;

use crate::shogi::{Game, Position};

/// The position a tool's `--sfen` / `--moves` arguments describe: the SFEN (or the start
/// position) with the moves (USI or course notation) played. Errors name the bad part.
pub fn position_from(sfen: Option<&str>, moves: &[String]) -> Result<Position, String> {
    let start = match sfen {
        Some(s) => Position::from_sfen(s).map_err(|e| format!("bad --sfen: {e}"))?,
        None => Position::startpos(),
    };
    let mut game = Game::new(start);
    game.play_texts(moves)
        .map_err(|(index, e)| format!("bad move {} in --moves: {e}", index + 1))?;
    Ok(game.position().clone())
}

/// `n` positions from seeded random playouts over legal moves: every position along each game,
/// games of 1 to `max_plies - 1` plies, ending early at mate. A spread of openings, middlegames
/// and endgames for tests and benchmarks of the evaluator.
pub fn random_positions(n: usize, seed: u64, max_plies: usize) -> Vec<Position> {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::startpos();
        for _ in 0..rng.gen_range(1..max_plies) {
            let moves = pos.legal_moves();
            if moves.is_empty() || out.len() >= n {
                break;
            }
            pos.make_move(moves.as_slice()[rng.gen_range(0..moves.len())]);
            out.push(pos.clone());
        }
    }
    out
}

/// A random position reached by up to 59 random legal moves from the start, not finished
/// (the side to move has a legal move).
pub fn random_position(rng: &mut impl rand::Rng) -> Position {
    loop {
        let mut pos = Position::startpos();
        let plies = rng.gen_range(0..60);
        let mut ok = true;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            pos.make_move(moves[rng.gen_range(0..moves.len())]);
        }
        if ok && pos.has_legal_move() {
            return pos;
        }
    }
}
