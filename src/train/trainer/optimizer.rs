//! The optimisers: SGD with heavy-ball momentum and Adam, their moment buffers (shaped like the
//! network, flattened for the trainer's saved state) and their update rules.

use crate::nn::network::Dense;
use crate::train::backprop::Gradients;
use ndarray::Zip;
use serde::{Deserialize, Serialize};

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

/// Optimiser state: one or two moment buffers shaped like the network.
#[derive(Clone, Debug)]
pub(super) struct State {
    pub(super) first: Gradients,
    pub(super) second: Option<Gradients>,
    pub(super) step: u64,
}

pub(super) fn flatten(g: &Gradients) -> Vec<f32> {
    g.layers
        .iter()
        .flat_map(|l| l.weights.iter().chain(l.bias.iter()).copied())
        .collect()
}

/// Fills `g` from [`flatten`]'s layout; false if the length differs.
pub(super) fn unflatten(values: &[f32], g: &mut Gradients) -> bool {
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

pub(super) fn sgd_update(
    layer: &mut Dense,
    g: &Dense,
    m: &mut Dense,
    lr: f32,
    momentum: f32,
    scale: f32,
) {
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
pub(super) struct AdamParams {
    pub(super) lr: f32,
    pub(super) beta1: f32,
    pub(super) beta2: f32,
    pub(super) epsilon: f32,
    /// Bias corrections `1 − β^t`.
    pub(super) c1: f32,
    pub(super) c2: f32,
    /// Turns summed gradients into means.
    pub(super) scale: f32,
}

pub(super) fn adam_update<D: ndarray::Dimension>(
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
