//! The per-epoch metrics CSV that `engine train` and `engine pretrain` write beside their
//! weights (and `curves` draws): its columns have one owner, here ([`EpochRow`]).

use serde::Serialize;

use crate::plot::table::{Fixed, Shown, csv_header, to_csv};
use crate::train::trainer::{EpochStats, EvalStats};

/// A row of the CSV: its fields are the columns.
#[derive(Default, Serialize)]
struct EpochRow {
    epoch: usize,
    learning_rate: Shown<f32>,
    /// Empty for row 0.
    train_loss: Option<Fixed>,
    val_bce: Fixed,
    val_mse: Fixed,
    val_accuracy: Fixed,
    seconds: Fixed,
    positions_per_second: Fixed,
}

impl EpochRow {
    fn new(epoch: usize, lr: f32, train_loss: Option<f64>, v: &EvalStats) -> EpochRow {
        EpochRow {
            epoch,
            learning_rate: Shown(lr),
            train_loss: train_loss.map(|l| Fixed(l, 6)),
            val_bce: Fixed(v.bce, 6),
            val_mse: Fixed(v.mse, 6),
            val_accuracy: Fixed(v.accuracy, 5),
            seconds: Fixed(0.0, 0),
            positions_per_second: Fixed(0.0, 0),
        }
    }
}

/// One trained epoch's row: the learning rate it used, its training loss and time, and the
/// validation figures after it.
pub fn epoch_row(epoch: usize, lr: f32, stats: &EpochStats, v: &EvalStats) -> String {
    let row = EpochRow {
        seconds: Fixed(stats.seconds, 2),
        positions_per_second: Fixed(stats.positions_per_second(), 0),
        ..EpochRow::new(epoch, lr, Some(stats.loss), v)
    };
    to_csv(&[row], false)
}

/// The header line alone.
pub fn header() -> String {
    csv_header(&EpochRow::default())
}

/// The header line and row 0: the starting network measured before any training (no loss, no
/// time).
pub fn start(v: &EvalStats) -> String {
    to_csv(&[EpochRow::new(0, 0.0, None, v)], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_have_the_headers_columns_and_curves_reads_them() {
        let v = EvalStats {
            bce: 0.5,
            mse: 0.2,
            accuracy: 0.75,
        };
        let stats = EpochStats {
            loss: 0.6,
            positions: 1000,
            seconds: 2.0,
        };
        let csv = format!("{}{}", start(&v), epoch_row(1, 0.001, &stats, &v));
        assert_eq!(
            csv,
            "epoch,learning_rate,train_loss,val_bce,val_mse,val_accuracy,seconds,\
             positions_per_second\n\
             0,0,,0.500000,0.200000,0.75000,0,0\n\
             1,0.001,0.600000,0.500000,0.200000,0.75000,2.00,500\n"
        );
        assert_eq!(
            epoch_row(2, 1e-5, &stats, &v),
            "2,0.00001,0.600000,0.500000,0.200000,0.75000,2.00,500\n"
        );
        assert_eq!(header(), csv.lines().next().unwrap().to_string() + "\n");
        super::super::curves::svg(&csv, "test.csv", "test").unwrap();
    }
}
