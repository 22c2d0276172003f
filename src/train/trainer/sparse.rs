//! Training a network of a wide, sparse feature set (the king-piece set's 25,861 inputs, of
//! which a position sets about 130): the dense trainer would multiply every batch by a
//! 25,861-column matrix of zeros.
//!
//! - The examples are kept as packed positions (36 bytes each, [`PositionSet`]) and their
//!   features extracted batch by batch: millions of positions fit in memory, and extraction
//!   costs far less than the first layer's arithmetic.
//! - The first layer is held input-major (one row of `h1` weights per input) and computed over
//!   the non-zero inputs only, forward and backward; the layers after it are a [`Network`] of
//!   their own, trained as the dense trainer trains one.
//! - Adam updates the first-layer rows a batch touched (lazy Adam, as PyTorch's `SparseAdam`):
//!   an untouched row's moments do not decay that step. Decoupled weight decay likewise shrinks
//!   only touched rows. Biases and later layers get the dense trainer's updates.
//!
//! Reproducible like the dense trainer: seeded shuffling, fixed summation order (the first layer
//! in example order on one thread).

use super::optimizer::{AdamParams, adam_update, sgd_update};
use super::{EpochStats, EvalStats, Optimizer, TrainConfig, TrainError, TrainerState};
use crate::nn::feature_set::{FeatureSet, Features};
use crate::nn::network::{Dense, Network, sigmoid};
use crate::shogi::Position;
use crate::train::backprop::{Backprop, Gradients, Loss, derivative};
use crate::train::packed::PackedPosition;
use ndarray::{Array1, Array2, ArrayView1, Axis};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha12Rng;
use std::time::Instant;

/// Training examples as packed positions and targets.
#[derive(Clone, Debug, Default)]
pub struct PositionSet {
    positions: Vec<PackedPosition>,
    targets: Vec<f32>,
}

impl PositionSet {
    pub fn push(&mut self, pos: &Position, target: f32) {
        assert!(
            (0.0..=1.0).contains(&target),
            "target {target} outside [0, 1]"
        );
        self.positions.push(PackedPosition::pack(pos));
        self.targets.push(target);
    }

    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    pub fn target(&self, i: usize) -> f32 {
        self.targets[i]
    }

    pub fn position(&self, i: usize) -> Position {
        self.positions[i]
            .unpack()
            .expect("positions are packed from valid positions")
    }
}

/// The non-zero inputs of a batch: example `k`'s are `index[start[k]..start[k + 1]]`.
#[derive(Default)]
struct SparseBatch {
    start: Vec<usize>,
    index: Vec<u32>,
    value: Vec<f32>,
    targets: Vec<f32>,
}

impl SparseBatch {
    fn fill(&mut self, data: &PositionSet, indices: &[usize], f: &mut Features) {
        self.start.clear();
        self.index.clear();
        self.value.clear();
        self.targets.clear();
        self.start.push(0);
        for &i in indices {
            f.extract(&data.position(i));
            for (j, v) in f.nonzero() {
                self.index.push(j as u32);
                self.value.push(v as f32);
            }
            self.start.push(self.index.len());
            self.targets.push(data.target(i));
        }
    }

    fn len(&self) -> usize {
        self.targets.len()
    }

    fn example(&self, k: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let r = self.start[k]..self.start[k + 1];
        self.index[r.clone()]
            .iter()
            .zip(&self.value[r])
            .map(|(&i, &v)| (i as usize, v))
    }
}

/// Trains a network of a sparse feature set in place.
pub struct SparseTrainer {
    set: FeatureSet,
    /// First hidden layer's width.
    h1: usize,
    /// First-layer weights, `inputs × h1`, row per input.
    w1: Vec<f32>,
    b1: Array1<f32>,
    /// The layers after the first.
    tail: Network,
    config: TrainConfig,
    /// Moments of `w1` (same layout), `b1` and the tail.
    w1_first: Vec<f32>,
    w1_second: Vec<f32>,
    b1_moments: [Array1<f32>; 2],
    tail_first: Gradients,
    tail_second: Gradients,
    step: u64,
    rng: ChaCha12Rng,
    /// The first layer's summed gradient, zero outside the rows in `touched`.
    w1_grad: Vec<f32>,
    touched: Vec<u32>,
    is_touched: Vec<bool>,
    features: Features,
    batch: SparseBatch,
}

