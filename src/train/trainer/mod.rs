//! Mini-batch training of the ndarray network (`nn::network`): datasets, SGD with momentum
//! and Adam, weight decay, BCE/MSE losses. The lab's trainer: the engine only plays networks.
//!
//! Everything random (initialisation is the caller's, shuffling is here) comes from a seeded
//! generator, and a batch split across threads is always cut into the same number of chunks and
//! summed in the same order, so a run is reproducible whatever the thread count.
//!
//! - [`dataset`]: the examples (feature rows and targets) and the measure of a network on them.
//! - [`optimizer`]: SGD and Adam, their moments and update rules.
//! - this file: the configuration, the [`Trainer`] and its resumable state.

pub mod dataset;
pub mod optimizer;
pub mod sparse;
#[cfg(test)]
mod tests;

pub use dataset::{Dataset, EvalStats, evaluate};
pub use optimizer::Optimizer;
use optimizer::{AdamParams, State, adam_update, flatten, sgd_update, unflatten};
pub use sparse::{PositionSet, SparseTrainer};

use crate::nn::network::Network;
use crate::train::backprop::{Backprop, Gradients, Loss};
use ndarray::{ArrayView1, ArrayView2, s};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha12Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Instant;

/// Training hyper-parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    pub learning_rate: f32,
    pub optimizer: Optimizer,
    /// Decoupled weight decay (AdamW style): each step, weights (not biases) shrink by
    /// `lr·weight_decay·w`. Decoupled so Adam's per-parameter scaling does not weaken it.
    pub weight_decay: f32,
    pub batch_size: usize,
    pub loss: Loss,
    /// Seed of the shuffling generator.
    pub seed: u64,
    /// Number of chunks a batch is cut into for parallel gradient computation (1 = serial).
    /// Fixed by configuration, not by the thread count, so results do not depend on the machine.
    pub chunks: usize,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            learning_rate: 1e-3,
            optimizer: Optimizer::adam(),
            weight_decay: 0.0,
            batch_size: 256,
            loss: Loss::Bce,
            seed: 1,
            chunks: 2,
        }
    }
}

/// A configuration that cannot train.
#[derive(Debug, Clone, PartialEq)]
pub enum TrainError {
    InvalidConfig(String),
    /// The dataset's rows are not as wide as the network's input.
    WidthMismatch {
        dataset: usize,
        network: usize,
    },
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::InvalidConfig(m) => write!(f, "invalid training configuration: {m}"),
            TrainError::WidthMismatch { dataset, network } => write!(
                f,
                "dataset rows have {dataset} features but the network takes {network}"
            ),
        }
    }
}

impl std::error::Error for TrainError {}

/// Figures of one epoch.
#[derive(Clone, Copy, Debug)]
pub struct EpochStats {
    /// Mean training loss over the epoch (measured before each batch's update).
    pub loss: f64,
    pub positions: usize,
    pub seconds: f64,
}

impl EpochStats {
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.seconds.max(1e-9)
    }
}

/// Everything a [`Trainer`] carries from one epoch to the next besides the network: the
/// configuration (learning rate included), the optimiser's moments and step count, and the
/// position of the shuffling generator. With the network it resumes training bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainerState {
    pub config: TrainConfig,
    /// First moments (SGD's velocity, Adam's mean), layer by layer: weights then biases.
    first: Vec<f32>,
    /// Adam's second moments, same layout.
    second: Option<Vec<f32>>,
    step: u64,
    rng_seed: [u8; 32],
    /// Position in the generator's stream, in 32-bit words (a `u128` as two halves).
    rng_word_pos: [u64; 2],
}

/// Trains a network in place.
pub struct Trainer {
    net: Network,
    config: TrainConfig,
    state: State,
    /// The generator `StdRng` is in rand 0.8 (same stream for the same seed), named so that its
    /// position can be saved and restored.
    rng: ChaCha12Rng,
}

impl Trainer {
    pub fn new(net: Network, config: TrainConfig) -> Result<Trainer, TrainError> {
        check_config(&config)?;
        let state = State {
            first: Gradients::zeros_like(&net),
            second: matches!(config.optimizer, Optimizer::Adam { .. })
                .then(|| Gradients::zeros_like(&net)),
            step: 0,
        };
        let rng = ChaCha12Rng::seed_from_u64(config.seed);
        Ok(Trainer {
            net,
            config,
            state,
            rng,
        })
    }

    /// The state to save beside the network to resume this training later ([`Trainer::resume`]).
    pub fn state(&self) -> TrainerState {
        let pos = self.rng.get_word_pos();
        TrainerState {
            config: self.config.clone(),
            first: flatten(&self.state.first),
            second: self.state.second.as_ref().map(flatten),
            step: self.state.step,
            rng_seed: self.rng.get_seed(),
            rng_word_pos: [pos as u64, (pos >> 64) as u64],
        }
    }

    /// A trainer that continues exactly where the one that saved `state` (with `net`) stopped.
    pub fn resume(net: Network, state: TrainerState) -> Result<Trainer, TrainError> {
        let mut trainer = Trainer::new(net, state.config)?;
        let bad = |m: &str| Err(TrainError::InvalidConfig(m.to_string()));
        if !unflatten(&state.first, &mut trainer.state.first) {
            return bad("saved optimiser moments do not fit the network");
        }
        let second_fits = match (&mut trainer.state.second, &state.second) {
            (Some(g), Some(values)) => unflatten(values, g),
            (None, None) => true,
            _ => false,
        };
        if !second_fits {
            return bad("saved second moments do not fit the network or the optimiser");
        }
        trainer.state.step = state.step;
        trainer.rng = ChaCha12Rng::from_seed(state.rng_seed);
        let [lo, hi] = state.rng_word_pos;
        trainer
            .rng
            .set_word_pos(u128::from(lo) | (u128::from(hi) << 64));
        Ok(trainer)
    }

