//! `engine puzzles` and the shipped set, `web/page/puzzles/minishogi-puzzles.json`: every
//! puzzle re-verified — the position and the line by the rules, a mate proven at its stated
//! length (the engine's mate solver for a tsume, the full-width prover otherwise) with no other
//! mating move and no shorter mate, an advantage's moves each clearly ahead at a small search
//! (`make::recheck`, smaller budgets than the generator's) — and the command end to end on a
//! tiny input: a known mate in two found, a mate with two solutions rejected.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use engine::shogi::{Move, Position, mate_oracle};
use engine::tools::puzzles::file::{Kind, Puzzle, PuzzleFile};
use engine::tools::puzzles::make::{self, RecheckSettings};
use rayon::prelude::*;

const SHIPPED: &str = "web/page/puzzles/minishogi-puzzles.json";

fn shipped() -> PuzzleFile {
    PuzzleFile::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(SHIPPED)).unwrap()
}

fn is_camel_case(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && word.chars().all(|c| c.is_ascii_alphanumeric())
}

/// What the test checks by the rules alone, without the library's recheck.
fn check_by_the_rules(p: &Puzzle) -> Result<(), String> {
    let pos = Position::from_sfen(&p.sfen).map_err(|e| format!("sfen: {e}"))?;
    if pos.to_sfen() != p.sfen {
        return Err(format!("the sfen reads back as {}", pos.to_sfen()));
    }
    if p.moves.len().is_multiple_of(2) {
        return Err("an even number of moves".into());
    }
    let mut cur = pos.clone();
    let mut solver: Vec<(Position, Move)> = Vec::new();
    for (i, text) in p.moves.iter().enumerate() {
        let mv = cur
            .parse_usi_move(text)
            .map_err(|e| format!("{text}: {e}"))?;
        if !cur.legal_moves().contains(mv) {
            return Err(format!("{text} is not legal"));
        }
        if i % 2 == 0 {
            solver.push((cur.clone(), mv));
        }
        cur.make_move(mv);
    }
    if !(1..=5).contains(&p.difficulty) {
        return Err(format!("difficulty {}", p.difficulty));
    }
    if !p.themes.iter().all(|t| is_camel_case(t)) {
        return Err(format!("themes {:?}", p.themes));
    }
    let has = |t: &str| p.themes.iter().any(|x| x == t);
    if has("drop") != solver.iter().any(|(_, m)| m.is_drop()) {
        return Err("the drop theme and the moves disagree".into());
    }
    if has("promotion") != solver.iter().any(|(_, m)| m.is_promotion()) {
        return Err("the promotion theme and the moves disagree".into());
    }
    match p.kind {
        Kind::Mate => {
            let n = p.mate.ok_or("no mate length")?;
            if p.moves.len() != 2 * n as usize - 1 || !cur.is_checkmate() {
                return Err(format!("not a mate in {n}"));
            }
            if !has(&format!("mateIn{n}")) || has("advantage") {
                return Err(format!("themes {:?} for a mate in {n}", p.themes));
            }
            let tsume = p.tsume.ok_or("no tsume flag")?;
            if tsume != has("tsume") {
                return Err("the tsume flag and theme disagree".into());
            }
            if tsume && !solver.iter().all(|(q, m)| q.gives_check(*m)) {
                return Err("a tsume with a move that does not check".into());
            }
            // The rules' brute force, where it is cheap: a mate in one or two stated is one, and
            // none is shorter; in two, the first move is the only one.
            if n <= 2 {
                if !mate_oracle::wins_within(&pos, 2 * n - 1, false)
                    || (n == 2 && mate_oracle::wins_within(&pos, 1, false))
                {
                    return Err(format!("the brute force disagrees with mate in {n}"));
                }
                if n == 2 {
                    let mating = pos
                        .legal_moves()
                        .iter()
                        .filter(|&&m| mate_oracle::loses_within(&pos.after(m), 2, false))
                        .count();
                    if mating != 1 {
                        return Err(format!("{mating} first moves mate in two"));
                    }
                }
            }
        }
        Kind::Advantage => {
            if p.mate.is_some() || p.tsume.is_some() || !has("advantage") {
                return Err("an advantage puzzle with mate fields".into());
            }
        }
    }
    Ok(())
}

