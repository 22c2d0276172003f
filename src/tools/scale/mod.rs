//! `engine scale`: the scaling harness. Plays engine 1 against a fixed engine 2 at a ladder of
//! limits (fixed times a move, fixed depths, fixed nodes with optional odds) with the match
//! runner, and writes after every finished point a table (Markdown, CSV, JSON) and an SVG plot
//! of Elo (± 95%) against the time a move. Each point's result is kept in
//! `OUT/points/NAME.json`, written atomically once its match is over, so a ladder run again
//! with the same settings skips the points it finished.

pub mod point;
pub mod report;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::fileio;
use crate::matches::cli::{EngineArgs, MatchArgs, RefereeArgs, match_config};
use crate::matches::{MatchSummary, run_match};
use crate::usi_client::{EngineSpec, TimeControl};
pub use point::{Limit, PointResult};

/// The ladder of times a move (ms) when neither `--movetimes` nor `--depths` is given.
pub const DEFAULT_MOVETIMES_MS: [u64; 5] = [10, 30, 100, 300, 1000];
/// Time a move granted at fixed-depth points (seconds): a bound for a runaway search, far
/// above what the depths of the ladder need, so that the depth is what limits the search.
pub const DEFAULT_DEPTH_MOVETIME_S: f64 = 60.0;

