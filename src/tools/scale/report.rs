//! The ladder's outputs: a Markdown table, CSV, JSON and an SVG plot of Elo (± 95%) against the
//! time a move on a log scale. Written atomically, all from the finished points.

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;
use serde::Serialize;

use super::{Limit, PointResult};
use crate::fileio;

/// Plot size in pixels.
const PLOT_SIZE: (u32, u32) = (900, 560);
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
    /// The plot's x: the time a move, or engine 1's mean time a move at a depth.
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

/// Elo as the table shows it: `+inf` / `-inf` for a score of 100% / 0%.
fn elo_text(result: &PointResult) -> String {
    match result.elo() {
        None => "n/a".to_string(),
        Some(e) if e.elo.is_infinite() => format!("{}inf", if e.elo > 0.0 { "+" } else { "-" }),
        // (+ 0.0 turns an Elo of -0, at a score of exactly 50%, into 0.)
        Some(e) if e.error95.is_infinite() => format!("{:+.0} ± inf", e.elo + 0.0),
        Some(e) => format!("{:+.0} ± {:.0}", e.elo + 0.0, e.error95),
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

fn csv_number(x: Option<f64>) -> String {
    x.map_or_else(String::new, |x| format!("{x}"))
}

/// CSV with a header; Elo and its error are written as `inf`/`-inf` where infinite, empty where
/// unknown.
pub fn csv(results: &[PointResult]) -> String {
    let mut s = String::from(
        "limit,kind,value,games,wins,losses,draws,score,elo,error95,time_ms,\
         engine1_ms,engine2_ms,engine1_max_ms,engine2_max_ms\n",
    );
    for r in results {
        let (kind, value) = match r.limit {
            Limit::MoveTime { ms } => ("movetime_ms", ms),
            Limit::Depth { depth } => ("depth", u64::from(depth)),
        };
        let elo = r.elo();
        let _ = writeln!(
            s,
            "{},{kind},{value},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.limit.label(),
            r.games,
            r.wins,
            r.losses,
            r.draws,
            r.score(),
            csv_number(elo.map(|e| e.elo)),
            csv_number(elo.map(|e| e.error95)),
            csv_number(r.time_ms()),
            csv_number(r.mean_ms[0]),
            csv_number(r.mean_ms[1]),
            r.max_ms[0],
            r.max_ms[1]
        );
    }
    s
}

/// scale.json: the rows and the engines.
pub fn json(results: &[PointResult]) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        engines: Option<&'a [crate::matches::engine_process::EngineSpec; 2]>,
        points: Vec<Row>,
    }
    let report = Report {
        engines: results.first().map(|r| &r.engines),
        points: results.iter().map(row).collect(),
    };
    serde_json::to_string_pretty(&report).expect("the report serializes")
}

/// A point on the plot: (time ms, Elo, error).
type PlotPoint = (f64, f64, f64);

/// The plotted points of a kind of limit: those with a time and a finite Elo and error.
fn plot_points(results: &[PointResult], depth: bool) -> Vec<(PlotPoint, String)> {
    results
        .iter()
        .filter(|r| matches!(r.limit, Limit::Depth { .. }) == depth)
        .filter_map(|r| {
            let e = r.elo()?;
            let time = r.time_ms().filter(|t| *t > 0.0)?;
            e.elo
                .is_finite()
                .then(|| ((time, e.elo, e.error95.min(ERROR_BAR_CAP)), r.limit.label()))
        })
        .collect()
}

