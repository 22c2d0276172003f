//! Time to depth: `engine ttd` searches each position of a set with `go depth D` (a fresh hash
//! for every position: `usinewgame`) in one or more USI engines, takes the time and nodes at
//! which each depth was finished from the engine's `info` lines, and reports per depth the
//! median, 90th and 99th percentile and maximum, engines side by side. `engine sample-positions`
//! draws such a set from played games (`games.txt` of `engine match`): positions with at least
//! a given number of pieces in hand, chosen at random, not by how slow they are.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde::Serialize;

use crate::fileio;
use crate::matches::cli::{DEFAULT_STARTUP_TIMEOUT_S, EngineArgs};
use crate::matches::openings::{Opening, load_openings};
use crate::matches::read_games_line;
use crate::shogi::{Color, Game};
use crate::usi_client::{EngineError, EngineProcess, EngineSpec, parse_info, positive_seconds};

/// Deepest depth searched by default.
pub const DEFAULT_MAX_DEPTH: u32 = 8;
/// Time a position may take by default (seconds) before `stop`; deeper depths count as not
/// reached.
pub const DEFAULT_MAX_TIME_S: f64 = 60.0;
/// How long an engine gets to answer `stop` with `bestmove`.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// Pieces in hand (both sides together) a sampled position has at least, by default.
pub const DEFAULT_MIN_HAND: u32 = 3;
/// Positions sampled by default, and at most per game.
pub const DEFAULT_SAMPLE_COUNT: usize = 100;
pub const DEFAULT_SAMPLE_PER_GAME: usize = 1;

/// Arguments of `engine ttd`.
#[derive(clap::Args, Debug, Clone)]
pub struct TtdArgs {
    /// The engines to measure (one or more), with their flags, as for `engine match`; the
    /// first is compared with each other.
    #[command(flatten)]
    pub engines: EngineArgs,
    /// Positions file: one position a line, as an openings file (`sfen …` or `startpos`,
    /// optionally with `moves`); `#` starts a comment.
    #[arg(long, value_name = "FILE")]
    pub positions: PathBuf,
    /// Only the first N positions of the file.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Deepest depth: each position is searched with `go depth D`.
    #[arg(long, default_value_t = DEFAULT_MAX_DEPTH)]
    pub max_depth: u32,
    /// Time a position may take, in seconds; then `stop`, and the depths not finished count
    /// as not reached.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_MAX_TIME_S)]
    pub max_time: f64,
    /// Time an engine gets to answer `usi` and `isready`, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_STARTUP_TIMEOUT_S)]
    pub startup_timeout: f64,
    /// Write ttd.md (the report) and ttd.json (every position's times and nodes) here.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// When a search finished a depth: milliseconds since `go` and nodes searched.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DepthMark {
    pub ms: f64,
    pub nodes: u64,
}

/// One engine on one position: `depths[d - 1]` for depth d, `None` where not reached.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionRun {
    pub position: String,
    pub depths: Vec<Option<DepthMark>>,
}

/// Median, 90th and 99th percentile and maximum of a sample (nearest rank); infinite values
/// stand for "not reached".
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub median: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

/// The `p`-th percentile (0 < p ≤ 100) of an ascending sample by the nearest-rank method: the
/// smallest value with at least p% of the sample at or below it. `None` for an empty sample.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

impl Spread {
    /// `None` for an empty sample. NaNs are not expected (times and node counts).
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Spread {
            median: percentile(&sorted, 50.0)?,
            p90: percentile(&sorted, 90.0)?,
            p99: percentile(&sorted, 99.0)?,
            max: *sorted.last()?,
        })
    }
}

/// One engine's statistics at one depth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DepthStats {
    pub depth: u32,
    pub reached: usize,
    pub positions: usize,
    /// Not reached counts as infinite (serialized as null).
    pub ms: Spread,
    pub nodes: Spread,
}

pub fn depth_stats(runs: &[PositionRun], max_depth: u32) -> Vec<DepthStats> {
    (1..=max_depth)
        .filter_map(|depth| {
            let marks: Vec<Option<DepthMark>> =
                runs.iter().map(|r| r.depths[depth as usize - 1]).collect();
            let ms: Vec<f64> = marks
                .iter()
                .map(|m| m.map_or(f64::INFINITY, |m| m.ms))
                .collect();
            let nodes: Vec<f64> = marks
                .iter()
                .map(|m| m.map_or(f64::INFINITY, |m| m.nodes as f64))
                .collect();
            Some(DepthStats {
                depth,
                reached: marks.iter().flatten().count(),
                positions: runs.len(),
                ms: Spread::of(&ms)?,
                nodes: Spread::of(&nodes)?,
            })
        })
        .collect()
}