/// Arguments of `engine scale`.
#[derive(clap::Args, Debug, Clone)]
pub struct ScaleArgs {
    /// Engine 1 (measured) and engine 2 (the fixed opponent), with their flags, as for
    /// `engine match`.
    #[command(flatten)]
    pub engines: EngineArgs,
    /// Ladder points by time a move, in milliseconds, e.g. 10,30,100 (default without
    /// --depths: 10,30,100,300,1000).
    #[arg(long, value_delimiter = ',', value_name = "MS,...")]
    pub movetimes: Vec<u64>,
    /// Ladder points by fixed depth for both engines, e.g. 4,8.
    #[arg(long, value_delimiter = ',', value_name = "D,...")]
    pub depths: Vec<u32>,
    /// Ladder points by fixed nodes a move, e.g. 10000,100000: engine 1 searches N nodes a move,
    /// engine 2 N × --node-odds (a match of equal strength at every point shows whether both
    /// searches gain alike from more nodes).
    #[arg(long, value_delimiter = ',', value_name = "N,...")]
    pub nodes: Vec<u64>,
    /// Engine 2's nodes a move at the fixed-node points, as a multiple of engine 1's.
    #[arg(long, value_name = "K", default_value_t = 1.0)]
    pub node_odds: f64,
    /// Time odds: at each of --movetimes, engine 2 plays at each of these multiples of engine
    /// 1's time a move, e.g. 1,3,10 (a ladder of odds instead of one point a time).
    #[arg(long, value_delimiter = ',', value_name = "K,...")]
    pub time_odds: Vec<f64>,
    /// Time a move at the fixed-depth and fixed-node points, in seconds (the depth or the
    /// nodes should bind first).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_DEPTH_MOVETIME_S)]
    pub depth_movetime: f64,
    /// Games per point (rounded up to pairs). Default: each opening once with each colour.
    #[arg(long)]
    pub games: Option<usize>,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Openings file, as for `engine match` (default: the built-in set).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Output folder: scale.md, scale.csv, scale.json, scale.svg and points/ (per point: the
    /// match records and the result).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub referee: RefereeArgs,
    /// No per-game progress lines on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// Kept with the match it was played from: what `point.rs` cannot know (a ladder `Point`).
impl PointResult {
    fn from_summary(point: &Point, summary: &MatchSummary) -> PointResult {
        PointResult {
            limit: point.limit,
            engines: summary.engines.clone(),
            time_control: summary.time_control.clone(),
            match_time_control: point.config.referee.time_control.to_string(),
            games_asked: point.games_asked,
            openings_fingerprint: point.openings_fingerprint.clone(),
            games: summary.games,
            wins: summary.wins,
            losses: summary.losses,
            draws: summary.draws,
            pentanomial: summary.pentanomial.0,
            mean_ms: summary.move_times.map(|t| t.mean_ms()),
            max_ms: summary.move_times.map(|t| t.max_ms),
        }
    }

    /// Whether this result was played with the settings of `point`; `Err` says what differs.
    fn check_matches(&self, point: &Point) -> Result<(), String> {
        let config = &point.config;
        if self.engines != config.engines {
            return Err(format!(
                "its engines were {:?}, now {:?}",
                self.engines, config.engines
            ));
        }
        // Results kept before `match_time_control` stated the match's control in `time_control`
        // (the same text where no engine had its own).
        let before = if self.match_time_control.is_empty() {
            &self.time_control
        } else {
            &self.match_time_control
        };
        if *before != config.referee.time_control.to_string() {
            return Err(format!(
                "its time control was {before}, now {}",
                config.referee.time_control
            ));
        }
        if self.games_asked != point.games_asked {
            return Err(format!(
                "it asked for {} games, now {}",
                self.games_asked, point.games_asked
            ));
        }
        if self.openings_fingerprint != point.openings_fingerprint {
            return Err("its openings were different".to_string());
        }
        Ok(())
    }
}

/// A point to play: its limit and the match that measures it.
struct Point {
    limit: Limit,
    config: crate::matches::MatchConfig,
    games_asked: usize,
    openings_fingerprint: String,
}

/// The points of the ladder, in order: times a move ascending (with `time_odds`, each time
/// at each of the odds, engine 2 at that multiple of engine 1's time), then depths ascending,
/// then nodes ascending (engine 2 at `node_odds` times engine 1's nodes).
pub fn ladder(
    movetimes: &[u64],
    depths: &[u32],
    nodes: &[u64],
    node_odds: f64,
    time_odds: &[f64],
) -> Result<Vec<Limit>, String> {
    if !time_odds.is_empty() && movetimes.is_empty() {
        return Err("--time-odds needs --movetimes: engine 1's times a move".to_string());
    }
    if let Some(k) = time_odds.iter().find(|k| !(k.is_finite() && **k > 0.0)) {
        return Err(format!("--time-odds {k} is not a positive number"));
    }
    let mut movetimes = if movetimes.is_empty() && depths.is_empty() && nodes.is_empty() {
        DEFAULT_MOVETIMES_MS.to_vec()
    } else {
        movetimes.to_vec()
    };
    let mut depths = depths.to_vec();
    if movetimes.contains(&0) {
        return Err("--movetimes: a time a move must be at least 1 ms".to_string());
    }
    if depths.contains(&0) {
        return Err("--depths: a depth must be at least 1".to_string());
    }
    if nodes.contains(&0) {
        return Err("--nodes: a node count must be at least 1".to_string());
    }
    if !(node_odds.is_finite() && node_odds > 0.0) {
        return Err(format!("--node-odds {node_odds} is not a positive number"));
    }
    movetimes.sort_unstable();
    movetimes.dedup();
    depths.sort_unstable();
    depths.dedup();
    let mut nodes = nodes.to_vec();
    nodes.sort_unstable();
    nodes.dedup();
    let with_odds = |n: u64| ((n as f64 * node_odds).round() as u64).max(1);
    let mut time_odds = time_odds.to_vec();
    time_odds.sort_by(f64::total_cmp);
    time_odds.dedup();
    let times: Vec<Limit> = if time_odds.is_empty() {
        movetimes
            .into_iter()
            .map(|ms| Limit::MoveTime { ms })
            .collect()
    } else {
        movetimes
            .into_iter()
            .flat_map(|ms| {
                time_odds.iter().map(move |k| Limit::TimeOdds {
                    engine1_ms: ms,
                    engine2_ms: ((ms as f64 * k).round() as u64).max(1),
                })
            })
            .collect()
    };
    Ok(times
        .into_iter()
        .chain(depths.into_iter().map(|depth| Limit::Depth { depth }))
        .chain(nodes.into_iter().map(|n| Limit::Nodes {
            engine1: n,
            engine2: with_odds(n),
        }))
        .collect())
}

/// Sets the `go` limit `key` of an engine to `value`, replacing one given on the command line.
fn set_go_limit(spec: &mut EngineSpec, key: &str, value: u64) {
    spec.go_limits.retain(|(k, _)| k != key);
    spec.go_limits.push((key.to_string(), value));
}

fn match_args(args: &ScaleArgs, limit: Limit, dir: &Path) -> MatchArgs {
    let mut engines = args.engines.clone();
    let movetime = match limit {
        Limit::MoveTime { ms } => ms as f64 / 1000.0,
        Limit::Depth { depth } => {
            for spec in &mut engines.specs {
                set_go_limit(spec, "depth", u64::from(depth));
            }
            args.depth_movetime
        }
        Limit::Nodes { engine1, engine2 } => {
            for (spec, n) in engines.specs.iter_mut().zip([engine1, engine2]) {
                set_go_limit(spec, "nodes", n);
            }
            args.depth_movetime
        }
        Limit::TimeOdds {
            engine1_ms,
            engine2_ms,
        } => {
            engines.specs[1].time_control =
                Some(TimeControl::MoveTime(Duration::from_millis(engine2_ms)));
            engine1_ms as f64 / 1000.0
        }
    };
    MatchArgs {
        engines,
        openings: args.openings.clone(),
        games: args.games,
        movetime: Some(movetime),
        tc: None,
        byoyomi: None,
        referee: args.referee.clone(),
        concurrency: args.concurrency,
        sprt: None,
        out: Some(dir.to_path_buf()),
        quiet: args.quiet,
    }
}

fn point(args: &ScaleArgs, limit: Limit) -> Result<Point, String> {
    let dir = args.out.join("points").join(limit.slug());
    let config = match_config(&match_args(args, limit, &dir))?;
    let positions: String = config
        .openings
        .iter()
        .map(|o| o.position_command(&[]) + "\n")
        .collect();
    Ok(Point {
        limit,
        games_asked: 2 * config.pairs,
        openings_fingerprint: format!("{:016x}", fileio::fnv1a(positions.as_bytes())),
        config,
    })
}

fn result_path(out: &Path, limit: Limit) -> PathBuf {
    out.join("points").join(format!("{}.json", limit.slug()))
}

/// The kept result of a point, if it was finished with the same settings; an error if it was
/// finished with others or cannot be read.
fn finished_result(out: &Path, point: &Point) -> Result<Option<PointResult>, String> {
    let path = result_path(out, point.limit);
    if !path.exists() {
        return Ok(None);
    }
    let text = fileio::read_regular_to_string(&path).map_err(|e| e.to_string())?;
    let result: PointResult = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a point result ({e})", path.display()))?;
    result.check_matches(point).map_err(|why| {
        format!(
            "{} was played with other settings ({why}): give another --out, or remove it to \
             play the point again",
            path.display()
        )
    })?;
    Ok(Some(result))
}

/// Runs `engine scale`: plays the points not finished yet, rewriting the table and plot after
/// each; prints the table on standard output at the end.
pub fn run(args: &ScaleArgs) -> Result<(), String> {
    let limits = ladder(
        &args.movetimes,
        &args.depths,
        &args.nodes,
        args.node_odds,
        &args.time_odds,
    )?;
    if !Duration::try_from_secs_f64(args.depth_movetime).is_ok_and(|d| !d.is_zero()) {
        return Err(format!(
            "--depth-movetime {} is not a positive time in seconds",
            args.depth_movetime
        ));
    }
    let points: Vec<Point> = limits
        .iter()
        .map(|&limit| point(args, limit))
        .collect::<Result<_, _>>()?;
    std::fs::create_dir_all(args.out.join("points"))
        .map_err(|e| format!("cannot create {}: {e}", args.out.join("points").display()))?;
    let mut results: Vec<PointResult> = Vec::new();
    for point in &points {
        if let Some(result) = finished_result(&args.out, point)? {
            log::info!("{}: finished before, skipped", point.limit.label());
            results.push(result);
            continue;
        }
        eprintln!(
            "scale: {} ({} games) …",
            point.limit.label(),
            point.games_asked
        );
        let summary = run_match(&point.config).map_err(|e| e.to_string())?;
        let result = PointResult::from_summary(point, &summary);
        let json = serde_json::to_vec_pretty(&result).expect("a point result serializes");
        let path = result_path(&args.out, point.limit);
        fileio::write_atomic(&path, &json).map_err(|e| format!("cannot write {e}"))?;
        eprintln!("scale: {}: {}", point.limit.label(), summary.standing());
        results.push(result);
        report::write_all(&args.out, &results)?;
    }
    report::write_all(&args.out, &results)?;
    print!("{}", report::markdown(&results));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_defaults_sorts_and_rejects_zero() {
        let ms = |v: &[u64]| {
            v.iter()
                .map(|&ms| Limit::MoveTime { ms })
                .collect::<Vec<_>>()
        };
        let ladder2 = |m: &[u64], d: &[u32]| ladder(m, d, &[], 1.0, &[]);
        assert_eq!(ladder2(&[], &[]).unwrap(), ms(&DEFAULT_MOVETIMES_MS));
        assert_eq!(
            ladder2(&[30, 10, 30], &[8, 4]).unwrap(),
            [
                Limit::MoveTime { ms: 10 },
                Limit::MoveTime { ms: 30 },
                Limit::Depth { depth: 4 },
                Limit::Depth { depth: 8 }
            ]
        );
        assert_eq!(ladder2(&[], &[2]).unwrap(), [Limit::Depth { depth: 2 }]);
        assert!(ladder2(&[0], &[]).is_err());
        assert!(ladder2(&[], &[0]).is_err());
    }

    #[test]
    fn node_points_give_engine_2_its_odds() {
        let limits = ladder(&[], &[], &[30_000, 10_000, 30_000], 2.5, &[]).unwrap();
        assert_eq!(
            limits,
            [
                Limit::Nodes {
                    engine1: 10_000,
                    engine2: 25_000
                },
                Limit::Nodes {
                    engine1: 30_000,
                    engine2: 75_000
                }
            ]
        );
        assert_eq!(limits[0].slug(), "nodes-10000-vs-25000");
        assert_eq!(limits[0].label(), "10000 vs 25000 nodes");
        let even = ladder(&[], &[], &[500], 1.0, &[]).unwrap();
        assert_eq!(even[0].slug(), "nodes-500");
        assert!(ladder(&[], &[], &[0], 1.0, &[]).is_err());
        assert!(ladder(&[], &[], &[10], 0.0, &[]).is_err());
        assert!(ladder(&[], &[], &[10], f64::NAN, &[]).is_err());
    }

    #[test]
    fn a_node_point_adds_each_engines_node_limit() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            scale: ScaleArgs,
        }
        let cli = <Cli as clap::Parser>::try_parse_from([
            "scale",
            "--engine",
            "a",
            "--engine-limit",
            "nodes=7",
            "--engine",
            "b",
            "--depth-movetime",
            "5",
            "--out",
            "x",
        ])
        .unwrap();
        let args = cli.scale;
        let limit = Limit::Nodes {
            engine1: 100,
            engine2: 400,
        };
        let m = match_args(&args, limit, Path::new("x"));
        assert_eq!(m.engines.specs[0].go_limits, [("nodes".to_string(), 100)]);
        assert_eq!(m.engines.specs[1].go_limits, [("nodes".to_string(), 400)]);
        assert_eq!(m.movetime, Some(5.0));
    }

