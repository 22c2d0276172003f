//! The USI protocol seen from a GUI: each test spawns the engine binary and talks to it over
//! pipes (`common::UsiEngine`). Searches use small limits to keep the file fast.

mod common;

use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use common::UsiEngine as Engine;
use common::after_usi_moves as play;
use minishogi_engine::shogi::Position;

/// How long any expected line may take before the test fails as hung.
const HANG: Duration = Duration::from_secs(20);
const STARTPOS_SFEN: &str = "rbsgk/4p/5/P4/KGSBR b - 1";
/// Gote to move is checkmated: the gold on 5b, guarded by the pawn, takes every flight square.
const GOTE_MATED_SFEN: &str = "k4/G4/P4/5/4K w - 1";
/// Sente mates at once by dropping the gold on 2b.
const MATE_IN_ONE_SFEN: &str = "3k1/5/2G2/5/K4 b G 1";

impl Engine {
    /// For 300 ms after a `go` that must wait (infinite, ponder), no `bestmove` comes.
    fn assert_no_bestmove_yet(&self, waiting_for: &str) {
        let during = self.lines_for(Duration::from_millis(300));
        assert!(
            during.iter().all(|l| !l.starts_with("bestmove")),
            "bestmove before {waiting_for}: {during:?}"
        );
    }

    /// `isready` is answered by `readyok`, after at most some `info string` notes (what is set
    /// up), and nothing else came first.
    fn assert_ready(&mut self) {
        self.send("isready");
        for line in self.lines_until(|l| l == "readyok") {
            assert!(
                line == "readyok"
                    || (line.starts_with("info string ") && !line.starts_with("info string error")),
                "{line:?} before readyok"
            );
        }
    }

    /// The error line for `input`, sent raw; then the engine is still ready.
    fn expect_error_bytes(&mut self, input: &[u8]) -> String {
        self.send_bytes(input);
        let line = self.line();
        assert!(
            line.starts_with("info string error: "),
            "{:?} answered by {line:?}",
            String::from_utf8_lossy(input)
        );
        self.assert_ready();
        line
    }

    fn expect_error(&mut self, input: &str) -> String {
        self.expect_error_bytes(format!("{input}\n").as_bytes())
    }

    /// The SFEN of the engine's current position, from `d`.
    fn sfen(&mut self) -> String {
        self.send("d");
        let lines = self.lines_until(|l| l.starts_with("legal moves"));
        lines
            .iter()
            .find_map(|l| l.strip_prefix("sfen: "))
            .expect("d shows the sfen")
            .to_string()
    }

    /// Runs `go <params>` on `root` and returns the lines up to and including `bestmove`,
    /// checking every `info` line's pv and the best and ponder moves against `root`.
    fn go(&mut self, root: &Position, params: &str) -> Vec<String> {
        self.send(&format!("go {params}"));
        let lines = self.lines_until(|l| l.starts_with("bestmove"));
        for line in &lines[..lines.len() - 1] {
            check_info_line(root, line);
        }
        check_bestmove(root, lines.last().unwrap());
        lines
    }

    fn quit(mut self) {
        self.send("quit");
        self.wait_for_exit();
    }
}

fn sfen(text: &str) -> Position {
    Position::from_sfen(text).unwrap()
}

