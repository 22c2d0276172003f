//! Training curves, drawn from the metrics CSVs the training commands write beside their
//! weights: `engine train` and `engine pretrain` (a row an epoch: training loss, validation BCE
//! and accuracy) and `engine selfplay` (a row an iteration: training loss and the progress
//! matches' scores). The commands and `engine plot training` draw them the same way.

use crate::plot::table::Table;
use crate::plot::{Colour, Figure, Legend, Numbers, Panel, Point, Series};

/// Above this many rows the curves have no marker at each point.
const MARKED_ROWS: usize = 40;

/// The points of `x` against `y` (scaled by `factor`) where both are given.
fn curve(
    x: &[Option<f64>],
    y: &[Option<f64>],
    factor: f64,
    keep: impl Fn(f64) -> bool,
) -> Vec<Point> {
    x.iter()
        .zip(y)
        .filter_map(|(x, y)| Some((x.filter(|&x| keep(x))?, (*y)?)))
        .map(|(x, y)| Point::new(x, factor * y))
        .collect()
}

/// A column's numbers, or none when the CSV has no such column.
fn optional(table: &Table, column: &str) -> Result<Vec<Option<f64>>, String> {
    if table.has(column) {
        table.numbers(column)
    } else {
        Ok(vec![None; table.len()])
    }
}

/// The figure of a metrics CSV (`source` names it in errors): loss curves, and validation
/// accuracy or match scores where the CSV has them, titled `title`.
pub fn figure(csv: &str, source: &str, title: &str) -> Result<Figure, String> {
    let table = Table::parse(csv, source)?;
    let (x_name, x_desc) = if table.has("epoch") {
        ("epoch", "epoch")
    } else if table.has("iteration") {
        ("iteration", "self-play iteration")
    } else {
        return Err(format!(
            "{source}: not a training metrics CSV (no epoch or iteration column)"
        ));
    };
    let x = table.numbers(x_name)?;
    let all = |_: f64| true;
    // Self-play's row 0 measures the starting network: it trained nothing.
    let trained = |x: f64| x_name == "epoch" || x > 0.0;
    let mut loss = Panel::new(x_desc, "loss (binary cross-entropy)");
    loss.title = "loss".to_string();
    loss.x_numbers = Numbers::Whole;
    loss.series.push(Series::new(
        "training loss",
        Colour::BLUE,
        curve(&x, &optional(&table, "train_loss")?, 1.0, trained),
    ));
    let val_bce = optional(&table, "val_bce")?;
    if val_bce.iter().any(Option::is_some) {
        loss.series.push(Series::new(
            "validation BCE",
            Colour::RED,
            curve(&x, &val_bce, 1.0, all),
        ));
    }
    let mut panels = vec![loss];
    let accuracy = optional(&table, "val_accuracy")?;
    if accuracy.iter().any(Option::is_some) {
        let mut panel = Panel::new(x_desc, "validation accuracy (%)");
        panel.title = "accuracy".to_string();
        panel.x_numbers = Numbers::Whole;
        panel.series.push(Series::new(
            "validation accuracy",
            Colour::GREEN,
            curve(&x, &accuracy, 100.0, all),
        ));
        panels.push(panel);
    }
    let matches = [
        (
            "eval_score",
            "against the reference network",
            Colour::ORANGE,
        ),
        (
            "material_score",
            "against the material player",
            Colour::GREY,
        ),
    ];
    let mut scores = Panel::new(x_desc, "score (%)");
    scores.title = "progress matches".to_string();
    scores.x_numbers = Numbers::Whole;
    scores.reference_y = Some(50.0);
    // Scores rise from the start: the legend goes below them.
    scores.legend = Legend::LowerRight;
    for (column, name, colour) in matches {
        let points = curve(&x, &optional(&table, column)?, 100.0, all);
        if !points.is_empty() {
            scores.series.push(Series::new(name, colour, points));
        }
    }
    if !scores.series.is_empty() {
        panels.push(scores);
    }
    if table.len() > MARKED_ROWS {
        for series in panels.iter_mut().flat_map(|p| &mut p.series) {
            series.markers = false;
        }
    }
    Ok(Figure::new(title, panels))
}

/// [`figure`] as SVG.
pub fn svg(csv: &str, source: &str, title: &str) -> Result<String, String> {
    figure(csv, source, title)?.svg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::svg_texts;

    const TRAIN: &str = "epoch,learning_rate,train_loss,val_bce,val_mse,val_accuracy,seconds,positions_per_second\n\
        0,0,,0.474456,0.060976,0.79913,0,0\n\
        1,0.0005,0.466789,0.471749,0.060047,0.80170,0.74,449513\n\
        2,0.00035,0.461015,0.471240,0.059936,0.80075,0.75,443614\n";

    #[test]
    fn epochs_give_loss_and_accuracy() {
        let f = figure(TRAIN, "gen.csv", "engine train").unwrap();
        assert_eq!(f.panels.len(), 2);
        let [train, val] = [&f.panels[0].series[0], &f.panels[0].series[1]];
        // Epoch 0 has no training loss; validation is measured before training too.
        assert_eq!(train.points.len(), 2);
        assert_eq!(val.points[0], Point::new(0.0, 0.474456));
        assert!((f.panels[1].series[0].points[1].y - 80.17).abs() < 1e-9);
        let svg = f.svg().unwrap();
        let texts = svg_texts(&svg);
        for word in [
            "training loss",
            "validation BCE",
            "validation accuracy",
            "epoch",
        ] {
            assert!(texts.contains(&word), "{word}: {texts:?}");
        }
    }

    #[test]
    fn selfplay_iterations_give_loss_and_match_scores() {
        let csv = "iteration,games,train_loss,eval_score,material_score\n\
                   0,0,0.000000,0.5000,0.0550\n1,1000,0.413837,0.8650,0.1450\n\
                   2,1000,0.394215,,\n";
        let f = figure(csv, "s.csv", "engine selfplay").unwrap();
        assert_eq!(f.panels.len(), 2);
        assert_eq!(
            f.panels[0].series[0].points.len(),
            2,
            "row 0 trained nothing"
        );
        let scores = &f.panels[1];
        assert_eq!(scores.series.len(), 2);
        assert_eq!(scores.series[0].points[1], Point::new(1.0, 86.5));
        assert_eq!(scores.reference_y, Some(50.0));
    }

    #[test]
    fn other_csvs_are_refused_with_the_file_named() {
        let err = figure("a,b\n1,2\n", "x.csv", "t").unwrap_err();
        assert!(
            err.starts_with("x.csv: not a training metrics CSV"),
            "{err}"
        );
        let err = figure("epoch,train_loss\n1,0.5\n2,oops\n", "y.csv", "t").unwrap_err();
        assert_eq!(err, "y.csv:3: column 'train_loss': 'oops' is not a number");
    }
}
