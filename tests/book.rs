//! The opening book seen from outside: the engine spawned in USI mode with `BookFile` set to a
//! book the test writes, answering `go` from it (or searching when the options say not to),
//! and `engine book` building books that the engine then plays from.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::UsiEngine as Engine;
use engine::shogi::Position;

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");
/// How long any expected line may take before the test fails as hung.
const HANG: Duration = Duration::from_secs(20);
/// A `go` with a clock, as a GUI sends it.
const GO_CLOCK: &str = "go btime 2000 wtime 2000 byoyomi 100";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-book-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Engine {
    /// `setoption name NAME value VALUE`, then `isready`: the lines before `readyok`.
    fn set(&mut self, name: &str, value: &str) -> Vec<String> {
        self.send(&format!("setoption name {name} value {value}"));
        self.send("isready");
        let mut lines = self.lines_until(|l| l == "readyok");
        lines.pop();
        lines
    }

    /// Sends `position …` and `go`, and returns the lines up to and including `bestmove`.
    fn go(&mut self, position: &str, go: &str) -> Vec<String> {
        self.send(position);
        self.send(go);
        self.lines_until(|l| l.starts_with("bestmove"))
    }
}

/// The bestmove of a `go`'s lines, with whether it came from the book (an `info string book
/// move` note and no search `info depth` line) or from a search (`info depth` lines).
fn answer(lines: &[String]) -> (String, bool) {
    let last = lines.last().unwrap();
    let best = last
        .strip_prefix("bestmove ")
        .unwrap_or_else(|| panic!("{last:?}"));
    let booked = lines
        .iter()
        .any(|l| l.starts_with("info string book move "));
    let searched = lines.iter().any(|l| l.starts_with("info depth "));
    assert!(booked != searched, "book or search, not both: {lines:?}");
    (best.to_string(), booked)
}

/// The start position after USI `moves`.
fn after(moves: &[&str]) -> Position {
    let mut pos = Position::startpos();
    for text in moves {
        let mv = pos.parse_usi_move(text).unwrap();
        pos.make_move(mv);
    }
    pos
}

/// A book: the start position with one move, 5e4d (the king's step, which the search would
/// not choose), and the position after 3e3d 3a3b (move number 3, game ply 2) with 1e1d.
fn write_small_book(dir: &Path) -> PathBuf {
    let path = dir.join("small.db");
    let later = after(&["3e3d", "3a3b"]).to_sfen();
    let text = format!(
        "#YANEURAOU-DB2016 1.00\n\
         sfen rbsgk/4p/5/P4/KGSBR b - 1\n\
         5e4d 1a2b 0 0 1\n\
         sfen {later}\n\
         1e1d none 20 3 2\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn go_plays_the_book_move_at_once_and_searches_without_own_book() {
    let dir = temp_dir("play");
    let book = write_small_book(&dir);
    let mut engine = Engine::start(HANG);
    let notes = engine.set("BookFile", book.to_str().unwrap());
    assert!(
        notes
            .iter()
            .any(|l| l.starts_with("info string BookFile: 2 positions, 2 moves from ")),
        "{notes:?}"
    );
    let started = Instant::now();
    let lines = engine.go("position startpos", GO_CLOCK);
    assert_eq!(answer(&lines), ("5e4d ponder 1a2b".to_string(), true));
    assert!(
        lines[0]
            == "info string book move 5e4d (value 0, depth 0, count 1; weighted choice among 1)",
        "{lines:?}"
    );
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );

    engine.set("USI_OwnBook", "false");
    let (best, booked) = answer(&engine.go("position startpos", GO_CLOCK));
    assert!(!booked && !best.starts_with("5e4d"), "{best}");
    engine.set("USI_OwnBook", "true");
    assert!(answer(&engine.go("position startpos", GO_CLOCK)).1);

    // Out of the book: a search.
    assert!(!answer(&engine.go("position startpos moves 3e3d", GO_CLOCK)).1);
    // No book: a search.
    engine.set("BookFile", "<empty>");
    assert!(!answer(&engine.go("position startpos", GO_CLOCK)).1);
}