/// The SVG plot of Elo (± 95%) against the time a move (log scale): time limits joined by a
/// line, fixed depths as labelled points at engine 1's mean time. Points with an infinite Elo
/// (a score of 0% or 100%) are left out (the table has them); error bars are cut at
/// ±[`ERROR_BAR_CAP`].
pub fn svg(results: &[PointResult]) -> Result<String, String> {
    let times = plot_points(results, false);
    let depths = plot_points(results, true);
    let all: Vec<PlotPoint> = times.iter().chain(&depths).map(|(p, _)| *p).collect();
    let (mut x_min, mut x_max) = all.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| {
        (lo.min(p.0), hi.max(p.0))
    });
    let (mut y_min, mut y_max) = all.iter().fold((0.0f64, 0.0f64), |(lo, hi), p| {
        (lo.min(p.1 - p.2), hi.max(p.1 + p.2))
    });
    if all.is_empty() {
        (x_min, x_max) = (1.0, 1000.0);
    }
    // Room around the points: a factor on the log axis (more on the right, for the labels and
    // the legend), a tenth of the span on the Elo axis.
    (x_min, x_max) = (x_min / 1.5, x_max * 4.0);
    let pad = ((y_max - y_min) * 0.1).max(20.0);
    (y_min, y_max) = (y_min - pad, y_max + pad);
    let title = match results.first() {
        Some(r) => format!("{} vs {}", r.engines[0].name, r.engines[1].name),
        None => "no finished points".to_string(),
    };
    let mut text = String::new();
    let draw = |text: &mut String| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(text, PLOT_SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d((x_min..x_max).log_scale(), y_min..y_max)?;
        chart
            .configure_mesh()
            .x_desc("time a move (ms, log scale; depths at engine 1's mean)")
            .y_desc("Elo of engine 1 (± 95%)")
            .light_line_style(WHITE)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        chart.draw_series(LineSeries::new(
            [(x_min, 0.0), (x_max, 0.0)],
            BLACK.mix(0.3),
        ))?;
        let series = [
            (&times, BLUE, "time a move", true),
            (&depths, RED, "fixed depth", false),
        ];
        for (points, color, name, joined) in series {
            if points.is_empty() {
                continue;
            }
            if joined {
                chart.draw_series(LineSeries::new(
                    points.iter().map(|((x, y, _), _)| (*x, *y)),
                    color,
                ))?;
            }
            chart.draw_series(points.iter().map(|((x, y, e), _)| {
                ErrorBar::new_vertical(*x, y - e, *y, y + e, color.filled(), 8)
            }))?;
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|((x, y, _), _)| Circle::new((*x, *y), 4, color.filled())),
                )?
                .label(name)
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
            chart.draw_series(points.iter().map(|((x, y, _), label)| {
                Text::new(label.clone(), (*x, *y), ("sans-serif", 12).into_font())
            }))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw(&mut text).map_err(|e| format!("cannot draw the plot: {e}"))?;
    Ok(text)
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
    use crate::matches::engine_process::EngineSpec;

    fn spec(name: &str) -> EngineSpec {
        EngineSpec {
            name: name.to_string(),
            command: format!("{name} usi"),
            options: vec![],
            go_limits: vec![],
            movetime_go: false,
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
        ]
    }

    #[test]
    fn table_rows_carry_the_results() {
        let results = sample();
        let md = markdown(&results);
        let lines: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
        // Header and five points.
        assert_eq!(lines.len(), 6, "{md}");
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
        // A clean sweep: infinite Elo, shown as +inf and absent from the JSON numbers.
        assert!(lines[3].contains("+inf"), "{}", lines[3]);
        assert_eq!(row(&results[2]).elo, None);
        assert_eq!(row(&results[3]).time_ms, Some(40.0));
        // Even pairs only: exactly 0 Elo with no spread, not "-0".
        assert!(lines[5].contains("| 50.0% | +0 ± 0 |"), "{}", lines[5]);
    }

    #[test]
    fn csv_and_json_parse_back() {
        let results = sample();
        let text = csv(&results);
        let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
        assert_eq!(lines.len(), 6);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
        let col = |name: &str| lines[0].iter().position(|h| *h == name).unwrap();
        assert_eq!(lines[1][col("kind")], "movetime_ms");
        assert_eq!(lines[4][col("value")], "8");
        assert_eq!(lines[3][col("elo")], "inf");
        let elo: f64 = lines[1][col("elo")].parse().unwrap();
        assert!((elo - row(&results[0]).elo.unwrap()).abs() < 1e-9);
        let json: serde_json::Value = serde_json::from_str(&json(&results)).unwrap();
        let points = json["points"].as_array().unwrap();
        assert_eq!(points.len(), 5);
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
        // The contents of the <text> elements.
        let texts: Vec<&str> = text
            .split("<text")
            .skip(1)
            .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
            .collect();
        // Four finite points (the sweep is left out), each labelled; plus the legend markers.
        for label in ["10 ms/move", "100 ms/move", "depth 8", "a vs b"] {
            assert!(texts.contains(&label), "{label}: {texts:?}");
        }
        assert!(!texts.contains(&"depth 4"));
        // (The backend may write a filled circle more than once.)
        let circles: std::collections::BTreeSet<&str> =
            text.lines().filter(|l| l.starts_with("<circle")).collect();
        assert_eq!(circles.len(), 4 + 2, "{text}");
        assert!(text.contains("log scale"));
        // Nothing to plot still gives a valid empty chart.
        let empty = svg(&[]).unwrap();
        assert!(empty.contains("no finished points"));
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
