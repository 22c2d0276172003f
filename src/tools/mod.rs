//! Command-line tools (perft, eval, ...). `src/main.rs` only wires them.

pub mod convert;
pub mod eval;
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
