//! The ladder's outputs: a Markdown table, CSV, JSON and an SVG plot of Elo (± 95%) against the
//! time a move on a log scale. Written atomically, all from the finished points.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::point::{Limit, PointResult};
use crate::fileio;
use crate::plot::table::{Shown, Table, csv_header, to_csv};
use crate::plot::{Colour, Figure, Panel, Point, Series};

/// Error bars are drawn cut at this many Elo either side (an interval reaching a score of 0% or
/// 100% is infinite in Elo).
const ERROR_BAR_CAP: f64 = 800.0;

/// One row of the table (and of scale.json).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub limit: String,
    pub games: usize,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Engine 1's points per game, 0..=1.
    pub score: f64,
    /// `None` before the first pair, or when infinite (a score of 0% or 100%).
    pub elo: Option<f64>,
    pub error95: Option<f64>,
    /// The plot's x: the time a move, or engine 1's mean time a move at a depth or node count.
    pub time_ms: Option<f64>,
    pub engine1_ms: Option<f64>,
    pub engine2_ms: Option<f64>,
    pub engine1_max_ms: f64,
    pub engine2_max_ms: f64,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

pub fn row(result: &PointResult) -> Row {
    let elo = result.elo();
    Row {
        limit: result.limit.label(),
        games: result.games,
        wins: result.wins,
        losses: result.losses,
        draws: result.draws,
        score: result.score(),
        elo: elo.and_then(|e| finite(e.elo)),
        error95: elo.and_then(|e| finite(e.error95)),
        time_ms: result.time_ms(),
        engine1_ms: result.mean_ms[0],
        engine2_ms: result.mean_ms[1],
        engine1_max_ms: result.max_ms[0],
        engine2_max_ms: result.max_ms[1],
    }
}

/// Elo as the table shows it: `+12 ± 46`, or `n/a` and why (see [`EloEstimate::brief`]).
///
/// [`EloEstimate::brief`]: crate::matches::stats::EloEstimate::brief
fn elo_text(result: &PointResult) -> String {
    match result.elo() {
        None => "n/a (no complete pair)".to_string(),
        Some(e) => e.brief(),
    }
}

fn ms_text(ms: Option<f64>) -> String {
    ms.map_or_else(|| "n/a".to_string(), |ms| format!("{ms:.1}"))
}

/// The Markdown table.
pub fn markdown(results: &[PointResult]) -> String {
    let mut s = String::new();
    if let Some(first) = results.first() {
        let _ = writeln!(
            s,
            "Engine 1: {} (`{}`); engine 2: {} (`{}`)\n",
            first.engines[0].name,
            first.engines[0].command,
            first.engines[1].name,
            first.engines[1].command
        );
    }
    s.push_str(
        "| limit | games | +/−/= | score | Elo (95%) | engine 1 ms/move (max) \
         | engine 2 ms/move (max) |\n|---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let _ = writeln!(
            s,
            "| {} | {} | +{} −{} ={} | {:.1}% | {} | {} ({:.0}) | {} ({:.0}) |",
            r.limit.label(),
            r.games,
            r.wins,
            r.losses,
            r.draws,
            100.0 * r.score(),
            elo_text(r),
            ms_text(r.mean_ms[0]),
            r.max_ms[0],
            ms_text(r.mean_ms[1]),
            r.max_ms[1]
        );
    }
    s
}

/// A row of scale.csv: its fields are the columns; Elo and its error are written as
/// `inf`/`-inf` where infinite, empty where unknown.
#[derive(Default, Serialize)]
struct CsvRow {
    limit: String,
    kind: &'static str,
    value: u64,
    games: usize,
    wins: u64,
    losses: u64,
    draws: u64,
    score: Shown<f64>,
    elo: Option<Shown<f64>>,
    error95: Option<Shown<f64>>,
    time_ms: Option<Shown<f64>>,
    engine1_ms: Option<Shown<f64>>,
    engine2_ms: Option<Shown<f64>>,
    engine1_max_ms: Shown<f64>,
    engine2_max_ms: Shown<f64>,
}

