//! `engine match` seen from outside: the referee against scripted misbehaving engines, full
//! games between random movers with their records, and the SPRT stopping a match.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use engine::matches::openings::Opening;
use engine::records::{self, Format};
use engine::shogi::{Game, GameStatus};

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");

fn script(mode: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engines/misbehaving.sh");
    format!("sh '{}' {mode}", path.display())
}

fn random(seed: u64) -> String {
    format!("'{ENGINE}' random --seed {seed}")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-match-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run_match(args: &[&str]) -> Output {
    Command::new(ENGINE)
        .arg("match")
        .args(args)
        .output()
        .expect("engine runs")
}

fn summary(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json written");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

#[test]
fn misbehaving_engines_lose_every_game() {
    // (mode, termination label in the summary)
    let cases = [
        ("illegal", "illegal move"),
        ("garbage", "unparsable move"),
        ("crash", "crash"),
        ("timeout", "time forfeit"),
    ];
    let threads: Vec<_> = cases
        .iter()
        .map(|&(mode, label)| {
            std::thread::spawn(move || {
                let dir = out_dir(mode);
                let output = run_match(&[
                    "--engine",
                    &random(1),
                    "--engine",
                    &script(mode),
                    "--games",
                    "2",
                    "--movetime",
                    "0.2",
                    "--out",
                    dir.to_str().unwrap(),
                ]);
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert!(output.status.success(), "{mode}: {stderr}");
                let s = summary(&dir);
                assert_eq!(s["games"], 2, "{mode}");
                assert_eq!(s["wins"], 2, "{mode}: {s}");
                assert_eq!(s["terminations"][label], 2, "{mode}: {s}");
                // One game with the misbehaving engine as sente, one as gote.
                let games = s["game_list"].as_array().unwrap();
                assert_eq!(games[0]["result"], "1-0", "{mode}");
                assert_eq!(games[1]["result"], "0-1", "{mode}");
                // Progress lines name the reason.
                assert!(stderr.contains(label), "{mode}: {stderr}");
                let report = String::from_utf8_lossy(&output.stdout);
                assert!(report.contains("+2 -0 =0"), "{mode}: {report}");
                let bytes = std::fs::read(dir.join("kif/game-0001.kif")).unwrap();
                assert!(std::str::from_utf8(&bytes).is_err(), "{mode}: Shift_JIS");
                let kif = records::text::decode(&bytes).unwrap();
                let ending = if mode == "timeout" {
                    "切れ負け"
                } else {
                    "反則負け"
                };
                assert!(kif.contains(ending), "{mode}: {kif}");
                std::fs::remove_dir_all(&dir).unwrap();
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

#[test]
fn engine_that_never_answers_usi_stops_the_match() {
    let output = run_match(&[
        "--engine",
        &random(1),
        "--engine",
        &script("mute"),
        "--startup-timeout",
        "0.3",
        "--quiet",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("usiok"), "{stderr}");
    let output = run_match(&["--engine", &random(1), "--engine", "/nonexistent/engine"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot start"));
}

#[test]
fn random_movers_play_refereed_games_with_records() {
    let dir = out_dir("random");
    std::fs::create_dir_all(&dir).unwrap();
    let openings = dir.join("openings.txt");
    std::fs::write(
        &openings,
        "# two openings\nstartpos\nrbsgk/4p/5/P4/KGSBR b - 1 moves 2e1d 4a5b\n",
    )
    .unwrap();
    let output = run_match(&[
        "--engine",
        &random(1),
        "--engine-name",
        "one",
        "--engine",
        &random(2),
        "--engine-name",
        "two",
        "--openings",
        openings.to_str().unwrap(),
        "--games",
        "6",
        "--concurrency",
        "2",
        "--max-plies",
        "60",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        stderr.lines().filter(|l| l.contains("] game ")).count(),
        6,
        "{stderr}"
    );

    let s = summary(&dir);
    assert_eq!(s["games"], 6);
    let (w, l, d) = (
        s["wins"].as_u64().unwrap(),
        s["losses"].as_u64().unwrap(),
        s["draws"].as_u64().unwrap(),
    );
    assert_eq!(w + l + d, 6);
    let pairs: u64 = s["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(pairs, 3);
    assert!(s["elo"]["elo"].is_number() || s["elo"]["elo"].is_null());

    // Every game replays legally from its USI record and ended as the summary says.
    let records = std::fs::read_to_string(dir.join("games.txt")).unwrap();
    assert_eq!(records.lines().count(), 6);
    for (line, game) in records.lines().zip(s["game_list"].as_array().unwrap()) {
        let usi = &line[line.find("position").expect("USI record")..];
        assert_eq!(usi, game["usi"].as_str().unwrap());
        let opening = Opening::parse(usi).expect("record replays");
        let mut replay = Game::new(opening.start.clone());
        replay.set_max_plies(Some(60));
        for &mv in &opening.moves {
            replay.play(mv).expect("legal");
        }
        let status = replay.status();
        let result = game["result"].as_str().unwrap();
        match status {
            GameStatus::Win { winner, .. } => {
                let expected = if winner == engine::shogi::Color::Sente {
                    "1-0"
                } else {
                    "0-1"
                };
                assert_eq!(result, expected, "{line}");
            }
            GameStatus::Draw(_) => assert_eq!(result, "1/2-1/2", "{line}"),
            GameStatus::Ongoing => panic!("a random mover never resigns with moves left: {line}"),
        }
        assert_eq!(
            game["plies"].as_u64().unwrap() as usize,
            opening.moves.len()
        );
        // The KIF and CSA records read back to the same game and result.
        let number = game["number"].as_u64().unwrap();
        for format in [Format::Kif, Format::Csa] {
            let name = format!("game-{number:04}.{}", format.extension());
            let path = dir.join(format.name()).join(name);
            let bytes = std::fs::read(&path).unwrap();
            let record =
                records::read(&bytes, format).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(record.start, opening.start, "{}", path.display());
            assert_eq!(record.moves, opening.moves, "{}", path.display());
            let winner = match result {
                "1-0" => Some(engine::shogi::Color::Sente),
                "0-1" => Some(engine::shogi::Color::Gote),
                _ => None,
            };
            assert_eq!(record.winner, winner, "{}", path.display());
            assert_eq!(
                [record.sente.as_str(), record.gote.as_str()],
                [
                    game["sente"].as_str().unwrap(),
                    game["gote"].as_str().unwrap()
                ]
            );
        }
    }
    // Openings alternate per pair; each pair has both colour assignments.
    let games = s["game_list"].as_array().unwrap();
    // The results by colour agree with the games listed: game 2p-1 and 2p form pair p.
    let result_of = |number: u64| {
        games
            .iter()
            .find(|g| g["number"] == number)
            .map(|g| g["result"].as_str().unwrap().to_string())
            .unwrap()
    };
    let count = |r: &str| games.iter().filter(|g| g["result"] == r).count() as u64;
    let colours = &s["colours"];
    assert_eq!(colours["sente_wins"], count("1-0"), "{colours}");
    assert_eq!(colours["gote_wins"], count("0-1"), "{colours}");
    assert_eq!(colours["draws"], count("1/2-1/2"), "{colours}");
    let both = |r: &str| {
        (1..=3)
            .filter(|p| result_of(2 * p - 1) == r && result_of(2 * p) == r)
            .count() as u64
    };
    assert_eq!(colours["pairs_sente_won_both"], both("1-0"), "{colours}");
    assert_eq!(colours["pairs_gote_won_both"], both("0-1"), "{colours}");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        report.contains(&format!(
            "By colour: sente won {}, gote {}, drawn {}",
            count("1-0"),
            count("0-1"),
            count("1/2-1/2")
        )),
        "{report}"
    );
    assert_eq!(games[0]["sente"], "one");
    assert_eq!(games[1]["sente"], "two");
    assert!(
        games[2]["usi"]
            .as_str()
            .unwrap()
            .contains("moves 2e1d 4a5b")
    );
    let kif =
        records::text::decode(&std::fs::read(dir.join("kif/game-0003.kif")).unwrap()).unwrap();
    assert!(kif.contains("手合割：5五将棋"));
    assert!(kif.contains("先手：one"));
    assert!(kif.contains("   1 １四角(25)"), "{kif}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sprt_stops_the_match_once_decided() {
    let dir = out_dir("sprt");
    let output = run_match(&[
        "--engine",
        &random(3),
        "--engine",
        &script("illegal"),
        "--games",
        "200",
        "--sprt",
        "elo0=0",
        "elo1=200",
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let s = summary(&dir);
    // Each won pair adds 0.419 to the LLR here, so H1 (bound 2.944) is reached at pair 8.
    assert_eq!(s["sprt"]["decision"], "H1", "{s}");
    assert_eq!(s["games"], 16, "{s}");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("H1 accepted"), "{report}");
    // Engines without --engine-name go by their USI `id name`; a 100% score has no finite
    // Elo and is said so, not printed as infinity.
    assert!(report.contains("Engine 1: random-mover ("), "{report}");
    assert!(
        report.contains("Engine 2: misbehaving-illegal ("),
        "{report}"
    );
    assert!(
        report.contains("Elo difference: n/a (score 100%)"),
        "{report}"
    );
    assert!(!report.contains("inf"), "{report}");
    assert_eq!(s["names"][1], "misbehaving-illegal", "{s}");
    assert_eq!(s["game_list"][0]["gote"], "misbehaving-illegal", "{s}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn deeper_search_wins_clearly() {
    // Our own engine at depth 4 against itself at depth 1, over the first 10 built-in openings
    // with both colours.
    let ours = format!("'{ENGINE}' usi");
    let dir = out_dir("strength");
    let output = run_match(&[
        "--engine",
        &ours,
        "--engine-limit",
        "depth=4",
        "--engine-name",
        "depth 4",
        "--engine",
        &ours,
        "--engine-limit",
        "depth=1",
        "--engine-name",
        "depth 1",
        "--games",
        "20",
        "--movetime",
        "10",
        "--concurrency",
        "2",
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let s = summary(&dir);
    assert_eq!(s["games"], 20);
    let points = s["points"].as_f64().unwrap();
    assert!(
        points >= 15.0,
        "depth 4 scored only {points}/20: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    // Nothing but the rules decided these games.
    let terminations = s["terminations"].as_object().unwrap();
    for label in ["illegal move", "unparsable move", "time forfeit", "crash"] {
        assert!(!terminations.contains_key(label), "{terminations:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn time_odds_give_each_engine_its_own_time() {
    // The engine at 30 ms a move against itself at 150 ms, a short game pair: each side is
    // sent and uses its own time, and the summary and records say so.
    let ours = format!("'{ENGINE}' usi");
    let dir = out_dir("time-odds");
    let output = run_match(&[
        "--engine",
        &ours,
        "--engine-name",
        "fast",
        "--engine-movetime",
        "0.03",
        "--engine",
        &ours,
        "--engine-name",
        "slow",
        "--engine-movetime",
        "0.15",
        "--games",
        "2",
        "--max-plies",
        "16",
        "--time-margin",
        "0.5",
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        report.contains("fast 0.03s/move, slow 0.15s/move"),
        "{report}"
    );
    let s = summary(&dir);
    assert_eq!(s["time_control"], "fast 0.03s/move, slow 0.15s/move");
    assert_eq!(
        s["engines"][0]["time_control"]["move_time"]["nanos"],
        30_000_000
    );
    let mean = |i: usize| {
        let times = &s["move_times"][i];
        times["total_ms"].as_f64().unwrap() / times["moves"].as_f64().unwrap()
    };
    assert!(
        mean(0) < 60.0 && mean(1) > 60.0 && mean(1) < 400.0,
        "means {} and {} ms a move",
        mean(0),
        mean(1)
    );
    assert!(
        !s["terminations"]
            .as_object()
            .unwrap()
            .contains_key("time forfeit")
    );
    let kif = std::fs::read(dir.join("kif/game-0001.kif")).expect("a KIF record");
    let text = encoding_rs::SHIFT_JIS.decode(&kif).0;
    assert!(text.contains("fast 0.03s/move, slow 0.15s/move"), "{text}");
}

#[test]
fn clock_matches_keep_each_clock_and_report_what_is_left() {
    // Sudden death with an increment, then byoyomi alone: the engine spends its clock and
    // never flags, and the summary says how much of each clock was left.
    let ours = format!("'{ENGINE}' usi");
    for (name, control) in [
        ("clock-increment", &["--tc", "1+0.05"][..]),
        ("clock-byoyomi", &["--byoyomi", "0.05"][..]),
    ] {
        let dir = out_dir(name);
        let mut args = vec![
            "--engine",
            &ours,
            "--engine",
            &ours,
            "--games",
            "2",
            "--max-plies",
            "24",
            "--out",
            dir.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(control);
        let output = run_match(&args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let s = summary(&dir);
        let terminations = s["terminations"].as_object().unwrap();
        assert!(!terminations.contains_key("time forfeit"), "{s}");
        let report = String::from_utf8_lossy(&output.stdout);
        for engine in 0..2 {
            let clock = &s["clock_left"][engine];
            assert_eq!(clock["games"], 2, "{name}: {clock}");
            let left = clock["total_left_ms"].as_f64().unwrap();
            let given = clock["total_given_ms"].as_f64().unwrap();
            if name == "clock-increment" {
                // 1 s and 50 ms a move: some of it spent, none of it overdrawn.
                assert!(given > 2000.0 && left > 0.0 && left < given, "{clock}");
                let mean = s["move_times"][engine]["total_ms"].as_f64().unwrap()
                    / s["move_times"][engine]["moves"].as_f64().unwrap();
                assert!(mean > 10.0, "{name}: {mean} ms a move");
            } else {
                // Byoyomi alone: no main time to leave, each period used in full.
                assert_eq!((left, given), (0.0, 0.0), "{clock}");
                let mean = s["move_times"][engine]["total_ms"].as_f64().unwrap()
                    / s["move_times"][engine]["moves"].as_f64().unwrap();
                assert!(mean > 30.0 && mean < 150.0, "{name}: {mean} ms a move");
            }
        }
        // Byoyomi alone gives no main time to leave: the line is left out.
        assert_eq!(
            report.contains("Clock left at the end: "),
            name == "clock-increment",
            "{report}"
        );
    }
}
