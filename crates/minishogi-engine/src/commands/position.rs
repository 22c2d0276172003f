//! The position a command's `--sfen` / `--moves` arguments describe (`perft`, `eval`).

use crate::shogi::{Game, Position};

/// The SFEN (or the start position) with the moves (USI or course notation) played. Errors
/// name the bad part.
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