    #[test]
    fn time_odds_points_give_engine_2_a_multiple_of_engine_1s_time() {
        let limits = ladder(&[100], &[], &[], 1.0, &[10.0, 1.0, 3.0]).unwrap();
        let odds = |engine2_ms| Limit::TimeOdds {
            engine1_ms: 100,
            engine2_ms,
        };
        assert_eq!(limits, [odds(100), odds(300), odds(1000)]);
        assert_eq!(limits[2].slug(), "movetime-100ms-vs-1000ms");
        assert_eq!(limits[2].label(), "100 vs 1000 ms/move");
        assert!(
            ladder(&[], &[], &[], 1.0, &[3.0]).is_err(),
            "no --movetimes"
        );
        assert!(ladder(&[100], &[], &[], 1.0, &[0.0]).is_err());
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            scale: ScaleArgs,
        }
        let args = <Cli as clap::Parser>::try_parse_from([
            "scale", "--engine", "a", "--engine", "b", "--out", "x",
        ])
        .unwrap()
        .scale;
        let m = match_args(&args, odds(1000), Path::new("x"));
        assert_eq!(m.movetime, Some(0.1));
        assert_eq!(m.engines.specs[0].time_control, None);
        assert_eq!(
            m.engines.specs[1].time_control,
            Some(TimeControl::MoveTime(Duration::from_secs(1)))
        );
    }
}