/// A search `info` line has the fields USI asks for, and a pv of legal moves.
fn check_info_line(root: &Position, line: &str) {
    assert!(line.starts_with("info "), "unexpected line {line:?}");
    if line.starts_with("info string ") {
        return;
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    for field in [
        "depth", "seldepth", "score", "nodes", "nps", "time", "hashfull", "multipv",
    ] {
        assert!(tokens.contains(&field), "{field} missing in {line:?}");
    }
    let score = tokens.iter().position(|&t| t == "score").unwrap();
    assert!(matches!(tokens[score + 1], "cp" | "mate"), "{line:?}");
    tokens[score + 2].parse::<i32>().expect("numeric score");
    if let Some(pv) = tokens.iter().position(|&t| t == "pv") {
        play(root, &tokens[pv + 1..]);
    }
}

/// `bestmove <legal move> [ponder <legal reply>]`.
fn check_bestmove(root: &Position, line: &str) {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match tokens.as_slice() {
        ["bestmove", best] => drop(play(root, &[best])),
        ["bestmove", best, "ponder", ponder] => drop(play(root, &[best, ponder])),
        _ => panic!("malformed {line:?}"),
    }
}

#[test]
fn handshake_lists_id_and_options() {
    let mut engine = Engine::start(HANG);
    engine.send("usi");
    let lines = engine.lines_until(|l| l == "usiok");
    assert!(lines[0].starts_with("id name "), "{lines:?}");
    assert!(lines[1].starts_with("id author "), "{lines:?}");
    for name in [
        "USI_Hash",
        "Threads",
        "MultiPV",
        "EvalFile",
        "USI_Ponder",
        "USI_Variant",
        "UCI_Variant",
        "MaxPly",
        "MoveOverhead",
        "USI_OwnBook",
        "BookFile",
        "BookMaxPly",
        "BookMoveChoice",
    ] {
        let prefix = format!("option name {name} type ");
        assert!(
            lines.iter().any(|l| l.starts_with(&prefix)),
            "{name}: {lines:?}"
        );
    }
    for line in &lines[2..lines.len() - 1] {
        assert!(line.starts_with("option name "), "{line:?}");
    }
    engine.assert_ready();
    engine.send("usinewgame");
    engine.assert_ready();
    engine.quit();
}

#[test]
fn good_options_are_accepted_without_error() {
    let mut engine = Engine::start(HANG);
    for setting in [
        "setoption name USI_Hash value 32",
        "setoption name Threads value 1",
        "setoption name MultiPV value 2",
        "setoption name USI_Ponder value true",
        "setoption name USI_Variant value minishogi",
        "setoption name UCI_Variant value minishogi",
        // XBoard's name for minishogi, sent by uci2wb.
        "setoption name UCI_Variant value 5x5+5_shogi",
        "setoption name USI_Variant value 5x5+5_shogi",
        "setoption name MaxPly value 150",
        "setoption name MaxPly value 0",
        "setoption name MoveOverhead value 30",
        "setoption name EvalFile value <empty>",
        "setoption name Evaluator value classical",
        "setoption name ClassicalFile value <empty>",
        "setoption name Evaluator value network",
        "setoption name usi_hash value 16",
        "setoption name USI_OwnBook value false",
        "setoption name BookFile value <empty>",
        "setoption name BookMaxPly value 20",
        "setoption name BookMoveChoice value best",
    ] {
        engine.send(setting);
        engine.assert_ready();
    }
    // What the hash option allocated is said at once, before readyok.
    engine.send("setoption name USI_Hash value 8");
    assert_eq!(engine.line(), "info string USI_Hash: 8 MB allocated");
    engine.send("isready");
    let ready = engine.line();
    assert!(
        ready.starts_with(
            "info string ready: hash 8 MB, 1 thread, evaluation by the embedded network ("
        ),
        "{ready:?}"
    );
    assert_eq!(engine.line(), "readyok");
    // The options are in effect for the next search, which still works.
    let root = Position::startpos();
    engine.send("position startpos");
    engine.go(&root, "depth 2");
    engine.quit();
}

#[test]
fn the_evaluator_option_selects_classical_and_material_and_keeps_it_on_bad_files() {
    let mut engine = Engine::start(HANG);
    let root = Position::startpos();
    engine.send("setoption name Evaluator value classical");
    assert_eq!(
        engine.line(),
        "info string Evaluator: evaluating by the classical value map (weights/classical.params)"
    );
    engine.send("position startpos");
    engine.go(&root, "depth 3");
    let dir = std::env::temp_dir().join(format!("usi-classical-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("map.params");
    std::fs::write(&good, "piece_pawn 120\nmap_king_5e 40 -300 300 10\n").unwrap();
    engine.send(&format!(
        "setoption name ClassicalFile value {}",
        good.display()
    ));
    let note = engine.line();
    assert!(
        note.starts_with(&format!(
            "info string ClassicalFile: evaluating by the classical value map '{}' (checksum ",
            good.display()
        )),
        "{note}"
    );
    let bad = dir.join("bad.params");
    std::fs::write(&bad, "piece_pawn 120\nmap_pawn_9z 3\n").unwrap();
    engine.send(&format!(
        "setoption name ClassicalFile value {}",
        bad.display()
    ));
    let error = engine.line();
    assert!(
        error.starts_with("info string error: setoption ClassicalFile: ")
            && error.contains(
                "line 2: unknown classical parameter 'map_pawn_9z'; keeping the classical value map"
            ),
        "{error}"
    );
    engine.send("setoption name Evaluator value chess");
    assert!(engine.line().starts_with("info string error: "));
    engine.send("isready");
    assert!(
        engine
            .line()
            .contains(", evaluation by the classical value map '")
    );
    assert_eq!(engine.line(), "readyok");
    engine.go(&root, "depth 3");
    engine.send("setoption name Evaluator value material");
    assert_eq!(
        engine.line(),
        "info string Evaluator: evaluating by material only"
    );
    engine.go(&root, "depth 3");
    engine.send("setoption name Evaluator value network");
    assert!(
        engine
            .line()
            .contains("evaluating by the embedded network (")
    );
    engine.go(&root, "depth 2");
    engine.quit();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn both_position_forms_and_both_move_notations() {
    let mut engine = Engine::start(HANG);
    assert_eq!(engine.sfen(), STARTPOS_SFEN);
    engine.send("position startpos moves 5d5c 1b1c");
    let expected = play(&Position::startpos(), &["5d5c", "1b1c"]).to_sfen();
    assert_eq!(engine.sfen(), expected);
    // The same two moves in course notation.
    engine.send("position startpos moves 2A3A 4E3E");
    assert_eq!(engine.sfen(), expected);
    let midgame = "4k/1bsrp/5/P2S1/KG1R1 b Gb 13";
    engine.send(&format!("position sfen {midgame}"));
    assert_eq!(engine.sfen(), sfen(midgame).to_sfen());
    engine.send(&format!("position sfen {midgame} moves G*3a"));
    assert_eq!(engine.sfen(), play(&sfen(midgame), &["G*3a"]).to_sfen());
    // A position in Fairy-Stockfish's FEN, as uci2wb passes XBoard's on: `w` is sente.
    engine.send("position sfen rbsgk/4p/5/P4/KGSBR[-] w 0 1 moves 5d5c");
    assert_eq!(
        engine.sfen(),
        play(&Position::startpos(), &["5d5c"]).to_sfen()
    );
    engine.send(&format!(
        "position sfen {} moves G*3a",
        sfen(midgame).to_fen()
    ));
    assert_eq!(engine.sfen(), play(&sfen(midgame), &["G*3a"]).to_sfen());
    let error = engine.expect_error("position sfen rbsgk/4p/5/P4/KGSBR[Q] w 0 1");
    assert!(error.contains("'Q' is not a piece to hold"), "{error}");
    // Windows line endings are accepted.
    engine.send_bytes(b"position startpos moves 5d5c\r\n");
    assert_eq!(
        engine.sfen(),
        play(&Position::startpos(), &["5d5c"]).to_sfen()
    );
    engine.quit();
}

#[test]
fn go_with_each_limit_returns_a_legal_move() {
    let mut engine = Engine::start(HANG);
    let root = play(&Position::startpos(), &["5d5c", "1b1c"]);
    engine.send("position startpos moves 5d5c 1b1c");
    for params in [
        "depth 1",
        "depth 3",
        "nodes 500",
        "movetime 50",
        "btime 200 wtime 200",
        "btime 1000 wtime 1000 binc 50 winc 50",
        "btime 0 wtime 0 byoyomi 50",
        "byoyomi 50",
        "wtime 100 btime -20 byoyomi 50",
        "depth 2 nodes 100000 movetime 1000",
    ] {
        let lines = engine.go(&root, params);
        assert!(lines.last().unwrap().starts_with("bestmove "), "{params}");
    }
    engine.assert_ready();
    engine.quit();
}

#[test]
fn info_lines_report_a_legal_pv() {
    let mut engine = Engine::start(HANG);
    let root = Position::startpos();
    engine.send("position startpos");
    let lines = engine.go(&root, "depth 3");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info ") && l.contains(" pv ")),
        "no info line with a pv: {lines:?}"
    );
    engine.quit();
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    let mut engine = Engine::start(HANG);
    let root = Position::startpos();
    engine.send("position startpos");
    engine.send("go infinite");
    engine.assert_no_bestmove_yet("stop");
    // Commands are still read while it searches.
    engine.assert_ready();
    let sent = Instant::now();
    engine.send("stop");
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    let latency = sent.elapsed();
    check_bestmove(&root, lines.last().unwrap());
    // Generous for loaded CI machines; the engine answers in a few milliseconds.
    assert!(
        latency < Duration::from_millis(500),
        "stop took {latency:?}"
    );
    eprintln!("stop answered in {latency:?}");
    // A second stop with nothing running is harmless and silent.
    engine.send("stop");
    engine.assert_ready();
    engine.quit();
}

#[test]
fn ponder_then_ponderhit_gives_the_move() {
    let mut engine = Engine::start(HANG);
    let root = play(&Position::startpos(), &["5d5c"]);
    engine.send("setoption name USI_Ponder value true");
    engine.send("position startpos moves 5d5c");
    engine.send("go ponder btime 100 wtime 100 byoyomi 100");
    engine.assert_no_bestmove_yet("ponderhit");
    engine.send("ponderhit");
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    check_bestmove(&root, lines.last().unwrap());
    engine.assert_ready();

    // Pondering that ends with stop (the opponent played another move) also answers.
    engine.send("go ponder btime 100 wtime 100 byoyomi 100");
    thread::sleep(Duration::from_millis(50));
    engine.send("stop");
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    check_bestmove(&root, lines.last().unwrap());
    engine.quit();
}

#[test]
fn no_legal_move_resigns() {
    let mut engine = Engine::start(HANG);
    engine.send(&format!("position sfen {GOTE_MATED_SFEN}"));
    engine.send("go btime 1000 wtime 1000");
    assert_eq!(engine.line(), "bestmove resign");
    // Even resigning waits for stop after go infinite, as USI requires.
    engine.send("go infinite");
    engine.assert_ready();
    engine.send("stop");
    assert_eq!(engine.line(), "bestmove resign");
    engine.assert_ready();
    engine.quit();
}

#[test]
fn go_mate_answers_checkmate() {
    let mut engine = Engine::start(HANG);
    let root = sfen(MATE_IN_ONE_SFEN);
    engine.send(&format!("position sfen {MATE_IN_ONE_SFEN}"));
    engine.send("go mate 5000");
    let line = engine.line();
    let moves: Vec<&str> = line
        .strip_prefix("checkmate ")
        .unwrap_or_else(|| panic!("{line:?}"))
        .split_whitespace()
        .collect();
    assert!(play(&root, &moves).is_checkmate(), "{line:?} does not mate");

    engine.send("go mate infinite");
    let line = engine.line();
    assert!(
        line.starts_with("checkmate ") && line != "checkmate nomate",
        "{line:?}"
    );

    // Already mated: there is no mate for the side to move.
    engine.send(&format!("position sfen {GOTE_MATED_SFEN}"));
    engine.send("go mate 1000");
    assert_eq!(engine.line(), "checkmate nomate");

    // A quiet opening position: no short mate; either answer is honest within 100 ms.
    engine.send("position startpos");
    engine.send("go mate 100");
    let line = engine.line();
    assert!(
        line == "checkmate nomate" || line == "checkmate timeout",
        "{line:?}"
    );
    engine.assert_ready();
    engine.quit();
}

#[test]
fn terminal_commands_show_the_position() {
    let mut engine = Engine::start(HANG);
    engine.send("position startpos moves 5d5c");
    engine.send("d");
    let lines = engine.lines_until(|l| l.starts_with("legal moves"));
    let pos = play(&Position::startpos(), &["5d5c"]);
    assert!(
        lines.contains(&format!("sfen: {}", pos.to_sfen())),
        "{lines:?}"
    );
    assert!(
        lines.contains(&format!("key: {:016x}", pos.key())),
        "{lines:?}"
    );
    let listed = lines.last().unwrap();
    assert!(
        listed.starts_with(&format!("legal moves ({}): ", pos.count_legal_moves())),
        "{listed:?}"
    );
    for mv in pos.legal_moves().iter() {
        assert!(
            listed.split_whitespace().any(|t| t == mv.to_string()),
            "{mv} missing"
        );
    }

    engine.send("eval");
    let line = engine.line();
    assert!(line.starts_with("eval: "), "{line:?}");

    engine.send("position startpos");
    engine.send("perft 3");
    let lines = engine.lines_until(|l| l.starts_with("Nodes searched: "));
    assert_eq!(lines.last().unwrap(), "Nodes searched: 2512");
    let divided: u64 = lines
        .iter()
        .filter_map(|l| l.split_once(": "))
        .filter(|(mv, _)| Position::startpos().parse_usi_move(mv).is_ok())
        .map(|(_, n)| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(divided, 2512);
    engine.quit();
}

#[test]
fn end_of_input_stops_the_search_and_exits() {
    let mut engine = Engine::start(HANG);
    engine.send("go infinite");
    engine.close_input();
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    check_bestmove(&Position::startpos(), lines.last().unwrap());
    engine.wait_for_exit();
}

/// Bad input of every kind: each gets exactly one `info string error:` line, the position is
/// unchanged (or, for an illegal move, set to the legal prefix), and the engine goes on.
#[test]
fn bad_input_is_answered_by_an_error_and_changes_nothing() {
    let mut engine = Engine::start(HANG);
    let base = play(&Position::startpos(), &["5d5c"]);
    engine.send("position startpos moves 5d5c");
    let bad_lines = [
        "foo",
        "isready now",
        "usi please",
        "position",
        "position fen rbsgk/4p/5/P4/KGSBR b - 1",
        "position sfen",
        "position sfen rbsgk/4p/5/P4/KGSBX b - 1",
        "position sfen rbsgk/4p/5/P4/KGSBR x - 1",
        "position sfen rbsgk/4p/5/P4/KGSBR b Q 1",
        "position sfen rbsgk/4p/5/P4/KGSB b - 1",
        "position sfen rbsgk/4p/5/P4 b - 1",
        "position sfen 5/5/5/5/5 b - 1",
        "position sfen rbsgk/4p/5/P4/KGSBR b - 1 extra",
        "position startpos 5d5c",
        "setoption",
        "setoption USI_Hash value 1",
        "setoption name",
        "setoption name NoSuchOption value 1",
        "setoption name USI_Hash value big",
        "setoption name USI_Hash",
        "setoption name Threads value 0",
        "setoption name MultiPV value 100000",
        "setoption name USI_Ponder value maybe",
        "setoption name USI_Variant value shogi",
        "setoption name UCI_Variant value chess",
        "setoption name EvalFile value /nonexistent/weights.bin",
        "setoption name ParamsFile value /nonexistent/tuned.params",
        "setoption name MaxPly value -1",
        "setoption name MoveOverhead value 1e3",
        "gameover",
        "gameover maybe",
        "perft",
        "perft x",
        "ponderhit",
        "go\u{1}",
    ];
    for line in bad_lines {
        engine.expect_error(line);
        assert_eq!(engine.sfen(), base.to_sfen(), "after {line:?}");
    }
    // Bytes that are not UTF-8, and an overlong line.
    engine.expect_error_bytes(b"\xc3\x28\n");
    let mut long = vec![b'a'; 200_000];
    long.push(b'\n');
    engine.expect_error_bytes(&long);
    assert_eq!(engine.sfen(), base.to_sfen());
    // After all that, a search still works.
    engine.go(&base, "depth 2");
    engine.quit();
}

/// `position` is all or nothing: a bad move anywhere leaves the previous position, and the
/// error names the move and its index.
#[test]
fn position_with_a_bad_move_changes_nothing() {
    let mut engine = Engine::start(HANG);
    let before = play(&Position::startpos(), &["5d5c"]);
    engine.send("position startpos moves 5d5c");
    for (moves, index, bad) in [
        ("5d5b", 1, "5d5b"),
        ("5d5c zz", 2, "zz"),
        ("2e3d 9z9z", 2, "9z9z"),
        ("5d5c 1b1c P*3c", 3, "P*3c"),
        ("5d5c 1b1c 5c5b 5c5a", 4, "5c5a"),
        ("5d5c 5d5c 1b1c", 2, "5d5c"),
        ("2A3A 9Z9Z", 2, "9Z9Z"),
    ] {
        engine.send(&format!("position startpos moves {moves}"));
        let line = engine.line();
        assert!(
            line.starts_with(&format!(
                "info string error: position: move {index} '{bad}': "
            )),
            "{moves}: {line:?}"
        );
        assert!(line.ends_with("; the position is unchanged"), "{line:?}");
        assert_eq!(engine.sfen(), before.to_sfen(), "{moves}");
    }
    engine.quit();
}

#[test]
fn commands_that_need_an_idle_engine_are_refused_while_searching() {
    let mut engine = Engine::start(HANG);
    let root = Position::startpos();
    engine.send("position startpos");
    engine.send("go infinite");
    for line in [
        "go depth 1",
        "go mate 100",
        "setoption name USI_Hash value 8",
        "usinewgame",
        "perft 1",
    ] {
        engine.send(line);
        let answers = engine.lines_until(|l| l.starts_with("info string "));
        let error = answers.last().unwrap();
        assert!(
            error.starts_with("info string error: "),
            "{line}: {error:?}"
        );
        assert!(
            answers.iter().all(|l| !l.starts_with("bestmove")),
            "{answers:?}"
        );
    }
    // Changing the position while searching is fine: the running search keeps its own.
    engine.send("position startpos moves 5d5c");
    engine.send("stop");
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    check_bestmove(&root, lines.last().unwrap());
    // Exactly one bestmove: nothing else follows.
    engine.assert_ready();
    // The new position is in effect for the next search.
    engine.go(&play(&root, &["5d5c"]), "depth 1");
    engine.quit();
}

#[test]
fn gameover_stops_a_ponder_search() {
    let mut engine = Engine::start(HANG);
    engine.send("position startpos");
    engine.send("go ponder");
    thread::sleep(Duration::from_millis(50));
    engine.send("gameover lose");
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    check_bestmove(&Position::startpos(), lines.last().unwrap());
    engine.send("usinewgame");
    engine.assert_ready();
    engine.quit();
}

#[test]
fn output_lines_never_interleave() {
    let mut engine = Engine::start(HANG);
    engine.send("position startpos");
    engine.send("go movetime 300");
    for _ in 0..200 {
        engine.send("isready");
    }
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    let mut readyoks = lines.iter().filter(|l| *l == "readyok").count();
    for line in &lines {
        assert!(
            line == "readyok" || line.starts_with("info ") || line.starts_with("bestmove "),
            "garbled line {line:?}"
        );
        if line.starts_with("info ") {
            check_info_line(&Position::startpos(), line);
        }
    }
    while readyoks < 200 {
        assert_eq!(engine.line(), "readyok");
        readyoks += 1;
    }
    engine.quit();
}

/// Every `go` gets a `bestmove`: each parameter of USI and UCI is understood, and an unknown or
/// malformed one is reported by `info string error` while the search runs with the rest.
#[test]
fn every_go_is_answered_by_a_bestmove() {
    let mut engine = Engine::start(HANG);
    let root = play(&Position::startpos(), &["5d5c"]);
    engine.send("position startpos moves 5d5c");
    let good = [
        "btime 300 wtime 300 binc 10 winc 10",
        "wtime 10000 btime 10000 movestogo 20",
        "btime 0 wtime 0 byoyomi 100",
        "movetime 50",
        "depth 3",
        "nodes 2000",
        "btime -50 wtime -50 byoyomi 100",
        "searchmoves 1b1c 3a3b depth 3",
        "btime 500 wtime 400 binc 0 winc 0 byoyomi 0 movestogo 3 depth 30 nodes 100000",
    ];
    for params in good {
        let lines = engine.go(&root, params);
        assert!(
            lines.iter().all(|l| !l.starts_with("info string error")),
            "{params}: {lines:?}"
        );
    }
    let bad = [
        ("depth movetime 30", 1),
        ("depth abc movetime 30", 1),
        ("depth 0 movetime 30", 1),
        ("nodes -5 depth 2", 1),
        ("btime movetime 30", 1),
        ("btime 1.5 movetime 30", 1),
        ("wtime ten movetime 30", 1),
        ("movetime x depth 2", 1),
        ("byoyomi depth 2", 1),
        ("binc 1e3 depth 2", 1),
        ("fast depth 2", 1),
        ("depth 1 depth 2", 1),
        ("movestogo soon movetime 30", 1),
        ("frobnicate 7 depth 2", 2),
        ("btime 99999999999999999999999 movetime 30", 1),
        ("searchmoves 9z9z depth 2", 2),
        ("searchmoves depth 2", 1),
    ];
    for (params, errors) in bad {
        let lines = engine.go(&root, params);
        let reported = lines
            .iter()
            .filter(|l| l.starts_with("info string error: "))
            .count();
        assert_eq!(reported, errors, "{params}: {lines:?}");
    }
    // Unreadable bytes in a go line: reported, and the search still answers.
    engine.send_bytes(b"go \xff\xfe depth 1\n");
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    assert!(lines[0].starts_with("info string error: line is not valid UTF-8"));
    check_bestmove(&root, lines.last().unwrap());
    engine.assert_ready();
    engine.quit();
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut engine = Engine::start(HANG);
    // Sente can mate at once with G*2b; restricted to two quiet moves, it must pick one of them.
    let root = sfen(MATE_IN_ONE_SFEN);
    engine.send(&format!("position sfen {MATE_IN_ONE_SFEN}"));
    let free = engine.go(&root, "depth 3");
    assert!(free.last().unwrap().starts_with("bestmove G*"), "{free:?}");
    for _ in 0..3 {
        let lines = engine.go(&root, "searchmoves 5e4e 5e5d depth 3");
        let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
        assert!(["5e4e", "5e5d"].contains(&best), "{lines:?}");
    }
    // Illegal ones are named and left out.
    let lines = engine.go(&root, "searchmoves 5e4e 1a1b depth 2");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: go searchmoves: '1a1b'")),
        "{lines:?}"
    );
    assert!(
        lines.last().unwrap().starts_with("bestmove 5e4e"),
        "{lines:?}"
    );
    engine.quit();
}

#[test]
fn go_mate_with_other_parameters_runs_the_mate_search() {
    let mut engine = Engine::start(HANG);
    engine.send(&format!("position sfen {MATE_IN_ONE_SFEN}"));
    engine.send("go mate 2000 depth 3");
    let error = engine.line();
    assert!(
        error.starts_with("info string error: go: 'mate'"),
        "{error:?}"
    );
    let line = engine.line();
    assert!(line.starts_with("checkmate G*"), "{line:?}");
    engine.quit();
}

/// `go perft` runs off the input loop: `isready` is answered while it counts, and `stop` or
/// `quit` end it at once.
#[test]
fn perft_is_a_search_that_can_be_stopped() {
    let mut engine = Engine::start(HANG);
    engine.send("position startpos");
    engine.send("go perft 4");
    let lines = engine.lines_until(|l| l.starts_with("Nodes searched: "));
    assert_eq!(lines.last().unwrap(), "Nodes searched: 35401");
    // Depth 9 takes minutes: readyok comes at once, and stop ends it with a partial count.
    engine.send("go perft 9");
    thread::sleep(Duration::from_millis(50));
    let asked = Instant::now();
    engine.send("isready");
    let lines = engine.lines_until(|l| l == "readyok");
    assert!(
        asked.elapsed() < Duration::from_millis(100),
        "readyok took {:?}",
        asked.elapsed()
    );
    assert!(lines.iter().all(|l| !l.starts_with("Nodes")), "{lines:?}");
    engine.send("stop");
    let lines = engine.lines_until(|l| l.starts_with("Nodes searched: "));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string perft stopped")),
        "{lines:?}"
    );
    engine.assert_ready();
    // quit during a long perft exits promptly.
    engine.send("go perft 9");
    thread::sleep(Duration::from_millis(50));
    let asked = Instant::now();
    engine.quit();
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
}

/// `uci` switches to UCI in Fairy-Stockfish's dialect (FEN, moves such as `a2a3`), `usi` back.
#[test]
fn uci_switches_the_dialect_and_usi_switches_back() {
    let mut engine = Engine::start(HANG);
    engine.send("ucinewgame");
    engine.assert_ready();
    engine.send("uci");
    let lines = engine.lines_until(|l| l == "uciok");
    assert!(lines[0].starts_with("id name "), "{lines:?}");
    for line in [
        "option name Hash type spin default 64 min 1 max 65536",
        "option name Ponder type check default false",
        "option name UCI_Variant type combo default minishogi var minishogi",
    ] {
        assert!(lines.contains(&line.to_string()), "{line}: {lines:?}");
    }
    assert!(lines.iter().all(|l| !l.contains("USI_")), "{lines:?}");
    engine.send("setoption name Hash value 8");
    assert_eq!(engine.line(), "info string USI_Hash: 8 MB allocated");
    engine.send("setoption name UCI_Variant value minishogi");
    engine.assert_ready();
    // UCI moves in, the same position as the USI moves.
    let after = play(&Position::startpos(), &["5d5c", "1b1c"]);
    engine.send("position startpos moves a2a3 e4e3");
    assert_eq!(engine.sfen(), after.to_sfen());
    engine.send(&format!("position fen {} moves a3a4", after.to_fen()));
    assert_eq!(engine.sfen(), play(&after, &["5c5b"]).to_sfen());
    // A USI move is refused in UCI, naming it; the position stays.
    let error = engine.expect_error("position startpos moves 5d5c");
    assert!(error.contains("move 1 '5d5c'"), "{error}");
    assert_eq!(engine.sfen(), play(&after, &["5c5b"]).to_sfen());
    // The answer and its pv in UCI.
    engine.send("position startpos moves a2a3 e4e3");
    engine.send("go depth 3");
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    let words: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    let best = after.parse_uci_move(words[1]).expect("a legal UCI move");
    if let ["bestmove", _, "ponder", reply] = words.as_slice() {
        after
            .after(best)
            .parse_uci_move(reply)
            .expect("a legal reply");
    }
    for line in lines.iter().filter(|l| l.contains(" pv ")) {
        let mut pos = after.clone();
        for text in line.split(" pv ").nth(1).unwrap().split(' ') {
            let mv = pos.parse_uci_move(text).expect("a legal pv move");
            pos.make_move(mv);
        }
    }
    // usi: back to USI, where UCI moves are refused.
    engine.send("usi");
    engine.until("usiok");
    engine.send("position startpos moves 5d5c 1b1c");
    assert_eq!(engine.sfen(), after.to_sfen());
    engine.expect_error("position startpos moves a2a3");
    engine.go(&after, "depth 2");
    engine.quit();
}

/// `bench` in the USI loop prints what `engine bench` prints, and can be stopped.
#[test]
fn bench_runs_in_the_loop() {
    let mut engine = Engine::start(HANG);
    engine.send("bench 2");
    let line = engine
        .lines_until(|l| l.starts_with("Bench: "))
        .pop()
        .unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields.len(), 5, "{line}");
    assert!(fields[1].parse::<u64>().unwrap() > 30, "{line}");
    let cli = Command::new(env!("CARGO_BIN_EXE_minishogi-engine"))
        .args(["bench", "--depth", "2"])
        .output()
        .unwrap();
    let cli = String::from_utf8(cli.stdout).unwrap();
    assert_eq!(
        cli.split_whitespace().nth(1),
        Some(fields[1]),
        "same signature: {cli}"
    );
    engine.send("bench 30");
    thread::sleep(Duration::from_millis(30));
    engine.assert_ready();
    engine.send("stop");
    assert_eq!(engine.line(), "Bench: stopped");
    engine.quit();
}

/// The nodes of `go depth 6` from the start position with a fresh hash and heuristics.
fn nodes_at_depth_6(engine: &mut Engine) -> u64 {
    engine.send("usinewgame");
    engine.assert_ready();
    engine.send("position startpos");
    let root = Position::startpos();
    let lines = engine.go(&root, "depth 6");
    lines
        .iter()
        .rev()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            words.find(|w| *w == "nodes")?;
            words.next()?.parse().ok()
        })
        .expect("an info line with nodes")
}

