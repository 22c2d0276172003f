//! `engine pretrain`: builds (or reloads) the mate / pre-mate data set and trains the network on
//! it, as the seed does before reinforcement learning: mated positions are worth 0 to the side
//! to move, positions with a mating move are worth 1.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::matedata::{self, MateGenConfig, MateSample};
use crate::fileio;
use crate::nn::{self, Activation, Network};
use crate::train::trainer::{self, Trainer};

#[derive(clap::Args, Debug, Clone)]
pub struct PretrainArgs {
    /// Positions in the data set, half mated and half one move before mate.
    #[arg(long, default_value_t = 360_000)]
    pub positions: usize,
    /// Data set file: loaded if it exists (and holds enough positions), else built and saved.
    #[arg(long, default_value = "data/mate.bin")]
    pub data: PathBuf,
    /// Build the data set anew even if the data file exists.
    #[arg(long)]
    pub regenerate: bool,
    /// Weights file to write (atomically, after every epoch). Metrics go beside it as .csv, their
    /// curves as .svg.
    #[arg(long, default_value = "weights/pretrained.bin")]
    pub out: PathBuf,
    #[arg(long, default_value_t = 8)]
    pub epochs: usize,
    #[arg(long, default_value_t = 1e-3)]
    pub lr: f32,
    /// Learning-rate factor applied after every epoch.
    #[arg(long, default_value_t = 0.7)]
    pub lr_decay: f32,
    /// Seed for data generation, initialisation and shuffling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub trainer: super::TrainerArgs,
    /// Hidden layer sizes, e.g. `64,32`: the network is 361 → hidden… → 1.
    #[arg(long, default_value = "64,32")]
    pub arch: String,
    /// Share of the data held out for validation.
    #[arg(long, default_value_t = 0.05)]
    pub val_fraction: f64,
}

/// Results of a run, for the caller and for tests.
#[derive(Debug, Clone)]
pub struct PretrainReport {
    pub positions: usize,
    pub generation_seconds: Option<f64>,
    pub final_val_accuracy: f64,
    pub final_val_bce: f64,
    pub train_positions_per_second: f64,
}

/// Parses `128,32` into the full layer sizes `[361, 128, 32, 1]`.
pub fn parse_arch(arch: &str) -> Result<Vec<usize>, String> {
    let mut sizes = vec![nn::NUM_FEATURES];
    for part in arch.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let n: usize = part
            .parse()
            .map_err(|_| format!("bad layer size '{part}' in --arch '{arch}'"))?;
        if n == 0 {
            return Err(format!("layer size 0 in --arch '{arch}'"));
        }
        sizes.push(n);
    }
    sizes.push(1);
    Ok(sizes)
}

/// Loads the data set from `args.data`, or builds and saves it. Returns the samples and the
/// generation time when it was built.
fn obtain_data(args: &PretrainArgs) -> Result<(Vec<MateSample>, Option<f64>), String> {
    if !args.regenerate && args.data.exists() {
        let samples = matedata::load(&args.data).map_err(|e| {
            format!("{e} (delete the file or pass --regenerate to build a new data set)")
        })?;
        if samples.len() >= args.positions {
            log::info!(
                "loaded {} positions from {}",
                samples.len(),
                args.data.display()
            );
            let mut samples = samples;
            samples.truncate(args.positions);
            return Ok((samples, None));
        }
        log::info!(
            "{} holds {} positions, {} wanted: building a new data set",
            args.data.display(),
            samples.len(),
            args.positions
        );
    }
    let pb = super::progress_bar(
        args.positions as u64,
        "building data {bar:40} {pos}/{len} positions ({elapsed})",
    );
    let start = Instant::now();
    let config = MateGenConfig {
        positions: args.positions,
        seed: args.seed,
    };
    let samples = matedata::generate(&config, |done, _| pb.set_position(done as u64));
    let seconds = start.elapsed().as_secs_f64();
    pb.finish_and_clear();
    log::info!("built {} positions in {seconds:.1} s", samples.len());
    fileio::create_parent_dir(&args.data).map_err(|e| e.to_string())?;
    matedata::save(&args.data, &samples).map_err(|e| e.to_string())?;
    Ok((samples, Some(seconds)))
}

