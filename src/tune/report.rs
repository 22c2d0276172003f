//! The run's outputs besides the parameters file: a CSV with one row per step and an SVG plot
//! of the parameters (normalised to their ranges) and the step scores.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::space::Space;
use super::state::Row;

/// The CSV: `step,iteration,particle,games,wins,losses,draws,score,best_score,elapsed_s`, then
/// the answer after the step (one column per parameter, by name), then what was played
/// (`NAME_played`). Empty cells where a column does not apply to the method.
pub fn csv(space: &Space, rows: &[Row]) -> String {
    let mut s =
        String::from("step,iteration,particle,games,wins,losses,draws,score,best_score,elapsed_s");
    for t in &space.tuned {
        let _ = write!(s, ",{}", t.name);
    }
    for t in &space.tuned {
        let _ = write!(s, ",{}_played", t.name);
    }
    s.push('\n');
    let opt = |x: Option<String>| x.unwrap_or_default();
    for r in rows {
        let _ = write!(
            s,
            "{},{},{},{},{},{},{},{:.4},{},{:.1}",
            r.step,
            r.iteration,
            opt(r.particle.map(|p| p.to_string())),
            r.wins + r.losses + r.draws,
            r.wins,
            r.losses,
            r.draws,
            r.score,
            opt(r.best_score.map(|b| format!("{b:.4}"))),
            r.elapsed_s
        );
        for v in r.values.iter().chain(&r.played) {
            let _ = write!(s, ",{v:.3}");
        }
        s.push('\n');
    }
    s
}

/// Colours of the parameter lines, in turn.
const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// The plot: each parameter's answer after every step as a fraction of its range (step 0: the
/// start values), and each step's score as dots, all on one 0..1 axis.
pub fn plot(space: &Space, method: &str, rows: &[Row]) -> Result<String, String> {
    let last = rows.last().map_or(1, |r| r.step).max(1) as f64;
    let series: Vec<Vec<(f64, f64)>> = (0..space.dims())
        .map(|i| {
            let start = (0.0, space.normalised(&space.start())[i]);
            std::iter::once(start)
                .chain(
                    rows.iter()
                        .map(|r| (r.step as f64, space.normalised(&r.values)[i])),
                )
                .collect()
        })
        .collect();
    let scores: Vec<(f64, f64)> = rows.iter().map(|r| (r.step as f64, r.score)).collect();
    let mut text = String::new();
    let draw = |text: &mut String| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(text, (900, 560)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("engine tune ({method}): parameters and score by step"),
                ("sans-serif", 20),
            )
            .margin(20)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..last, 0.0..1.0)?;
        chart
            .configure_mesh()
            .x_desc("step")
            .y_desc("value within its range (0 = min, 1 = max); score")
            .light_line_style(WHITE)
            .draw()?;
        for (i, (points, t)) in series.iter().zip(&space.tuned).enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    colour.stroke_width(2),
                ))?
                .label(format!("{} ({}..{})", t.name, t.min, t.max))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
        }
        let score_label = if method == "pso" {
            "score of the step (particle vs start)"
        } else {
            "score of the step (θ+ vs θ−)"
        };
        chart
            .draw_series(
                scores
                    .iter()
                    .map(|&p| Circle::new(p, 3, BLACK.mix(0.6).filled())),
            )?
            .label(score_label)
            .legend(|(x, y)| Circle::new((x + 10, y), 3, BLACK.filled()));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw(&mut text).map_err(|e| format!("cannot draw the tuning plot: {e}"))?;
    Ok(text)
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
}
