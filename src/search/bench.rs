//! `engine bench`: a fixed set of positions searched to a fixed depth on one thread with a
//! fresh transposition table. The total node count is the search's signature: it changes
//! exactly when the search's behaviour changes.

use std::fmt;
use std::time::{Duration, Instant};

use super::{Limits, SearchControl, SearchOptions, Searcher};
use crate::shogi::{Move, Position};

pub const DEFAULT_DEPTH: u32 = 9;

/// The bench positions, as USI moves from the start position (the first is the start
/// position itself). Chosen from varied self-play games: openings, middlegames with pieces in
/// hand, and attacks on the king.
const LINES: &[&str] = &[
    "",
    "4e4d 5a5b 4d3c 5b5a 5e4d 2a2b 3c2b 1a2b",
    "4e4d 5a5b 4d3c 5b5a 5e4d 2a2b 3c2b 1a2b 3e3d 2b1a 4d4e G*2d G*1d 2d1e 1d1e 1a2a",
    "4e4d 5a5b 4d3c 5b5a 5e4d 2a2b 3c2b 1a2b 3e3d 2b1a 4d4e G*2d G*1d 2d1e 1d1e 1a2a 4e4d 2a1a 4d4e 1a2a 4e4d 2a1a 4d4e 1a2a 4e4d 2a1a",
    "5d5c 3a3b 1e1d 1a2b 1d5d 3b3c 5c5b 4a5b",
    "5d5c 3a3b 1e1d 1a2b 1d5d 3b3c 5c5b 4a5b 5d5b 5a5b 2e5b 2a3a 5b4c R*1c R*5a 3c4b",
    "1e1b 2a1b 2e3d R*1e 5e4d 1e1c+ 4d5e 1a2a",
    "1e1b 2a1b 2e3d R*1e 5e4d 1e1c+ 4d5e 1a2a 5e4d 2a1a 4d5e 1a2a 5e4d 2a1a 4d5e 1a2a 5e4d 2a1a 4d5e 1a2a 5e4d 2a1a 4d5e 1a2a 5e4d 2a1a",
    "3e3d 4a5b 1e1b 1a1b P*4b 3a4b 3d2c 1b1a",
    "3e3d 4a5b 1e1b 1a1b P*4b 3a4b 3d2c 1b1a 2c1d 1a2b 1d2c 2b1a 2c1d 1a2b 1d2c 2b1a 2c1d 1a2b 1d2c 2b1a 2c1d 1a2b 1d2c 2b1a 2c1d 1a2b",
    "1e1c 2a2b 2e5b 1b1c 4e3d 4a5b 5e4d 5a4a",
    "2e4c 2a3b 4c3d 5a5c 3d2c 5c2c 3e3d 2c2a",
    "2e4c 2a3b 4c3d 5a5c 3d2c 5c2c 3e3d 2c2a 5e4d 1a2b 4d3e 2b1a 3e4d 1a2b 4d3e 2b1a",
    "2e4c 2a3b 4c3d 5a5c 3d2c 5c2c 3e3d 2c2a 5e4d 1a2b 4d3e 2b1a 3e4d 1a2b 4d3e 2b1a 3e4d 1a2b 4d3e 2b1a 3e4d 1a2b 4d3e 2b1a 3e4d 1a2b",
    "2e1d 5a5c 1d4a 5c5a B*3c 2a2b 3c5a+ 1a2a",
    "2e1d 5a5c 1d4a 5c5a B*3c 2a2b 3c5a+ 1a2a 5e4d 2a1a 4d4c 1a2a 4c5b 2a1a 5b4c 1a2a",
    "2e1d 5a5c 1d4a 5c5a B*3c 2a2b 3c5a+ 1a2a 5e4d 2a1a 4d4c 1a2a 4c5b 2a1a 5b4c 1a2a 4c5b 2a1a 5b4c 1a2a 4c5b 2a1a 5b4c 1a2a 4c5b 2a1a",
    "5d5c 4a1d 2e4c 1d2c 5e4d 3a4b 4c2a+ 1a2a",
    "5d5c 4a1d 2e4c 1d2c 5e4d 3a4b 4c2a+ 1a2a 3e2d B*1a G*3c 4b5c 4d3e 2c4e+ 3e2e 1a3c",
    "4e4d 1b1c 4d4c 3a2b 5e4d 1a1b 4c4b 1c1d",
    "4e4d 1b1c 4d4c 3a2b 5e4d 1a1b 4c4b 1c1d 2e1d 4a1d 1e1d 2b1c 1d1c 1b1c 4b5a B*1a",
    "4e4d 1b1c 4d4c 3a2b 5e4d 1a1b 4c4b 1c1d 2e1d 4a1d 1e1d 2b1c 1d1c 1b1c 4b5a B*1a P*3c 2a3a R*1e R*1d S*2d 1c2b 1e1d 3a3b R*1b 2b3a",
    "4e3d 1a2b 5d5c 4a1d 1e1d 5a5c 5e4d 3a4b",
    "4e3d 1a2b 5d5c 4a1d 1e1d 5a5c 5e4d 3a4b 4d4e 2b3a 4e4d P*5d 3d4c 5c4c 4d5d 4c2c",
    "4e3d 1a2b 5d5c 4a1d 1e1d 5a5c 5e4d 3a4b 4d4e 2b3a 4e4d P*5d 3d4c 5c4c 4d5d 4c2c B*2d 4b3c P*4c 3c2d 3e2d 2c2b S*4b 2b4b 4c4b B*3b",
    "5d5c 3a2b 5c5b 5a5b 2e5b 4a5b 3e3d 2a3a",
    "5d5c 3a2b 5c5b 5a5b 2e5b 4a5b 3e3d 2a3a 5e4d 1a2a 4d5d 2a1a 5d4d 1a2a 4d5d 2a1a",
    "5d5c 3a2b 5c5b 5a5b 2e5b 4a5b 3e3d 2a3a 5e4d 1a2a 4d5d 2a1a 5d4d 1a2a 4d5d 2a1a 5d4d 1a2a 4d5d 2a1a 5d4d 1a2a 4d5d 2a1a 5d4d 1a2a",
    "2e5b 5a5b 5e4d B*2b 4d3d 2a3b 3d2e 1a2a",
    "2e5b 5a5b 5e4d B*2b 4d3d 2a3b 3d2e 1a2a 3e2d 2a1a 2e1d 3b4c 1d2e 4c5d 2e3d 5b5c",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub positions: usize,
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub nps: u64,
}

