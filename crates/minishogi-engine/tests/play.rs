//! `engine play 0|1` seen from outside: two engines piped into each other finish a legal game
//! with matching verdicts, and opponents that break the rules get `You Lose`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;

use minishogi_engine::shogi::{Color, Game, GameStatus};

const ENGINE: &str = env!("CARGO_BIN_EXE_minishogi-engine");

fn spawn(side: &str, extra: &[&str]) -> Child {
    Command::new(ENGINE)
        .args(["play", side])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("engine starts")
}

/// Copies `from`'s lines to `to` (until either closes), returning the lines.
fn relay(from: ChildStdout, mut to: ChildStdin) -> thread::JoinHandle<Vec<String>> {
    thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            let _ = writeln!(to, "{line}").and_then(|()| to.flush());
            lines.push(line);
        }
        lines
    })
}

fn is_verdict(line: &str) -> bool {
    matches!(line, "You Win" | "You Lose" | "Draw")
}

#[test]
fn two_engines_piped_together_finish_a_legal_game_with_matching_verdicts() {
    let limits = ["--movetime", "0.05"];
    let mut sente = spawn("1", &limits);
    // Gote plays with the classical value map: `--evaluator` works for `engine play`.
    let mut gote = spawn("0", &["--movetime", "0.05", "--evaluator", "classical"]);
    let sente_lines = relay(sente.stdout.take().unwrap(), gote.stdin.take().unwrap());
    let gote_lines = relay(gote.stdout.take().unwrap(), sente.stdin.take().unwrap());
    let sente_lines = sente_lines.join().unwrap();
    let gote_lines = gote_lines.join().unwrap();
    assert!(sente.wait().unwrap().success());
    assert!(gote.wait().unwrap().success());

    let sente_verdict = sente_lines
        .last()
        .expect("sente printed something")
        .as_str();
    let gote_verdict = gote_lines.last().expect("gote printed something").as_str();
    assert!(is_verdict(sente_verdict) && is_verdict(gote_verdict));
    // Each says the result from its opponent's point of view.
    let expected_gote = match sente_verdict {
        "You Win" => "You Lose",
        "You Lose" => "You Win",
        _ => "Draw",
    };
    assert_eq!(
        gote_verdict, expected_gote,
        "{sente_lines:?} {gote_lines:?}"
    );

    // Interleave the moves and replay them: all legal, and the game ends as both said.
    let sente_moves: Vec<&String> = sente_lines.iter().filter(|l| !is_verdict(l)).collect();
    let gote_moves: Vec<&String> = gote_lines.iter().filter(|l| !is_verdict(l)).collect();
    assert!(sente_moves.len() == gote_moves.len() || sente_moves.len() == gote_moves.len() + 1);
    let mut game = Game::startpos();
    game.set_max_plies(Some(150));
    for ply in 0..sente_moves.len() + gote_moves.len() {
        assert!(!game.status().is_over(), "the game went on after it ended");
        let text = if ply % 2 == 0 {
            sente_moves[ply / 2]
        } else {
            gote_moves[ply / 2]
        };
        let mv = game
            .position()
            .parse_course_move(text)
            .expect("a legal course move");
        game.play(mv).unwrap();
    }
    let verdict_for_sente = match game.status() {
        GameStatus::Win {
            winner: Color::Sente,
            ..
        } => "You Lose",
        GameStatus::Win { .. } => "You Win",
        GameStatus::Draw(_) => "Draw",
        GameStatus::Ongoing => panic!("both stopped before the game ended"),
    };
    assert_eq!(sente_verdict, verdict_for_sente);
}

/// Plays `engine play 0` (the opponent, sente, moves first) against a script: `next` gets the
/// engine's last reply (None before the first move) and returns the opponent's next line.
fn scripted(mut next: impl FnMut(Option<&str>) -> String) -> Vec<String> {
    let mut engine = spawn("0", &["--depth", "1"]);
    let mut input = engine.stdin.take().unwrap();
    let (sender, replies) = mpsc::channel();
    let stdout = engine.stdout.take().unwrap();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let mut lines = Vec::new();
    let mut reply: Option<String> = None;
    loop {
        // The engine may already have ended the game on an earlier token of the same line.
        let _ = writeln!(input, "{}", next(reply.as_deref())).and_then(|()| input.flush());
        let line = replies.recv().expect("the engine answers");
        lines.push(line.clone());
        if is_verdict(&line) {
            break;
        }
        reply = Some(line);
    }
    drop(input);
    assert!(engine.wait().unwrap().success());
    lines
}

#[test]
fn opponents_breaking_the_rules_lose() {
    for first in ["hello", "2e1d", "1A5A", "3CFU", "1B2B 5A5E"] {
        // A malformed token, USI instead of course notation, an impossible move, a drop from an
        // empty hand; then a good move followed by an illegal one on the same line.
        let lines = scripted(|_| first.to_string());
        let expected = if first.contains(' ') { 2 } else { 1 };
        assert_eq!(lines.len(), expected, "{first}: {lines:?}");
        assert_eq!(lines.last().unwrap(), "You Lose", "{first}");
    }
    // Sente's rook takes the pawn on 1b with check (1E4E); gote must take back on 1b with the
    // king or the gold. Sente's pawn on 5d is still there, so dropping the captured pawn on 5c
    // is 二歩 (3AFU), and a drop on the square gote's piece left on the last rank is illegal too.
    let mut step = 0;
    let lines = scripted(|_| {
        step += 1;
        if step == 1 { "1E4E" } else { "3AFU" }.to_string()
    });
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1], "You Lose");
    let mut step = 0;
    let lines = scripted(|reply| {
        step += 1;
        match (step, reply) {
            (1, _) => "1E4E".to_string(),
            // 5E = 1a (the king left it), 5D = 2a (the gold left it).
            (_, Some("5E4E")) => "5EFU".to_string(),
            (_, Some("5D4E")) => "5DFU".to_string(),
            (_, other) => panic!("unexpected reply {other:?}"),
        }
    });
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1], "You Lose");
}

#[test]
fn an_unknown_evaluator_is_refused() {
    let out = Command::new(ENGINE)
        .args(["play", "1", "--evaluator", "nnue"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--evaluator nnue: one of network, classical, material"),
        "{err}"
    );
}
