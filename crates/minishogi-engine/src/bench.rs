//! `engine bench`: a fixed set of positions searched to a fixed depth on one thread with a
//! fresh transposition table. The total node count is the search's signature: it changes
//! exactly when the search's behaviour changes. Beside the search rather than in it: it plays
//! with the engine's default evaluator (`nn`), which the search itself never names.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::platform::Instant;

use crate::eval::Evaluator;
use crate::search::{Limits, SearchControl, SearchOptions, Searcher};
use crate::shogi::Position;

pub const DEFAULT_DEPTH: u32 = 9;

/// The bench positions (`bench-positions.txt`, also read by the WebAssembly tests): one SFEN a
/// line, `#` comments.
const POSITIONS: &str = include_str!("bench-positions.txt");

fn sfens() -> impl Iterator<Item = &'static str> {
    POSITIONS
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// Arguments of `engine bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Search depth (default 9).
    #[arg(short, long)]
    pub depth: Option<u32>,
    /// Network weights to search with instead of the embedded network (speed comparisons;
    /// the signature is the embedded network's).
    #[arg(long)]
    pub eval_file: Option<std::path::PathBuf>,
}

/// `engine bench`: runs the bench and prints `Bench: N nodes M nps` on standard output.
pub fn run(args: &BenchArgs) -> Result<(), String> {
    let result = match &args.eval_file {
        None => run_bench(args.depth),
        Some(path) => {
            let mut ev = crate::nn::NetworkEvaluator::with_default_network();
            ev.load(path)
                .map_err(|e| format!("--eval-file {}: {e}", path.display()))?;
            run_bench_with(args.depth, Arc::new(ev))
        }
    };
    log::info!(
        "bench: {} positions, depth {}, {:.3} s",
        result.positions,
        result.depth,
        result.elapsed.as_secs_f64()
    );
    println!("{result}");
    Ok(())
}

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

/// The bench positions.
pub fn positions() -> Vec<Position> {
    sfens()
        .map(|sfen| Position::from_sfen(sfen).expect("bench SFEN is valid"))
        .collect()
}

/// Searches every bench position to `depth` (default `DEFAULT_DEPTH`), one thread, fresh TT,
/// with the engine's own default evaluator, so the signature covers what the engine plays with.
pub fn run_bench(depth: Option<u32>) -> BenchResult {
    run_bench_with(depth, crate::nn::engine_evaluator())
}

/// The bench with a given evaluator (speed experiments).
pub fn run_bench_with(depth: Option<u32>, evaluator: Arc<dyn Evaluator>) -> BenchResult {
    run_bench_until(
        depth,
        evaluator,
        &SearchOptions::default(),
        &SearchControl::default(),
    )
    .expect("a bench nobody stops runs to the end")
}

/// The bench, given up (`None`) soon after `control.stop` is set: USI `bench` runs it while
/// still answering `isready`, `stop` and `quit`.
/// `base` supplies the search's features and parameters (USI's hidden options); the table
/// size and thread count are always the bench's own.
pub fn run_bench_until(
    depth: Option<u32>,
    evaluator: Arc<dyn Evaluator>,
    base: &SearchOptions,
    control: &SearchControl,
) -> Option<BenchResult> {
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    let mut searcher = Searcher::new(SearchOptions {
        hash_mb: std::env::var("BENCH_HASH")
            .ok()
            .and_then(|h| h.parse().ok())
            .unwrap_or(16),
        threads: 1,
        multipv: 1,
        ..base.clone()
    });
    searcher.set_evaluator(evaluator);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let positions = positions();
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    for pos in &positions {
        searcher.clear();
        let start = Instant::now();
        let result = searcher.search_position(pos, &limits, control, &mut |_| {});
        if control.stop.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        log::debug!(
            "bench {:?} {:?} {}",
            result.best.map(|m| m.to_string()),
            result.score,
            result.nodes
        );
        elapsed += start.elapsed();
        nodes += result.nodes;
    }
    Some(BenchResult {
        positions: positions.len(),
        depth,
        nodes,
        elapsed,
        nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-9)) as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_lines_are_legal_and_distinct() {
        let positions = positions();
        assert_eq!(positions.len(), 30);
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
        assert_eq!(a.positions, 30);
        assert!(
            a.to_string()
                .starts_with(&format!("Bench: {} nodes ", a.nodes))
        );
    }
}