#[test]
fn book_max_ply_counts_the_plies_of_the_game() {
    let dir = temp_dir("max-ply");
    let book = write_small_book(&dir);
    let mut engine = Engine::start(HANG);
    engine.set("BookFile", book.to_str().unwrap());
    let two_plies = "position startpos moves 3e3d 3a3b";
    // Game ply 2: within BookMaxPly 3, beyond 2.
    engine.set("BookMaxPly", "3");
    assert_eq!(
        answer(&engine.go(two_plies, GO_CLOCK)),
        ("1e1d".into(), true)
    );
    engine.set("BookMaxPly", "2");
    assert!(!answer(&engine.go(two_plies, GO_CLOCK)).1);
    // The same position given as an SFEN at move 1 is at ply 0: in the book again.
    let sfen = after(&["3e3d", "3a3b"]).to_sfen();
    let (board, _number) = sfen.rsplit_once(' ').unwrap();
    let lines = engine.go(&format!("position sfen {board} 1"), GO_CLOCK);
    assert_eq!(answer(&lines), ("1e1d".into(), true));
    // ... and at move 30 it is beyond any small limit.
    assert!(!answer(&engine.go(&format!("position sfen {board} 30"), GO_CLOCK)).1);
    engine.set("BookMaxPly", "0");
    assert!(!answer(&engine.go("position startpos", GO_CLOCK)).1);
}

#[test]
fn positions_reached_by_another_move_order_are_found() {
    let dir = temp_dir("transposition");
    let path = dir.join("t.db");
    let sfen = after(&["3e3d", "3a3b", "4e4d"]).to_sfen();
    std::fs::write(&path, format!("sfen {sfen}\n1a2b none 0 0 1\n")).unwrap();
    let mut engine = Engine::start(HANG);
    engine.set("BookFile", path.to_str().unwrap());
    for moves in ["3e3d 3a3b 4e4d", "4e4d 3a3b 3e3d"] {
        let lines = engine.go(&format!("position startpos moves {moves}"), GO_CLOCK);
        assert_eq!(answer(&lines), ("1a2b".into(), true), "{moves}");
    }
}

#[test]
fn illegal_book_moves_are_never_played_and_bad_files_keep_the_book() {
    let dir = temp_dir("bad");
    let good = write_small_book(&dir);
    let illegal = dir.join("illegal.db");
    std::fs::write(
        &illegal,
        "sfen rbsgk/4p/5/P4/KGSBR b - 1\n2e2c none 900 9 99\nP*3c none 900 9 99\n",
    )
    .unwrap();
    let malformed = dir.join("malformed.db");
    std::fs::write(
        &malformed,
        "sfen rbsgk/4p/5/P4/KGSBR b - 1\n3e3d none 0 0 1\n3e3d none high 0 1\n",
    )
    .unwrap();
    let mut engine = Engine::start(HANG);

    // Only illegal moves for the start position: left out (said), and the engine searches.
    let notes = engine.set("BookFile", illegal.to_str().unwrap());
    let note = notes
        .iter()
        .find(|l| l.starts_with("info string BookFile: "))
        .unwrap();
    assert!(
        note.contains("1 positions, 0 moves") && note.contains("2 lines left out"),
        "{note}"
    );
    assert!(note.contains("illegal.db:2: illegal move '2e2c'"), "{note}");
    assert!(!answer(&engine.go("position startpos", GO_CLOCK)).1);

    engine.set("BookFile", good.to_str().unwrap());
    // A malformed file: an error naming the file and line; the previous book stays.
    let notes = engine.set("BookFile", malformed.to_str().unwrap());
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("info string error: setoption BookFile: ")
            && notes[0].contains("malformed.db:3: bad value 'high'")
            && notes[0].ends_with(&format!(
                "keeping the book of {} (2 positions)",
                good.display()
            )),
        "{notes:?}"
    );
    let missing = dir.join("missing.db");
    let notes = engine.set("BookFile", missing.to_str().unwrap());
    assert!(
        notes[0].starts_with("info string error: setoption BookFile: cannot read book "),
        "{notes:?}"
    );
    assert_eq!(
        answer(&engine.go("position startpos", GO_CLOCK)),
        ("5e4d ponder 1a2b".into(), true)
    );
    // A folder is not a book either.
    let notes = engine.set("BookFile", dir.to_str().unwrap());
    assert!(notes[0].starts_with("info string error: "), "{notes:?}");
    // searchmoves without the book move: a search among them.
    let (best, booked) = answer(&engine.go("position startpos", "go depth 2 searchmoves 3e3d"));
    assert!(!booked && best.starts_with("3e3d"), "{best}");
}

