//! `engine train`: trains the network on `engine datagen` shards — positions labelled by the
//! search's score and the game's result.
//!
//! Targets (`--target`), for the side to move:
//!
//! ```text
//! mix:  λ·result + (1 − λ)·sigmoid(score / scale)
//! td:   the seed's recursion over a game's searched positions s_0 … s_n, with V(s) the
//!       search's value sigmoid(score / scale) instead of the raw network's:
//!       R_n = result for s_n's side to move;  R_i = 1 − ((1 − γ)·V(s_{i+1}) + γ·R_{i+1})
//!       target_i = (1 − α)·V(s_i) + α·R_i
//! ```
//!
//! Whole games go to the validation set (every `1/val-fraction`-th game by a hash of its shard
//! and index), so that no validation position has a neighbour from its own game in training.
//! After every epoch the weights, the metrics CSV, an SVG plot of the losses and a checkpoint
//! (network, optimiser, epoch) are written atomically; the same command continues a stopped
//! run from its checkpoint (`--restart` starts over).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::datagen::format::{self, GameRecord};
use super::learner::{Examples, Learner};
use super::metrics;
use crate::eval::CP_PER_LOGIT;
use crate::fileio::{self, FileError};
use crate::nn::{self, Activation, FeatureSet, Features, Network, sigmoid};
use crate::search::score::is_stored_mate;
use crate::train::trainer::TrainerState;

#[derive(clap::Args, Debug, Clone)]
pub struct TrainArgs {
    /// Shard files, or folders whose `*.dgn` files are all read.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Weights file to write (after every epoch). The metrics go beside it as .csv, the loss
    /// plot as .svg, the checkpoint as .ckpt.
    #[arg(long, default_value = "weights/trained.bin")]
    pub out: PathBuf,
    /// Weights to start from (default: the embedded network); `none` = a fresh network of
    /// `--arch`. A network of the seed's set given with `--features king-piece` (or
    /// `king-bucket`) is extended to that set's inputs (the new inputs' weights zero: it
    /// evaluates as before).
    #[arg(long)]
    pub init: Option<String>,
    /// Hidden layer sizes of a fresh network (`--init none`).
    #[arg(long, default_value = "64,32")]
    pub arch: String,
    /// The network's feature set: `seed361` (the seed's 361 inputs, dense rows),
    /// `king-piece` (which piece stands where, also relative to each king; 25,861 sparse
    /// inputs, trained from packed positions by the sparse trainer), `king-bucket` (the
    /// same with king squares in 8 buckets; 8,861 inputs) or `piece-bucket` (king-bucket
    /// without the seed's attack and presence planes; 8,511 inputs, from `--init none`).
    /// Default: the starting network's set (the seed's for `--init none`).
    #[arg(long = "features")]
    pub features_option: Option<FeatureSet>,
    /// `--features` resolved by [`run`].
    #[arg(skip)]
    pub features: FeatureSet,
    /// Widen the starting network's first hidden layer to this many units before training:
    /// the new units start with small random input weights and zero output weights, so the
    /// widened network computes exactly what the one it came from does.
    #[arg(long)]
    pub widen: Option<usize>,
    /// `mix` (λ·result + (1 − λ)·sigmoid(score/scale)) or `td` (the seed's recursion over the
    /// search's values).
    #[arg(long, default_value = "mix")]
    pub target: String,
    /// Weight of the game result in `mix`.
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f32,
    /// α of `td`: weight of the return against the position's own value.
    #[arg(long, default_value_t = 0.8)]
    pub alpha: f32,
    /// γ of `td`: weight of the next return against the next position's value.
    #[arg(long, default_value_t = 0.8)]
    pub gamma: f32,
    /// Centipawns per logit of the score → probability map (the engine's own scale).
    #[arg(long, default_value_t = CP_PER_LOGIT)]
    pub scale: f32,
    /// Skip positions in check and positions whose best move captures (noisy for a static
    /// evaluation); also positions with a mate score.
    #[arg(long)]
    pub quiet_only: bool,
    /// Skip positions whose search score is beyond ± this many centipawns (mate scores
    /// included): a decided position teaches a static evaluation little. 0 keeps them all.
    #[arg(long, default_value_t = 0)]
    pub max_score: u32,
    #[arg(long, default_value_t = 8)]
    pub epochs: usize,
    #[arg(long, default_value_t = 5e-4)]
    pub lr: f32,
    /// Learning-rate factor applied after every epoch.
    #[arg(long, default_value_t = 0.7)]
    pub lr_decay: f32,
    /// Share of the games held out for validation.
    #[arg(long, default_value_t = 0.05)]
    pub val_fraction: f64,
    /// Use at most this many positions (0 = all), taken in file order.
    #[arg(long, default_value_t = 0)]
    pub max_positions: usize,
    /// Seed of shuffling and of a fresh network.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub trainer: super::TrainerArgs,
    /// Start over even if a checkpoint of `--out` exists.
    #[arg(long)]
    pub restart: bool,
}

