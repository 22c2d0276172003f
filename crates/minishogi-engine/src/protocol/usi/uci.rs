//! UCI in Fairy-Stockfish's dialect for minishogi, spoken by cutechess-cli (`-variant minishogi
//! … proto=uci`) and other UCI tools: a translation over the USI session, not a second session.
//! Each input line becomes the USI line the session runs, and each output line goes back into
//! UCI on its way out (`Output` applies [`to_uci`] while the session speaks UCI).
//!
//! - `uci` switches the session to this dialect (and `usi` back); the session answers it with
//!   UCI's option names (`Hash`, `Ponder`, …) and `uciok`.
//! - `position startpos|fen <FEN> [moves …]`: the FEN and the moves (`a2a3`, `a4a5+`, `P@c3`)
//!   are read by the rules core (`shogi::fen`), checked move by move, and handed on as `position
//!   sfen … moves …` in USI notation; a bad FEN or move is an error naming it, and the position
//!   stays as it was. (`position sfen …` is passed on as USI.)
//! - `go`: sente is "white" in this dialect, so `wtime`/`winc` are sente's clock (USI's
//!   `btime`/`binc`) and `btime`/`binc` gote's; `searchmoves` are translated.
//! - `setoption name Hash|Ponder|OwnBook|UCI_LimitStrength|UCI_Elo` set the USI options they
//!   name; `ucinewgame` is `usinewgame`.
//! - Out: the moves of `bestmove … ponder …`, of `info … currmove …` and `info … pv …` and of
//!   perft's lines are written in UCI notation; `bestmove resign` is `bestmove (none)`.

use crate::shogi::Position;
use crate::shogi::fen::{uci_to_usi, usi_to_uci};

use super::command::{GO_KEYWORDS, quoted};
use super::options::usi_name_of;

/// One UCI input line as the USI line the session runs; `Err` is the message of the `info string
/// error` that answers it, the session unchanged.
pub fn to_usi(line: &str) -> Result<String, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match tokens.split_first() {
        Some((&"position", rest)) => position(line, rest),
        Some((&"go", rest)) => Ok(go(rest)),
        Some((&"setoption", _)) => Ok(setoption(line)),
        Some((&"ucinewgame", rest)) => Ok(["usinewgame"]
            .into_iter()
            .chain(rest.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")),
        _ => Ok(line.to_string()),
    }
}

/// `position startpos|fen <FEN> [moves …]` as `position startpos|sfen … moves …` in USI notation.
fn position(line: &str, tokens: &[&str]) -> Result<String, String> {
    let unchanged = "the position is unchanged";
    let (mut pos, start, rest) = match tokens.split_first() {
        Some((&"startpos", rest)) => (Position::startpos(), "startpos".to_string(), rest),
        Some((&"fen", rest)) => {
            let end = rest
                .iter()
                .position(|t| *t == "moves")
                .unwrap_or(rest.len());
            if end == 0 {
                return Err("position fen: missing the FEN".to_string());
            }
            let pos = Position::from_fen(&rest[..end].join(" "))
                .map_err(|e| format!("position: {e}; {unchanged}"))?;
            let start = format!("sfen {}", pos.to_sfen());
            (pos, start, &rest[end..])
        }
        // USI's own form, for people and tools that mix the two.
        Some((&"sfen", _)) => return Ok(line.to_string()),
        Some((other, _)) => {
            return Err(format!(
                "position: expected 'startpos' or 'fen', got {}",
                quoted(other)
            ));
        }
        None => return Err("position: expected 'startpos' or 'fen'".to_string()),
    };
    let moves = match rest.split_first() {
        None => &[][..],
        Some((&"moves", moves)) => moves,
        Some((other, _)) => return Err(format!("position: unexpected {}", quoted(other))),
    };
    let mut usi = Vec::with_capacity(moves.len());
    for (index, text) in moves.iter().enumerate() {
        let mv = pos.parse_uci_move(text).map_err(|e| {
            format!(
                "position: move {} {}: {e}; {unchanged}",
                index + 1,
                quoted(text)
            )
        })?;
        pos.make_move(mv);
        usi.push(mv.to_string());
    }
    Ok(format!("position {start} moves {}", usi.join(" ")))
}

/// `go …` with the clocks given to the right sides and the searchmoves in USI notation.
fn go(tokens: &[&str]) -> String {
    let mut out = vec!["go".to_string()];
    let mut in_searchmoves = false;
    for &token in tokens {
        if GO_KEYWORDS.contains(&token) {
            in_searchmoves = token == "searchmoves";
            out.push(
                match token {
                    "wtime" => "btime",
                    "btime" => "wtime",
                    "winc" => "binc",
                    "binc" => "winc",
                    other => other,
                }
                .to_string(),
            );
        } else if in_searchmoves {
            // A move that does not read is passed on for the session to report.
            out.push(uci_to_usi(token).unwrap_or_else(|_| token.to_string()));
        } else {
            out.push(token.to_string());
        }
    }
    out.join(" ")
}

/// `setoption name <UCI name> …` with the option's USI name; the value is passed on as sent.
fn setoption(line: &str) -> String {
    let Some(after_name) = line
        .trim_start()
        .strip_prefix("setoption")
        .map(str::trim_start)
        .and_then(|rest| rest.strip_prefix("name "))
    else {
        return line.to_string();
    };
    let (name, value) = match find_word(after_name, "value") {
        Some(at) => (&after_name[..at], &after_name[at..]),
        None => (after_name, ""),
    };
    match usi_name_of(name.trim()) {
        Some(usi) => format!("setoption name {usi} {value}")
            .trim_end()
            .to_string(),
        None => line.to_string(),
    }
}

/// Where `word` stands as a whole word in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        before.is_none_or(char::is_whitespace) && after.is_none_or(char::is_whitespace)
    })
}

