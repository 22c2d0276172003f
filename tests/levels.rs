//! Strength levels seen from outside: small real matches (`engine match`) between levels, and
//! against the random mover, showing that the levels are ordered. Fixed node budgets, one game
//! at a time and fixed `Skill_Seed`s make every game the same on every run, however loaded the
//! machine (the 10 s a move are never used), so the scores below do not flake; they change only
//! when the engine's play does. The calibrated table is in `docs/levels.md`.

use std::path::PathBuf;
use std::process::Command;

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");
/// Games a match: 20 openings, each played with both colours.
const GAMES: u32 = 40;

fn out_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("engine-levels-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The `engine match` flags of one side: a level (with its seed), under `nodes` at most.
fn level(level: u32, nodes: u32) -> Vec<String> {
    [
        "--engine".to_string(),
        "self usi".to_string(),
        "--engine-option".to_string(),
        format!("Skill_Level={level}"),
        "--engine-option".to_string(),
        format!("Skill_Seed={}", level + 1),
        "--engine-limit".to_string(),
        format!("nodes={nodes}"),
        "--engine-name".to_string(),
        format!("L{level}"),
    ]
    .to_vec()
}

fn random_mover() -> Vec<String> {
    [
        "--engine",
        "self random --seed 1",
        "--engine-name",
        "random",
    ]
    .map(String::from)
    .to_vec()
}

/// Plays `first` against `second` and returns the first's points out of [`GAMES`].
fn points(name: &str, first: Vec<String>, second: Vec<String>) -> f64 {
    let dir = out_dir(name);
    let openings = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-500.txt");
    let output = Command::new(ENGINE)
        .arg("match")
        .args(first)
        .args(second)
        .args(["--games", &GAMES.to_string(), "--openings", openings])
        .args(["--movetime", "10", "--concurrency", "1", "--quiet"])
        .arg("--out")
        .arg(&dir)
        .env("RUST_LOG", "error")
        .output()
        .expect("engine runs");
    assert!(
        output.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json written");
    let summary: serde_json::Value = serde_json::from_str(&text).expect("summary.json is JSON");
    assert_eq!(summary["games"], GAMES, "{name}");
    let points = summary["points"].as_f64().expect("points");
    eprintln!("{name}: {points} of {GAMES}");
    let _ = std::fs::remove_dir_all(&dir);
    points
}

#[test]
fn the_weakest_level_beats_the_random_mover() {
    // Level 0 plays among its 6 best moves of a 1-ply search, almost blind to their scores,
    // but never lets a mate go: far from random.
    let score = points("l0-random", level(0, 20_000), random_mover());
    assert!(
        score >= 36.0,
        "level 0 scored {score} of {GAMES} against random"
    );
}

#[test]
fn stronger_levels_beat_weaker_ones() {
    // Full strength (20) at 2000 nodes a move, level 10 (1000 nodes, choosing among 4 moves)
    // and level 0: each scores at least 70% against the one below it.
    let (middle, weakest) = std::thread::scope(|scope| {
        let middle = scope.spawn(|| points("l20-l10", level(20, 2_000), level(10, 2_000)));
        let weakest = scope.spawn(|| points("l10-l0", level(10, 2_000), level(0, 2_000)));
        (middle.join().unwrap(), weakest.join().unwrap())
    });
    assert!(
        middle >= 28.0,
        "level 20 scored {middle} of {GAMES} against level 10"
    );
    assert!(
        weakest >= 28.0,
        "level 10 scored {weakest} of {GAMES} against level 0"
    );
}