/// Runs the whole job: data, training, weights and metrics.
pub fn run(args: &PretrainArgs) -> Result<PretrainReport, String> {
    if args.positions < 10 {
        return Err(format!("--positions {} is too small", args.positions));
    }
    if !(0.0..0.9).contains(&args.val_fraction) {
        return Err(format!(
            "--val-fraction {} must be in [0, 0.9)",
            args.val_fraction
        ));
    }
    let sizes = parse_arch(&args.arch)?;
    // Each position is held as features for training (plus its packed form); each weight as
    // the value, its gradient and the optimizer's two moments.
    let per_position = (nn::NUM_FEATURES * 4 + 128) as u64;
    crate::memory::check_fits(
        &format!("--positions {}", args.positions),
        (args.positions as u64).saturating_mul(per_position),
    )?;
    let weights: u64 = sizes
        .windows(2)
        .map(|w| (w[0] as u64).saturating_mul(w[1] as u64 + 1))
        .fold(0, u64::saturating_add);
    crate::memory::check_fits(&format!("--arch {}", args.arch), weights.saturating_mul(16))?;
    let (config, _lock) = super::TrainerSetup {
        lr: args.lr,
        trainer: &args.trainer,
        seed: args.seed,
        out: &args.out,
    }
    .start()?;
    let (samples, generation_seconds) = obtain_data(args)?;
    let mut train = super::mate_dataset(samples.iter())?;
    let val = train.split_off_fraction(args.val_fraction);
    log::info!(
        "training {:?} on {} positions, validating on {}",
        sizes,
        train.len(),
        val.len()
    );

    let net = Network::new(&sizes, Activation::Relu, args.seed).map_err(|e| e.to_string())?;
    let mut trainer = Trainer::new(net, config).map_err(|e| e.to_string())?;
    let metrics_path = args.out.with_extension("csv");
    let plot_path = args.out.with_extension("svg");
    let mut csv = super::metrics::header();
    let pb = super::progress_bar(
        args.epochs as u64,
        "training {bar:30} epoch {pos}/{len} {msg} ({elapsed})",
    );
    let mut lr = args.lr;
    let mut report = PretrainReport {
        positions: samples.len(),
        generation_seconds,
        final_val_accuracy: 0.0,
        final_val_bce: f64::NAN,
        train_positions_per_second: 0.0,
    };
    for epoch in 1..=args.epochs {
        trainer.set_learning_rate(lr);
        let stats = trainer.train_epoch(&train).map_err(|e| e.to_string())?;
        let eval_data = if val.is_empty() { &train } else { &val };
        let v = trainer::evaluate(trainer.network(), eval_data);
        csv.push_str(&super::metrics::epoch_row(epoch, lr, &stats, &v));
        pb.set_message(format!(
            "loss {:.4} val-bce {:.4} val-acc {:.2}% ({:.0} pos/s)",
            stats.loss,
            v.bce,
            v.accuracy * 100.0,
            stats.positions_per_second()
        ));
        pb.inc(1);
        // Checkpoint every epoch; both writes are atomic.
        nn::save_to_path(trainer.network(), &args.out).map_err(|e| e.to_string())?;
        fileio::write_atomic(&metrics_path, csv.as_bytes()).map_err(|e| e.to_string())?;
        let plot = super::curves::svg(
            &csv,
            &metrics_path.display().to_string(),
            &format!("engine pretrain: {}", args.out.display()),
        )?;
        fileio::write_atomic(&plot_path, plot.as_bytes()).map_err(|e| e.to_string())?;
        report.final_val_accuracy = v.accuracy;
        report.final_val_bce = v.bce;
        report.train_positions_per_second = stats.positions_per_second();
        lr *= args.lr_decay;
    }
    pb.finish();
    eprintln!(
        "pretrain: {} positions, validation accuracy {:.2}%, bce {:.4}; weights {}, metrics {}, \
         plot {}",
        report.positions,
        report.final_val_accuracy * 100.0,
        report.final_val_bce,
        args.out.display(),
        metrics_path.display(),
        plot_path.display()
    );
    Ok(report)
}

/// The default data file location relative to the current directory.
pub fn default_data_path() -> &'static Path {
    Path::new("data/mate.bin")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_parses_into_full_sizes() {
        assert_eq!(parse_arch("128,32").unwrap(), vec![361, 128, 32, 1]);
        assert_eq!(parse_arch("").unwrap(), vec![361, 1]);
        assert!(parse_arch("128,x").unwrap_err().contains("'x'"));
        assert!(parse_arch("0").is_err());
    }
}