impl SparseTrainer {
    /// A trainer for `net`, which needs a hidden layer. The optimiser's checks are the dense
    /// trainer's ([`super::Trainer::new`]).
    pub fn new(net: Network, config: TrainConfig) -> Result<SparseTrainer, TrainError> {
        super::check_config(&config)?;
        let bad = |m: &str| Err(TrainError::InvalidConfig(m.to_string()));
        if net.layers().len() < 2 {
            return bad("the sparse trainer needs a hidden layer");
        }
        let set = net.feature_set();
        if net.input_size() != set.inputs() {
            return bad("the network's inputs are no feature set's");
        }
        let l1 = &net.layers()[0];
        let (h1, inputs) = (l1.outputs(), l1.inputs());
        let mut w1 = vec![0f32; inputs * h1];
        for ((o, i), &w) in l1.weights.indexed_iter() {
            w1[i * h1 + o] = w;
        }
        let tail = Network::from_layers(net.layers()[1..].to_vec(), net.hidden_activation())
            .map_err(|e| TrainError::InvalidConfig(e.to_string()))?;
        let adam = matches!(config.optimizer, Optimizer::Adam { .. });
        Ok(SparseTrainer {
            set,
            h1,
            b1: l1.bias.clone(),
            w1_first: vec![0.0; w1.len()],
            w1_second: if adam {
                vec![0.0; w1.len()]
            } else {
                Vec::new()
            },
            w1_grad: vec![0.0; w1.len()],
            w1,
            b1_moments: [Array1::zeros(h1), Array1::zeros(h1)],
            tail_first: Gradients::zeros_like(&tail),
            tail_second: Gradients::zeros_like(&tail),
            tail,
            rng: ChaCha12Rng::seed_from_u64(config.seed),
            config,
            step: 0,
            touched: Vec::new(),
            is_touched: vec![false; inputs],
            features: Features::for_set(set),
            batch: SparseBatch::default(),
        })
    }

    /// The network as trained so far.
    pub fn network(&self) -> Network {
        let inputs = self.set.inputs();
        let w = Array2::from_shape_fn((self.h1, inputs), |(o, i)| self.w1[i * self.h1 + o]);
        let mut layers = vec![Dense {
            weights: w,
            bias: self.b1.clone(),
        }];
        layers.extend(self.tail.layers().iter().cloned());
        Network::from_layers(layers, self.tail.hidden_activation())
            .expect("the shapes it was built from")
    }

    pub fn set_learning_rate(&mut self, lr: f32) {
        self.config.learning_rate = lr;
    }

    /// The state to resume from: the dense trainer's layout, except that the first layer's
    /// moments are input-major (as this trainer holds them).
    pub fn state(&self) -> TrainerState {
        let layer_moments = |w1: &[f32], b1: &Array1<f32>, tail: &Gradients| {
            let mut v = w1.to_vec();
            v.extend(b1.iter());
            v.extend(super::optimizer::flatten(tail));
            v
        };
        let pos = self.rng.get_word_pos();
        let adam = !self.w1_second.is_empty();
        TrainerState {
            config: self.config.clone(),
            first: layer_moments(&self.w1_first, &self.b1_moments[0], &self.tail_first),
            second: adam
                .then(|| layer_moments(&self.w1_second, &self.b1_moments[1], &self.tail_second)),
            step: self.step,
            rng_seed: self.rng.get_seed(),
            rng_word_pos: [pos as u64, (pos >> 64) as u64],
        }
    }

