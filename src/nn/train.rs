//! Mini-batch training: datasets, SGD with momentum and Adam, weight decay, BCE/MSE losses.
//!
//! Everything random (initialisation is the caller's, shuffling is here) comes from a seeded
//! generator, and a batch split across threads is always cut into the same number of chunks and
//! summed in the same order, so a run is reproducible whatever the thread count.

use super::features::{Features, NUM_FEATURES};
use super::network::{Dense, Gradients, Loss, Network, sigmoid};
use crate::shogi::Position;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Zip, s};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha12Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Instant;

/// A set of (features, target) examples. Feature values are small non-negative integers
/// (attack counts, presence bits, hand counts), so they are stored as bytes: 361 bytes per
/// position instead of 1,444.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    width: usize,
    inputs: Vec<u8>,
    targets: Vec<f32>,
}

impl Dataset {
    pub fn new(width: usize) -> Dataset {
        Dataset {
            width,
            inputs: Vec::new(),
            targets: Vec::new(),
        }
    }

    pub fn with_capacity(width: usize, n: usize) -> Dataset {
        Dataset {
            width,
            inputs: Vec::with_capacity(width * n),
            targets: Vec::with_capacity(n),
        }
    }

    /// Adds one example. Panics if the row has the wrong width or the target is outside [0, 1]:
    /// both are programming errors of the caller, not bad input.
    pub fn push(&mut self, features: &[u8], target: f32) {
        assert_eq!(features.len(), self.width, "feature row width");
        assert!(
            (0.0..=1.0).contains(&target),
            "target {target} outside [0, 1]"
        );
        self.inputs.extend_from_slice(features);
        self.targets.push(target);
    }

    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn features(&self, i: usize) -> &[u8] {
        &self.inputs[i * self.width..(i + 1) * self.width]
    }

    pub fn target(&self, i: usize) -> f32 {
        self.targets[i]
    }

    /// Feature rows of labelled positions (e.g. the mate pretraining set).
    pub fn from_positions<'a>(items: impl IntoIterator<Item = (&'a Position, f32)>) -> Dataset {
        let mut data = Dataset::new(NUM_FEATURES);
        let mut f = Features::new();
        for (pos, target) in items {
            f.extract(pos);
            data.push(f.values(), target);
        }
        data
    }

    /// Appends all of `other` (same width).
    pub fn extend(&mut self, other: &Dataset) {
        assert_eq!(self.width, other.width, "dataset width");
        self.inputs.extend_from_slice(&other.inputs);
        self.targets.extend_from_slice(&other.targets);
    }

    /// Splits off the last `fraction` of the examples (e.g. as a validation set).
    pub fn split_off_fraction(&mut self, fraction: f64) -> Dataset {
        let keep = self.len() - ((self.len() as f64) * fraction.clamp(0.0, 1.0)).round() as usize;
        Dataset {
            width: self.width,
            inputs: self.inputs.split_off(keep * self.width),
            targets: self.targets.split_off(keep),
        }
    }

    /// Dense f32 batch of the given example indices, plus their targets.
    pub fn batch(&self, indices: &[usize]) -> (Array2<f32>, Array1<f32>) {
        let mut x = Array2::<f32>::zeros((indices.len(), self.width));
        for (mut row, &i) in x.rows_mut().into_iter().zip(indices) {
            for (d, &v) in row.iter_mut().zip(self.features(i)) {
                *d = v as f32;
            }
        }
        let t = indices.iter().map(|&i| self.targets[i]).collect();
        (x, t)
    }
}

/// Optimiser choice and its own hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Optimizer {
    /// Heavy-ball momentum: `v ← μv + g; w ← w − lr·v`.
    Sgd { momentum: f32 },
    Adam {
        beta1: f32,
        beta2: f32,
        epsilon: f32,
    },
}

impl Optimizer {
    pub const fn adam() -> Optimizer {
        Optimizer::Adam {
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
        }
    }
    pub const fn sgd() -> Optimizer {
        Optimizer::Sgd { momentum: 0.9 }
    }
}

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

/// Quality of a network on a dataset.
#[derive(Clone, Copy, Debug)]
pub struct EvalStats {
    /// Mean binary cross-entropy.
    pub bce: f64,
    /// Mean squared error of the probability.
    pub mse: f64,
    /// Share of examples with target ≠ 0.5 whose prediction is on the same side of 0.5.
    pub accuracy: f64,
}

