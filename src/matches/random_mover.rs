//! `engine random`: a USI engine that plays a uniformly random legal move — a baseline opponent
//! for matches and a well-behaved partner for testing the referee.

use std::io::{self, BufRead, Write};

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use super::openings::Opening;
use crate::shogi::Position;

/// Answers USI commands from `input` until `quit` or the end of input.
pub fn run_random_engine(seed: u64, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut position = Position::startpos();
    for line in input.lines() {
        let line = line?;
        let command = line.split_whitespace().next().unwrap_or("");
        match command {
            "usi" => {
                writeln!(output, "id name random-mover")?;
                writeln!(output, "id author minishogi engine")?;
                writeln!(output, "usiok")?;
            }
            "isready" => writeln!(output, "readyok")?,
            "position" => match Opening::parse(&line) {
                Ok(opening) => {
                    position = opening.start;
                    for mv in opening.moves {
                        position.make_move(mv);
                    }
                }
                Err(e) => log::error!("bad position command '{line}': {e}"),
            },
            "go" => {
                let moves = position.legal_moves();
                match moves.choose(&mut rng) {
                    Some(mv) => writeln!(output, "bestmove {mv}")?,
                    None => writeln!(output, "bestmove resign")?,
                }
            }
            "quit" => break,
            // setoption, usinewgame, stop, gameover, ponderhit: nothing to do.
            _ => {}
        }
        output.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(input: &str) -> Vec<String> {
        let mut out = Vec::new();
        run_random_engine(7, input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    #[test]
    fn answers_usi_and_plays_legal_moves() {
        let out = session("usi\nisready\nposition startpos moves 2e1d\ngo byoyomi 100\nquit\ngo\n");
        assert_eq!(
            out[..4],
            [
                "id name random-mover",
                "id author minishogi engine",
                "usiok",
                "readyok"
            ]
        );
        assert_eq!(out.len(), 5, "nothing after quit: {out:?}");
        let best = out[4].strip_prefix("bestmove ").unwrap();
        let pos = Position::startpos().after(Position::startpos().parse_usi_move("2e1d").unwrap());
        assert!(pos.parse_usi_move(best).is_ok(), "{best}");
    }

    #[test]
    fn resigns_without_legal_moves() {
        // Gote is checkmated: king 1a, sente gold 1b protected by the silver on 2c.
        let out = session("position sfen 4k/4G/3S1/5/K4 w - 1\ngo\n");
        assert_eq!(out, ["bestmove resign"]);
    }
}