/// What a run measured, for the caller and the tests.
#[derive(Debug, Clone)]
pub struct TrainReport {
    pub train_positions: usize,
    pub val_positions: usize,
    /// Validation BCE before the first epoch and after the last.
    pub initial_val_bce: f64,
    pub final_val_bce: f64,
    pub epochs_run: usize,
}

/// How targets are made from a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TargetKind {
    Mix { lambda: f32 },
    Td { alpha: f32, gamma: f32 },
}

/// The search's score as a win probability for the side to move (mates are 0 or 1).
pub fn score_probability(score: i32, scale: f32) -> f32 {
    if is_stored_mate(score) {
        return if score > 0 { 1.0 } else { 0.0 };
    }
    sigmoid(score as f32 / scale)
}

/// The training targets of every searched position of `game`, in order.
pub fn game_targets(game: &GameRecord, kind: TargetKind, scale: f32) -> Vec<f32> {
    let values: Vec<f32> = game
        .positions
        .iter()
        .map(|p| score_probability(p.score, scale))
        .collect();
    match kind {
        TargetKind::Mix { lambda } => game
            .positions
            .iter()
            .zip(&values)
            .map(|(p, v)| (lambda * game.result_for(p) + (1.0 - lambda) * v).clamp(0.0, 1.0))
            .collect(),
        TargetKind::Td { alpha, gamma } => match game.positions.last() {
            None => Vec::new(),
            Some(last) => super::selfplay::td_targets(&values, game.result_for(last), alpha, gamma),
        },
    }
}

/// The shard files named by `--data`: files as given, folders' `*.dgn` files sorted by name.
pub fn shard_files(data: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in data {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("--data {}: {e}", path.display()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "dgn"))
                .collect();
            if found.is_empty() {
                return Err(format!("--data {}: no .dgn shard files", path.display()));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// Whether game `index` of shard `shard` is held out for validation.
fn is_validation(shard: u32, index: u64, fraction: f64) -> bool {
    if fraction <= 0.0 {
        return false;
    }
    let h = super::selfplay::game_seed(0x5EED, u64::from(shard), index);
    (h as f64 / u64::MAX as f64) < fraction
}

/// What the shards held: games by result and by how they ended.
#[derive(Debug, Default, Clone)]
pub struct DataSummary {
    pub files: usize,
    pub games: usize,
    pub positions: usize,
    pub sente_wins: usize,
    pub gote_wins: usize,
    pub draws: usize,
    /// Games ended by the rules, by a mate the search announced, by score adjudication.
    pub by_rules: usize,
    pub by_search_mate: usize,
    pub by_score: usize,
}

impl DataSummary {
    fn add(&mut self, game: &GameRecord) {
        self.games += 1;
        self.positions += game.positions.len();
        match game.winner {
            Some(format::Side::Sente) => self.sente_wins += 1,
            Some(format::Side::Gote) => self.gote_wins += 1,
            None => self.draws += 1,
        }
        match game.ending {
            format::Ending::Rules => self.by_rules += 1,
            format::Ending::SearchMate => self.by_search_mate += 1,
            format::Ending::Score => self.by_score += 1,
            format::Ending::MaxPlies => {}
        }
    }
}

impl std::fmt::Display for DataSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = |n: usize| 100.0 * n as f64 / self.games.max(1) as f64;
        write!(
            f,
            "{} files, {} games, {} positions ({:.1} a game); sente won {:.1}%, gote {:.1}%, \
             drawn {:.1}%; ended by the rules {:.1}%, by a mate found {:.1}%, adjudicated {:.1}%",
            self.files,
            self.games,
            self.positions,
            self.positions as f64 / self.games.max(1) as f64,
            pct(self.sente_wins),
            pct(self.gote_wins),
            pct(self.draws),
            pct(self.by_rules),
            pct(self.by_search_mate),
            pct(self.by_score)
        )
    }
}

