//! `engine train-policy`: trains MCTS's move policy (`mcts::policy`) on the moves the
//! alpha-beta search chose in datagen shards: softmax cross-entropy over each position's legal
//! moves, AdaGrad, seeded shuffling. Every 20th game is held out; the report compares the
//! policy on it with the move ordering's priors (what PUCT used before) and uniform priors.

use std::path::PathBuf;
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;

use super::datagen::format::{GameRecord, read_shard};
use super::learn::shard_files;
use crate::fileio;
use crate::mcts::MctsParams;
use crate::mcts::policy::{FEATURES, MovePolicy, PositionContext, move_features, softmax};
use crate::mcts::{PriorShape, ordering_priors};
use crate::shogi::Position;

/// Every this-many-th game (by its index in the shard) is held out.
const VALIDATION_EVERY: u64 = 20;

#[derive(clap::Args, Debug, Clone)]
pub struct TrainPolicyArgs {
    /// Shard files, or folders whose `*.dgn` files are all read.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Policy file to write; its per-epoch metrics go beside it as .csv.
    #[arg(long, default_value = "weights/policy-trained.bin")]
    pub out: PathBuf,
    #[arg(long, default_value_t = 8)]
    pub epochs: usize,
    /// AdaGrad's learning rate.
    #[arg(long, default_value_t = 0.3)]
    pub lr: f32,
    /// Seed of the shuffling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The positions of a data set with the features of each legal move, flattened.
#[derive(Default)]
struct PolicyData {
    features: Vec<u16>,
    /// End of each move's features in `features`.
    move_ends: Vec<u32>,
    /// End of each position's moves in `move_ends`.
    position_ends: Vec<u32>,
    /// Index of the chosen move among the position's moves.
    targets: Vec<u16>,
}

impl PolicyData {
    fn len(&self) -> usize {
        self.targets.len()
    }

    fn moves(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 {
            0
        } else {
            self.position_ends[i - 1] as usize
        };
        start..self.position_ends[i] as usize
    }

    fn move_features(&self, m: usize) -> &[u16] {
        let start = if m == 0 {
            0
        } else {
            self.move_ends[m - 1] as usize
        };
        &self.features[start..self.move_ends[m] as usize]
    }

    fn push(&mut self, pos: &Position, chosen: usize) {
        let context = PositionContext::new(pos);
        for &mv in pos.legal_moves().iter() {
            let f = move_features(pos, &context, mv);
            self.features.extend_from_slice(f.indices());
            self.move_ends.push(self.features.len() as u32);
        }
        self.position_ends.push(self.move_ends.len() as u32);
        self.targets.push(chosen as u16);
    }

    fn append(&mut self, other: PolicyData) {
        let feature_base = self.features.len() as u32;
        let move_base = self.move_ends.len() as u32;
        self.features.extend(other.features);
        self.move_ends
            .extend(other.move_ends.iter().map(|e| e + feature_base));
        self.position_ends
            .extend(other.position_ends.iter().map(|e| e + move_base));
        self.targets.extend(other.targets);
    }
}

/// The searched positions of a game whose chosen move is legal, with the move's index.
fn game_positions(game: &GameRecord) -> Result<Vec<(Position, usize)>, String> {
    let mut out = Vec::with_capacity(game.positions.len());
    for record in &game.positions {
        let pos = record
            .position
            .unpack()
            .ok_or_else(|| format!("game {}: a position does not unpack", game.index))?;
        let best = record.best_move();
        if let Some(i) = pos.legal_moves().iter().position(|&m| m == best) {
            out.push((pos, i));
        }
    }
    Ok(out)
}

/// Cross-entropy and top-1 accuracy of priors over a set of positions.
#[derive(Clone, Copy, Debug, Default)]
struct Fit {
    cross_entropy: f64,
    top1: f64,
}

fn fit(scored: impl Iterator<Item = (Vec<f32>, usize)>) -> Fit {
    let (mut ce, mut top1, mut n) = (0.0, 0.0, 0usize);
    for (priors, target) in scored {
        ce -= f64::from(priors[target].max(1e-12)).ln();
        let best = priors
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(i, _)| i);
        top1 += f64::from(u8::from(best == target));
        n += 1;
    }
    let n = n.max(1) as f64;
    Fit {
        cross_entropy: ce / n,
        top1: top1 / n,
    }
}

fn policy_priors(policy: &MovePolicy, data: &PolicyData, i: usize) -> Vec<f32> {
    let mut logits: Vec<f32> = data
        .moves(i)
        .map(|m| {
            data.move_features(m)
                .iter()
                .map(|&f| policy.weights()[usize::from(f)])
                .sum()
        })
        .collect();
    softmax(&mut logits);
    logits
}

fn policy_fit(policy: &MovePolicy, data: &PolicyData) -> Fit {
    fit((0..data.len()).map(|i| (policy_priors(policy, data, i), usize::from(data.targets[i]))))
}

