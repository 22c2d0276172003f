//! Time guarantees of the USI engine, measured as a GUI sees them: from writing the `go` line
//! to reading the `bestmove` line, on whatever machine runs the tests, with a second engine
//! searching at the same time (as in a real game). One test, so that nothing else in this test
//! binary competes for the cores while it measures.

mod common;

use std::time::{Duration, Instant};

use common::UsiEngine as Engine;
use minishogi_engine::shogi::Position;

/// How much later than asked a `bestmove` may arrive.
const LATE: Duration = Duration::from_millis(10);
const HANG: Duration = Duration::from_secs(60);

impl Engine {
    /// The engine after the `usi` handshake.
    fn started() -> Engine {
        let mut engine = Engine::start(HANG);
        engine.send("usi");
        engine.until("usiok");
        engine
    }

    fn ready(&mut self) {
        self.send("isready");
        self.until("readyok");
    }

    /// Sends `go …` and returns the bestmove's text and how long it took to arrive.
    fn timed_go(&mut self, params: &str) -> (String, Duration) {
        let sent = Instant::now();
        self.send(&format!("go {params}"));
        let line = self.until("bestmove");
        (line, sent.elapsed())
    }

    /// Plays `moves` moves from the start position with `go <params>` for each, returning the
    /// time each reply took.
    fn play_game(&mut self, params: &str, moves: usize) -> Vec<Duration> {
        let mut pos = Position::startpos();
        let mut played: Vec<String> = Vec::new();
        let mut times = Vec::new();
        for _ in 0..moves {
            self.send(&format!("position startpos moves {}", played.join(" ")));
            let (line, took) = self.timed_go(params);
            times.push(took);
            let mv = line.split_whitespace().nth(1).unwrap().to_string();
            let Ok(parsed) = pos.parse_usi_move(&mv) else {
                break; // resign
            };
            pos.make_move(parsed);
            played.push(mv);
            if !pos.has_legal_move() {
                break;
            }
        }
        times
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[test]
fn replies_come_on_time() {
    // The opponent: another engine thinking all along, as in a game on this machine.
    let mut opponent = Engine::started();
    opponent.send("go infinite");

    // `go movetime 100`: most of the time is used, never more than 10 ms extra.
    let mut engine = Engine::started();
    engine.ready();
    let times = engine.play_game("movetime 100", 16);
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    let longest = *times.iter().max().unwrap();
    eprintln!(
        "movetime 100: mean {:.1} ms, longest {:.1} ms over {} moves",
        ms(mean),
        ms(longest),
        times.len()
    );
    assert!(
        mean >= Duration::from_millis(90),
        "mean {mean:?}: time left unused"
    );
    assert!(longest <= Duration::from_millis(100) + LATE, "{times:?}");

    // Far more threads than cores: every reply still within byoyomi 100.
    engine.send("usinewgame");
    engine.send("setoption name Threads value 256");
    engine.ready();
    let times = engine.play_game("btime 0 wtime 0 byoyomi 100", 8);
    let longest = *times.iter().max().unwrap();
    eprintln!("Threads 256, byoyomi 100: longest {:.1} ms", ms(longest));
    assert!(longest <= Duration::from_millis(100) + LATE, "{times:?}");
    engine.send("setoption name Threads value 1");

    // A big hash is allocated before readyok, so the first move is on time.
    engine.send("setoption name USI_Hash value 4096");
    engine.ready();
    engine.send("usinewgame");
    engine.send("position startpos");
    let (line, took) = engine.timed_go("btime 0 wtime 0 byoyomi 1000");
    eprintln!("first move with USI_Hash 4096: {:.1} ms", ms(took));
    assert!(line.starts_with("bestmove "), "{line}");
    assert!(took <= Duration::from_millis(1000) + LATE, "{took:?}");

    // More hash than the machine has: cut down with a note, never an abort.
    engine.send("setoption name USI_Hash value 65536");
    let note = engine.until("info string USI_Hash");
    assert!(
        note.contains("cannot be had") || note.contains("65536 MB allocated"),
        "{note}"
    );
    engine.ready();
    let (line, _) = engine.timed_go("depth 3");
    assert!(line.starts_with("bestmove "), "{line}");
    engine.send("setoption name USI_Hash value 16");
    engine.ready();
    engine.send("quit");
    engine.wait_for_exit();

    opponent.send("stop");
    opponent.until("bestmove");
}
