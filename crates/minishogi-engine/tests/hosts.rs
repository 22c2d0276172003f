//! Whole games as each host plays them: the test sends the host's own command sequence, line for
//! line (read from each host's source; see docs/hosts.md), plays the opponent (a random legal
//! mover, or a second engine for the cutechess match) and referees by the rules core. Every `go`
//! must be answered with a legal move in the host's notation, no line may be an `info string
//! error`, and each game runs to an end by the rules (mate, repetition, or the ply limit). Small
//! clocks keep the file fast.

mod common;

use std::time::{Duration, Instant};

use common::UsiEngine as Engine;
use minishogi_engine::shogi::{Color, Game, GameStatus, Move, MoveError, Position};

const HANG: Duration = Duration::from_secs(20);
/// The games end in a draw by this many plies at the latest (a rule of the referee's `Game`).
const MAX_PLIES: u32 = 160;
/// Lishogi's start position of minishogi, as Lishogi-Bot sends it.
const LISHOGI_SFEN: &str = "rbsgk/4p/5/P4/KGSBR b - 1";
/// Room for a loaded machine (the tests run side by side on two cores) above a clock's limit.
const SLACK: Duration = Duration::from_millis(400);

type Parse = fn(&Position, &str) -> Result<Move, MoveError>;

fn usi(pos: &Position, text: &str) -> Result<Move, MoveError> {
    pos.parse_usi_move(text)
}

fn uci(pos: &Position, text: &str) -> Result<Move, MoveError> {
    pos.parse_uci_move(text)
}

/// A small xorshift generator: the random mover's games are the same every run.
struct Rng(u64);

impl Rng {
    fn pick(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// The random mover: any legal move.
    fn legal_move(&mut self, pos: &Position) -> Move {
        let moves = pos.legal_moves();
        moves[self.pick(moves.len())]
    }
}

/// The referee: the rules core's game, drawn at `MAX_PLIES`.
fn referee(start: Position) -> Game {
    let mut game = Game::new(start);
    game.set_max_plies(Some(MAX_PLIES));
    game
}

fn usi_moves(game: &Game) -> String {
    let moves: Vec<String> = game.moves().iter().map(Move::to_string).collect();
    moves.join(" ")
}

fn uci_moves(game: &Game) -> String {
    let moves: Vec<String> = game.moves().iter().map(|m| m.uci()).collect();
    moves.join(" ")
}

/// What a `go` was answered with.
struct Answer {
    best: Move,
    /// The ponder move's text, checked legal after `best`.
    ponder: Option<String>,
    elapsed: Duration,
}

impl Engine {
    /// Lines up to `readyok`, none of them an error.
    fn ready(&mut self) {
        self.send("isready");
        assert_no_errors(&self.lines_until(|l| l == "readyok"));
    }

    /// Sends `go`, reads to `bestmove` and checks what came: no error, every pv legal from
    /// `root` in the host's notation, a legal best move and ponder reply.
    fn search(&mut self, root: &Position, go: &str, parse: Parse) -> Answer {
        let sent = Instant::now();
        self.send(go);
        self.answer(root, sent, parse)
    }

    /// The answer to a search already under way (after `ponderhit` or `stop`).
    fn answer(&mut self, root: &Position, sent: Instant, parse: Parse) -> Answer {
        let lines = self.lines_until(|l| l.starts_with("bestmove "));
        let elapsed = sent.elapsed();
        assert_no_errors(&lines);
        for line in lines.iter().filter(|l| !l.starts_with("info string")) {
            if let Some((_, pv)) = line.split_once(" pv ") {
                let mut pos = root.clone();
                for text in pv.split(' ') {
                    let mv = parse(&pos, text).unwrap_or_else(|e| panic!("{line:?}: {e}"));
                    pos.make_move(mv);
                }
            }
        }
        let words: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
        let best = parse(root, words[1])
            .unwrap_or_else(|e| panic!("{:?} in {}: {e}", lines.last().unwrap(), root.to_sfen()));
        let ponder = match words.as_slice() {
            [_, _] => None,
            [_, _, "ponder", reply] => {
                parse(&root.after(best), reply).unwrap_or_else(|e| panic!("ponder {reply}: {e}"));
                Some(reply.to_string())
            }
            _ => panic!("malformed {:?}", lines.last()),
        };
        Answer {
            best,
            ponder,
            elapsed,
        }
    }

