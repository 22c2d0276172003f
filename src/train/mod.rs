//! Training: the mate pretraining data set and self-play.

pub mod matedata;
pub mod packed;
pub mod pretrain;
pub mod selfplay;

use indicatif::{ProgressBar, ProgressStyle};

use crate::nn::{self, Dataset, Features, Optimizer};
use matedata::MateSample;

/// `--optimizer` of the training commands.
pub(crate) fn parse_optimizer(name: &str) -> Result<Optimizer, String> {
    match name.to_ascii_lowercase().as_str() {
        "adam" => Ok(Optimizer::adam()),
        "sgd" => Ok(Optimizer::sgd()),
        other => Err(format!(
            "unknown optimizer '{other}' (expected adam or sgd)"
        )),
    }
}

/// A progress bar on standard error with the given indicatif template.
pub(crate) fn progress_bar(len: u64, template: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb
}

/// The network's training rows for mate samples (features of each position, its label).
pub fn mate_dataset<'a>(
    samples: impl ExactSizeIterator<Item = &'a MateSample>,
) -> Result<Dataset, String> {
    let mut data = Dataset::with_capacity(nn::NUM_FEATURES, samples.len());
    let mut features = Features::new();
    for (i, s) in samples.enumerate() {
        let pos = s
            .position
            .unpack()
            .ok_or_else(|| format!("mate sample {i} holds an invalid position"))?;
        features.extract(&pos);
        data.push(features.values(), s.target);
    }
    Ok(data)
}

/// `n` freshly generated mate / pre-mate samples (`matedata::generate` with `seed`) as training
/// rows: what the nn bench and the shape example train on.
pub fn generate_mate_dataset(n: usize, seed: u64) -> Dataset {
    let samples = matedata::generate(&matedata::MateGenConfig { positions: n, seed }, |_, _| {});
    mate_dataset(samples.iter()).expect("generated positions are valid")
}
