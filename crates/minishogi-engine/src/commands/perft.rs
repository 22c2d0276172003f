//! `perft`: counts the leaves of the legal move tree to a fixed depth and reports the
//! speed, optionally per root move (`--divide`), to check move generation against references.

use crate::platform::Instant;
use crate::shogi::{Position, perft, perft_divide};
use std::io::Write;

/// Arguments of `perft`.
#[derive(clap::Args, Debug, Clone)]
pub struct PerftArgs {
    /// Depth in plies (1 = the number of legal moves; at most 32).
    #[arg(short, long, value_parser = clap::value_parser!(u32).range(0..=crate::shogi::MAX_PERFT_DEPTH as i64))]
    pub depth: u32,
    /// Start position as an SFEN (default: the standard start position).
    #[arg(long)]
    pub sfen: Option<String>,
    /// USI moves to play from the start position before counting.
    #[arg(long, num_args = 1..)]
    pub moves: Vec<String>,
    /// Print the count below each root move (`5d5c: 2487`) before the total.
    #[arg(long)]
    pub divide: bool,
}

/// What one perft run found.
#[derive(Clone, Debug, PartialEq)]
pub struct PerftReport {
    /// Per root move counts, in generation order (only with `--divide`).
    pub divide: Vec<(String, u64)>,
    pub nodes: u64,
    pub seconds: f64,
}

impl PerftReport {
    pub fn nodes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// Counts the leaves at `depth` below `pos`, per root move when `divide` is set.
pub fn measure(pos: &mut Position, depth: u32, divide: bool) -> PerftReport {
    let started = Instant::now();
    let (divide, nodes) = if divide && depth > 0 {
        let per_move: Vec<(String, u64)> = perft_divide(pos, depth)
            .into_iter()
            .map(|(mv, n)| (mv.to_string(), n))
            .collect();
        let total = per_move.iter().map(|(_, n)| n).sum();
        (per_move, total)
    } else {
        (Vec::new(), perft(pos, depth))
    };
    PerftReport {
        divide,
        nodes,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Writes the report: divide lines, then `nodes`, `time` and `nps` lines.
pub fn write_report(out: &mut impl Write, report: &PerftReport) -> std::io::Result<()> {
    for (mv, n) in &report.divide {
        writeln!(out, "{mv}: {n}")?;
    }
    writeln!(out, "nodes: {}", report.nodes)?;
    writeln!(out, "time: {:.3} s", report.seconds)?;
    writeln!(out, "nps: {:.0}", report.nodes_per_second())
}

/// Runs `perft` with its output on standard output.
pub fn run(args: &PerftArgs) -> Result<(), String> {
    let mut pos = super::position::position_from(args.sfen.as_deref(), &args.moves)?;
    let report = measure(&mut pos, args.depth, args.divide);
    let stdout = std::io::stdout();
    write_report(&mut stdout.lock(), &report).map_err(|e| format!("writing output: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divide_sums_to_total_and_names_moves() {
        let mut pos = Position::startpos();
        let report = measure(&mut pos, 3, true);
        assert_eq!(report.nodes, 2512);
        assert_eq!(report.divide.len(), 14);
        assert_eq!(report.divide.iter().map(|(_, n)| n).sum::<u64>(), 2512);
        assert!(report.divide.iter().any(|(mv, _)| mv == "5d5c"));
        let mut text = Vec::new();
        write_report(&mut text, &report).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("\nnodes: 2512\n"));
        assert_eq!(text.lines().count(), 14 + 3);
    }
}