    /// No error in what is left to read, then `quit` and a clean exit.
    fn quit_cleanly(mut self) {
        self.ready();
        self.send("quit");
        self.wait_for_exit();
    }
}

fn assert_no_errors(lines: &[String]) {
    for line in lines {
        assert!(!line.starts_with("info string error"), "{line}");
    }
}

/// The game ended by the rules: mate, repetition or the ply limit.
fn assert_ended(game: &Game, host: &str) {
    let status = game.status();
    assert!(status.is_over(), "{host}: {status}");
    if let GameStatus::Win { .. } = status {
        assert!(!game.position().has_legal_move() || game.plies() > 0);
    }
    eprintln!("{host}: {status} after {} plies", game.plies());
}

/// Lishogi-Bot (TheYoBots/Lishogi-Bot, engine_wrapper.py and engine_ctrl/usi.py): `usi`, the
/// config's `usi_options`, `isready`; before the first search `setoption name USI_Variant value
/// minishogi` with no `isready` after it; `position sfen <initial sfen> moves …` (`moves` even
/// when there are none); `go movetime` for the first two plies, then `go btime wtime [binc winc]
/// byoyomi` with byoyomi and increment taken off the clocks; never `usinewgame` nor `gameover`;
/// at the end the final position, `stop` and `quit`. The engine is gote here, with a short clock
/// against a long one: read from the wrong side, its moves would overrun its time.
#[test]
fn lishogi_bot_plays_a_whole_game() {
    let mut engine = Engine::start(HANG);
    engine.send("usi");
    assert_no_errors(&engine.lines_until(|l| l == "usiok"));
    engine.send("setoption name Threads value 1");
    engine.send("setoption name USI_Hash value 16");
    engine.ready();
    let mut game = referee(Position::from_sfen(LISHOGI_SFEN).unwrap());
    let mut rng = Rng(7);
    let byoyomi = 30u64;
    // Lishogi's clocks: gote (the engine) 800 ms, sente 60 s, then byoyomi.
    let mut clock = [60_000u64, 800];
    let mut variant_set = false;
    while !game.status().is_over() {
        let pos = game.position().clone();
        if pos.side_to_move() == Color::Sente {
            game.play(rng.legal_move(&pos)).unwrap();
            continue;
        }
        if !variant_set {
            engine.send("setoption name USI_Variant value minishogi");
            variant_set = true;
        }
        engine.send(&format!(
            "position sfen {LISHOGI_SFEN} moves {}",
            usi_moves(&game)
        ));
        let answer = if game.plies() < 2 {
            engine.search(&pos, "go movetime 50", usi)
        } else {
            let go = format!("go btime {} wtime {} byoyomi {byoyomi}", clock[0], clock[1]);
            let answer = engine.search(&pos, &go, usi);
            let allowed = Duration::from_millis(clock[1] + byoyomi) + SLACK;
            assert!(answer.elapsed <= allowed, "{go}: {:?}", answer.elapsed);
            clock[1] = clock[1].saturating_sub(answer.elapsed.as_millis() as u64);
            answer
        };
        game.play(answer.best).unwrap();
    }
    assert_ended(&game, "Lishogi-Bot");
    engine.send(&format!(
        "position sfen {LISHOGI_SFEN} moves {}",
        usi_moves(&game)
    ));
    engine.send("stop");
    engine.quit_cleanly();
}

/// Lishogi-Bot with `ponder: true`: in variants it ponders the position before its own move
/// (`game.state["moves"]`, not the board with its move and the expected reply), with `go ponder
/// …`, then sends `ponderhit` when the reply was the ponder move and `stop` otherwise. Each
/// answer is a legal move of the position sent.
#[test]
fn lishogi_bot_ponder_sequence() {
    let mut engine = Engine::start(HANG);
    engine.send("usi");
    engine.until("usiok");
    engine.send("setoption name USI_Ponder value true");
    engine.ready();
    engine.send("setoption name USI_Variant value minishogi");
    let mut game = referee(Position::startpos());
    let mut rng = Rng(11);
    for round in 0..4 {
        let pos = game.position().clone();
        let moves = usi_moves(&game);
        engine.send(&format!("position sfen {LISHOGI_SFEN} moves {moves}"));
        let answer = engine.search(&pos, "go btime 1000 wtime 1000 byoyomi 30", usi);
        // Lishogi-Bot's ponder search: the same position again.
        engine.send(&format!("position sfen {LISHOGI_SFEN} moves {moves}"));
        engine.send("go ponder btime 1000 wtime 1000 byoyomi 30");
        std::thread::sleep(Duration::from_millis(30));
        let sent = Instant::now();
        engine.send(if round % 2 == 0 { "ponderhit" } else { "stop" });
        engine.answer(&pos, sent, usi);
        game.play(answer.best).unwrap();
        let reply = rng.legal_move(game.position());
        game.play(reply).unwrap();
    }
    engine.send("stop");
    engine.quit_cleanly();
}

/// uci2wb 4.1 with `-s` (USI), as XBoard drives it (UCI2WB.c): `usi`; XBoard's `cores` gives
/// `setoption name Threads`; `new` gives `setoption name USI_Hash`, `isready`, `usinewgame`;
/// `variant 5x5+5_shogi` gives `setoption name UCI_Variant value 5x5+5_shogi`, `ucinewgame`,
/// `isready`; `hard` gives `setoption name USI_Ponder value 1`. Each move: `position startpos
/// moves …` and `go btime … wtime … winc … binc …`; after a bestmove with a ponder move it ponders
/// (`position … <best> <ponder>`, `go ponder …`) and sends `ponderhit` on a hit or `stop` (its
/// bestmove dropped) on a miss; at the end `gameover win|lose|draw` and `quit`. The engine is
/// XBoard's first engine, sente.
#[test]
fn uci2wb_plays_a_whole_game_with_pondering() {
    let mut engine = Engine::start(HANG);
    engine.send("usi");
    let options = engine.lines_until(|l| l == "usiok");
    assert!(
        options
            .iter()
            .any(|l| l.starts_with("option name UCI_Variant type combo"))
    );
    engine.send("setoption name Threads value 1");
    engine.send("setoption name USI_Hash value 68");
    engine.ready();
    engine.send("usinewgame");
    engine.send("setoption name UCI_Variant value 5x5+5_shogi");
    engine.send("ucinewgame");
    engine.send("isready");
    let lines = engine.lines_until(|l| l == "readyok");
    assert_no_errors(&lines);
    // Fairy-Stockfish's line, which uci2wb turns into XBoard's `setup` of the 5×5 board.
    let setup = "info string variant minishogi files 5 ranks 5 pocket 5 template shogi startpos \
                 rbsgk/4p/5/P4/KGSBR[-] w - - 0 1";
    assert!(lines.iter().any(|l| l == setup), "{lines:?}");
    engine.send("setoption name USI_Ponder value 1");
    let mut game = referee(Position::startpos());
    let mut rng = Rng(3);
    let inc = 50u64;
    // XBoard's clocks for `level 0 0:02 0.05`: the engine's is kept, the opponent's stays.
    let mut my_time = 2000u64;
    let their_time = 2000u64;
    let go_params = |mine: u64| format!("btime {mine} wtime {their_time} winc {inc} binc {inc}");
    // The ponder search under way: the move it expects.
    let mut pondering: Option<String> = None;
    let mut hits = 0;
    while !game.status().is_over() {
        let pos = game.position().clone();
        if pos.side_to_move() == Color::Gote {
            // Half the time the opponent plays the expected reply: a ponder hit.
            let reply = match &pondering {
                Some(expected) if rng.pick(2) == 0 => pos.parse_usi_move(expected).unwrap(),
                _ => rng.legal_move(&pos),
            };
            game.play(reply).unwrap();
            if let Some(expected) = pondering.take() {
                let root = game.position().clone();
                let sent = Instant::now();
                if expected == reply.to_string() {
                    hits += 1;
                    engine.send("ponderhit");
                    let answer = engine.answer(&root, sent, usi);
                    my_time = (my_time + inc).saturating_sub(answer.elapsed.as_millis() as u64);
                    after_engine_move(
                        &mut engine,
                        &mut game,
                        answer,
                        &mut pondering,
                        &go_params(my_time),
                    );
                } else {
                    // A miss: uci2wb stops the search and drops its bestmove.
                    engine.send("stop");
                    assert_no_errors(&engine.lines_until(|l| l.starts_with("bestmove ")));
                }
            }
            continue;
        }
        engine.send(&format!("position startpos moves {}", usi_moves(&game)));
        let answer = engine.search(&pos, &format!("go {}", go_params(my_time)), usi);
        let allowed = Duration::from_millis(my_time + inc) + SLACK;
        assert!(
            answer.elapsed <= allowed,
            "{:?} > {allowed:?}",
            answer.elapsed
        );
        my_time = (my_time + inc).saturating_sub(answer.elapsed.as_millis() as u64);
        after_engine_move(
            &mut engine,
            &mut game,
            answer,
            &mut pondering,
            &go_params(my_time),
        );
    }
    if pondering.is_some() {
        engine.send("stop");
        engine.lines_until(|l| l.starts_with("bestmove "));
    }
    assert_ended(&game, "uci2wb");
    assert!(hits > 0, "no ponder hit was played");
    let result = match game.status() {
        GameStatus::Win {
            winner: Color::Sente,
            ..
        } => "win",
        GameStatus::Win { .. } => "lose",
        _ => "draw",
    };
    engine.send(&format!("gameover {result}"));
    engine.ready();
    engine.quit_cleanly();
}

/// Plays the engine's move and, as uci2wb does, starts pondering on its ponder move.
fn after_engine_move(
    engine: &mut Engine,
    game: &mut Game,
    answer: Answer,
    pondering: &mut Option<String>,
    go_params: &str,
) {
    game.play(answer.best).unwrap();
    if game.status().is_over() {
        return;
    }
    if let Some(ponder) = answer.ponder {
        engine.send(&format!(
            "position startpos moves {} {ponder}",
            usi_moves(game)
        ));
        engine.send(&format!("go ponder {go_params}"));
        *pondering = Some(ponder);
    }
}

/// fairyground (BinaryEngineFeature.js) with a USI engine: `usi`, `isready`, `setoption name
/// USI_Variant value minishogi`, `usinewgame`, `position startpos`; each move `position startpos
/// moves …` and `go wtime <white's clock> btime <black's clock> byoyomi …` with chess's labels
/// (white is sente on its board), so the engine reads the other side's clock as its own: equal
/// clocks here, as in fairyground's own time controls; at the end `stop`.
#[test]
fn fairyground_plays_a_whole_game() {
    let mut engine = Engine::start(HANG);
    engine.send("usi");
    engine.until("usiok");
    engine.ready();
    engine.send("setoption name USI_Variant value minishogi");
    engine.send("usinewgame");
    engine.send("position startpos");
    let mut game = referee(Position::startpos());
    let mut rng = Rng(5);
    let mut clock = [1500u64, 1500];
    let byoyomi = 30u64;
    while !game.status().is_over() {
        let pos = game.position().clone();
        if pos.side_to_move() == Color::Sente {
            game.play(rng.legal_move(&pos)).unwrap();
            continue;
        }
        if game.plies() == 0 {
            engine.send("position startpos");
        } else {
            engine.send(&format!("position startpos moves {}", usi_moves(&game)));
        }
        let go = format!("go wtime {} btime {} byoyomi {byoyomi}", clock[0], clock[1]);
        let answer = engine.search(&pos, &go, usi);
        assert!(answer.elapsed <= Duration::from_millis(clock[1] + byoyomi) + SLACK);
        clock[1] = clock[1].saturating_sub(answer.elapsed.as_millis() as u64);
        game.play(answer.best).unwrap();
    }
    assert_ended(&game, "fairyground");
    engine.send("stop");
    engine.quit_cleanly();
}

/// cutechess-cli with `proto=uci` (uciengine.cpp): `uci`, `setoption name UCI_Variant value
/// minishogi`, `isready`, `ucinewgame`, `position fen <FEN> moves …` (or `position startpos …`
/// from the default start), `go wtime … btime … winc … binc …` with white = sente; here a whole
/// match game between two engines in UCI, one started as `engine uci` and one switched by `uci`,
/// from a FEN in cutechess's own form.
#[test]
fn cutechess_uci_match_game_between_two_engines() {
    let start_fen = "rbsgk/5/P3p/5/KGSBR[-] w - 2";
    let start = Position::from_fen(start_fen).unwrap();
    let mut engines = [Engine::start_with_args(HANG, &["uci"]), Engine::start(HANG)];
    for engine in &mut engines {
        engine.send("uci");
        let lines = engine.lines_until(|l| l == "uciok");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("option name UCI_Variant type combo"))
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("option name Hash type spin"))
        );
        engine.send("setoption name UCI_Variant value minishogi");
        engine.send("setoption name Hash value 16");
        engine.ready();
        engine.send("ucinewgame");
        engine.send(&format!("position fen {start_fen}"));
        engine.ready();
    }
    let mut game = referee(start.clone());
    let inc = 20u64;
    let mut clock = [1000u64, 1000];
    while !game.status().is_over() {
        let pos = game.position().clone();
        let side = pos.side_to_move().index();
        let engine = &mut engines[side];
        engine.send(&format!(
            "position fen {start_fen} moves {}",
            uci_moves(&game)
        ));
        let go = format!(
            "go wtime {} btime {} winc {inc} binc {inc}",
            clock[0], clock[1]
        );
        let answer = engine.search(&pos, &go, uci);
        assert!(answer.elapsed <= Duration::from_millis(clock[side] + inc) + SLACK);
        clock[side] = (clock[side] + inc).saturating_sub(answer.elapsed.as_millis() as u64);
        game.play(answer.best).unwrap();
    }
    assert_ended(&game, "cutechess (engine against engine)");
    for engine in engines {
        engine.quit_cleanly();
    }
}

