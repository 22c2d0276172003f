//! `engine review`: records reviewed by the engine through the board's core, written back with
//! a comment on every move (read back by the project's readers) and a JSON report; a planted
//! mistake — a mate in one not taken, which lets the other side mate — is marked as such.

use std::path::PathBuf;
use std::process::Command;

use engine::records::{self, Format};
use serde_json::Value;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-review-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn review(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("review")
        .args(args)
        .output()
        .expect("engine review runs")
}

#[test]
fn records_come_back_with_a_comment_on_every_move_and_a_report() {
    let dir = temp_dir("kif");
    let kif = dir.join("game.kif");
    std::fs::write(&kif, include_bytes!("data/records/kakinoki.kif")).unwrap();
    // A mate in one (G*1b) not taken: sente's silver steps away, and gote mates at once
    // (G*5d, held by the bishop on 3b).
    let usi = dir.join("missed.txt");
    std::fs::write(
        &usi,
        "position sfen 4k/2b2/3S1/5/K4 b Gg 1 moves 2c3d G*5d\n",
    )
    .unwrap();
    let out = dir.join("out");
    let json = dir.join("report.json");
    let run = review(&[
        kif.to_str().unwrap(),
        usi.to_str().unwrap(),
        "--nodes",
        "3000",
        "--out",
        out.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let reviewed = std::fs::read(out.join("game.review.kif")).unwrap();
    let record = records::read(&reviewed, Format::Kif).unwrap();
    let original = records::read(include_bytes!("data/records/kakinoki.kif"), Format::Kif).unwrap();
    assert_eq!(record.moves, original.moves);
    for i in 0..record.moves.len() {
        let comment = record
            .move_comment(i)
            .unwrap_or_else(|| panic!("move {}: no comment", i + 1));
        assert!(comment.contains("loss "), "move {}: {comment}", i + 1);
    }

    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let reports = report.as_array().unwrap();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["review"]["moves"].as_array().unwrap().len(), 15);
    let missed = &reports[1]["review"]["moves"][0];
    assert_eq!(missed["mark"], "missed_mate", "{missed}");
    assert_eq!(missed["mover"], "sente");
    let best = missed["best"].as_str().unwrap();
    assert!(
        best.starts_with("G*"),
        "the better move drops the gold: {best}"
    );
    // Every reviewed move has its accuracy counted: both sides have one.
    for side in ["sente", "gote"] {
        assert!(reports[0]["review"]["accuracy"][side].is_number(), "{side}");
    }
}

#[test]
fn a_bad_record_is_named_and_nothing_is_written() {
    let dir = temp_dir("bad");
    let bad = dir.join("bad.csa");
    std::fs::write(&bad, "V2.2\nPI\n+\n+9999XX\n").unwrap();
    let run = review(&[bad.to_str().unwrap(), "--nodes", "1000"]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("bad.csa"), "{stderr}");
    assert!(!dir.join("bad.review.csa").exists());
}

/// The acceptance set (`tests/data/review/`, made by `examples/plant_blunders.rs` from engine
/// games against Fairy-Stockfish): in each record one move throws away a mate or a won
/// position and lets the other side mate, as the rules crate's mate oracle proved. Every
/// planted move is marked, with a better move that the oracle says keeps the win where the
/// mover had a mate; no move the reviewer would itself have played is marked.
#[test]
fn every_planted_blunder_is_marked_and_no_best_move_is() {
    use engine::shogi::mate_oracle::loses_within;
    let set = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/review");
    let manifest = std::fs::read_to_string(set.join("planted.txt")).unwrap();
    let planted: Vec<(String, usize, String)> = manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].to_string(), w[1].parse().unwrap(), w[2].to_string())
        })
        .collect();
    assert!(planted.len() >= 20, "the set has {} records", planted.len());
    let dir = temp_dir("planted");
    let json = dir.join("report.json");
    let files: Vec<String> = planted
        .iter()
        .map(|(f, _, _)| set.join(f).to_str().unwrap().to_string())
        .collect();
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend([
        "--nodes",
        "20000",
        "--threads",
        "2",
        "--out",
        dir.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let run = review(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let mut best_moves = 0;
    for ((file, index, kind), entry) in planted.iter().zip(report.as_array().unwrap()) {
        let record = records::read(&std::fs::read(set.join(file)).unwrap(), Format::Kif).unwrap();
        let moves = entry["review"]["moves"].as_array().unwrap();
        assert_eq!(moves.len(), record.moves.len(), "{file}");
        let judged = &moves[*index];
        let mark = judged["mark"].as_str().unwrap_or("none");
        assert!(
            ["missed_mate", "allowed_mate", "blunder"].contains(&mark),
            "{file}: the planted {kind} at move {} is marked {mark}: {judged}",
            index + 1
        );
        // The position the planted move was played in, and the better move shown there.
        let mut pos = record.start.clone();
        for mv in &record.moves[..*index] {
            pos = pos.after(*mv);
        }
        let better = judged["best"].as_str().expect("a better move");
        let better = pos.parse_usi_move(better).unwrap();
        assert_ne!(better, record.moves[*index], "{file}");
        if kind == "missed_mate" {
            assert!(
                loses_within(&pos.after(better), 4, false),
                "{file}: the better move {better} does not mate within 5 plies"
            );
        }
        // No move the reviewer would have played is marked.
        for (i, m) in moves.iter().enumerate() {
            if m["best"].as_str() == Some(&record.moves[i].to_string()) {
                best_moves += 1;
                assert!(m["mark"].is_null(), "{file} move {}: {m}", i + 1);
                assert_eq!(m["loss"].as_f64(), Some(0.0), "{file} move {}", i + 1);
            }
        }
    }
    assert!(best_moves > 100, "{best_moves} best moves checked");
}