#[test]
fn params_file_sets_search_parameters_all_or_nothing() {
    let dir = std::env::temp_dir().join(format!("usi-params-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.params");
    std::fs::write(
        &good,
        "# tuned\nlmr_divisor_centi 120.4 50 1000 10  # exact 120.4\nrfp_margin 60\n",
    )
    .unwrap();
    let bad = dir.join("bad.params");
    std::fs::write(&bad, "rfp_margin 200\nrfp_margn 3\n").unwrap();

    let mut engine = Engine::start(HANG);
    let defaults = nodes_at_depth_6(&mut engine);
    engine.send(&format!(
        "setoption name ParamsFile value {}",
        good.display()
    ));
    assert_eq!(
        engine.line(),
        format!(
            "info string ParamsFile: search parameters from {}",
            good.display()
        )
    );
    let tuned = nodes_at_depth_6(&mut engine);
    assert_ne!(tuned, defaults, "the file's values change the search");
    // A bad file is refused whole, naming the line: the search stays as the good file set it.
    let error = engine.expect_error(&format!(
        "setoption name ParamsFile value {}",
        bad.display()
    ));
    assert!(
        error.contains("line 2: unknown search parameter 'rfp_margn'")
            && error.ends_with("search parameters unchanged"),
        "{error}"
    );
    assert_eq!(nodes_at_depth_6(&mut engine), tuned);
    // Empty: the defaults again.
    engine.send("setoption name ParamsFile value <empty>");
    assert_eq!(
        engine.line(),
        "info string ParamsFile: search parameters at their defaults"
    );
    assert_eq!(nodes_at_depth_6(&mut engine), defaults);
    // The file is the same as the hidden options (values rounded to the nearest integer).
    engine.send("setoption name lmr_divisor_centi value 120");
    engine.send("setoption name rfp_margin value 60");
    assert_eq!(nodes_at_depth_6(&mut engine), tuned);
    engine.quit();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn weakened_levels_answer_at_once_and_infinite_still_waits_for_stop() {
    let mut engine = Engine::start(HANG);
    engine.send("setoption name Skill_Level value 3");
    let note = engine.line();
    assert!(
        note.starts_with("info string strength: level 3.00: at most "),
        "{note:?}"
    );
    engine.send("setoption name Skill_Seed value 7");
    engine.assert_ready();
    let root = Position::startpos();
    engine.send("position startpos");
    // A level's node budget ends the search long before a minute's clock would.
    let sent = Instant::now();
    let lines = engine.go(&root, "btime 60000 wtime 60000 byoyomi 10000");
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}: {lines:?}");
    // Its candidates are reported as MultiPV lines.
    assert!(lines.iter().any(|l| l.contains(" multipv 2 ")), "{lines:?}");
    // `go infinite` searches the budget, then waits for stop all the same.
    engine.send("go infinite");
    engine.assert_no_bestmove_yet("stop");
    engine.send("stop");
    let lines = engine.lines_until(|l| l.starts_with("bestmove"));
    check_bestmove(&root, lines.last().unwrap());
    // USI_LimitStrength hands the choice of level to USI_Elo.
    engine.send("setoption name USI_LimitStrength value true");
    let note = engine.line();
    assert!(
        note.starts_with("info string strength: level 0.00 (USI_Elo "),
        "{note:?}"
    );
    engine.send("setoption name Skill_Level value 20");
    engine.assert_ready();
    engine.send("setoption name USI_LimitStrength value false");
    assert_eq!(engine.line(), "info string strength: full");
    let error = engine.expect_error("setoption name Skill_Level value 21");
    assert_eq!(
        error,
        "info string error: setoption: option Skill_Level must be between 0 and 20, got 21"
    );
    engine.quit();
}

#[test]
fn a_level_with_a_seed_plays_the_same_moves_every_time() {
    let moves = || {
        let mut engine = Engine::start(HANG);
        engine.send("setoption name Skill_Level value 0");
        engine.send("setoption name Skill_Seed value 3");
        engine.assert_ready();
        let mut played = Vec::new();
        for _ in 0..8 {
            let moves: Vec<&str> = played.iter().map(String::as_str).collect();
            engine.send(&format!("position startpos moves {}", moves.join(" ")));
            let root = play(&Position::startpos(), &moves);
            let lines = engine.go(&root, "btime 0 wtime 0 byoyomi 1000");
            let last = lines.last().unwrap();
            played.push(last.split_whitespace().nth(1).unwrap().to_string());
        }
        engine.quit();
        played
    };
    let first = moves();
    assert_eq!(first.len(), 8, "{first:?}");
    assert_eq!(first, moves());
}