/// cutechess-cli from the default start (`position startpos moves …`) with the engine as black
/// (gote): a short clock against a long one, so a clock read from the wrong side would show.
#[test]
fn cutechess_uci_game_as_black_from_startpos() {
    let mut engine = Engine::start(HANG);
    engine.send("uci");
    engine.until("uciok");
    engine.send("setoption name UCI_Variant value minishogi");
    engine.ready();
    engine.send("ucinewgame");
    engine.send("position startpos");
    let mut game = referee(Position::startpos());
    let mut rng = Rng(9);
    let inc = 20u64;
    let mut btime = 800u64;
    while !game.status().is_over() {
        let pos = game.position().clone();
        if pos.side_to_move() == Color::Sente {
            game.play(rng.legal_move(&pos)).unwrap();
            continue;
        }
        engine.send(&format!("position startpos moves {}", uci_moves(&game)));
        let go = format!("go wtime 60000 btime {btime} winc {inc} binc {inc}");
        let answer = engine.search(&pos, &go, uci);
        assert!(
            answer.elapsed <= Duration::from_millis(btime + inc) + SLACK,
            "{go}"
        );
        btime = (btime + inc).saturating_sub(answer.elapsed.as_millis() as u64);
        game.play(answer.best).unwrap();
    }
    assert_ended(&game, "cutechess (engine as black)");
    engine.quit_cleanly();
}
