//! The Monte Carlo tree search players (`setoption name Search value mcts` / `uct`) seen from a
//! GUI, over the USI binary: every `go` answered with a legal move, bad input refused, stop and
//! ponder, time kept, mates proven and played (against the alpha-beta engine's `go mate`), the
//! node pool bounded by `USI_Hash`, and one thread with fixed visits reproducible.

mod common;

use std::time::{Duration, Instant};

use common::UsiEngine as Engine;
use common::after_usi_moves as play;
use minishogi_engine::shogi::Position;

const HANG: Duration = Duration::from_secs(60);
const MODES: [&str; 2] = ["mcts", "uct"];
/// Gote to move is checkmated.
const GOTE_MATED_SFEN: &str = "k4/G4/P4/5/4K w - 1";

/// Forced mates of 1, 3 and 5 plies (`src/search/tests.rs`'s `MATES`, checked there by the
/// brute-force `tools::mate_oracle`; checked here again by `go mate`).
const MATES: &[(u32, &str)] = &[
    (1, "1Bk1s/P3p/rGB1S/1K3/4+r b G 1"),
    (1, "2kbS/5/3bp/r1Gg1/1K2S w Rp 1"),
    (1, "4k/3Rp/1BRG1/P1KS1/4b b GS 1"),
    (1, "rbk2/B1g1R/1GPs1/P4/K1S2 b - 1"),
    (3, "+B4/K3k/4p/P1G2/1BS+sR b Gr 1"),
    (3, "1G2k/g1Brp/BS3/K2+s1/5 b RP 1"),
    (3, "r2gk/4p/4s/P2G1/1K1bS w rb 1"),
    (3, "r2kg/1Sb1P/2p2/1BG1R/3KS b - 1"),
    (5, "+brbGg/rS2k/5/PK3/3+s1 w p 1"),
    (5, "2s1k/P3p/r3g/1KS1r/3g1 w Bb 1"),
    (5, "5/1+RgSk/P3p/2gs1/KR+b2 b B 1"),
    (5, "G2bk/5/PSs+r1/3rp/1K1B1 w G 1"),
    (5, "S2ks/Pr1g1/4p/1R1B1/KB3 b G 1"),
    (5, "rr1k1/b4/S1p2/P1G1B/K4 b GS 1"),
];

/// The engine with the player `search` chosen.
fn start(search: &str) -> Engine {
    let mut engine = Engine::start(HANG);
    engine.send(&format!("setoption name Search value {search}"));
    assert_eq!(engine.line(), format!("info string Search: {search}"));
    engine
}

/// The value after `field` in an `info` line.
fn field<'a>(line: &'a str, field: &str) -> Option<&'a str> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let i = tokens.iter().position(|&t| t == field)?;
    tokens.get(i + 1).copied()
}

/// Sends `go <params>`; checks every info line (its fields, a legal pv) and the bestmove
/// (legal, with a legal ponder move); returns the lines.
fn go(engine: &mut Engine, root: &Position, params: &str) -> Vec<String> {
    engine.send(&format!("go {params}"));
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    for line in &lines[..lines.len() - 1] {
        assert!(line.starts_with("info "), "{params}: {line:?}");
        if line.starts_with("info string") {
            continue;
        }
        for name in [
            "depth", "seldepth", "multipv", "score", "nodes", "nps", "time", "hashfull", "pv",
        ] {
            assert!(field(line, name).is_some(), "{name} missing: {line:?}");
        }
        let pv = line.split(" pv ").nth(1).unwrap();
        play(root, &pv.split_whitespace().collect::<Vec<_>>());
    }
    let tokens: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    match tokens.as_slice() {
        ["bestmove", best] => drop(play(root, &[best])),
        ["bestmove", best, "ponder", ponder] => drop(play(root, &[best, ponder])),
        _ => panic!("{params}: malformed {lines:?}"),
    }
    lines
}

fn bestmove(lines: &[String]) -> String {
    lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .into()
}

fn ready(engine: &mut Engine) {
    engine.send("isready");
    assert_eq!(engine.until("readyok"), "readyok");
}

