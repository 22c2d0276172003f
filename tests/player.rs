//! The player seam seen from outside: the USI option `Search` and `engine play --search` pick
//! the player by name through `player::new_player`; an unknown name is refused with a clear
//! error, and the engine goes on as it was.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::UsiEngine;

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");
const HANG: Duration = Duration::from_secs(20);

#[test]
fn usi_search_option_lists_the_players_and_keeps_the_player_on_a_bad_name() {
    let mut engine = UsiEngine::start(HANG);
    engine.send("usi");
    let lines = engine.lines_until(|l| l == "usiok");
    assert!(
        lines.contains(
            &"option name Search type combo default alphabeta var alphabeta var mcts var uct"
                .into()
        ),
        "{lines:?}"
    );
    engine.send("setoption name USI_Hash value 8");
    assert_eq!(engine.line(), "info string USI_Hash: 8 MB allocated");
    engine.send("position startpos");
    engine.send("go depth 4");
    let before = engine.until("bestmove");
    // An unknown player: one error line naming the players known, nothing else changes.
    engine.send("setoption name Search value minimax");
    assert_eq!(
        engine.line(),
        "info string error: setoption: option Search is one of alphabeta, mcts, uct, not 'minimax'"
    );
    // The current one: accepted silently, the player (and its hash size) kept.
    engine.send("setoption name Search value AlphaBeta");
    engine.send("isready");
    assert_eq!(engine.until("readyok"), "readyok");
    engine.send("usinewgame");
    engine.send("isready");
    assert_eq!(engine.until("readyok"), "readyok");
    engine.send("go depth 4");
    assert_eq!(engine.until("bestmove"), before);
    engine.send("quit");
    engine.wait_for_exit();
}

/// `engine play --search` picks the player by name: `alphabeta` plays; an unknown name is refused before
/// the game, with the names known, and nothing goes to standard output.
#[test]
fn search_names_the_player_and_unknown_names_are_refused() {
    let output = Command::new(ENGINE)
        .args(["play", "1", "--depth", "1", "--search", "alphabeta"])
        .stdin(Stdio::null())
        .output()
        .expect("engine runs");
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 1);
    let output = Command::new(ENGINE)
        .args(["play", "1", "--search", "minimax"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("engine runs");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--search: unknown search 'minimax' (known: alphabeta, mcts, uct)"),
        "{stderr}"
    );
}

/// `engine datagen --search` goes through the same factory: an unknown name is refused before
/// any file is written.
#[test]
fn datagen_refuses_an_unknown_search_before_writing() {
    let out = std::env::temp_dir().join(format!("engine-player-datagen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(ENGINE)
        .args([
            "datagen", "--games", "1", "--quiet", "--search", "minimax", "--out",
        ])
        .arg(&out)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("engine runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--search: unknown search 'minimax' (known: alphabeta, mcts, uct)"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing written in {}", out.display());
}
