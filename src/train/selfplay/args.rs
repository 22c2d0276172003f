//! The options of `engine selfplay`, their checks, and which of them a checkpoint must agree
//! with to be resumed.

use std::path::PathBuf;

use serde::Serialize;

#[derive(clap::Args, Debug, Clone, Serialize)]
pub struct SelfplayArgs {
    /// Training iterations: each plays `--games` games, then trains on them.
    #[arg(long, default_value_t = 20)]
    pub iterations: usize,
    /// Self-play games per iteration.
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// A game reaching this many plies is a draw (target ½ for its last position).
    #[arg(long, default_value_t = 150)]
    pub max_plies: u32,
    /// Weight of the backed-up return in the target: `(1 − α)·V(s) + α·R`.
    #[arg(long, default_value_t = 0.8)]
    pub alpha: f32,
    /// Weight of the return against the next position's value: `R_i = 1 − ((1 − γ)·V' + γ·R')`.
    #[arg(long, default_value_t = 0.8)]
    pub gamma: f32,
    /// Softmax temperature of the move choice, in logits of the win probability (0 = greedy).
    #[arg(long, default_value_t = 0.25)]
    pub temperature: f32,
    /// Each game starts with a uniformly random number (0..=this) of random moves.
    #[arg(long, default_value_t = 4)]
    pub random_plies: usize,
    /// Choose self-play moves by an alpha-beta search of this depth with the current network
    /// (0 = the seed's one-ply choice). Much slower; the progress matches stay one-ply.
    #[arg(long, default_value_t = 0)]
    pub depth: u32,
    /// With `--depth`: share of moves chosen by the one-ply softmax instead, so games differ.
    #[arg(long, default_value_t = 0.1)]
    pub epsilon: f32,
    /// Weights to start from (e.g. the output of `engine pretrain`); default: the default network.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Weights file to write (atomically, after every iteration). Metrics go beside it as .csv,
    /// their curves as .svg.
    #[arg(long, default_value = "weights/selfplay.bin")]
    pub out: PathBuf,
    /// Mate data set mixed into training (skipped if the file is absent).
    #[arg(long, default_value = "data/mate.bin")]
    pub mate_data: PathBuf,
    /// Share of each iteration's training set drawn from the mate data (0 = none).
    #[arg(long, default_value_t = 0.3)]
    pub mate_share: f64,
    /// Self-play data of this many latest iterations is trained on (1 = the current only).
    #[arg(long, default_value_t = 3)]
    pub replay: usize,
    /// Training epochs per iteration.
    #[arg(long, default_value_t = 4)]
    pub epochs: usize,
    #[arg(long, default_value_t = 5e-4)]
    pub lr: f32,
    /// Games of each progress match against the starting network (0 = no matches). Played in
    /// pairs from the same random opening with colours swapped, greedy moves on both sides.
    #[arg(long, default_value_t = 200)]
    pub eval_games: usize,
    /// Play the progress match every this many iterations (and after the last).
    #[arg(long, default_value_t = 1)]
    pub eval_every: usize,
    /// Reference network of the progress matches (default: the starting network). The
    /// network is also matched against a material-greedy one-ply player, a fixed yardstick.
    #[arg(long)]
    pub eval_opponent: Option<PathBuf>,
    /// Search depth of both sides in the progress matches (default: `--depth`; 0 = one-ply).
    #[arg(long)]
    pub eval_depth: Option<u32>,
    /// Also save the weights of every this many iterations as `<out>-NNNN.bin` (0 = never).
    #[arg(long, default_value_t = 0)]
    pub snapshot_every: usize,
    /// Seed of everything random: openings, move choice, sampling, shuffling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    #[serde(flatten)]
    pub trainer: crate::train::TrainerArgs,
    /// Start over from `--init` even if a checkpoint of an earlier run of `--out` exists
    /// (without it, the run continues from the checkpoint's iteration).
    #[arg(long)]
    pub restart: bool,
}