#[test]
fn every_shipped_puzzle_is_sound() {
    let file = shipped();
    assert_eq!(file.version, 1);
    assert!(
        file.generated_by.starts_with("engine puzzles "),
        "{}",
        file.generated_by
    );
    assert!(file.puzzles.len() >= 500, "{} puzzles", file.puzzles.len());
    let mut ids: Vec<&str> = file.puzzles.iter().map(|p| p.id.as_str()).collect();
    let mut sfens: Vec<&str> = file.puzzles.iter().map(|p| p.sfen.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    sfens.sort_unstable();
    sfens.dedup();
    assert_eq!(ids.len(), file.puzzles.len(), "ids are unique");
    assert_eq!(sfens.len(), file.puzzles.len(), "positions are unique");
    for kind in [Kind::Mate, Kind::Advantage] {
        assert!(file.puzzles.iter().any(|p| p.kind == kind), "{kind:?}");
    }
    for n in 1..=5 {
        assert!(
            file.puzzles.iter().any(|p| p.mate == Some(n)),
            "a mate in {n}"
        );
    }

    let evaluator = engine::nn::engine_evaluator();
    let settings = RecheckSettings::default();
    let start = Instant::now();
    let failures: Vec<String> = file
        .puzzles
        .par_iter()
        .filter_map(|p| {
            check_by_the_rules(p)
                .and_then(|()| make::recheck(p, &evaluator, &settings))
                .err()
                .map(|e| format!("{} ({}): {e}", p.id, p.sfen))
        })
        .collect();
    eprintln!(
        "{} puzzles re-verified in {:.1} s",
        file.puzzles.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The recheck fails a puzzle changed in any of the ways that matter.
#[test]
fn a_changed_puzzle_fails_the_recheck() {
    let file = shipped();
    let evaluator: Arc<dyn engine::eval::Evaluator> = engine::nn::engine_evaluator();
    let settings = RecheckSettings::default();
    let fails = |p: &Puzzle| make::recheck(p, &evaluator, &settings).is_err();
    let other_first_move = |p: &Puzzle| -> Puzzle {
        let pos = Position::from_sfen(&p.sfen).unwrap();
        let other = pos
            .legal_moves()
            .iter()
            .map(|m| m.to_string())
            .find(|m| *m != p.moves[0])
            .unwrap();
        Puzzle {
            moves: vec![other],
            mate: p.mate.map(|_| 1),
            ..p.clone()
        }
    };
    let mate = file
        .puzzles
        .iter()
        .find(|p| p.mate == Some(3) && p.tsume == Some(true))
        .unwrap();
    assert!(make::recheck(mate, &evaluator, &settings).is_ok());
    assert!(fails(&Puzzle {
        mate: Some(2),
        ..mate.clone()
    }));
    assert!(fails(&Puzzle {
        tsume: Some(false),
        ..mate.clone()
    }));
    let mut themes = mate.themes.clone();
    themes.retain(|t| t != "drop" && t != "capture");
    themes.push("pin".into());
    assert!(fails(&Puzzle {
        themes,
        ..mate.clone()
    }));
    assert!(fails(&other_first_move(mate)));
    let advantage = file
        .puzzles
        .iter()
        .find(|p| p.kind == Kind::Advantage)
        .unwrap();
    assert!(make::recheck(advantage, &evaluator, &settings).is_ok());
    let mut changed = other_first_move(advantage);
    changed.themes = make::themes(
        &Position::from_sfen(&changed.sfen).unwrap(),
        &[Position::from_sfen(&changed.sfen)
            .unwrap()
            .parse_usi_move(&changed.moves[0])
            .unwrap()],
        Kind::Advantage,
        None,
        false,
    );
    changed.mate = None;
    assert!(fails(&changed), "{changed:?}");
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-puzzles-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_command_finds_a_mate_and_rejects_one_with_two_solutions() {
    // Sente mates in two by 4c5b (the bishop takes the rook, check), K×5a, G*4b: the only
    // first move that mates in two. The second position mates in two by more than one.
    let unique = "1k1G1/r3p/1BS2/P4/K1b2 b GSr 23";
    let twice = "1g3/3kp/P4/K1S2/5 b BGS2rb 39";
    for (sfen, solutions) in [(unique, 1), (twice, 2)] {
        let pos = Position::from_sfen(sfen).unwrap();
        assert!(!mate_oracle::wins_within(&pos, 1, false));
        let mating = pos
            .legal_moves()
            .iter()
            .filter(|&&m| mate_oracle::loses_within(&pos.after(m), 2, false))
            .count();
        assert!(
            if solutions == 1 {
                mating == 1
            } else {
                mating >= 2
            },
            "{sfen}: {mating} moves mate in two"
        );
    }
    let dir = temp_dir("e2e");
    let games = dir.join("games.usi");
    std::fs::write(
        &games,
        format!("position sfen {unique}\nposition sfen {twice}\n"),
    )
    .unwrap();
    let out = dir.join("puzzles.json");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_engine"))
            .arg("puzzles")
            .args(args)
            .output()
            .expect("engine puzzles runs")
    };
    let made = run(&[
        games.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--scan-nodes",
        "2000",
        "--nodes",
        "5000",
    ]);
    let stderr = String::from_utf8_lossy(&made.stderr);
    assert!(made.status.success(), "{stderr}");
    assert!(
        stderr.contains("rejected 1: another move mates as fast"),
        "{stderr}"
    );
    let file = PuzzleFile::read(&out).unwrap();
    assert_eq!(file.puzzles.len(), 1, "{file:?}");
    let p = &file.puzzles[0];
    assert_eq!(p.sfen, unique);
    assert_eq!(p.moves, ["4c5b", "4a5a", "G*4b"]);
    assert_eq!((p.kind, p.mate, p.tsume), (Kind::Mate, Some(2), Some(true)));
    assert_eq!(p.id, "p0001");
    assert!(p.source.starts_with("games.usi game 1"), "{}", p.source);
    assert!(file.generated_by.starts_with("engine puzzles "));
    check_by_the_rules(p).unwrap();

    // The counts of the set, and bad input refused with a message.
    let stats = run(&["--stats", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&stats.stdout);
    assert!(stats.status.success());
    assert!(text.contains("| mateIn2 | 1 |"), "{text}");
    let bad = run(&[
        games.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--mate-plies",
        "4",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--mate-plies"));
    let missing = run(&["/nonexistent/games.txt", "--out", out.to_str().unwrap()]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no such file"));
    let _ = std::fs::remove_dir_all(&dir);
}