#[test]
fn infinite_and_ponder_book_answers_wait_as_usi_requires() {
    let dir = temp_dir("wait");
    let book = write_small_book(&dir);
    let mut engine = Engine::start(HANG);
    engine.set("BookFile", book.to_str().unwrap());
    engine.send("position startpos");
    engine.send("go infinite");
    assert!(engine.line().starts_with("info string book move 5e4d"));
    assert_eq!(engine.try_line(Duration::from_millis(300)), None);
    engine.send("stop");
    assert_eq!(engine.line(), "bestmove 5e4d ponder 1a2b");

    engine.send("go ponder btime 1000 wtime 1000");
    assert!(engine.line().starts_with("info string book move 5e4d"));
    assert_eq!(engine.try_line(Duration::from_millis(300)), None);
    engine.send("ponderhit");
    assert_eq!(engine.line(), "bestmove 5e4d ponder 1a2b");
    engine.send("isready");
    assert_eq!(engine.line(), "readyok");
}

#[test]
fn best_and_weighted_choices() {
    let dir = temp_dir("choice");
    let path = dir.join("c.db");
    std::fs::write(
        &path,
        "sfen rbsgk/4p/5/P4/KGSBR b - 1\n3e3d none 10 0 1\n4e4d none 50 0 1\n2e3d none 50 0 9\n",
    )
    .unwrap();
    let mut engine = Engine::start(HANG);
    engine.set("BookFile", path.to_str().unwrap());
    engine.set("BookMoveChoice", "best");
    for _ in 0..3 {
        assert_eq!(
            answer(&engine.go("position startpos", GO_CLOCK)),
            ("2e3d".into(), true)
        );
    }
    engine.set("BookMoveChoice", "weighted");
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..60 {
        seen.insert(answer(&engine.go("position startpos", "go depth 1")).0);
    }
    assert!(seen.len() >= 2 && seen.contains("2e3d"), "{seen:?}");
}

fn book_command(args: &[&str]) -> std::process::Output {
    Command::new(ENGINE)
        .arg("book")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("engine runs")
}