impl Default for SelfplayArgs {
    fn default() -> Self {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: SelfplayArgs,
        }
        Wrapper::parse_from(["selfplay"]).args
    }
}

pub(super) fn validate(args: &SelfplayArgs) -> Result<(), String> {
    let unit = |name: &str, v: f32| {
        if (0.0..=1.0).contains(&v) {
            Ok(())
        } else {
            Err(format!("--{name} {v} must be in [0, 1]"))
        }
    };
    unit("alpha", args.alpha)?;
    unit("gamma", args.gamma)?;
    unit("epsilon", args.epsilon)?;
    if !(0.0..1.0).contains(&args.mate_share) {
        return Err(format!(
            "--mate-share {} must be in [0, 1)",
            args.mate_share
        ));
    }
    if !(args.temperature.is_finite() && args.temperature >= 0.0) {
        return Err(format!(
            "--temperature {} must be a number ≥ 0",
            args.temperature
        ));
    }
    if args.games == 0 || args.max_plies == 0 || args.replay == 0 || args.eval_every == 0 {
        return Err("--games, --max-plies, --replay and --eval-every must be at least 1".into());
    }
    // The replay window holds up to this many positions as training features.
    let positions = (args.games as u64)
        .saturating_mul(args.max_plies as u64)
        .saturating_mul(args.replay as u64);
    crate::memory::check_fits(
        &format!(
            "--games {} × --max-plies {} × --replay {}",
            args.games, args.max_plies, args.replay
        ),
        positions.saturating_mul((crate::nn::NUM_FEATURES * 4 + 128) as u64),
    )?;
    Ok(())
}

/// Options that only say how long to run, where to write or how to report: a checkpoint is
/// resumed whatever they are. Every other option must be as the checkpoint's run had it.
const FREE_OPTIONS: [&str; 6] = [
    "iterations",
    "threads",
    "out",
    "restart",
    "snapshot_every",
    "eval_every",
];

/// The options a checkpoint must agree with, as JSON (stored in the checkpoint).
pub(super) fn settings(args: &SelfplayArgs) -> String {
    let mut value = serde_json::to_value(args).expect("the options serialize");
    if let Some(map) = value.as_object_mut() {
        for key in FREE_OPTIONS {
            map.remove(key);
        }
    }
    value.to_string()
}

/// The options whose values differ between two [`settings`], as `--name now (checkpoint: then)`.
pub(super) fn settings_differences(now: &str, saved: &str) -> Vec<String> {
    let parse = |s: &str| {
        serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(s).unwrap_or_default()
    };
    let (now, saved) = (parse(now), parse(saved));
    let mut keys: Vec<&String> = now.keys().chain(saved.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| now.get(*k) != saved.get(*k))
        .map(|k| {
            // Options of type f32 come out of JSON as f64 (0.0005 as 0.0005000000237…):
            // shown at f32 precision.
            let show = |v: Option<&serde_json::Value>| match v {
                None => "-".to_string(),
                Some(serde_json::Value::Number(n)) if !(n.is_i64() || n.is_u64()) => {
                    (n.as_f64().unwrap_or(f64::NAN) as f32).to_string()
                }
                Some(v) => v.to_string(),
            };
            format!(
                "--{} {} (checkpoint: {})",
                k.replace('_', "-"),
                show(now.get(k)),
                show(saved.get(k))
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_ignore_length_and_output_and_name_what_differs() {
        let a = SelfplayArgs::default();
        let mut b = SelfplayArgs {
            iterations: 7,
            out: "elsewhere.bin".into(),
            restart: true,
            ..a.clone()
        };
        b.trainer.threads = 1;
        assert_eq!(settings(&a), settings(&b));
        assert!(settings_differences(&settings(&a), &settings(&b)).is_empty());
        let c = SelfplayArgs {
            games: 3,
            lr: 0.25,
            ..a.clone()
        };
        assert_eq!(
            settings_differences(&settings(&c), &settings(&a)),
            [
                "--games 3 (checkpoint: 200)",
                "--lr 0.25 (checkpoint: 0.0005)"
            ]
        );
    }
}