/// Reads the shards into training and validation sets.
fn load_data(
    args: &TrainArgs,
    kind: TargetKind,
) -> Result<(Examples, Examples, DataSummary), String> {
    let files = shard_files(&args.data)?;
    let mut train = Examples::new(args.features);
    let mut val = Examples::new(args.features);
    let mut features = Features::new();
    let limit = if args.max_positions == 0 {
        usize::MAX
    } else {
        args.max_positions
    };
    let mut summary = DataSummary::default();
    'files: for file in &files {
        let shard = format::read_shard(file).map_err(|e| e.to_string())?;
        summary.files += 1;
        if shard.torn_bytes > 0 {
            log::warn!(
                "{}: {} bytes of an unfinished game at the end are ignored",
                file.display(),
                shard.torn_bytes
            );
        }
        for game in &shard.games {
            summary.add(game);
            let targets = game_targets(game, kind, args.scale);
            let held_out = is_validation(shard.header.shard, game.index, args.val_fraction);
            for (record, &target) in game.positions.iter().zip(&targets) {
                if args.quiet_only
                    && (record.in_check || record.best_is_capture || record.is_mate_score())
                {
                    continue;
                }
                if args.max_score > 0
                    && (record.is_mate_score() || record.score.unsigned_abs() > args.max_score)
                {
                    continue;
                }
                let pos = record.position.unpack().ok_or_else(|| {
                    format!(
                        "{}: game {} holds an invalid position",
                        file.display(),
                        game.index
                    )
                })?;
                let set = if held_out { &mut val } else { &mut train };
                set.push(&pos, target, &mut features);
                if train.len() + val.len() >= limit {
                    break 'files;
                }
            }
        }
    }
    if train.is_empty() {
        return Err("no training positions in --data".into());
    }
    Ok((train, val, summary))
}

const CKPT_MAGIC: &[u8; 8] = b"MSTRCKPT";
const CKPT_VERSION: u32 = 1;

/// What a stopped run continues from.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Checkpoint {
    /// The options that decide the results; a checkpoint of other settings is not resumed.
    settings: String,
    epoch: usize,
    weights: Vec<u8>,
    trainer: TrainerState,
    csv: String,
}

/// The options that decide a run's results (not `--epochs`, so a finished run can be extended).
fn settings(args: &TrainArgs) -> String {
    // The seed's set is not named, so that runs from before the option still resume.
    let mut features = match args.features {
        FeatureSet::Seed361 => String::new(),
        other => format!(" features={other}"),
    };
    // Likewise named only when set.
    if args.max_score > 0 {
        features.push_str(&format!(" max_score={}", args.max_score));
    }
    format!(
        "data={:?} init={:?} arch={} target={} lambda={} alpha={} gamma={} scale={} quiet={} \
         batch={} lr={} decay={} opt={} wd={} val={} max={} seed={}{features}",
        args.data,
        args.init,
        args.arch,
        args.target,
        args.lambda,
        args.alpha,
        args.gamma,
        args.scale,
        args.quiet_only,
        args.trainer.batch_size,
        args.lr,
        args.lr_decay,
        args.trainer.optimizer,
        args.trainer.weight_decay,
        args.val_fraction,
        args.max_positions,
        args.seed
    )
}

fn parse_target(args: &TrainArgs) -> Result<TargetKind, String> {
    let unit = |name: &str, x: f32| {
        if (0.0..=1.0).contains(&x) {
            Ok(x)
        } else {
            Err(format!("--{name} {x} must be in [0, 1]"))
        }
    };
    match args.target.as_str() {
        "mix" => Ok(TargetKind::Mix {
            lambda: unit("lambda", args.lambda)?,
        }),
        "td" => Ok(TargetKind::Td {
            alpha: unit("alpha", args.alpha)?,
            gamma: unit("gamma", args.gamma)?,
        }),
        other => Err(format!("unknown --target '{other}' (expected mix or td)")),
    }
}

fn initial_network(args: &TrainArgs) -> Result<Network, String> {
    let mut net = starting_network(args)?;
    if net.feature_set() != args.features {
        if args.features.king_layout().is_none() {
            return Err(format!(
                "--init network takes feature set {}, not --features {}",
                net.feature_set(),
                args.features
            ));
        }
        net = super::grow::extend_to_king_set(&net, args.features)
            .map_err(|e| format!("--init: {e}"))?;
    }
    match args.widen {
        Some(width) => {
            super::grow::widen(&net, width, args.seed).map_err(|e| format!("--widen: {e}"))
        }
        None => Ok(net),
    }
}