#[test]
fn every_go_is_answered_by_a_legal_bestmove() {
    for search in MODES {
        let mut engine = start(search);
        let root = play(&Position::startpos(), &["5d5c"]);
        engine.send("position startpos moves 5d5c");
        for params in [
            "depth 1",
            "depth 3",
            "nodes 1",
            "nodes 500",
            "movetime 50",
            "btime 300 wtime 300 binc 10 winc 10",
            "wtime 10000 btime 10000 movestogo 20",
            "btime 0 wtime 0 byoyomi 100",
            "btime -50 wtime -50 byoyomi 100",
            "searchmoves 1b1c 3a3b nodes 300",
            "btime 500 wtime 400 movestogo 3 depth 30 nodes 100000",
        ] {
            let lines = go(&mut engine, &root, params);
            assert!(
                lines.iter().all(|l| !l.starts_with("info string error")),
                "{search} {params}: {lines:?}"
            );
            if params.starts_with("searchmoves") {
                assert!(["1b1c", "3a3b"].contains(&bestmove(&lines).as_str()));
            }
        }
        // Bad parameters are named, and the search still answers.
        for params in [
            "depth abc movetime 30",
            "nodes -5 depth 2",
            "frobnicate 7 depth 2",
        ] {
            let lines = go(&mut engine, &root, params);
            assert!(
                lines.iter().any(|l| l.starts_with("info string error: ")),
                "{search} {params}: {lines:?}"
            );
        }
        // No legal move: resign, even after go infinite only once stopped.
        engine.send(&format!("position sfen {GOTE_MATED_SFEN}"));
        engine.send("go nodes 100");
        assert_eq!(engine.line(), "bestmove resign");
        engine.send("go infinite");
        ready(&mut engine);
        engine.send("stop");
        assert_eq!(engine.line(), "bestmove resign");
        engine.send("quit");
        engine.wait_for_exit();
    }
}

#[test]
fn bad_input_changes_nothing_and_the_search_goes_on() {
    let mut engine = start("mcts");
    let root = play(&Position::startpos(), &["5d5c"]);
    engine.send("position startpos moves 5d5c");
    for bad in [
        "position sfen rbsgk/4p/5/P4/KGSBX b - 1",
        "position startpos moves 5d5c 9z9z",
        "setoption name USI_Hash value big",
        "setoption name Threads value 0",
        "setoption name Search value minimax",
        "ponderhit",
    ] {
        engine.send(bad);
        let line = engine.line();
        assert!(line.starts_with("info string error: "), "{bad}: {line}");
        ready(&mut engine);
    }
    // Still the mcts player on the same position.
    let lines = go(&mut engine, &root, "nodes 300");
    assert!(lines.iter().any(|l| l.contains(" nodes 300 ")), "{lines:?}");
    engine.send("quit");
    engine.wait_for_exit();
}

#[test]
fn stop_and_ponder_are_answered() {
    for search in MODES {
        let mut engine = start(search);
        let root = Position::startpos();
        engine.send("position startpos");
        engine.send("go infinite");
        let quiet = engine.lines_for(Duration::from_millis(300));
        assert!(
            quiet.iter().all(|l| !l.starts_with("bestmove")),
            "{quiet:?}"
        );
        ready(&mut engine);
        let sent = Instant::now();
        engine.send("stop");
        let best = engine.until("bestmove");
        assert!(sent.elapsed() < Duration::from_millis(500), "{search}");
        play(&root, &[best.split_whitespace().nth(1).unwrap()]);

        // Ponder, then ponderhit: the move comes within the clock.
        engine.send("go ponder btime 0 wtime 0 byoyomi 200");
        let quiet = engine.lines_for(Duration::from_millis(300));
        assert!(
            quiet.iter().all(|l| !l.starts_with("bestmove")),
            "{quiet:?}"
        );
        let hit = Instant::now();
        engine.send("ponderhit");
        engine.until("bestmove");
        assert!(hit.elapsed() < Duration::from_millis(600), "{search}");
        // Ponder ended by stop, and by gameover.
        engine.send("go ponder btime 0 wtime 0 byoyomi 200");
        engine.send("stop");
        engine.until("bestmove");
        engine.send("go ponder");
        engine.send("gameover lose");
        engine.until("bestmove");
        ready(&mut engine);
        engine.send("quit");
        engine.wait_for_exit();
    }
}

#[test]
fn time_is_kept() {
    for search in MODES {
        let mut engine = start(search);
        let root = play(&Position::startpos(), &["5d5c", "1b1c"]);
        engine.send("position startpos moves 5d5c 1b1c");
        for (params, allowed) in [
            ("movetime 300", 300),
            ("btime 1000 wtime 1000", 1000),
            ("btime 0 wtime 0 byoyomi 200", 200),
        ] {
            let sent = Instant::now();
            go(&mut engine, &root, params);
            let took = sent.elapsed();
            // Generous for a loaded machine; the engine itself keeps 10 ms of overhead.
            assert!(
                took < Duration::from_millis(allowed + 150),
                "{search} {params}: {took:?}"
            );
            if params.starts_with("movetime") {
                assert!(took >= Duration::from_millis(allowed - 20), "{took:?}");
            }
        }
        engine.send("quit");
        engine.wait_for_exit();
    }
}