    pub fn network(&self) -> &Network {
        &self.net
    }

    pub fn into_network(self) -> Network {
        self.net
    }

    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// Changes the learning rate (for schedules) without touching optimiser state.
    pub fn set_learning_rate(&mut self, lr: f32) {
        self.config.learning_rate = lr;
    }

    /// One pass over the data in a fresh seeded random order. Returns the mean loss.
    pub fn train_epoch(&mut self, data: &Dataset) -> Result<EpochStats, TrainError> {
        if data.width() != self.net.input_size() {
            return Err(TrainError::WidthMismatch {
                dataset: data.width(),
                network: self.net.input_size(),
            });
        }
        let start = Instant::now();
        let mut order: Vec<usize> = (0..data.len()).collect();
        order.shuffle(&mut self.rng);
        let mut total = 0.0f64;
        for idx in order.chunks(self.config.batch_size) {
            let (x, t) = data.batch(idx);
            total += self.step(x.view(), t.view());
        }
        Ok(EpochStats {
            loss: total / data.len().max(1) as f64,
            positions: data.len(),
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// One optimiser step on one batch. Returns the summed loss of the batch before the step.
    pub fn step(&mut self, x: ArrayView2<f32>, t: ArrayView1<f32>) -> f64 {
        let n = x.nrows();
        if n == 0 {
            return 0.0;
        }
        let (loss, grads) = self.batch_gradients(x, t);
        self.apply(&grads, n);
        loss
    }

    /// Summed loss and gradients of a batch, cut into `config.chunks` row ranges computed in
    /// parallel and added in order.
    fn batch_gradients(&self, x: ArrayView2<f32>, t: ArrayView1<f32>) -> (f64, Gradients) {
        let n = x.nrows();
        let chunks = self.config.chunks.min(n);
        let loss = self.config.loss;
        if chunks == 1 {
            return self.net.loss_and_gradients(x, t, loss);
        }
        let per = n.div_ceil(chunks);
        let parts: Vec<(f64, Gradients)> = (0..chunks)
            .into_par_iter()
            .map(|c| {
                let r = c * per..((c + 1) * per).min(n);
                self.net
                    .loss_and_gradients(x.slice(s![r.clone(), ..]), t.slice(s![r]), loss)
            })
            .collect();
        let mut it = parts.into_iter();
        let (mut loss, mut grads) = it.next().expect("at least one chunk");
        for (l, g) in it {
            loss += l;
            grads.add_assign(&g);
        }
        (loss, grads)
    }

    /// Applies summed gradients of a batch of `n` examples.
    fn apply(&mut self, grads: &Gradients, n: usize) {
        let lr = self.config.learning_rate;
        let decay = 1.0 - lr * self.config.weight_decay;
        let scale = 1.0 / n as f32;
        self.state.step += 1;
        let step = self.state.step as i32;
        for (li, layer) in self.net.layers_mut().iter_mut().enumerate() {
            let g = &grads.layers[li];
            let m = &mut self.state.first.layers[li];
            let v = self.state.second.as_mut().map(|s| &mut s.layers[li]);
            if decay != 1.0 {
                layer.weights *= decay;
            }
            match self.config.optimizer {
                Optimizer::Sgd { momentum } => {
                    sgd_update(layer, g, m, lr, momentum, scale);
                }
                Optimizer::Adam {
                    beta1,
                    beta2,
                    epsilon,
                } => {
                    let v = v.expect("Adam keeps a second moment");
                    let c1 = 1.0 - beta1.powi(step);
                    let c2 = 1.0 - beta2.powi(step);
                    let hp = AdamParams {
                        lr,
                        beta1,
                        beta2,
                        epsilon,
                        c1,
                        c2,
                        scale,
                    };
                    adam_update(
                        &mut layer.weights,
                        &g.weights,
                        &mut m.weights,
                        &mut v.weights,
                        hp,
                    );
                    adam_update(&mut layer.bias, &g.bias, &mut m.bias, &mut v.bias, hp);
                }
            }
        }
    }
}

/// Checks a configuration before any trainer uses it.
fn check_config(config: &TrainConfig) -> Result<(), TrainError> {
    let bad = |m: &str| Err(TrainError::InvalidConfig(m.to_string()));
    if !(config.learning_rate.is_finite() && config.learning_rate > 0.0) {
        return bad("learning rate must be a positive number");
    }
    if !(config.weight_decay.is_finite() && config.weight_decay >= 0.0) {
        return bad("weight decay must be a non-negative number");
    }
    if config.batch_size == 0 {
        return bad("batch size must be at least 1");
    }
    if config.chunks == 0 {
        return bad("chunks must be at least 1");
    }
    match config.optimizer {
        Optimizer::Sgd { momentum } if !(0.0..1.0).contains(&momentum) => {
            return bad("momentum must be in [0, 1)");
        }
        Optimizer::Adam {
            beta1,
            beta2,
            epsilon,
        } if !((0.0..1.0).contains(&beta1) && (0.0..1.0).contains(&beta2) && epsilon > 0.0) => {
            return bad("Adam needs beta1, beta2 in [0, 1) and epsilon > 0");
        }
        _ => {}
    }
    Ok(())
}