/// Measures a network on a dataset, batch by batch.
pub fn evaluate(net: &Network, data: &Dataset) -> EvalStats {
    let (mut bce, mut mse, mut right, mut decided) = (0.0f64, 0.0f64, 0usize, 0usize);
    let order: Vec<usize> = (0..data.len()).collect();
    for idx in order.chunks(1024) {
        let (x, t) = data.batch(idx);
        let z = net.logits(x.view());
        for (&z, &t) in z.iter().zip(&t) {
            bce += Loss::Bce.value(z, t) as f64;
            let p = sigmoid(z);
            mse += ((p - t) as f64).powi(2);
            if t != 0.5 {
                decided += 1;
                right += ((p > 0.5) == (t > 0.5)) as usize;
            }
        }
    }
    let n = data.len().max(1) as f64;
    EvalStats {
        bce: bce / n,
        mse: mse / n,
        accuracy: right as f64 / decided.max(1) as f64,
    }
}

/// Optimiser state: one or two moment buffers shaped like the network.
#[derive(Clone, Debug)]
struct State {
    first: Gradients,
    second: Option<Gradients>,
    step: u64,
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

fn flatten(g: &Gradients) -> Vec<f32> {
    g.layers
        .iter()
        .flat_map(|l| l.weights.iter().chain(l.bias.iter()).copied())
        .collect()
}

/// Fills `g` from [`flatten`]'s layout; false if the length differs.
fn unflatten(values: &[f32], g: &mut Gradients) -> bool {
    let total: usize = g
        .layers
        .iter()
        .map(|l| l.weights.len() + l.bias.len())
        .sum();
    if values.len() != total {
        return false;
    }
    let mut it = values.iter();
    for l in &mut g.layers {
        for (d, s) in l.weights.iter_mut().chain(l.bias.iter_mut()).zip(&mut it) {
            *d = *s;
        }
    }
    true
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

fn sgd_update(layer: &mut Dense, g: &Dense, m: &mut Dense, lr: f32, momentum: f32, scale: f32) {
    Zip::from(&mut layer.weights)
        .and(&mut m.weights)
        .and(&g.weights)
        .for_each(|w, v, &g| {
            *v = momentum * *v + g * scale;
            *w -= lr * *v;
        });
    Zip::from(&mut layer.bias)
        .and(&mut m.bias)
        .and(&g.bias)
        .for_each(|w, v, &g| {
            *v = momentum * *v + g * scale;
            *w -= lr * *v;
        });
}

#[derive(Clone, Copy)]
struct AdamParams {
    lr: f32,
    beta1: f32,
    beta2: f32,
    epsilon: f32,
    /// Bias corrections `1 − β^t`.
    c1: f32,
    c2: f32,
    /// Turns summed gradients into means.
    scale: f32,
}

fn adam_update<D: ndarray::Dimension>(
    w: &mut ndarray::Array<f32, D>,
    g: &ndarray::Array<f32, D>,
    m: &mut ndarray::Array<f32, D>,
    v: &mut ndarray::Array<f32, D>,
    p: AdamParams,
) {
    Zip::from(w).and(g).and(m).and(v).for_each(|w, &g, m, v| {
        let g = g * p.scale;
        *m = p.beta1 * *m + (1.0 - p.beta1) * g;
        *v = p.beta2 * *v + (1.0 - p.beta2) * g * g;
        let mh = *m / p.c1;
        let vh = *v / p.c2;
        *w -= p.lr * mh / (vh.sqrt() + p.epsilon);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::network::Activation;
    use rand::Rng;
    use rand::rngs::StdRng;

    /// A learnable toy problem: target 1 when feature 0 exceeds feature 1 plus feature 2.
    fn toy_data(n: usize, seed: u64) -> Dataset {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut d = Dataset::new(12);
        for _ in 0..n {
            let row: Vec<u8> = (0..12).map(|_| rng.gen_range(0..4)).collect();
            let t = if row[0] > row[1] + row[2] { 1.0 } else { 0.0 };
            d.push(&row, t);
        }
        d
    }

    fn config(optimizer: Optimizer, lr: f32) -> TrainConfig {
        TrainConfig {
            learning_rate: lr,
            optimizer,
            batch_size: 32,
            ..TrainConfig::default()
        }
    }

    fn learns(cfg: TrainConfig) {
        let data = toy_data(4000, 1);
        let test = toy_data(1000, 2);
        let net = Network::new(&[12, 16, 8, 1], Activation::Relu, 3).unwrap();
        let before = evaluate(&net, &test);
        let mut tr = Trainer::new(net, cfg.clone()).unwrap();
        let mut last = f64::INFINITY;
        for _ in 0..15 {
            last = tr.train_epoch(&data).unwrap().loss;
        }
        let after = evaluate(tr.network(), &test);
        assert!(
            after.bce < 0.5 * before.bce,
            "{cfg:?}: {before:?} -> {after:?}"
        );
        assert!(after.accuracy > 0.93, "{cfg:?}: {after:?}");
        assert!(last < 0.25, "{cfg:?}: final training loss {last}");
    }

    #[test]
    fn sgd_momentum_learns() {
        learns(config(Optimizer::sgd(), 0.05));
    }

    #[test]
    fn adam_learns() {
        learns(config(Optimizer::adam(), 3e-3));
    }

    #[test]
    fn mse_and_weight_decay_learn() {
        learns(TrainConfig {
            loss: Loss::Mse,
            weight_decay: 1e-3,
            ..config(Optimizer::adam(), 3e-3)
        });
    }

    #[test]
    fn first_steps_follow_the_update_rules() {
        let data = toy_data(64, 5);
        let idx: Vec<usize> = (0..64).collect();
        let (x, t) = data.batch(&idx);
        let net = Network::new(&[12, 6, 1], Activation::Sigmoid, 9).unwrap();
        let (_, g) = net.loss_and_gradients(x.view(), t.view(), Loss::Bce);
        let lr = 1e-2;

        // SGD, first step: v = g/n, w -= lr·v.
        let mut sgd = Trainer::new(
            net.clone(),
            TrainConfig {
                chunks: 1,
                ..config(Optimizer::sgd(), lr)
            },
        )
        .unwrap();
        sgd.step(x.view(), t.view());
        for (l, (new, gl)) in net
            .layers()
            .iter()
            .zip(sgd.network().layers().iter().zip(&g.layers))
        {
            for ((&w0, &w1), &gw) in l.weights.iter().zip(&new.weights).zip(&gl.weights) {
                assert!((w1 - (w0 - lr * gw / 64.0)).abs() < 1e-6);
            }
        }

        // Adam, first step: bias-corrected m/sqrt(v) = sign(g), so each parameter moves by lr.
        let mut adam = Trainer::new(
            net.clone(),
            TrainConfig {
                chunks: 1,
                ..config(Optimizer::adam(), lr)
            },
        )
        .unwrap();
        adam.step(x.view(), t.view());
        for (l, (new, gl)) in net
            .layers()
            .iter()
            .zip(adam.network().layers().iter().zip(&g.layers))
        {
            for ((&w0, &w1), &gw) in l.weights.iter().zip(&new.weights).zip(&gl.weights) {
                if gw.abs() > 1e-4 {
                    assert!(
                        (w1 - (w0 - lr * gw.signum())).abs() < 1e-4,
                        "{w0} {w1} {gw}"
                    );
                }
            }
        }

        // Decoupled weight decay alone (lr·wd = 0.5) halves the weights before the update.
        let mut decay = Trainer::new(
            net.clone(),
            TrainConfig {
                chunks: 1,
                weight_decay: 50.0,
                ..config(Optimizer::sgd(), lr)
            },
        )
        .unwrap();
        decay.step(x.view(), t.view());
        let (w0, w1) = (
            &net.layers()[0].weights,
            &decay.network().layers()[0].weights,
        );
        let gw = &g.layers[0].weights;
        for ((&a, &b), &gw) in w0.iter().zip(w1).zip(gw) {
            assert!((b - (0.5 * a - lr * gw / 64.0)).abs() < 1e-6);
        }
    }

    #[test]
    fn training_is_deterministic_and_chunking_only_reorders_sums() {
        let data = toy_data(1000, 7);
        let run = |chunks: usize, seed: u64| {
            let net = Network::new(&[12, 8, 1], Activation::Relu, 1).unwrap();
            let cfg = TrainConfig {
                chunks,
                seed,
                ..config(Optimizer::adam(), 1e-2)
            };
            let mut tr = Trainer::new(net, cfg).unwrap();
            for _ in 0..3 {
                tr.train_epoch(&data).unwrap();
            }
            tr.into_network()
        };
        let a = run(2, 5);
        assert_eq!(a, run(2, 5), "same seed, same chunks: bit-identical");
        assert_ne!(a, run(2, 6), "another shuffling seed gives another network");
        let serial = run(1, 5);
        for (la, lb) in a.layers().iter().zip(serial.layers()) {
            for (x, y) in la.weights.iter().zip(&lb.weights) {
                assert!((x - y).abs() < 1e-3, "{x} vs {y}");
            }
        }
    }

    #[test]
    fn a_resumed_trainer_continues_bit_for_bit() {
        let data = toy_data(300, 3);
        for optimizer in [Optimizer::adam(), Optimizer::sgd()] {
            let net = Network::new(&[12, 8, 1], Activation::Relu, 2).unwrap();
            let cfg = config(optimizer, 1e-2);
            let mut straight = Trainer::new(net.clone(), cfg.clone()).unwrap();
            let mut first = Trainer::new(net, cfg).unwrap();
            for _ in 0..2 {
                straight.train_epoch(&data).unwrap();
                first.train_epoch(&data).unwrap();
            }
            let state = first.state();
            let mut resumed = Trainer::resume(first.network().clone(), state.clone()).unwrap();
            assert_eq!(resumed.state(), state);
            for _ in 0..2 {
                straight.train_epoch(&data).unwrap();
                resumed.train_epoch(&data).unwrap();
            }
            assert_eq!(resumed.network(), straight.network(), "{optimizer:?}");
            // Saved moments that do not fit the network are refused.
            let other = Network::new(&[12, 4, 1], Activation::Relu, 2).unwrap();
            assert!(Trainer::resume(other, state).is_err());
        }
    }

    #[test]
    fn bad_configs_and_widths_are_errors() {
        let net = Network::new(&[12, 4, 1], Activation::Relu, 1).unwrap();
        for cfg in [
            TrainConfig {
                learning_rate: 0.0,
                ..TrainConfig::default()
            },
            TrainConfig {
                learning_rate: f32::NAN,
                ..TrainConfig::default()
            },
            TrainConfig {
                batch_size: 0,
                ..TrainConfig::default()
            },
            TrainConfig {
                chunks: 0,
                ..TrainConfig::default()
            },
            TrainConfig {
                weight_decay: -1.0,
                ..TrainConfig::default()
            },
            TrainConfig {
                optimizer: Optimizer::Sgd { momentum: 1.0 },
                ..TrainConfig::default()
            },
        ] {
            assert!(matches!(
                Trainer::new(net.clone(), cfg),
                Err(TrainError::InvalidConfig(_))
            ));
        }
        let mut tr = Trainer::new(net, TrainConfig::default()).unwrap();
        let err = tr.train_epoch(&Dataset::new(13)).unwrap_err();
        assert_eq!(
            err,
            TrainError::WidthMismatch {
                dataset: 13,
                network: 12
            }
        );
        assert!(err.to_string().contains("13"));
    }

    #[test]
    fn dataset_from_positions_holds_their_features() {
        let a = Position::startpos();
        let b = a.flipped();
        let d = Dataset::from_positions([(&a, 1.0), (&b, 0.25)]);
        assert_eq!(d.len(), 2);
        assert_eq!(d.width(), NUM_FEATURES);
        assert_eq!(
            d.features(0),
            Features::from_position(&a).values().as_slice()
        );
        assert_eq!(
            d.features(1),
            Features::from_position(&b).values().as_slice()
        );
        assert_eq!((d.target(0), d.target(1)), (1.0, 0.25));
    }

    #[test]
    fn dataset_basics() {
        let mut d = toy_data(10, 1);
        assert_eq!(d.len(), 10);
        let first = d.features(0).to_vec();
        let (x, t) = d.batch(&[0, 3]);
        assert_eq!(x.nrows(), 2);
        assert_eq!(
            x.row(0).to_vec(),
            first.iter().map(|&v| v as f32).collect::<Vec<_>>()
        );
        assert_eq!(t[1], d.target(3));
        let val = d.split_off_fraction(0.3);
        assert_eq!((d.len(), val.len()), (7, 3));
        d.extend(&val);
        assert_eq!(d.len(), 10);
        assert_eq!(d.features(0), first.as_slice());
    }
}
