//! The run's outputs besides the parameters file: a CSV with one row per step and an SVG plot
//! of the parameters (normalised to their ranges) and the step scores.

use std::fmt::Write as _;

use serde::Serialize;

use super::space::Space;
use super::state::Row;
use crate::plot::table::{Fixed, Table, csv_header, to_csv};
use crate::plot::{Colour, Figure, Numbers, Panel, Point, Series};

/// The columns of a CSV row before the parameters' values.
#[derive(Default, Serialize)]
struct CsvRow {
    step: usize,
    iteration: usize,
    particle: Option<usize>,
    games: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    score: Fixed,
    best_score: Option<Fixed>,
    elapsed_s: Fixed,
}

/// The CSV: the columns of [`CsvRow`] (`step,iteration,particle,games,wins,losses,draws,score,
/// best_score,elapsed_s`), then the answer after the step (one column per parameter, by name),
/// then what was played (`NAME_played`). Empty cells where a column does not apply to the
/// method.
pub fn csv(space: &Space, rows: &[Row]) -> String {
    let mut s = csv_header(&CsvRow::default()).trim_end().to_string();
    for t in &space.tuned {
        let _ = write!(s, ",{}", t.name);
    }
    for t in &space.tuned {
        let _ = write!(s, ",{}_played", t.name);
    }
    s.push('\n');
    let records: Vec<(CsvRow, Vec<Fixed>)> = rows
        .iter()
        .map(|r| {
            let row = CsvRow {
                step: r.step,
                iteration: r.iteration,
                particle: r.particle,
                games: r.wins + r.losses + r.draws,
                wins: r.wins,
                losses: r.losses,
                draws: r.draws,
                score: Fixed(r.score, 4),
                best_score: r.best_score.map(|b| Fixed(b, 4)),
                elapsed_s: Fixed(r.elapsed_s, 1),
            };
            let values = r.values.iter().chain(&r.played).map(|&v| Fixed(v, 3));
            (row, values.collect())
        })
        .collect();
    s + &to_csv(&records, false)
}

/// A tuned parameter's course: its range and its answer by step (step 0: the start value).
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub name: String,
    pub min: f64,
    pub max: f64,
    /// (step, value).
    pub values: Vec<(f64, f64)>,
}

/// The plot: each parameter's answer after every step as a fraction of its range, and each
/// step's score as dots, all on one 0..1 axis.
pub fn figure(method: &str, traces: &[Trace], scores: &[(f64, f64)]) -> Figure {
    let mut panel = Panel::new("step", "value within its range (0 = min, 1 = max); score");
    panel.x_numbers = Numbers::Whole;
    panel.y_range = Some((0.0, 1.0));
    for (i, t) in traces.iter().enumerate() {
        let width = t.max - t.min;
        let points = t
            .values
            .iter()
            .map(|&(step, v)| Point::new(step, (v - t.min) / width))
            .collect();
        let name = format!("{} ({}..{})", t.name, t.min, t.max);
        panel
            .series
            .push(Series::new(name, Colour::nth(i), points).line());
    }
    let score_label = if method == "pso" {
        "score of the step (particle vs start)"
    } else {
        "score of the step (θ+ vs θ−)"
    };
    let scores = scores
        .iter()
        .map(|&(step, s)| Point::new(step, s))
        .collect();
    panel
        .series
        .push(Series::new(score_label, Colour::GREY, scores).markers());
    Figure::new(
        format!("engine tune ({method}): parameters and score by step"),
        vec![panel],
    )
}

/// tune.svg of a run: [`figure`] from its parameters and steps.
pub fn plot(space: &Space, method: &str, rows: &[Row]) -> Result<String, String> {
    let traces: Vec<Trace> = space
        .tuned
        .iter()
        .enumerate()
        .map(|(i, t)| Trace {
            name: t.name.to_string(),
            min: t.min,
            max: t.max,
            values: std::iter::once((0.0, t.start))
                .chain(rows.iter().map(|r| (r.step as f64, r.values[i])))
                .collect(),
        })
        .collect();
    let scores: Vec<(f64, f64)> = rows.iter().map(|r| (r.step as f64, r.score)).collect();
    figure(method, &traces, &scores).svg()
}