/// CSV with a header, a row a point ([`CsvRow`]).
pub fn csv(results: &[PointResult]) -> String {
    let rows: Vec<CsvRow> = results
        .iter()
        .map(|r| {
            let elo = r.elo();
            CsvRow {
                limit: r.limit.label(),
                kind: PointKind::of(r.limit).csv_name(),
                value: match r.limit {
                    Limit::MoveTime { ms } => ms,
                    Limit::Depth { depth } => u64::from(depth),
                    Limit::Nodes { engine1, .. } => engine1,
                    Limit::TimeOdds { engine2_ms, .. } => engine2_ms,
                },
                games: r.games,
                wins: r.wins,
                losses: r.losses,
                draws: r.draws,
                score: Shown(r.score()),
                elo: elo.map(|e| Shown(e.elo)),
                error95: elo.map(|e| Shown(e.error95)),
                time_ms: r.time_ms().map(Shown),
                engine1_ms: r.mean_ms[0].map(Shown),
                engine2_ms: r.mean_ms[1].map(Shown),
                engine1_max_ms: Shown(r.max_ms[0]),
                engine2_max_ms: Shown(r.max_ms[1]),
            }
        })
        .collect();
    if rows.is_empty() {
        return csv_header(&CsvRow::default());
    }
    to_csv(&rows, true)
}

/// scale.json: the rows and the engines.
pub fn json(results: &[PointResult]) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        engines: Option<&'a [crate::usi_client::EngineSpec; 2]>,
        points: Vec<Row>,
    }
    let report = Report {
        engines: results.first().map(|r| &r.engines),
        points: results.iter().map(row).collect(),
    };
    serde_json::to_string_pretty(&report).expect("the report serializes")
}

/// What limits the search at a point: each kind is drawn as its own series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointKind {
    MoveTime,
    Depth,
    Nodes,
    /// Engine 1 at a fixed time, engine 2 at a multiple of it (drawn at engine 2's time).
    TimeOdds,
}

impl PointKind {
    fn of(limit: Limit) -> PointKind {
        match limit {
            Limit::MoveTime { .. } => PointKind::MoveTime,
            Limit::Depth { .. } => PointKind::Depth,
            Limit::Nodes { .. } => PointKind::Nodes,
            Limit::TimeOdds { .. } => PointKind::TimeOdds,
        }
    }

    const ALL: [PointKind; 4] = [
        PointKind::MoveTime,
        PointKind::Depth,
        PointKind::Nodes,
        PointKind::TimeOdds,
    ];

    /// Its name in scale.csv's `kind` column.
    fn csv_name(self) -> &'static str {
        match self {
            PointKind::MoveTime => "movetime_ms",
            PointKind::Depth => "depth",
            PointKind::Nodes => "nodes",
            PointKind::TimeOdds => "odds_engine2_ms",
        }
    }

    /// From scale.csv's `kind` column.
    fn of_csv(kind: &str) -> PointKind {
        PointKind::ALL
            .into_iter()
            .find(|k| k.csv_name() == kind)
            .unwrap_or(PointKind::MoveTime)
    }
}

/// A finished point as the plot needs it (from the results, or from scale.csv).
#[derive(Clone, Debug, PartialEq)]
pub struct PlotPoint {
    pub label: String,
    pub kind: PointKind,
    /// The plot's x: the time a move, or engine 1's mean time a move at a depth or node count.
    pub time_ms: Option<f64>,
    /// Infinite at a score of 0% or 100%; `None` before the first pair.
    pub elo: Option<f64>,
    pub error95: Option<f64>,
}

impl PlotPoint {
    pub fn of(result: &PointResult) -> PlotPoint {
        let elo = result.elo();
        PlotPoint {
            label: result.limit.label(),
            kind: PointKind::of(result.limit),
            time_ms: result.time_ms(),
            elo: elo.map(|e| e.elo),
            error95: elo.map(|e| e.error95),
        }
    }

    /// The points of a scale.csv (`source` names it in errors).
    pub fn read_csv(csv: &str, source: &str) -> Result<Vec<PlotPoint>, String> {
        let table = Table::parse(csv, source)?;
        let labels = table.texts("limit")?;
        let kinds = table.texts("kind")?;
        let times = table.numbers("time_ms")?;
        let elos = table.numbers("elo")?;
        let errors = table.numbers("error95")?;
        Ok((0..table.len())
            .map(|i| PlotPoint {
                label: labels[i].to_string(),
                kind: PointKind::of_csv(kinds[i]),
                time_ms: times[i],
                elo: elos[i],
                error95: errors[i],
            })
            .collect())
    }