/// The depth, time and nodes of an `info` line that reports a finished iteration (it has a
/// `score`; `currmove` lines are not one).
fn finished_iteration(line: &str) -> Option<(u32, Option<f64>, Option<u64>)> {
    if line.split_whitespace().next() != Some("info") {
        return None;
    }
    let info = parse_info(line);
    if info.currmove.is_some() || info.score.is_none() {
        return None;
    }
    Some((info.depth?, info.time_ms.map(|ms| ms as f64), info.nodes))
}

/// Fills the depths a search passed without reporting them: a depth missing below a reported
/// one was finished by then; after a search that ended by itself (not stopped) before the
/// deepest depth, the deeper depths count as reached at its end (a mate found, a single move).
fn fill_depths(depths: &mut [Option<DepthMark>], end: Option<DepthMark>) {
    let mut later = end;
    for slot in depths.iter_mut().rev() {
        match slot {
            Some(mark) => later = Some(*mark),
            None => *slot = later,
        }
    }
}

/// Searches one position to `max_depth` with a fresh hash and reads when each depth finished.
fn run_position(
    engine: &mut EngineProcess,
    opening: &Opening,
    max_depth: u32,
    max_time: Duration,
    startup_timeout: Duration,
) -> Result<PositionRun, EngineError> {
    engine.send("usinewgame")?;
    engine.sync(startup_timeout)?;
    let position = opening.position_command(&[]);
    engine.send(&position)?;
    engine.send(&format!("go depth {max_depth}"))?;
    let sent = Instant::now();
    let deadline = sent + max_time;
    let mut depths: Vec<Option<DepthMark>> = vec![None; max_depth as usize];
    let mut last_nodes = 0;
    let mut stopped = false;
    let end_ms = loop {
        let (at, line) = match engine.recv(if stopped {
            deadline + STOP_GRACE
        } else {
            deadline
        }) {
            Err(EngineError::Timeout { .. }) if !stopped => {
                engine.send("stop")?;
                stopped = true;
                continue;
            }
            Err(EngineError::Timeout { .. }) => {
                return Err(EngineError::Timeout {
                    waiting_for: "bestmove after stop".to_string(),
                    after: STOP_GRACE,
                });
            }
            other => other?,
        };
        let received_ms = at.saturating_duration_since(sent).as_secs_f64() * 1000.0;
        if line.split_whitespace().next() == Some("bestmove") {
            break received_ms;
        }
        if let Some((depth, ms, nodes)) = finished_iteration(&line)
            && (1..=max_depth).contains(&depth)
        {
            let nodes = nodes.unwrap_or(last_nodes);
            last_nodes = nodes;
            depths[depth as usize - 1] = Some(DepthMark {
                ms: ms.unwrap_or(received_ms),
                nodes,
            });
        }
    };
    let end = (!stopped).then_some(DepthMark {
        ms: end_ms,
        nodes: last_nodes,
    });
    fill_depths(&mut depths, end);
    Ok(PositionRun {
        position: position
            .strip_prefix("position ")
            .unwrap_or(&position)
            .to_string(),
        depths,
    })
}

/// One engine over all positions.
fn run_engine(
    spec: &EngineSpec,
    openings: &[Opening],
    args: &TtdArgs,
    max_time: Duration,
    startup_timeout: Duration,
) -> Result<Vec<PositionRun>, String> {
    let fail = |e: EngineError| format!("engine '{}': {e}", spec.name);
    let mut engine = EngineProcess::spawn(spec).map_err(fail)?;
    engine
        .handshake(&spec.options, startup_timeout)
        .map_err(fail)?;
    let mut runs = Vec::with_capacity(openings.len());
    for (i, opening) in openings.iter().enumerate() {
        let run = run_position(
            &mut engine,
            opening,
            args.max_depth,
            max_time,
            startup_timeout,
        )
        .map_err(|e| format!("engine '{}', position {}: {e}", spec.name, i + 1))?;
        let last = run.depths.last().copied().flatten();
        log::info!(
            "{}: position {}/{}: depth {} {}",
            spec.name,
            i + 1,
            openings.len(),
            args.max_depth,
            last.map_or("not reached".to_string(), |m| format!(
                "{:.0} ms {} nodes",
                m.ms, m.nodes
            ))
        );
        runs.push(run);
    }
    Ok(runs)
}