/// The shortest mate `go mate` finds, in plies.
fn go_mate_plies(engine: &mut Engine, sfen: &str) -> usize {
    engine.send(&format!("position sfen {sfen}"));
    engine.send("go mate 10000");
    let line = engine.line();
    let moves: Vec<&str> = line
        .strip_prefix("checkmate ")
        .unwrap_or_else(|| panic!("{sfen}: {line:?}"))
        .split_whitespace()
        .collect();
    assert!(play(&Position::from_sfen(sfen).unwrap(), &moves).is_checkmate());
    moves.len()
}

/// Each mate is proven (`score mate k`, never shorter than `go mate`'s) and played out by the
/// player on both sides: the defender is checkmated within `k` plies.
#[test]
fn mates_are_proven_and_played() {
    let mut oracle = Engine::start(HANG);
    for search in MODES {
        let mut engine = start(search);
        for &(plies, sfen) in MATES {
            // The seed's UCT is slow at this (random playouts): the short mates suffice.
            if search == "uct" && plies > 3 {
                continue;
            }
            let shortest = go_mate_plies(&mut oracle, sfen);
            assert_eq!(shortest, plies as usize, "{sfen}");
            let start = Position::from_sfen(sfen).unwrap();
            let mut pos = start.clone();
            let mut moves: Vec<String> = Vec::new();
            let mut proven = None;
            while pos.has_legal_move() {
                assert!(
                    moves.len() < proven.unwrap_or(plies as usize),
                    "{search} {sfen}: no mate after {moves:?}"
                );
                engine.send(&format!("position sfen {sfen} moves {}", moves.join(" ")));
                let lines = go(&mut engine, &pos, "nodes 300000");
                if moves.is_empty() {
                    let info = lines
                        .iter()
                        .rev()
                        .find(|l| l.contains(" multipv 1 "))
                        .unwrap();
                    let k: usize = match field(info, "score") {
                        Some("mate") => field(info, "mate").unwrap().parse().unwrap(),
                        other => panic!("{search} {sfen}: not proven ({other:?}) {info}"),
                    };
                    assert!(k >= shortest && k % 2 == 1, "{search} {sfen}: mate {k}");
                    proven = Some(k);
                }
                let best = bestmove(&lines);
                pos = play(&pos, &[&best]);
                moves.push(best);
            }
            assert!(pos.is_checkmate() || pos.legal_moves().is_empty());
            assert_eq!(
                moves.len() % 2,
                1,
                "{search} {sfen}: the attacker moved last"
            );
        }
        engine.send("quit");
        engine.wait_for_exit();
    }
    oracle.send("quit");
    oracle.wait_for_exit();
}

/// With 1 MB of hash the pool fills up long before 200 000 visits; the search goes on to its
/// limit without growing it (hashfull never above 1000) and answers.
#[test]
fn the_node_pool_never_exceeds_usi_hash() {
    for search in MODES {
        let mut engine = start(search);
        engine.send("setoption name USI_Hash value 1");
        assert_eq!(engine.line(), "info string USI_Hash: 1 MB allocated");
        let root = Position::startpos();
        engine.send("position startpos");
        let visits = if search == "uct" { 60_000 } else { 200_000 };
        let lines = go(&mut engine, &root, &format!("nodes {visits}"));
        let last = lines
            .iter()
            .rev()
            .find(|l| l.contains(" multipv 1 "))
            .unwrap();
        let hashfull: u32 = field(last, "hashfull").unwrap().parse().unwrap();
        assert!((900..=1000).contains(&hashfull), "{search}: {last}");
        assert_eq!(field(last, "nodes"), Some(visits.to_string().as_str()));
        engine.send("quit");
        engine.wait_for_exit();
    }
}

/// The final lines of a search (the periodic ones depend on the clock) without the fields
/// that depend on the clock.
fn without_timing(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.contains(" nodes 4000 ") || l.starts_with("bestmove"))
        .map(|l| {
            let tokens: Vec<&str> = l.split_whitespace().collect();
            let mut kept = Vec::new();
            let mut skip = false;
            for t in tokens {
                if skip {
                    skip = false;
                } else if t == "time" || t == "nps" {
                    skip = true;
                } else {
                    kept.push(t);
                }
            }
            kept.join(" ")
        })
        .collect()
}

#[test]
fn one_thread_and_fixed_visits_are_reproducible() {
    for search in MODES {
        let root = play(&Position::startpos(), &["5d5c", "1b1c"]);
        let mut runs = Vec::new();
        for _ in 0..2 {
            let mut engine = start(search);
            engine.send("setoption name MultiPV value 3");
            engine.send("position startpos moves 5d5c 1b1c");
            ready(&mut engine);
            let lines = go(&mut engine, &root, "nodes 4000");
            // The same again in the same session.
            let again = go(&mut engine, &root, "nodes 4000");
            assert_eq!(without_timing(&lines), without_timing(&again), "{search}");
            let last: Vec<&String> = lines.iter().filter(|l| l.contains(" multipv ")).collect();
            assert!(last.len() >= 3, "{search}: {lines:?}");
            runs.push(without_timing(&lines));
            engine.send("quit");
            engine.wait_for_exit();
        }
        assert_eq!(runs[0], runs[1], "{search}");
    }
}