#[test]
fn book_search_builds_a_book_the_engine_plays_from() {
    let dir = temp_dir("search");
    let outs = [dir.join("one.db"), dir.join("two.db")];
    for (out, threads) in outs.iter().zip(["1", "2"]) {
        let run = book_command(&[
            "search",
            "--depth-plies",
            "3",
            "--nodes",
            "800",
            "--width",
            "2",
            "--hash",
            "2",
            "--threads",
            threads,
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(run.stdout.is_empty());
    }
    let text = std::fs::read_to_string(&outs[0]).unwrap();
    assert_eq!(
        text,
        std::fs::read_to_string(&outs[1]).unwrap(),
        "the same at any --threads"
    );
    assert!(text.starts_with("#YANEURAOU-DB2016 1.00\n# engine book search --depth-plies 3"));
    let loaded = engine::book::load(&outs[0]).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let book = loaded.book;
    // The start position, its replies and theirs: at least one position a ply.
    assert!(book.len() >= 3, "{text}");
    let start = book.get(&Position::startpos()).unwrap();
    let best = start
        .moves
        .iter()
        .max_by_key(|m| (m.value, m.count))
        .unwrap();
    assert!(start.moves.iter().all(|m| m.depth >= 1), "{text}");

    let mut engine = Engine::start(HANG);
    engine.set("BookFile", outs[0].to_str().unwrap());
    engine.set("BookMoveChoice", "best");
    let lines = engine.go("position startpos", GO_CLOCK);
    let (played, booked) = answer(&lines);
    assert!(booked, "{lines:?}");
    assert_eq!(
        played.split_whitespace().next(),
        Some(best.mv.to_string().as_str())
    );
}

#[test]
fn book_from_games_counts_the_games() {
    let dir = temp_dir("games");
    let games = dir.join("games.txt");
    std::fs::write(
        &games,
        "1 a vs b: 1-0 checkmate; position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 3e3d 3a3b 4e4d\n\
         2 b vs a: 0-1 resignation; position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 3e3d 1a2b\n\
         3 a vs b: 1/2-1/2 max plies; position startpos moves 1e1c\n",
    )
    .unwrap();
    let records = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/records");
    let out = dir.join("games.db");
    let run = book_command(&[
        "from-games",
        games.to_str().unwrap(),
        records.join("kakinoki.kif").to_str().unwrap(),
        records.join("example.csa").to_str().unwrap(),
        "--max-ply",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let book = engine::book::load(&out).unwrap().book;
    let start = book.get(&Position::startpos()).unwrap();
    let count = |mv: &str| {
        start
            .moves
            .iter()
            .find(|m| m.mv.to_string() == mv)
            .map_or(0, |m| m.count)
    };
    // Both records open with 1e1c (the KIF and the CSA), as does game 3.
    assert_eq!((count("3e3d"), count("1e1c")), (2, 3));
    assert!(start.moves.iter().all(|m| m.depth == 0));
    // 3e3d won one game and lost one: value 0.
    assert_eq!(
        start
            .moves
            .iter()
            .find(|m| m.mv.to_string() == "3e3d")
            .unwrap()
            .value,
        0
    );

    // --min-count 3 keeps only 1e1c.
    let run = book_command(&[
        "from-games",
        games.to_str().unwrap(),
        records.join("kakinoki.kif").to_str().unwrap(),
        records.join("example.csa").to_str().unwrap(),
        "--min-count",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success());
    let book = engine::book::load(&out).unwrap().book;
    assert_eq!(book.move_count(), 1);

    // A bad line: an error naming the file and line, and the book is not rewritten.
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        "position startpos\nposition startpos moves 3e3d 3e3d\n",
    )
    .unwrap();
    let run = book_command(&[
        "from-games",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("bad.txt:2: move 2"), "{stderr}");
    assert_eq!(engine::book::load(&out).unwrap().book.move_count(), 1);
}

#[test]
fn book_from_datagen_shards() {
    let dir = temp_dir("datagen");
    let shards = dir.join("shards");
    let run = Command::new(ENGINE)
        .args([
            "datagen",
            "--games",
            "2",
            "--nodes",
            "100",
            "--hard-nodes",
            "1000",
        ])
        .args([
            "--random-plies",
            "0",
            "--max-plies",
            "30",
            "--threads",
            "1",
            "--quiet",
        ])
        .arg("--out")
        .arg(&shards)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let out = dir.join("dgn.db");
    let run = book_command(&[
        "from-games",
        shards.to_str().unwrap(),
        "--max-ply",
        "6",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let book = engine::book::load(&out).unwrap().book;
    // Two games from the start position: its moves were played twice in all.
    let start = book.get(&Position::startpos()).unwrap();
    assert_eq!(start.moves.iter().map(|m| m.count).sum::<u64>(), 2);
    assert!(book.len() >= 6, "{}", book.len());
}