impl fmt::Display for BenchResult {
    /// The line `engine bench` prints: `Bench: N nodes M nps`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bench: {} nodes {} nps", self.nodes, self.nps)
    }
}

/// Plays USI moves from `pos`; `None` if one is not legal.
fn play_usi(mut pos: Position, moves: &str) -> Option<Position> {
    for text in moves.split_whitespace() {
        let mv: Move = pos
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.to_string() == text)?;
        pos.make_move(mv);
    }
    Some(pos)
}

/// The bench positions.
pub fn positions() -> Vec<Position> {
    LINES
        .iter()
        .map(|line| play_usi(Position::startpos(), line).expect("bench line is legal"))
        .collect()
}

/// Searches every bench position to `depth` (default `DEFAULT_DEPTH`), one thread, fresh TT.
pub fn run_bench(depth: Option<u32>) -> BenchResult {
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    let mut searcher = Searcher::new(SearchOptions {
        hash_mb: std::env::var("BENCH_HASH")
            .ok()
            .and_then(|h| h.parse().ok())
            .unwrap_or(16),
        threads: 1,
        ..SearchOptions::default()
    });
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let control = SearchControl::default();
    let positions = positions();
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    for pos in &positions {
        searcher.clear();
        let start = Instant::now();
        let result = searcher.search_position(pos, &limits, &control, &mut |_| {});
        log::debug!(
            "bench {:?} {:?} {}",
            result.best.map(|m| m.to_string()),
            result.score,
            result.nodes
        );
        elapsed += start.elapsed();
        nodes += result.nodes;
    }
    BenchResult {
        positions: positions.len(),
        depth,
        nodes,
        elapsed,
        nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-9)) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_lines_are_legal_and_distinct() {
        let positions = positions();
        assert_eq!(positions.len(), LINES.len());
        let mut keys: Vec<u64> = positions.iter().map(Position::key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), positions.len());
        for pos in &positions {
            assert!(pos.has_legal_move());
        }
    }

    #[test]
    fn bench_is_deterministic() {
        let a = run_bench(Some(3));
        let b = run_bench(Some(3));
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.positions, LINES.len());
        assert!(
            a.to_string()
                .starts_with(&format!("Bench: {} nodes ", a.nodes))
        );
    }
}

