//! Command-line tools (perft, eval, ...). `src/main.rs` only wires them.

pub mod eval;
pub mod perft;

use crate::shogi::Position;

/// The position a tool's `--sfen` / `--moves` arguments describe: the SFEN (or the start
/// position) with the moves (USI or course notation) played. Errors name the bad part.
pub fn position_from(sfen: Option<&str>, moves: &[String]) -> Result<Position, String> {
    let mut pos = match sfen {
        Some(s) => Position::from_sfen(s).map_err(|e| format!("bad --sfen: {e}"))?,
        None => Position::startpos(),
    };
    for text in moves {
        let mv = pos
            .parse_move(text)
            .map_err(|e| format!("bad move in --moves: {e}"))?;
        pos.make_move(mv);
    }
    Ok(pos)
}