    /// The point drawn: at a time above 0 with a finite Elo; its error bar cut at
    /// ±[`ERROR_BAR_CAP`] (an interval reaching a score of 0% or 100% is infinite).
    fn drawn(&self) -> Option<Point> {
        let time = self.time_ms.filter(|t| *t > 0.0)?;
        let elo = self.elo.filter(|e| e.is_finite())?;
        let mut point = Point::new(time, elo).with_label(self.label.clone());
        if let Some(error) = self.error95.filter(|e| !e.is_nan()) {
            point = point.with_error(error.min(ERROR_BAR_CAP));
        }
        Some(point)
    }
}

/// The plot of Elo (± 95%) against the time a move (log scale): time limits and fixed node
/// counts each joined by a line, fixed depths as labelled points, both of the latter at engine
/// 1's mean time. Points with an infinite Elo (a score of 0% or 100%) are left out (the table
/// has them).
pub fn figure(title: &str, points: &[PlotPoint]) -> Figure {
    let mut panel = Panel::new(
        "time a move (ms, log scale; depths and nodes at engine 1's mean)",
        "Elo of engine 1 (± 95%)",
    );
    panel.log_x = true;
    panel.reference_y = Some(0.0);
    panel.empty_note = "no finished point with a finite Elo".to_string();
    let of_kind = |kind: PointKind| -> Vec<Point> {
        points
            .iter()
            .filter(|p| p.kind == kind)
            .filter_map(PlotPoint::drawn)
            .collect()
    };
    panel.series.push(Series::new(
        "time a move",
        Colour::BLUE,
        of_kind(PointKind::MoveTime),
    ));
    panel
        .series
        .push(Series::new("fixed depth", Colour::RED, of_kind(PointKind::Depth)).markers());
    panel.series.push(Series::new(
        "fixed nodes",
        Colour::GREEN,
        of_kind(PointKind::Nodes),
    ));
    panel.series.push(
        Series::new(
            "time odds (at engine 2's time)",
            Colour::ORANGE,
            of_kind(PointKind::TimeOdds),
        )
        .markers(),
    );
    panel.series.retain(|s| !s.points.is_empty());
    Figure::new(title, vec![panel])
}

/// The title of the ladder's plot: the engines.
fn title(results: &[PointResult]) -> String {
    match results.first() {
        Some(r) => format!("{} vs {}", r.engines[0].name, r.engines[1].name),
        None => "no finished points".to_string(),
    }
}

/// scale.svg: [`figure`] of the finished points.
pub fn svg(results: &[PointResult]) -> Result<String, String> {
    let points: Vec<PlotPoint> = results.iter().map(PlotPoint::of).collect();
    figure(&title(results), &points).svg()
}