    /// A trainer that continues where the one that saved `state` (with `net`) stopped.
    pub fn resume(net: Network, state: TrainerState) -> Result<SparseTrainer, TrainError> {
        let mut t = SparseTrainer::new(net, state.config.clone())?;
        let fits =
            |values: &[f32], w1: &mut Vec<f32>, b1: &mut Array1<f32>, tail: &mut Gradients| {
                let n = w1.len();
                if values.len() < n + b1.len() {
                    return false;
                }
                w1.copy_from_slice(&values[..n]);
                b1.iter_mut().zip(&values[n..]).for_each(|(d, &s)| *d = s);
                super::optimizer::unflatten(&values[n + b1.len()..], tail)
            };
        let [b_first, b_second] = &mut t.b1_moments;
        let mut ok = fits(&state.first, &mut t.w1_first, b_first, &mut t.tail_first);
        ok &= match &state.second {
            Some(v) if !t.w1_second.is_empty() => {
                fits(v, &mut t.w1_second, b_second, &mut t.tail_second)
            }
            None => t.w1_second.is_empty(),
            Some(_) => false,
        };
        if !ok {
            return Err(TrainError::InvalidConfig(
                "saved optimiser moments do not fit the network or the optimiser".into(),
            ));
        }
        t.step = state.step;
        t.rng = ChaCha12Rng::from_seed(state.rng_seed);
        let [lo, hi] = state.rng_word_pos;
        t.rng.set_word_pos(u128::from(lo) | (u128::from(hi) << 64));
        Ok(t)
    }

    /// First-layer pre-activations and activations of the batch in `self.batch`.
    fn first_layer(&self) -> (Array2<f32>, Array2<f32>) {
        let (n, h) = (self.batch.len(), self.h1);
        let mut z = Array2::<f32>::zeros((n, h));
        for (k, mut row) in z.axis_iter_mut(Axis(0)).enumerate() {
            let row = row.as_slice_mut().expect("row-major");
            row.copy_from_slice(self.b1.as_slice().expect("contiguous"));
            for (i, v) in self.batch.example(k) {
                let w = &self.w1[i * h..(i + 1) * h];
                row.iter_mut().zip(w).for_each(|(a, &w)| *a += v * w);
            }
        }
        let act = self.tail.hidden_activation();
        let a = z.mapv(|v| act.apply(v));
        (z, a)
    }

