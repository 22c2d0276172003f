//! The figure of `engine winrate`: the mean result of positions binned by score, with their
//! intervals, under the fitted and the known curves; then the fitted k by generation and by
//! stretch of plies, against the engine's 600.

use super::fit::logistic;
use super::report::{Fit, PHASES, Report, known_curves};
use crate::eval::CP_PER_LOGIT;
use crate::plot::{Colour, Figure, Legend, Numbers, Panel, Point, Series};

/// The reach of the score axis, cp.
const X_MAX: f64 = 3000.0;
/// Points along each curve.
const CURVE_POINTS: usize = 201;

fn curve(k: f64, x_max: f64) -> Vec<Point> {
    (0..CURVE_POINTS)
        .map(|i| {
            let x = x_max * (2.0 * i as f64 / (CURVE_POINTS - 1) as f64 - 1.0);
            Point::new(x, logistic(x / k))
        })
        .collect()
}

/// The fitted k of `fits` at `x(i, fit)`: markers at k and bars over the bootstrap interval
/// (drawn apart, since an interval need not be centred on k).
fn scales(title: &str, x_desc: &str, fits: &[Fit], x: impl Fn(usize, &Fit) -> f64) -> Panel {
    let mut panel = Panel::new(x_desc, "fitted k (cp per logit)");
    panel.title = title.to_string();
    panel.reference_y = Some(f64::from(CP_PER_LOGIT));
    panel.legend = Legend::UpperLeft;
    let fitted: Vec<(f64, &Fit, f64)> = fits
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((x(i, f), f, f.k?)))
        .collect();
    panel.series.push(
        Series::new(
            "fitted k (line: the engine's 600)",
            Colour::BLUE,
            fitted.iter().map(|&(x, _, k)| Point::new(x, k)).collect(),
        )
        .markers(),
    );
    let mut bars = Series::new(
        "",
        Colour::BLUE,
        fitted
            .iter()
            .filter_map(|&(x, f, _)| {
                let [lo, hi] = f.k_interval?;
                Some(Point::new(x, 0.5 * (lo + hi)).with_error(0.5 * (hi - lo)))
            })
            .collect(),
    );
    bars.line = false;
    bars.markers = false;
    panel.series.push(bars);
    panel
}

/// The number a generation's name ends with (`gen12` → 12).
fn trailing_number(name: &str) -> Option<f64> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    name[name.len() - digits..].parse().ok()
}

pub fn figure(report: &Report) -> Figure {
    // Past ±3000 cp the games are as good as decided (datagen adjudicates there): the axis
    // stops at the bins' reach or there, whichever is nearer.
    let x_max = report
        .bins
        .iter()
        .map(|b| b.cp_mean.abs())
        .fold(1000.0, f64::max)
        .min(X_MAX);
    let mut main = Panel::new(
        "search score of the side to move (cp)",
        "its game's result (win 1, draw 1/2)",
    );
    main.x_numbers = Numbers::Whole;
    main.title = format!("result by score (|score| up to {x_max:.0} cp drawn)");
    main.y_range = Some((-0.02, 1.02));
    main.reference_y = Some(0.5);
    main.legend = Legend::LowerRight;
    if let Some(k) = report.fit.k {
        main.series
            .push(Series::new(format!("fit: k = {k:.0}"), Colour::BLUE, curve(k, x_max)).line());
    }
    for (i, c) in known_curves().iter().enumerate() {
        // ShogiHome's curve is the search's scale (k = 600): one line, both names.
        let name = match c.name {
            "ShogiHome" => continue,
            "engine-search" => format!("search's scale, ShogiHome: k = {:.0}", c.k),
            "engine-result" => format!("engine's result curve: k = {:.0}", c.k),
            _ => format!("{}: k = {:.0}", c.name, c.k),
        };
        main.series
            .push(Series::new(name, Colour::nth(i + 1), curve(c.k, x_max)).line());
    }
    // The bins over the lines.
    main.series.push(
        Series::new(
            format!("{} bins of positions (95%)", report.bins.len()),
            Colour::GREY,
            report
                .bins
                .iter()
                .filter(|b| b.cp_mean.abs() <= x_max)
                .map(|b| Point::new(b.cp_mean, b.score).with_error(b.error))
                .collect(),
        )
        .markers(),
    );
    let mut panels = vec![main];
    if !report.generations.is_empty() {
        let numbered = report
            .generations
            .iter()
            .all(|g| trailing_number(&g.name).is_some());
        let mut panel = scales(
            "fitted k by generation",
            if numbered { "generation" } else { "data" },
            &report.generations,
            |i, f| {
                if numbered {
                    trailing_number(&f.name).unwrap_or(0.0)
                } else {
                    (i + 1) as f64
                }
            },
        );
        panel.x_numbers = Numbers::Whole;
        panels.push(panel);
    }
    if !report.phases.is_empty() {
        let mut panel = scales(
            "fitted k by ply",
            "ply (from the opening position; first of the stretch)",
            &report.phases,
            |i, _| f64::from(PHASES[i].0),
        );
        panel.x_numbers = Numbers::Whole;
        panels.push(panel);
    }
    let title = format!(
        "engine winrate: {} positions, k = {:.0}",
        report.fit.positions,
        report.fit.k.unwrap_or(f64::NAN)
    );
    Figure::new(title, panels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_are_numbered_by_their_names() {
        assert_eq!(trailing_number("gen12"), Some(12.0));
        assert_eq!(trailing_number("gen"), None);
        assert_eq!(trailing_number("7"), Some(7.0));
    }
}