fn number(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        "—".to_string()
    }
}

fn ratio(a: f64, b: f64) -> String {
    if a.is_finite() && b.is_finite() && b > 0.0 {
        format!("{:.2}×", a / b)
    } else {
        "—".to_string()
    }
}

/// The report: per engine a table by depth; then engine 1's times over each other's.
pub fn report(engines: &[(String, Vec<DepthStats>)]) -> String {
    let mut s = String::new();
    for (name, stats) in engines {
        let _ = writeln!(
            s,
            "### {name}\n\n| depth | reached | ms median | ms p90 | ms p99 | ms max \
             | nodes median | nodes p90 | nodes p99 | nodes max |\n\
             |---|---|---|---|---|---|---|---|---|---|"
        );
        for d in stats {
            let _ = writeln!(
                s,
                "| {} | {}/{} | {} | {} | {} | {} | {} | {} | {} | {} |",
                d.depth,
                d.reached,
                d.positions,
                number(d.ms.median, 1),
                number(d.ms.p90, 1),
                number(d.ms.p99, 1),
                number(d.ms.max, 1),
                number(d.nodes.median, 0),
                number(d.nodes.p90, 0),
                number(d.nodes.p99, 0),
                number(d.nodes.max, 0)
            );
        }
        s.push('\n');
    }
    if let Some(((first, base), others)) = engines.split_first().map(|(f, o)| ((&f.0, &f.1), o)) {
        for (name, stats) in others {
            let _ = writeln!(
                s,
                "### time of {first} / time of {name}\n\n\
                 | depth | median | p90 | p99 | max |\n|---|---|---|---|---|"
            );
            for (a, b) in base.iter().zip(stats) {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} |",
                    a.depth,
                    ratio(a.ms.median, b.ms.median),
                    ratio(a.ms.p90, b.ms.p90),
                    ratio(a.ms.p99, b.ms.p99),
                    ratio(a.ms.max, b.ms.max)
                );
            }
            s.push('\n');
        }
    }
    s
}

/// Runs `engine ttd`: the report on standard output (and in `--out`), progress on stderr.
pub fn run(args: &TtdArgs) -> Result<(), String> {
    let specs = &args.engines.specs;
    if specs.is_empty() {
        return Err("give at least one --engine".to_string());
    }
    if args.max_depth == 0 {
        return Err("--max-depth must be at least 1".to_string());
    }
    let max_time = positive_seconds(args.max_time, "--max-time")?;
    let startup_timeout = positive_seconds(args.startup_timeout, "--startup-timeout")?;
    let mut openings = load_openings(&args.positions)?;
    if let Some(n) = args.limit {
        openings.truncate(n.max(1));
    }
    let mut all: Vec<(EngineSpec, Vec<PositionRun>)> = Vec::new();
    for spec in specs {
        eprintln!(
            "ttd: {} on {} positions to depth {} …",
            spec.name,
            openings.len(),
            args.max_depth
        );
        let runs = run_engine(spec, &openings, args, max_time, startup_timeout)?;
        all.push((spec.clone(), runs));
    }
    let stats: Vec<(String, Vec<DepthStats>)> = all
        .iter()
        .map(|(spec, runs)| (spec.name.clone(), depth_stats(runs, args.max_depth)))
        .collect();
    let text = report(&stats);
    if let Some(dir) = &args.out {
        #[derive(Serialize)]
        struct EngineReport<'a> {
            engine: &'a EngineSpec,
            depths: &'a [DepthStats],
            positions: &'a [PositionRun],
        }
        let json: Vec<EngineReport> = all
            .iter()
            .zip(&stats)
            .map(|((engine, positions), (_, depths))| EngineReport {
                engine,
                depths,
                positions,
            })
            .collect();
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let json = serde_json::to_vec_pretty(&json).expect("the report serializes");
        for (name, bytes) in [("ttd.md", text.as_bytes()), ("ttd.json", &json)] {
            fileio::write_atomic(&dir.join(name), bytes)
                .map_err(|e| format!("cannot write {e}"))?;
        }
    }
    print!("{text}");
    Ok(())
}