fn starting_network(args: &TrainArgs) -> Result<Network, String> {
    match args.init.as_deref() {
        None => Ok(nn::default_network()),
        Some("none") => {
            let mut sizes = super::pretrain::parse_arch(&args.arch)?;
            sizes[0] = args.features.inputs();
            Network::new(&sizes, Activation::Relu, args.seed).map_err(|e| e.to_string())
        }
        Some(path) => nn::load_from_path(path).map_err(|e| format!("--init: {e}")),
    }
}

/// Runs `engine train`.
pub fn run(args: &TrainArgs) -> Result<TrainReport, String> {
    let features = match args.features_option {
        Some(set) => set,
        None => match args.init.as_deref() {
            Some("none") => FeatureSet::Seed361,
            _ => starting_network(args)?.feature_set(),
        },
    };
    let args = &TrainArgs {
        features,
        ..args.clone()
    };
    let kind = parse_target(args)?;
    if !(0.0..0.9).contains(&args.val_fraction) {
        return Err(format!(
            "--val-fraction {} must be in [0, 0.9)",
            args.val_fraction
        ));
    }
    if args.scale.is_nan() || args.scale <= 0.0 {
        return Err(format!("--scale {} must be positive", args.scale));
    }
    let (config, _lock) = super::TrainerSetup {
        lr: args.lr,
        trainer: &args.trainer,
        seed: args.seed,
        out: &args.out,
    }
    .start()?;
    let ckpt_path = args.out.with_extension("ckpt");
    let metrics_path = args.out.with_extension("csv");
    let plot_path = args.out.with_extension("svg");
    let settings = settings(args);
    let checkpoint = if args.restart {
        None
    } else {
        load_checkpoint(&ckpt_path).map_err(|e| e.to_string())?
    };
    let checkpoint = match checkpoint {
        Some(c) if c.settings != settings => {
            return Err(format!(
                "{} belongs to a run with other settings ({}); pass --restart to start over",
                ckpt_path.display(),
                c.settings
            ));
        }
        other => other,
    };

    let (train, val, summary) = load_data(args, kind)?;
    eprintln!("train: data: {summary}");
    let eval_data = if val.is_empty() { &train } else { &val };
    let (mut trainer, first_epoch, mut csv) = match checkpoint {
        Some(c) => {
            let net = nn::weights::decode(&c.weights)
                .map_err(|e| format!("{}: checkpoint network: {e}", ckpt_path.display()))?;
            eprintln!(
                "train: continuing after epoch {} from {}",
                c.epoch,
                ckpt_path.display()
            );
            let trainer = Learner::resume(net, c.trainer)?;
            (trainer, c.epoch + 1, c.csv)
        }
        None => {
            let net = initial_network(args)?;
            let mut trainer = Learner::new(net, config)?;
            let before = trainer.evaluate(eval_data);
            let csv = metrics::start(&before);
            (trainer, 1, csv)
        }
    };
    let initial_val_bce = first_val_bce(&csv);
    let pb = super::progress_bar(
        args.epochs as u64,
        "training {bar:30} epoch {pos}/{len} {msg} ({elapsed})",
    );
    pb.set_position(first_epoch.saturating_sub(1).min(args.epochs) as u64);
    let mut final_val_bce = last_val_bce(&csv);
    for epoch in first_epoch..=args.epochs {
        let lr = args.lr * args.lr_decay.powi(epoch as i32 - 1);
        trainer.set_learning_rate(lr);
        let stats = trainer.train_epoch(&train)?;
        let v = trainer.evaluate(eval_data);
        csv.push_str(&metrics::epoch_row(epoch, lr, &stats, &v));
        pb.set_message(format!(
            "loss {:.4} val-bce {:.4} ({:.0} pos/s)",
            stats.loss,
            v.bce,
            stats.positions_per_second()
        ));
        pb.inc(1);
        final_val_bce = v.bce;
        let net = trainer.network();
        nn::save_to_path(&net, &args.out).map_err(|e| e.to_string())?;
        fileio::write_atomic(&metrics_path, csv.as_bytes()).map_err(|e| e.to_string())?;
        let plot = super::curves::svg(
            &csv,
            &metrics_path.display().to_string(),
            &format!("engine train: {}", args.out.display()),
        )?;
        fileio::write_atomic(&plot_path, plot.as_bytes()).map_err(|e| e.to_string())?;
        let checkpoint = Checkpoint {
            settings: settings.clone(),
            epoch,
            weights: nn::weights::encode(&net),
            trainer: trainer.state(),
            csv: csv.clone(),
        };
        fileio::save(&ckpt_path, CKPT_MAGIC, CKPT_VERSION, &checkpoint)
            .map_err(|e| e.to_string())?;
    }
    pb.finish();
    if first_epoch > args.epochs {
        eprintln!(
            "train: no epoch to run (--epochs {}, {} done); validation bce {:.4}",
            args.epochs,
            first_epoch - 1,
            final_val_bce
        );
    }
    eprintln!(
        "train: {} training and {} validation positions; validation bce {:.4} → {:.4}; weights {}, \
         metrics {}, plot {}",
        train.len(),
        val.len(),
        initial_val_bce,
        final_val_bce,
        args.out.display(),
        metrics_path.display(),
        plot_path.display()
    );
    Ok(TrainReport {
        train_positions: train.len(),
        val_positions: val.len(),
        initial_val_bce,
        final_val_bce,
        epochs_run: (args.epochs + 1).saturating_sub(first_epoch),
    })
}

