//! Search speed reports beyond `engine bench`'s signature line:
//!
//! - `report` (default): the bench (BENCH_DEPTH overrides the depth) with its time, then the
//!   depth reached from the start position in one second (material evaluator).
//! - `slow-eval`: the bench with an evaluator as slow as the network (about 1 µs a call) and the
//!   evaluations per node.
//!
//! cargo run --release --example search_speed -- [report|slow-eval]

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use engine::bench::{run_bench, run_bench_with};
use engine::eval::{Evaluator, MaterialEvaluator};
use engine::search::{Limits, SearchControl, SearchOptions, Searcher};
use engine::shogi::Position;

fn bench_depth() -> Option<u32> {
    std::env::var("BENCH_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
}

fn report() {
    let r = run_bench(bench_depth());
    println!(
        "{r} ({} positions, depth {}, {:.2} s)",
        r.positions,
        r.depth,
        r.elapsed.as_secs_f64()
    );
    // The material evaluator, as in the measurements of docs/results/speed.md.
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
        &mut |event| {
            if let Some(info) = event.iteration() {
                last = Some(info.clone())
            }
        },
    );
    let i = last.expect("a completed iteration");
    println!(
        "startpos 1 s: depth {} seldepth {} nodes {} nps {} score {:?} best {}",
        i.depth,
        i.seldepth,
        result.nodes,
        i.nps,
        i.score,
        result.best.expect("startpos has moves")
    );
}

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

fn slow_eval() {
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
    let r = run_bench_with(bench_depth(), slow.clone());
    let calls = slow.calls.load(Relaxed);
    println!(
        "1 µs eval: {} nodes {:.0} nps, {:.2} evaluations per node ({calls})",
        r.nodes,
        r.nodes as f64 / r.elapsed.as_secs_f64(),
        calls as f64 / r.nodes as f64
    );
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        None | Some("report") => report(),
        Some("slow-eval") => slow_eval(),
        Some(other) => {
            eprintln!("unknown report {other}; usage: search_speed [report|slow-eval]");
            std::process::exit(2);
        }
    }
}
