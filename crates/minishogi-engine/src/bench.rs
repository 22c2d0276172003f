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

/// The bench positions: the start position, then positions from self-play games after random
/// openings (openings, middlegames with pieces in hand, attacks on the king).
const SFENS: &[&str] = &[
    "rbsgk/4p/5/P4/KGSBR b - 1",
    "rbs2/3kp/5/PK3/2SBR b Gg 9",
    "rbsk1/4p/5/P1S2/1K1BG b Gr 17",
    "rbs1k/4p/5/PKS2/3BG b Gr 27",
    "r2g1/b2kp/2s2/R4/KGSB1 b p 9",
    "R1g2/1s1kp/1B2r/5/KGS2 b Bp 17",
    "rbsk1/4g/4+r/P1B2/KGS2 b P 9",
    "rbs1k/4g/4+r/PKB2/1GS2 b P 27",
    "r2gk/bs3/3S1/P4/KG1B1 b rp 9",
    "r2g1/bs1k1/5/P3S/KG1B1 b rp 27",
    "1rs1k/b2g1/4p/PKG2/2S2 b rb 9",
    "1bsrk/2g1p/5/P1S2/KG2R b b 9",
    "1bsrk/2g1p/5/P1S2/1GK1R b b 17",
    "1bsr1/2gkp/5/PKS2/1G2R b b 27",
    "+BBsk1/3gp/5/P4/KGS1R b R 9",
    "+BBsk1/3gp/1K3/P4/1GS1R b R 17",
    "+BBs1k/K2gp/5/P4/1GS1R b R 27",
    "r2k1/1s2p/P2b1/1K3/1GS1R b Gb 9",
    "r2k1/4p/s1b2/3S1/1+b1KR b 2gp 17",
    "rb1g1/1G1sk/5/PK2p/2SBR b - 9",
    "G2gb/5/4k/PK3/2S2 b RBSPr 17",
    "G1k1b/2g1R/2P2/PK1SR/2S2 b B 27",
    "3g1/1s1kp/r4/1KG1R/2SB1 b Bp 9",
    "2kg1/1s2p/3r1/K3R/2SB1 b BPg 17",
    "2kg1/1Pb1p/5/K2SR/3B1 b Rgs 27",
    "2g1k/b2sp/5/2S2/KG2R b Rbp 9",
    "2g1k/b2sp/5/K1S2/1G2R b Rbp 17",
    "2gk1/b2sp/5/1KS2/1G2R b Rbp 27",
    "1bsk1/r1gbp/5/P4/1GSKR b - 9",
    "1bs1k/3bp/r4/g1KS1/1G2R b p 17",
];

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
    SFENS
        .iter()
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
        assert_eq!(positions.len(), SFENS.len());
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
        assert_eq!(a.positions, SFENS.len());
        assert!(
            a.to_string()
                .starts_with(&format!("Bench: {} nodes ", a.nodes))
        );
    }
}
