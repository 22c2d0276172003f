//! The training examples: feature rows stored as bytes with their targets, and the measure of
//! a network on them.

use crate::nn::feature_set::Features;
use crate::nn::features::NUM_FEATURES;
use crate::nn::network::{Network, sigmoid};
use crate::shogi::Position;
use crate::train::backprop::Loss;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

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