/// One output line of the session in UCI: the moves of `bestmove`, `info … currmove/pv` and
/// perft's `<move>: <count>` lines in UCI notation; every other line as it is.
pub fn to_uci(line: &str) -> String {
    let tokens: Vec<&str> = line.split(' ').collect();
    let translated: Vec<String> = match tokens.as_slice() {
        ["bestmove", rest @ ..] => std::iter::once("bestmove".to_string())
            .chain(rest.iter().map(|&t| match t {
                "resign" => "(none)".to_string(),
                "ponder" => t.to_string(),
                _ => move_text(t),
            }))
            .collect(),
        ["info", "string", ..] => return line.to_string(),
        ["info", ..] => {
            let mut in_pv = false;
            let mut after_currmove = false;
            tokens
                .iter()
                .map(|&t| {
                    let text = if in_pv || after_currmove {
                        move_text(t)
                    } else {
                        t.to_string()
                    };
                    after_currmove = t == "currmove";
                    in_pv |= t == "pv";
                    text
                })
                .collect()
        }
        [mv, count] if mv.ends_with(':') && count.parse::<u64>().is_ok() => {
            match usi_to_uci(&mv[..mv.len() - 1]) {
                Ok(uci) => vec![format!("{uci}:"), count.to_string()],
                Err(_) => return line.to_string(),
            }
        }
        _ => return line.to_string(),
    };
    translated.join(" ")
}