/// Arguments of `engine sample-positions`.
#[derive(clap::Args, Debug, Clone)]
pub struct SampleArgs {
    /// Game files: `games.txt` of `engine match` (each line's game, its `position …`), or plain
    /// `position`/`sfen`/`startpos` lines. Several may be given.
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    pub games: Vec<PathBuf>,
    /// Pieces in hand, both sides together, a position has at least.
    #[arg(long, default_value_t = DEFAULT_MIN_HAND)]
    pub min_hand: u32,
    /// Positions to draw.
    #[arg(long, default_value_t = DEFAULT_SAMPLE_COUNT)]
    pub count: usize,
    /// Positions drawn from one game at most.
    #[arg(long, default_value_t = DEFAULT_SAMPLE_PER_GAME)]
    pub per_game: usize,
    /// Random seed of the draw.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// File to write (one `sfen …` a line); standard output without it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Pieces in both hands.
fn pieces_in_hand(game: &Game) -> u32 {
    [Color::Sente, Color::Gote]
        .iter()
        .map(|&c| {
            game.position()
                .hand(c)
                .counts()
                .iter()
                .map(|&n| u32::from(n))
                .sum::<u32>()
        })
        .sum()
}

/// The positions of one game (a `position …` line) not yet over with at least `min_hand`
/// pieces in hand, as SFENs.
pub fn hand_positions(line: &str, min_hand: u32) -> Result<Vec<String>, String> {
    let opening = Opening::parse(line).map_err(|e| e.to_string())?;
    let mut game = Game::new(opening.start.clone());
    let mut found = Vec::new();
    for (i, &mv) in opening.moves.iter().enumerate() {
        game.play(mv).map_err(|e| format!("move {}: {e}", i + 1))?;
        if !game.status().is_over() && pieces_in_hand(&game) >= min_hand {
            found.push(game.position().to_sfen());
        }
    }
    Ok(found)
}

/// Draws up to `per_game` positions from each game, then `count` of all of them, at random
/// (seeded), without duplicates.
pub fn sample(games: &[Vec<String>], count: usize, per_game: usize, seed: u64) -> Vec<String> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut pool: Vec<String> = Vec::new();
    for positions in games {
        pool.extend(positions.choose_multiple(&mut rng, per_game).cloned());
    }
    pool.shuffle(&mut rng);
    let mut seen = std::collections::HashSet::new();
    pool.retain(|p| seen.insert(p.clone()));
    pool.truncate(count);
    pool
}

/// The game of a `games.txt` line (read by [`read_games_line`]), or the line itself.
fn game_text(line: &str) -> &str {
    read_games_line(line).map_or(line, |g| g.position).trim()
}