fn load_checkpoint(path: &Path) -> Result<Option<Checkpoint>, FileError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => fileio::load(path, CKPT_MAGIC, CKPT_VERSION).map(Some),
    }
}

/// The validation BCE of the last row of the metrics CSV.
fn last_val_bce(csv: &str) -> f64 {
    csv.lines()
        .last()
        .and_then(|l| l.split(',').nth(3))
        .and_then(|x| x.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The epoch-0 validation BCE in the metrics CSV.
fn first_val_bce(csv: &str) -> f64 {
    csv.lines()
        .nth(1)
        .and_then(|l| l.split(',').nth(3))
        .and_then(|x| x.parse().ok())
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Score;
    use crate::search::score::to_stored;
    use crate::shogi::Position;
    use crate::train::datagen::format::{Ending, PositionRecord, Side};
    use crate::train::packed::PackedPosition;

    fn game(scores: &[i32], winner: Option<Side>) -> GameRecord {
        let mut pos = Position::startpos();
        let mut positions = Vec::new();
        for (ply, &score) in scores.iter().enumerate() {
            let mv = pos.legal_moves()[0];
            positions.push(PositionRecord {
                position: PackedPosition::pack(&pos),
                score,
                best_move: mv.raw(),
                ply: ply as u16,
                in_check: pos.in_check(),
                best_is_capture: false,
            });
            pos = pos.after(mv);
        }
        GameRecord {
            index: 0,
            winner,
            ending: Ending::Rules,
            positions,
        }
    }

    #[test]
    fn mix_targets_blend_result_and_score() {
        // Sente to move first; sente wins.
        let g = game(&[0, 600, to_stored(Score::Mate(3))], Some(Side::Sente));
        let t = game_targets(&g, TargetKind::Mix { lambda: 0.5 }, 600.0);
        assert!((t[0] - 0.75).abs() < 1e-6, "{t:?}"); // ½·1 + ½·σ(0)
        assert!((t[1] - 0.5 * sigmoid(1.0)).abs() < 1e-6, "{t:?}"); // gote: lost
        assert_eq!(t[2], 1.0); // sente mates
        let pure = game_targets(&g, TargetKind::Mix { lambda: 1.0 }, 600.0);
        assert_eq!(pure, vec![1.0, 0.0, 1.0]);
        let drawn = game(&[0, 0], None);
        assert_eq!(
            game_targets(&drawn, TargetKind::Mix { lambda: 0.3 }, 600.0),
            vec![0.5, 0.5]
        );
    }

    #[test]
    fn td_targets_use_the_search_values() {
        let g = game(&[0, 600, -600], Some(Side::Gote));
        let v: Vec<f32> = [0.0f32, 1.0, -1.0].iter().map(|&z| sigmoid(z)).collect();
        let t = game_targets(
            &g,
            TargetKind::Td {
                alpha: 0.5,
                gamma: 0.8,
            },
            600.0,
        );
        // The last position is sente's, and sente lost.
        assert_eq!(t, super::super::selfplay::td_targets(&v, 0.0, 0.5, 0.8));
    }
}