    /// One pass over `data` in a fresh seeded order.
    pub fn train_epoch(&mut self, data: &PositionSet) -> Result<EpochStats, TrainError> {
        let start = Instant::now();
        let mut order: Vec<usize> = (0..data.len()).collect();
        order.shuffle(&mut self.rng);
        let mut total = 0.0f64;
        let mut batch = std::mem::take(&mut self.batch);
        for idx in order.chunks(self.config.batch_size) {
            batch.fill(data, idx, &mut self.features);
            self.batch = batch;
            total += self.step();
            batch = std::mem::take(&mut self.batch);
        }
        self.batch = batch;
        Ok(EpochStats {
            loss: total / data.len().max(1) as f64,
            positions: data.len(),
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// One optimiser step on `self.batch`; returns its summed loss before the step.
    fn step(&mut self) -> f64 {
        let n = self.batch.len();
        if n == 0 {
            return 0.0;
        }
        let (z, a) = self.first_layer();
        let t = ArrayView1::from(&self.batch.targets);
        let (loss, tail_grads, delta) =
            self.tail
                .loss_gradients_and_input_delta(a.view(), t, self.config.loss);
        let act = self.tail.hidden_activation();
        let mut delta = delta;
        ndarray::Zip::from(&mut delta)
            .and(&z)
            .and(&a)
            .for_each(|d, &z, &a| *d *= derivative(act, z, a));
        let b1_grad = delta.sum_axis(Axis(0));
        let h = self.h1;
        for (k, d) in delta.axis_iter(Axis(0)).enumerate() {
            let d = d.as_slice().expect("row-major");
            for (i, v) in self.batch.example(k) {
                if !self.is_touched[i] {
                    self.is_touched[i] = true;
                    self.touched.push(i as u32);
                }
                let g = &mut self.w1_grad[i * h..(i + 1) * h];
                g.iter_mut().zip(d).for_each(|(g, &d)| *g += v * d);
            }
        }
        self.apply(&b1_grad, &tail_grads, n);
        loss
    }

    fn apply(&mut self, b1_grad: &Array1<f32>, tail: &Gradients, n: usize) {
        let lr = self.config.learning_rate;
        let decay = 1.0 - lr * self.config.weight_decay;
        let scale = 1.0 / n as f32;
        self.step += 1;
        let h = self.h1;
        let mut b1 = Dense {
            weights: Array2::zeros((0, 0)),
            bias: std::mem::take(&mut self.b1),
        };
        match self.config.optimizer {
            Optimizer::Sgd { momentum } => {
                let g = Dense {
                    weights: Array2::zeros((0, 0)),
                    bias: b1_grad.clone(),
                };
                let mut m = Dense {
                    weights: Array2::zeros((0, 0)),
                    bias: std::mem::take(&mut self.b1_moments[0]),
                };
                sgd_update(&mut b1, &g, &mut m, lr, momentum, scale);
                self.b1_moments[0] = m.bias;
                for (li, layer) in self.tail.layers_mut().iter_mut().enumerate() {
                    if decay != 1.0 {
                        layer.weights *= decay;
                    }
                    let m = &mut self.tail_first.layers[li];
                    sgd_update(layer, &tail.layers[li], m, lr, momentum, scale);
                }
                for &i in &self.touched {
                    let r = i as usize * h..(i as usize + 1) * h;
                    for ((w, v), g) in self.w1[r.clone()]
                        .iter_mut()
                        .zip(&mut self.w1_first[r.clone()])
                        .zip(&self.w1_grad[r])
                    {
                        *w *= decay;
                        *v = momentum * *v + g * scale;
                        *w -= lr * *v;
                    }
                }
            }
            Optimizer::Adam {
                beta1,
                beta2,
                epsilon,
            } => {
                let step = self.step as i32;
                let hp = AdamParams {
                    lr,
                    beta1,
                    beta2,
                    epsilon,
                    c1: 1.0 - beta1.powi(step),
                    c2: 1.0 - beta2.powi(step),
                    scale,
                };
                let [m, v] = &mut self.b1_moments;
                adam_update(&mut b1.bias, b1_grad, m, v, hp);
                for (li, layer) in self.tail.layers_mut().iter_mut().enumerate() {
                    if decay != 1.0 {
                        layer.weights *= decay;
                    }
                    let g = &tail.layers[li];
                    let m = &mut self.tail_first.layers[li];
                    let v = &mut self.tail_second.layers[li];
                    adam_update(
                        &mut layer.weights,
                        &g.weights,
                        &mut m.weights,
                        &mut v.weights,
                        hp,
                    );
                    adam_update(&mut layer.bias, &g.bias, &mut m.bias, &mut v.bias, hp);
                }
                for &i in &self.touched {
                    let r = i as usize * h..(i as usize + 1) * h;
                    for (((w, m), v), &g) in self.w1[r.clone()]
                        .iter_mut()
                        .zip(&mut self.w1_first[r.clone()])
                        .zip(&mut self.w1_second[r.clone()])
                        .zip(&self.w1_grad[r])
                    {
                        *w *= decay;
                        let g = g * hp.scale;
                        *m = hp.beta1 * *m + (1.0 - hp.beta1) * g;
                        *v = hp.beta2 * *v + (1.0 - hp.beta2) * g * g;
                        *w -= hp.lr * (*m / hp.c1) / ((*v / hp.c2).sqrt() + hp.epsilon);
                    }
                }
            }
        }
        self.b1 = b1.bias;
        for &i in &self.touched {
            let i = i as usize;
            self.w1_grad[i * h..(i + 1) * h].fill(0.0);
            self.is_touched[i] = false;
        }
        self.touched.clear();
    }

    /// Quality of the network as trained so far on `data`.
    pub fn evaluate(&mut self, data: &PositionSet) -> EvalStats {
        let (mut bce, mut mse, mut right, mut decided) = (0.0f64, 0.0f64, 0usize, 0usize);
        let order: Vec<usize> = (0..data.len()).collect();
        let mut batch = std::mem::take(&mut self.batch);
        for idx in order.chunks(1024) {
            batch.fill(data, idx, &mut self.features);
            self.batch = batch;
            let (_, a) = self.first_layer();
            let z = self.tail.logits(a.view());
            for (&z, &t) in z.iter().zip(&self.batch.targets) {
                bce += Loss::Bce.value(z, t) as f64;
                let p = sigmoid(z);
                mse += ((p - t) as f64).powi(2);
                if t != 0.5 {
                    decided += 1;
                    right += ((p > 0.5) == (t > 0.5)) as usize;
                }
            }
            batch = std::mem::take(&mut self.batch);
        }
        self.batch = batch;
        let n = data.len().max(1) as f64;
        EvalStats {
            bce: bce / n,
            mse: mse / n,
            accuracy: right as f64 / decided.max(1) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::network::Activation;
    use crate::testing::random_positions;
    use rand::{Rng, SeedableRng};

    const SET: FeatureSet = FeatureSet::KingPiece;

    fn net(seed: u64) -> Network {
        let mut net = Network::new(&[SET.inputs(), 16, 8, 1], Activation::Relu, seed).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for l in net.layers_mut() {
            l.bias.mapv_inplace(|_| rng.gen_range(-0.3..0.3));
        }
        net
    }

    /// Positions labelled by a rule the king-piece inputs can see: is the side to move's king
    /// still on its home rank?
    fn data(n: usize, seed: u64) -> PositionSet {
        let mut d = PositionSet::default();
        for pos in random_positions(n, seed, 80) {
            let stm = pos.side_to_move();
            let home = pos
                .king_square(stm)
                .is_some_and(|k| crate::nn::features::orient(k, stm) >= 20);
            d.push(&pos, if home { 0.8 } else { 0.2 });
        }
        d
    }

    fn max_difference(a: &Network, b: &Network) -> f32 {
        a.layers()
            .iter()
            .zip(b.layers())
            .flat_map(|(x, y)| {
                let w = x.weights.iter().zip(&y.weights).map(|(p, q)| (p - q).abs());
                let b = x.bias.iter().zip(&y.bias).map(|(p, q)| (p - q).abs());
                w.chain(b).collect::<Vec<_>>()
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn a_step_equals_the_dense_trainers() {
        let examples = data(24, 3);
        let mut x = Array2::<f32>::zeros((examples.len(), SET.inputs()));
        let mut f = Features::for_set(SET);
        for (k, mut row) in x.axis_iter_mut(Axis(0)).enumerate() {
            f.extract(&examples.position(k));
            for (i, v) in f.nonzero() {
                row[i] = v as f32;
            }
        }
        let t = Array1::from(examples.targets.clone());
        for optimizer in [Optimizer::adam(), Optimizer::sgd()] {
            let config = TrainConfig {
                learning_rate: 0.01,
                optimizer,
                // The dense trainer decays every weight, the sparse one the touched rows only.
                weight_decay: 0.0,
                batch_size: examples.len(),
                ..TrainConfig::default()
            };
            let mut dense = super::super::Trainer::new(net(5), config.clone()).unwrap();
            dense.step(x.view(), t.view());
            let mut sparse = SparseTrainer::new(net(5), config).unwrap();
            let before = sparse.network();
            assert_eq!(before, net(5));
            sparse.train_epoch(&examples).unwrap();
            let (d, s) = (dense.network(), sparse.network());
            let (moved, apart) = (max_difference(&before, &s), max_difference(d, &s));
            assert!(
                moved > 1e-4 && apart < 1e-3 * moved,
                "{optimizer:?}: {moved} {apart}"
            );
        }
    }

    #[test]
    fn learns_and_resumes_bit_for_bit() {
        let (train, val) = (data(600, 7), data(200, 8));
        let config = TrainConfig {
            learning_rate: 3e-3,
            batch_size: 32,
            ..TrainConfig::default()
        };
        let mut a = SparseTrainer::new(net(9), config).unwrap();
        let before = a.evaluate(&val).bce;
        a.train_epoch(&train).unwrap();
        let mut b = SparseTrainer::resume(a.network(), a.state()).unwrap();
        for _ in 0..3 {
            a.train_epoch(&train).unwrap();
            b.train_epoch(&train).unwrap();
        }
        assert_eq!(a.network(), b.network());
        let after = a.evaluate(&val).bce;
        assert!(after < before - 0.02, "validation bce {before} → {after}");
    }
}