/// Writes scale.md, scale.csv, scale.json and scale.svg into `out`.
pub fn write_all(out: &Path, results: &[PointResult]) -> Result<(), String> {
    let files = [
        ("scale.md", markdown(results)),
        ("scale.csv", csv(results)),
        ("scale.json", json(results)),
        ("scale.svg", svg(results)?),
    ];
    for (name, text) in files {
        fileio::write_atomic(&out.join(name), text.as_bytes())
            .map_err(|e| format!("cannot write {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usi_client::EngineSpec;

    fn spec(name: &str) -> EngineSpec {
        EngineSpec {
            name: name.to_string(),
            command: format!("{name} usi"),
            options: vec![],
            go_limits: vec![],
            movetime_go: false,
            swap_clocks: false,
            time_control: None,
        }
    }

    fn result(limit: Limit, pentanomial: [u64; 5], mean_ms: f64) -> PointResult {
        // Pair scores → wins/losses/draws: count a pair of 1 point as a win and a loss.
        let (mut wins, mut losses, mut draws) = (0, 0, 0);
        for (half, &n) in pentanomial.iter().enumerate() {
            match half {
                0 => losses += 2 * n,
                1 => (losses, draws) = (losses + n, draws + n),
                2 => (wins, losses) = (wins + n, losses + n),
                3 => (wins, draws) = (wins + n, draws + n),
                _ => wins += 2 * n,
            }
        }
        PointResult {
            limit,
            engines: [spec("a"), spec("b")],
            time_control: "x".to_string(),
            match_time_control: "x".to_string(),
            games_asked: 2 * pentanomial.iter().sum::<u64>() as usize,
            openings_fingerprint: "0".to_string(),
            games: 2 * pentanomial.iter().sum::<u64>() as usize,
            wins,
            losses,
            draws,
            pentanomial,
            mean_ms: [Some(mean_ms), Some(mean_ms / 2.0)],
            max_ms: [2.0 * mean_ms, mean_ms],
        }
    }

    fn sample() -> Vec<PointResult> {
        vec![
            result(Limit::MoveTime { ms: 10 }, [1, 2, 4, 5, 3], 9.5),
            result(Limit::MoveTime { ms: 100 }, [3, 4, 4, 2, 1], 98.0),
            result(Limit::Depth { depth: 4 }, [0, 0, 0, 0, 6], 3.0),
            result(Limit::Depth { depth: 8 }, [1, 1, 2, 1, 1], 40.0),
            result(Limit::Depth { depth: 9 }, [0, 0, 3, 0, 0], 50.0),
            result(
                Limit::Nodes {
                    engine1: 1000,
                    engine2: 5000,
                },
                [1, 2, 3, 2, 1],
                20.0,
            ),
        ]
    }

    #[test]
    fn table_rows_carry_the_results() {
        let results = sample();
        let md = markdown(&results);
        let lines: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
        // Header and six points.
        assert_eq!(lines.len(), 7, "{md}");
        assert!(
            lines[1].starts_with("| 10 ms/move | 30 | +"),
            "{}",
            lines[1]
        );
        // 10 ms: 1,2,4,5,3 pairs → 19 of 30 points.
        let row10 = row(&results[0]);
        assert_eq!(row10.wins + row10.losses + row10.draws, 30);
        assert!(
            (row10.score - (0.0 + 2.0 * 0.25 + 4.0 * 0.5 + 5.0 * 0.75 + 3.0) / 15.0).abs() < 1e-12
        );
        assert!(row10.elo.unwrap() > 0.0 && row10.error95.unwrap() > 0.0);
        assert!(lines[1].contains(&format!("{:+.0} ±", row10.elo.unwrap())));
        // A clean sweep: infinite Elo, shown as n/a and absent from the JSON numbers.
        assert!(lines[3].contains("| n/a (score 100%) |"), "{}", lines[3]);
        assert_eq!(row(&results[2]).elo, None);
        assert_eq!(row(&results[3]).time_ms, Some(40.0));
        // Even pairs only: exactly 0 Elo with no spread to measure, not "-0 ± 0".
        assert!(
            lines[5].contains("| 50.0% | +0 (interval n/a: too few pairs) |"),
            "{}",
            lines[5]
        );
        assert!(
            lines[6].starts_with("| 1000 vs 5000 nodes | 18 | +"),
            "{}",
            lines[6]
        );
        assert_eq!(row(&results[5]).time_ms, Some(20.0));
    }

    #[test]
    fn csv_text_is_pinned() {
        // The text the positional writer wrote before the rows were a struct: kept exactly.
        assert_eq!(
            csv(&sample()),
            "limit,kind,value,games,wins,losses,draws,score,elo,error95,time_ms,engine1_ms,\
             engine2_ms,engine1_max_ms,engine2_max_ms\n\
             10 ms/move,movetime_ms,10,30,15,8,7,0.6166666666666667,82.58955521976088,\
             110.86150447751969,10,9.5,4.75,19,9.5\n\
             100 ms/move,movetime_ms,100,28,8,14,6,0.39285714285714285,-75.62249448801954,\
             117.21673874161468,100,98,49,196,98\n\
             depth 4,depth,4,12,12,0,0,1,inf,0,3,3,1.5,6,3\n\
             depth 8,depth,8,12,5,5,2,0.5,-0,198.5764129027994,40,40,20,80,40\n\
             depth 9,depth,9,6,3,3,0,0.5,-0,0,50,50,25,100,50\n\
             1000 vs 5000 nodes,nodes,1000,18,7,7,4,0.5,-0,137.8574378322688,20,20,10,40,20\n"
        );
        assert_eq!(
            csv(&[]),
            "limit,kind,value,games,wins,losses,draws,score,elo,error95,time_ms,engine1_ms,\
             engine2_ms,engine1_max_ms,engine2_max_ms\n"
        );
    }

    #[test]
    fn csv_and_json_parse_back() {
        let results = sample();
        let text = csv(&results);
        let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
        assert_eq!(lines.len(), 7);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
        let col = |name: &str| lines[0].iter().position(|h| *h == name).unwrap();
        assert_eq!(lines[1][col("kind")], "movetime_ms");
        assert_eq!(lines[4][col("value")], "8");
        assert_eq!(lines[6][col("kind")], "nodes");
        assert_eq!(lines[6][col("value")], "1000");
        assert_eq!(lines[3][col("elo")], "inf");
        let elo: f64 = lines[1][col("elo")].parse().unwrap();
        assert!((elo - row(&results[0]).elo.unwrap()).abs() < 1e-9);
        let json: serde_json::Value = serde_json::from_str(&json(&results)).unwrap();
        let points = json["points"].as_array().unwrap();
        assert_eq!(points.len(), 6);
        assert_eq!(points[1]["limit"], "100 ms/move");
        assert!(points[2]["elo"].is_null());
        assert_eq!(json["engines"][0]["name"], "a");
    }

    #[test]
    fn svg_has_a_marker_and_an_error_bar_per_finite_point() {
        let results = sample();
        let text = svg(&results).unwrap();
        assert!(text.starts_with("<svg"), "{}", &text[..100]);
        assert!(text.trim_end().ends_with("</svg>"));
        let texts = crate::plot::svg_texts(&text);
        // Five finite points (the sweep is left out), each labelled.
        for label in [
            "10 ms/move",
            "100 ms/move",
            "depth 8",
            "1000 vs 5000 nodes",
            "a vs b",
        ] {
            assert!(texts.contains(&label), "{label}: {texts:?}");
        }
        assert!(!texts.contains(&"depth 4"));
        let f = figure("t", &results.iter().map(PlotPoint::of).collect::<Vec<_>>());
        let drawn: Vec<usize> = f.panels[0].series.iter().map(|s| s.points.len()).collect();
        assert_eq!(drawn, [2, 2, 1]);
        assert!(text.contains("log scale"));
        // Nothing to plot still gives a valid empty chart.
        let empty = svg(&[]).unwrap();
        assert!(crate::plot::svg_texts(&empty).contains(&"no finished points"));
    }

    #[test]
    fn the_csv_redraws_the_same_points() {
        let results = sample();
        let from_results: Vec<PlotPoint> = results.iter().map(PlotPoint::of).collect();
        let from_csv = PlotPoint::read_csv(&csv(&results), "scale.csv").unwrap();
        assert_eq!(from_csv.len(), from_results.len());
        for (a, b) in from_csv.iter().zip(&from_results) {
            assert_eq!(a.drawn(), b.drawn());
        }
        assert_eq!(figure("t", &from_csv), figure("t", &from_results));
    }

    #[test]
    fn the_table_never_shows_infinities_nan_or_negative_zero() {
        // No game, one pair, all won, all lost, pairs all even, an interval reaching 0%.
        let results = [
            result(Limit::MoveTime { ms: 10 }, [0, 0, 0, 0, 0], 9.0),
            result(Limit::MoveTime { ms: 20 }, [0, 0, 0, 1, 0], 9.0),
            result(Limit::MoveTime { ms: 30 }, [0, 0, 0, 0, 5], 9.0),
            result(Limit::MoveTime { ms: 40 }, [5, 0, 0, 0, 0], 9.0),
            result(Limit::MoveTime { ms: 50 }, [0, 0, 4, 0, 0], 9.0),
            result(Limit::MoveTime { ms: 60 }, [1, 0, 0, 0, 1], 9.0),
        ];
        let md = markdown(&results);
        for bad in ["inf", "NaN", "-0"] {
            assert!(!md.contains(bad), "{bad}: {md}");
        }
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).skip(1).collect();
        assert!(
            rows[0].contains("| n/a (no complete pair) |"),
            "{}",
            rows[0]
        );
        assert!(
            rows[1].contains("(interval n/a: too few pairs)"),
            "{}",
            rows[1]
        );
        assert!(rows[2].contains("| n/a (score 100%) |"), "{}", rows[2]);
        assert!(rows[3].contains("| n/a (score 0%) |"), "{}", rows[3]);
        assert!(
            rows[4].contains("| +0 (interval n/a: too few pairs) |"),
            "{}",
            rows[4]
        );
        assert!(
            rows[5].contains("| +0 (interval n/a: too few pairs) |"),
            "{}",
            rows[5]
        );
        let svg = svg(&results).unwrap();
        assert!(!svg.contains("inf") && !svg.contains("NaN"));
    }

    #[test]
    fn outputs_are_written() {
        let dir = std::env::temp_dir().join(format!("engine-scale-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_all(&dir, &sample()).unwrap();
        for name in ["scale.md", "scale.csv", "scale.json", "scale.svg"] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            assert!(!text.is_empty(), "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