/// Prints the bench at the default depth and the depth reached from the start position in one
/// second. `cargo test --release --lib search::bench::report -- --ignored --nocapture`
#[cfg(test)]
#[test]
#[ignore = "performance report; about 20 s in release"]
fn report() {
    // BENCH_DEPTH overrides the depth; BENCH_ONLY skips the one-second search.
    let depth = std::env::var("BENCH_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok());
    let r = run_bench(depth);
    println!(
        "{r} ({} positions, depth {}, {:.2} s)",
        r.positions,
        r.depth,
        r.elapsed.as_secs_f64()
    );
    if std::env::var("BENCH_ONLY").is_ok() {
        return;
    }
    let mut searcher = Searcher::new(SearchOptions::default());
    let limits = Limits {
        movetime: Some(Duration::from_millis(1000)),
        ..Limits::default()
    };
    let mut last = None;
    let result = searcher.search_position(
        &Position::startpos(),
        &limits,
        &SearchControl::default(),
        &mut |i| last = Some(i.clone()),
    );
    let i = last.unwrap();
    println!(
        "startpos 1 s: depth {} seldepth {} nodes {} nps {} score {:?} best {}",
        i.depth,
        i.seldepth,
        result.nodes,
        i.nps,
        i.score,
        result.best.unwrap()
    );
}

/// Speed with an evaluator as slow as the network (about 1 µs a call), and evaluations per
/// node. `cargo test --release --lib search::bench::report_slow_eval -- --ignored --nocapture`
#[cfg(test)]
#[test]
#[ignore = "performance report; about 10 s in release"]
fn report_slow_eval() {
    use super::{Evaluator, MaterialEvaluator};
    use std::hint::black_box;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    struct Slow {
        spins: u64,
        calls: AtomicU64,
    }
    impl Slow {
        fn work(&self) -> u64 {
            let mut x = 0u64;
            for i in 0..self.spins {
                x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
            }
            x
        }
    }
    impl Evaluator for Slow {
        fn win_probability(&self, pos: &Position) -> f32 {
            self.calls.fetch_add(1, Relaxed);
            black_box(self.work());
            MaterialEvaluator.win_probability(pos)
        }
    }
    let mut slow = Slow {
        spins: 1000,
        calls: AtomicU64::new(0),
    };
    // Calibrate on the fastest of several batches (the machine may be busy).
    let per_call = (0..20)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..1000 {
                black_box(slow.work());
            }
            start.elapsed().as_secs_f64() / 1000.0
        })
        .fold(f64::MAX, f64::min);
    slow.spins = (1000.0 * 1e-6 / per_call) as u64;
    let slow = Arc::new(slow);
    let depth = std::env::var("BENCH_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(DEFAULT_DEPTH);
    let mut searcher = Searcher::new(SearchOptions {
        hash_mb: 16,
        ..SearchOptions::default()
    });
    searcher.set_evaluator(slow.clone());
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let (mut nodes, mut elapsed) = (0, Duration::ZERO);
    for pos in positions() {
        searcher.clear();
        let start = Instant::now();
        nodes += searcher
            .search_position(&pos, &limits, &SearchControl::default(), &mut |_| {})
            .nodes;
        elapsed += start.elapsed();
    }
    let calls = slow.calls.load(Relaxed);
    println!(
        "1 µs eval: {nodes} nodes {:.0} nps, {:.2} evaluations per node ({calls})",
        nodes as f64 / elapsed.as_secs_f64(),
        calls as f64 / nodes as f64
    );
}