/// Runs `engine sample-positions`.
pub fn run_sample(args: &SampleArgs) -> Result<(), String> {
    if args.count == 0 || args.per_game == 0 {
        return Err("--count and --per-game must be at least 1".to_string());
    }
    let mut games = Vec::new();
    for path in &args.games {
        let text = fileio::read_regular_to_string(path).map_err(|e| format!("cannot read {e}"))?;
        for (number, line) in text.lines().enumerate() {
            // Engine names may hold `#`, so comments are cut from the game part only.
            let line = game_text(line).split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let positions = hand_positions(line, args.min_hand)
                .map_err(|e| format!("{} line {}: {e}", path.display(), number + 1))?;
            games.push(positions);
        }
    }
    let chosen = sample(&games, args.count, args.per_game, args.seed);
    if chosen.len() < args.count {
        log::warn!(
            "only {} positions with {}+ pieces in hand in {} games",
            chosen.len(),
            args.min_hand,
            games.len()
        );
    }
    let sources: Vec<String> = args.games.iter().map(|p| p.display().to_string()).collect();
    let mut text = format!(
        "# {} positions with at least {} pieces in hand, at most {} a game, drawn at random \
         (seed {}) from {} games of {}\n",
        chosen.len(),
        args.min_hand,
        args.per_game,
        args.seed,
        games.len(),
        sources.join(", ")
    );
    for sfen in &chosen {
        let _ = writeln!(text, "sfen {sfen}");
    }
    match &args.out {
        Some(path) => {
            fileio::write_atomic(path, text.as_bytes()).map_err(|e| format!("cannot write {e}"))
        }
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 90.0), Some(90.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&v, 100.0), Some(100.0));
        assert_eq!(percentile(&[7.0], 1.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
        // Ten values: p90 is the 9th, p99 the 10th, the median the 5th.
        let s = Spread::of(&[10.0, 1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 4.0, 6.0, 5.0]).unwrap();
        assert_eq!((s.median, s.p90, s.p99, s.max), (5.0, 9.0, 10.0, 10.0));
        // Not reached (infinite) sorts last.
        let s = Spread::of(&[1.0, f64::INFINITY, 2.0]).unwrap();
        assert_eq!((s.median, s.max), (2.0, f64::INFINITY));
        assert_eq!(Spread::of(&[]), None);
    }

    #[test]
    fn info_lines_give_finished_depths() {
        assert_eq!(
            finished_iteration(
                "info depth 7 seldepth 12 multipv 1 score cp 31 nodes 5120 nps 1 time 42 pv 2e2d"
            ),
            Some((7, Some(42.0), Some(5120)))
        );
        assert_eq!(
            finished_iteration("info depth 9 currmove 5d5c currmovenumber 3 nodes 50 time 15"),
            None
        );
        assert_eq!(finished_iteration("info string hello score"), None);
        assert_eq!(finished_iteration("bestmove 2e2d"), None);
        let mark = |ms: f64| Some(DepthMark { ms, nodes: 1 });
        let mut depths = vec![mark(1.0), None, mark(5.0), None];
        fill_depths(&mut depths, None);
        assert_eq!(depths, [mark(1.0), mark(5.0), mark(5.0), None]);
        let mut depths = vec![mark(1.0), None, None];
        fill_depths(&mut depths, mark(3.0));
        assert_eq!(depths, [mark(1.0), mark(3.0), mark(3.0)]);
    }

    #[test]
    fn depth_stats_count_reached_positions() {
        let run = |ms: &[Option<f64>]| PositionRun {
            position: String::new(),
            depths: ms
                .iter()
                .map(|m| {
                    m.map(|ms| DepthMark {
                        ms,
                        nodes: 10 * ms as u64,
                    })
                })
                .collect(),
        };
        let runs = [
            run(&[Some(1.0), Some(4.0)]),
            run(&[Some(2.0), None]),
            run(&[Some(3.0), Some(6.0)]),
        ];
        let stats = depth_stats(&runs, 2);
        assert_eq!(stats[0].reached, 3);
        assert_eq!(stats[0].ms.median, 2.0);
        assert_eq!(stats[0].nodes.max, 30.0);
        assert_eq!(stats[1].reached, 2);
        assert_eq!(stats[1].ms.median, 6.0);
        assert_eq!(stats[1].ms.max, f64::INFINITY);
        let text = report(&[("a".into(), stats.clone()), ("b".into(), stats)]);
        assert!(text.contains("| 2 | 2/3 | 6.0 |"), "{text}");
        assert!(text.contains("time of a / time of b"));
        assert!(text.contains("| 1 | 1.00× |"), "{text}");
    }

    #[test]
    fn sampled_positions_have_pieces_in_hand() {
        // Sente holds a gold and a bishop (taken off gote's side of the board).
        let line =
            "1 a #1 vs b: 1-0 checkmate; position sfen r1s1k/4p/5/P4/KGSBR b GB 1 moves 5d5c 1b1c";
        let positions = hand_positions(game_text(line), 2).unwrap();
        assert_eq!(positions.len(), 2);
        assert!(!positions.is_empty());
        for sfen in &positions {
            let opening = Opening::parse(sfen).unwrap();
            let hands: u32 = [Color::Sente, Color::Gote]
                .iter()
                .map(|&c| {
                    opening
                        .start
                        .hand(c)
                        .counts()
                        .iter()
                        .map(|&n| u32::from(n))
                        .sum::<u32>()
                })
                .sum();
            assert_eq!(hands, 2, "{sfen}");
        }
        assert!(hand_positions(game_text(line), 3).unwrap().is_empty());
        assert!(hand_positions("position startpos moves 9z9z", 1).is_err());
        let games: Vec<Vec<String>> = (0..10)
            .map(|g| (0..5).map(|i| format!("{g}-{i}")).collect())
            .collect();
        let a = sample(&games, 6, 1, 7);
        assert_eq!(a, sample(&games, 6, 1, 7));
        assert_eq!(a.len(), 6);
        let mut from: Vec<&str> = a.iter().map(|p| p.split('-').next().unwrap()).collect();
        from.dedup();
        from.sort_unstable();
        from.dedup();
        assert_eq!(from.len(), 6, "one a game: {a:?}");
        assert_eq!(sample(&games, 100, 2, 7).len(), 20);
    }
}