/// Two threads share the tree: the visit count is exact and the move legal.
#[test]
fn threads_share_one_tree() {
    for search in MODES {
        let mut engine = start(search);
        engine.send("setoption name Threads value 2");
        let root = Position::startpos();
        engine.send("position startpos");
        ready(&mut engine);
        for _ in 0..3 {
            let lines = go(&mut engine, &root, "nodes 5000");
            let last = lines
                .iter()
                .rev()
                .find(|l| l.contains(" multipv 1 "))
                .unwrap();
            assert_eq!(field(last, "nodes"), Some("5000"), "{search}: {last}");
        }
        go(&mut engine, &root, "movetime 200");
        engine.send("quit");
        engine.wait_for_exit();
    }
}

/// `PolicyFile` takes a policy file (the shipped one, copied: the same search as without the
/// option), refuses a bad one by name and keeps the policy; the priors switch changes the
/// search.
#[test]
fn the_policy_file_is_taken_or_refused_by_name() {
    let dir = std::env::temp_dir().join(format!("engine-mcts-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("policy copy.bin");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../weights/policy.bin"),
        &copy,
    )
    .unwrap();
    let bogus = dir.join("bogus.bin");
    std::fs::write(&bogus, "not a policy").unwrap();
    let root = play(&Position::startpos(), &["5d5c"]);
    let search = |setup: &[String]| {
        let mut engine = start("mcts");
        for line in setup {
            engine.send(line);
            let reply = engine.line();
            assert!(reply.starts_with("info string PolicyFile"), "{reply}");
        }
        engine.send("position startpos moves 5d5c");
        ready(&mut engine);
        let lines = go(&mut engine, &root, "nodes 4000");
        engine.send("quit");
        engine.wait_for_exit();
        without_timing(&lines)
    };
    let shipped = search(&[]);
    let copied = search(&[format!(
        "setoption name PolicyFile value {}",
        copy.display()
    )]);
    assert_eq!(shipped, copied);

    let mut engine = start("mcts");
    engine.send(&format!(
        "setoption name PolicyFile value {}",
        bogus.display()
    ));
    let line = engine.line();
    assert!(
        line.starts_with("info string error: setoption PolicyFile: ")
            && line.contains("bogus.bin")
            && line.contains("keeping the policy"),
        "{line}"
    );
    engine.send("position startpos moves 5d5c");
    ready(&mut engine);
    let kept = without_timing(&go(&mut engine, &root, "nodes 4000"));
    assert_eq!(kept, shipped);
    engine.send("setoption name mcts_policy value false");
    ready(&mut engine);
    let ordering = without_timing(&go(&mut engine, &root, "nodes 4000"));
    assert_ne!(ordering, shipped);
    engine.send("quit");
    engine.wait_for_exit();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A game played on: each search starts from the subtree of the moves played since the last
/// (tree reuse), yet `go nodes N` still means N visits of this search, and a replayed game
/// gives the same moves.
#[test]
fn a_game_played_on_reuses_the_tree_and_counts_this_searchs_visits() {
    let play_game = || {
        let mut engine = start("mcts");
        // A small pool, so that hashfull tells the nodes apart.
        engine.send("setoption name USI_Hash value 2");
        assert_eq!(engine.line(), "info string USI_Hash: 2 MB allocated");
        ready(&mut engine);
        let mut moves: Vec<String> = Vec::new();
        let mut hashfull = Vec::new();
        for _ in 0..4 {
            let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
            let root = play(&Position::startpos(), &texts);
            engine.send(&format!("position startpos moves {}", moves.join(" ")));
            let lines = go(&mut engine, &root, "nodes 3000");
            let last = lines
                .iter()
                .rev()
                .find(|l| l.contains(" multipv 1 "))
                .unwrap();
            assert_eq!(field(last, "nodes"), Some("3000"), "{last}");
            hashfull.push(field(last, "hashfull").unwrap().parse::<u32>().unwrap());
            let tokens: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
            // Our move and the reply the search expected: its subtree is kept.
            moves.push(tokens[1].to_string());
            moves.push(tokens[3].to_string());
        }
        engine.send("quit");
        engine.wait_for_exit();
        (moves, hashfull)
    };
    let (moves, hashfull) = play_game();
    // A kept subtree fills the pool beyond what 3000 visits from nothing would.
    assert!(
        hashfull[1..].iter().any(|&h| h > hashfull[0]),
        "{hashfull:?}"
    );
    assert_eq!(play_game().0, moves, "reproducible");
}