/// One epoch of AdaGrad over `order`; returns the mean training cross-entropy.
fn epoch(
    policy: &mut MovePolicy,
    squares: &mut [f32],
    data: &PolicyData,
    order: &[usize],
    lr: f32,
) -> f64 {
    let mut ce = 0.0;
    for &i in order {
        let priors = policy_priors(policy, data, i);
        let target = usize::from(data.targets[i]);
        ce -= f64::from(priors[target].max(1e-12)).ln();
        for (k, m) in data.moves(i).enumerate() {
            let gradient = priors[k] - f32::from(u8::from(k == target));
            if gradient.abs() < 1e-7 {
                continue;
            }
            for &f in data.move_features(m) {
                let f = usize::from(f);
                squares[f] += gradient * gradient;
                policy.weights_mut()[f] -= lr * gradient / (squares[f].sqrt() + 1e-8);
            }
        }
    }
    ce / order.len().max(1) as f64
}

pub fn run(args: &TrainPolicyArgs) -> Result<(), String> {
    if args.epochs == 0 {
        return Err("--epochs must be at least 1".to_string());
    }
    if !(args.lr.is_finite() && args.lr > 0.0) {
        return Err(format!("--lr {} must be a positive number", args.lr));
    }
    let _lock = super::claim_output(&args.out)?;
    let started = Instant::now();
    let mut train = PolicyData::default();
    let mut validation = PolicyData::default();
    let mut held_out: Vec<(Position, usize)> = Vec::new();
    for file in shard_files(&args.data)? {
        let shard = read_shard(&file).map_err(|e| e.to_string())?;
        let games: Vec<(bool, Vec<(Position, usize)>)> = shard
            .games
            .par_iter()
            .map(|g| Ok((g.index % VALIDATION_EVERY == 0, game_positions(g)?)))
            .collect::<Result<_, String>>()
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let parts: Vec<(bool, PolicyData)> = games
            .par_iter()
            .map(|(held, positions)| {
                let mut part = PolicyData::default();
                for (pos, chosen) in positions {
                    part.push(pos, *chosen);
                }
                (*held, part)
            })
            .collect();
        for (held, part) in parts {
            if held {
                validation.append(part);
            } else {
                train.append(part);
            }
        }
        for (held, positions) in games {
            if held {
                held_out.extend(positions);
            }
        }
    }
    if train.len() == 0 || validation.len() == 0 {
        return Err(format!(
            "--data: {} training and {} held-out positions; both must be some",
            train.len(),
            validation.len()
        ));
    }
    eprintln!(
        "train-policy: {} training and {} held-out positions, {} moves, loaded in {:.1} s",
        train.len(),
        validation.len(),
        train.move_ends.len() + validation.move_ends.len(),
        started.elapsed().as_secs_f64()
    );
    // The move ordering's priors as MCTS plays them with `mcts_policy` off.
    let shape = PriorShape::from_params(&MctsParams::DEFAULT);
    let ordering = fit(held_out.iter().map(|(pos, target)| {
        let mut priors = Vec::new();
        ordering_priors(pos, &pos.legal_moves(), &shape, &mut priors);
        (priors, *target)
    }));
    let uniform = policy_fit(&MovePolicy::zero(), &validation);
    let mut policy = MovePolicy::zero();
    let mut squares = vec![0.0f32; FEATURES];
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = StdRng::seed_from_u64(args.seed);
    let mut csv =
        String::from("epoch,train_cross_entropy,validation_cross_entropy,validation_top1\n");
    let mut last = uniform;
    for e in 1..=args.epochs {
        order.shuffle(&mut rng);
        let train_ce = epoch(&mut policy, &mut squares, &train, &order, args.lr);
        last = policy_fit(&policy, &validation);
        eprintln!(
            "train-policy: epoch {e}: train cross-entropy {train_ce:.4}, held out {:.4}, \
             top-1 {:.1}%",
            last.cross_entropy,
            100.0 * last.top1
        );
        csv.push_str(&format!(
            "{e},{train_ce:.6},{:.6},{:.6}\n",
            last.cross_entropy, last.top1
        ));
    }
    policy.save(&args.out).map_err(|e| e.to_string())?;
    let csv_path = args.out.with_extension("csv");
    fileio::write_atomic(&csv_path, csv.as_bytes()).map_err(|e| e.to_string())?;
    println!(
        "engine train-policy: {} positions, {} epochs in {:.1} s; held out ({} positions): \
         cross-entropy {:.4}, top-1 {:.1}% (move ordering's priors {:.4}, {:.1}%; uniform \
         {:.4}, {:.1}%); policy {}, metrics {}",
        train.len(),
        args.epochs,
        started.elapsed().as_secs_f64(),
        validation.len(),
        last.cross_entropy,
        100.0 * last.top1,
        ordering.cross_entropy,
        100.0 * ordering.top1,
        uniform.cross_entropy,
        100.0 * uniform.top1,
        args.out.display(),
        csv_path.display()
    );
    Ok(())
}
