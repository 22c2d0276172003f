//! Training: the mate pretraining data set and self-play.

pub mod backprop;
pub mod curves;
pub mod datagen;
pub mod generations;
pub mod grow;
pub mod learn;
pub mod learner;
pub mod matedata;
pub mod metrics;
pub mod packed;
pub mod policy;
pub mod pretrain;
pub mod selfplay;
pub mod trainer;

use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};

use crate::fileio::{self, OutputLock};
use crate::nn::{self, Features};
use matedata::MateSample;
use trainer::{Dataset, Optimizer, TrainConfig};

/// The trainer options `engine train`, `pretrain` and `selfplay` share, with the same defaults
/// and help (flattened into each command's options; their other trainer options, such as
/// `--lr` and `--epochs`, have defaults of their own).
#[derive(clap::Args, Debug, Clone, PartialEq, serde::Serialize)]
pub struct TrainerArgs {
    #[arg(long, default_value_t = 256)]
    pub batch_size: usize,
    /// `adam` or `sgd` (momentum 0.9).
    #[arg(long, default_value = "adam")]
    pub optimizer: String,
    #[arg(long, default_value_t = 0.0)]
    pub weight_decay: f32,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

/// What every training command starts its trainer with.
pub(crate) struct TrainerSetup<'a> {
    pub lr: f32,
    pub trainer: &'a TrainerArgs,
    pub seed: u64,
    /// `--out`: claimed for the run.
    pub out: &'a Path,
}

impl TrainerSetup<'_> {
    /// What every training run starts with: the configuration checked, the worker pool sized
    /// and the output claimed (its lock held until the guard is dropped).
    pub fn start(&self) -> Result<(TrainConfig, OutputLock), String> {
        let config = self.config()?;
        use_threads(self.trainer.threads);
        Ok((config, claim_output(self.out)?))
    }

    /// The training configuration, or an error naming the bad option.
    pub fn config(&self) -> Result<TrainConfig, String> {
        Ok(TrainConfig {
            learning_rate: self.lr,
            optimizer: parse_optimizer(&self.trainer.optimizer)?,
            weight_decay: self.trainer.weight_decay,
            batch_size: self.trainer.batch_size,
            seed: self.seed,
            ..TrainConfig::default()
        })
    }
}

/// `--threads` of the training commands: the size of the global worker pool (0 = all cores).
pub(crate) fn use_threads(threads: usize) {
    if threads > 0 {
        // Fails only if a pool exists already (tests run several jobs in one process).
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
}

/// Checks that `out` can be written (not a FIFO, device, folder…), makes its folder and takes
/// its lock (see [`fileio::lock_output`]): held until the returned guard is dropped or the
/// process ends, so that a second run on the same output is refused.
pub(crate) fn claim_output(out: &Path) -> Result<OutputLock, String> {
    fileio::check_replaceable(out).map_err(|e| format!("--out {e}"))?;
    fileio::create_parent_dir(out).map_err(|e| e.to_string())?;
    fileio::lock_output(out).map_err(|e| e.to_string())
}

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
