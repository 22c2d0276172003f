//! The per-epoch metrics CSV that `engine train` and `engine pretrain` write beside their
//! weights (and `curves` draws): its columns have one owner, here.

use crate::nn::train::{EpochStats, EvalStats};

/// The CSV's header line.
pub const EPOCH_HEADER: &str =
    "epoch,learning_rate,train_loss,val_bce,val_mse,val_accuracy,seconds,positions_per_second\n";

/// One trained epoch's row: the learning rate it used, its training loss and time, and the
/// validation figures after it.
pub fn epoch_row(epoch: usize, lr: f32, stats: &EpochStats, v: &EvalStats) -> String {
    format!(
        "{epoch},{lr},{:.6},{:.6},{:.6},{:.5},{:.2},{:.0}\n",
        stats.loss,
        v.bce,
        v.mse,
        v.accuracy,
        stats.seconds,
        stats.positions_per_second()
    )
}

/// Row 0: the starting network measured before any training (no loss, no time).
pub fn start_row(v: &EvalStats) -> String {
    format!("0,0,,{:.6},{:.6},{:.5},0,0\n", v.bce, v.mse, v.accuracy)
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
        let csv = format!(
            "{EPOCH_HEADER}{}{}",
            start_row(&v),
            epoch_row(1, 0.001, &stats, &v)
        );
        let columns = EPOCH_HEADER.trim_end().split(',').count();
        for line in csv.lines() {
            assert_eq!(line.split(',').count(), columns, "{line}");
        }
        assert!(csv.ends_with("1,0.001,0.600000,0.500000,0.200000,0.75000,2.00,500\n"));
        super::super::curves::svg(&csv, "test.csv", "test").unwrap();
    }
}