/// The figure of tune.svg from a run's tune.csv (`source` names it in errors). The ranges and start
/// values come from the run's parameters file when given (`space`); otherwise each parameter's
/// range is the span of the values in the CSV, and the lines begin at step 1.
pub fn csv_figure(csv: &str, source: &str, space: Option<&Space>) -> Result<Figure, String> {
    let table = Table::parse(csv, source)?;
    const FIRST_VALUE: usize = 10;
    let names: Vec<&String> = table
        .headers()
        .iter()
        .skip(FIRST_VALUE)
        .filter(|h| !h.ends_with("_played"))
        .collect();
    if !table.has("step") || !table.has("score") || names.is_empty() {
        return Err(format!(
            "{source}: not an engine tune CSV (step, score and parameter columns)"
        ));
    }
    let steps = table.numbers("step")?;
    let pso = table.texts("particle")?.iter().any(|p| !p.is_empty());
    let mut traces = Vec::new();
    for name in names {
        let values: Vec<(f64, f64)> = steps
            .iter()
            .zip(table.numbers(name)?)
            .filter_map(|(step, v)| Some(((*step)?, v?)))
            .collect();
        let trace = match space {
            Some(space) => {
                let t = space
                    .tuned
                    .iter()
                    .find(|t| t.name == name.as_str())
                    .ok_or_else(|| {
                        format!("{source}: parameter {name} is not tuned by the parameters file")
                    })?;
                Trace {
                    name: name.clone(),
                    min: t.min,
                    max: t.max,
                    values: std::iter::once((0.0, t.start)).chain(values).collect(),
                }
            }
            None => {
                let (lo, hi) = values
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(_, v)| {
                        (lo.min(v), hi.max(v))
                    });
                let (min, max) = if lo < hi {
                    (lo, hi)
                } else {
                    (lo - 1.0, lo + 1.0)
                };
                Trace {
                    name: format!("{name}, seen"),
                    min,
                    max,
                    values,
                }
            }
        };
        traces.push(trace);
    }
    let scores: Vec<(f64, f64)> = steps
        .iter()
        .zip(table.numbers("score")?)
        .filter_map(|(step, s)| Some(((*step)?, s?)))
        .collect();
    Ok(figure(if pso { "pso" } else { "spsa" }, &traces, &scores))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Row> {
        (1..=3)
            .map(|step| Row {
                step,
                iteration: step - 1,
                particle: (step == 2).then_some(1),
                wins: 3,
                losses: 1,
                draws: step as u64,
                score: 0.6,
                best_score: None,
                elapsed_s: step as f64 * 2.0,
                values: vec![100.0 + step as f64, 50.5],
                played: vec![110.0, 40.0],
            })
            .collect()
    }

    #[test]
    fn csv_text_is_pinned() {
        // The text the positional writer wrote before the rows were a struct: kept exactly.
        let space =
            Space::from_text("rfp_margin 100 0 200 10\nfutility_margin 50 0 100 5\n").unwrap();
        let mut rows = rows();
        rows[0].best_score = Some(0.123456);
        rows[1].particle = None;
        let header = "step,iteration,particle,games,wins,losses,draws,score,best_score,elapsed_s,\
                      rfp_margin,futility_margin,rfp_margin_played,futility_margin_played\n";
        assert_eq!(
            csv(&space, &rows),
            header.to_string()
                + "1,0,,5,3,1,1,0.6000,0.1235,2.0,101.000,50.500,110.000,40.000\n\
                   2,1,,6,3,1,2,0.6000,,4.0,102.000,50.500,110.000,40.000\n\
                   3,2,,7,3,1,3,0.6000,,6.0,103.000,50.500,110.000,40.000\n"
        );
        assert_eq!(csv(&space, &[]), header);
    }

    #[test]
    fn csv_has_a_row_per_step_and_a_column_per_value() {
        let space =
            Space::from_text("rfp_margin 100 0 200 10\nfutility_margin 50 0 100 5\n").unwrap();
        let text = csv(&space, &rows());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "step,iteration,particle,games,wins,losses,draws,score,best_score,elapsed_s,\
             rfp_margin,futility_margin,rfp_margin_played,futility_margin_played"
        );
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[2],
            "2,1,1,6,3,1,2,0.6000,,4.0,102.000,50.500,110.000,40.000"
        );
        let svg = plot(&space, "spsa", &rows()).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("rfp_margin (0..200)") && svg.contains("score of the step"));
        assert!(plot(&space, "pso", &[]).unwrap().starts_with("<svg"));
    }

    #[test]
    fn the_csv_redraws_the_plot() {
        let space =
            Space::from_text("rfp_margin 100 0 200 10\nfutility_margin 50 0 100 5\n").unwrap();
        let text = csv(&space, &rows());
        // With the parameters file: the very plot of the run (the CSV rounds to 3 decimals).
        assert_eq!(
            csv_figure(&text, "tune.csv", Some(&space))
                .unwrap()
                .svg()
                .unwrap(),
            plot(&space, "pso", &rows()).unwrap()
        );
        let seen = csv_figure(&text, "tune.csv", None).unwrap().svg().unwrap();
        let texts = crate::plot::svg_texts(&seen);
        assert!(texts.contains(&"rfp_margin, seen (101..103)"), "{texts:?}");
        // futility_margin is 50.5 throughout: a range of ±1 around it.
        assert!(
            texts.contains(&"futility_margin, seen (49.5..51.5)"),
            "{texts:?}"
        );
        let other = Space::from_text("lmr_divisor_centi 250 100 400 10\n").unwrap();
        let err = csv_figure(&text, "tune.csv", Some(&other)).unwrap_err();
        assert!(err.contains("rfp_margin is not tuned"), "{err}");
        assert!(csv_figure("a,b\n1,2\n", "x.csv", None).is_err());
    }
}