/// A USI move's UCI text; anything else as it is.
fn move_text(token: &str) -> String {
    usi_to_uci(token).unwrap_or_else(|_| token.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usi(line: &str) -> String {
        to_usi(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn positions_become_usi_positions() {
        assert_eq!(usi("position startpos"), "position startpos moves ");
        assert_eq!(
            usi("position startpos moves a2a3 e4e3"),
            "position startpos moves 5d5c 1b1c"
        );
        assert_eq!(
            usi("position fen rbsgk/4p/5/P4/KGSBR[-] w - 1 moves a2a3"),
            "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 5d5c"
        );
        assert_eq!(
            usi("position fen 4k/5/1S3/5/K4[GPBpr] b - - 0 7 moves P@a2"),
            "position sfen 4k/5/1S3/5/K4 w BGPrp 14 moves P*5d"
        );
        // A promotion and a drop after captures, from Fairy-Stockfish's own play.
        assert_eq!(
            usi("position startpos moves a2a3 e4e3 a3a4 e3e2 a4a5+ e5e4 a5b5"),
            "position startpos moves 5d5c 1b1c 5c5b 1c1d 5b5a+ 1a1b 5a4a"
        );
        let sfen = "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 5d5c";
        assert_eq!(usi(sfen), sfen);
    }

    #[test]
    fn bad_positions_are_errors_that_name_the_problem() {
        let err = |line: &str| to_usi(line).unwrap_err();
        assert_eq!(
            err("position startpos moves a2a3 a3a4"),
            "position: move 2 'a3a4': illegal move 'a3a4': the piece on 5c is not the side to \
             move's; the position is unchanged"
        );
        assert_eq!(
            err("position startpos moves 5d5c"),
            "position: move 1 '5d5c': file '5' out of range (a to e) in '5d5c'; the position is \
             unchanged"
        );
        assert_eq!(
            err("position fen rbsgk/4p/5/P4/KGSBR[-] x moves a2a3"),
            "position: bad side to move 'x', expected 'w' (sente) or 'b' (gote); the position is \
             unchanged"
        );
        assert_eq!(err("position fen"), "position fen: missing the FEN");
        assert_eq!(
            err("position fen moves a2a3"),
            "position fen: missing the FEN"
        );
        assert_eq!(err("position"), "position: expected 'startpos' or 'fen'");
        assert_eq!(
            err("position start"),
            "position: expected 'startpos' or 'fen', got 'start'"
        );
        assert_eq!(err("position startpos a2a3"), "position: unexpected 'a2a3'");
    }

    #[test]
    fn go_gives_white_s_clock_to_sente() {
        assert_eq!(
            usi("go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5"),
            "go btime 1000 wtime 2000 binc 10 winc 20 movestogo 5"
        );
        assert_eq!(
            usi("go ponder wtime 100 btime 100 byoyomi 50"),
            "go ponder btime 100 wtime 100 byoyomi 50"
        );
        assert_eq!(
            usi("go searchmoves a2a3 P@c3 zz depth 3"),
            "go searchmoves 5d5c P*3c zz depth 3"
        );
        assert_eq!(usi("go infinite"), "go infinite");
    }

    #[test]
    fn options_get_their_usi_names() {
        assert_eq!(
            usi("setoption name Hash value 128"),
            "setoption name USI_Hash value 128"
        );
        assert_eq!(
            usi("setoption name ponder value true"),
            "setoption name USI_Ponder value true"
        );
        assert_eq!(
            usi("setoption name UCI_Elo value 1500"),
            "setoption name USI_Elo value 1500"
        );
        for same in [
            "setoption name UCI_Variant value minishogi",
            "setoption name Threads value 2",
            "setoption name EvalFile value /tmp/a value b.bin",
            "setoption name Hashes value 1",
            "setoption",
        ] {
            assert_eq!(usi(same), same);
        }
        assert_eq!(usi("ucinewgame"), "usinewgame");
        assert_eq!(usi("isready"), "isready");
    }

    #[test]
    fn output_moves_are_written_in_uci() {
        assert_eq!(
            to_uci("bestmove 5d5c ponder 1b1c"),
            "bestmove a2a3 ponder e4e3"
        );
        assert_eq!(to_uci("bestmove P*3c"), "bestmove P@c3");
        assert_eq!(to_uci("bestmove 5b5a+"), "bestmove a4a5+");
        assert_eq!(to_uci("bestmove resign"), "bestmove (none)");
        assert_eq!(
            to_uci(
                "info depth 3 seldepth 5 multipv 1 score cp 20 nodes 9 nps 9 time 1 hashfull 0 \
                 pv 5d5c 1b1c P*3c"
            ),
            "info depth 3 seldepth 5 multipv 1 score cp 20 nodes 9 nps 9 time 1 hashfull 0 pv \
             a2a3 e4e3 P@c3"
        );
        assert_eq!(
            to_uci("info depth 12 currmove 5d5c currmovenumber 3 nodes 5 time 1"),
            "info depth 12 currmove a2a3 currmovenumber 3 nodes 5 time 1"
        );
        assert_eq!(to_uci("5d5c: 14"), "a2a3: 14");
        for same in [
            "info string error: position: move 1 '5d5c': x",
            "readyok",
            "Nodes searched: 14",
            "option name Hash type spin default 64 min 1 max 65536",
            "id name minishogi-engine",
        ] {
            assert_eq!(to_uci(same), same);
        }
    }
}
