//! Training the reference network: the loss on its sigmoid output and the backward pass
//! (gradients by backpropagation). The playing engine only runs networks forward
//! (`nn::Network`); what learns them is the lab's.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, Zip};
use serde::{Deserialize, Serialize};

use crate::nn::{Activation, Dense, Network, sigmoid};

/// Training loss on the sigmoid output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Loss {
    /// Binary cross-entropy. Its gradient w.r.t. the output pre-activation is exactly `p − t`:
    /// this is the seed's trick of "treating the sigmoid's derivative as 1", done properly.
    Bce,
    /// Mean squared error `(p − t)²` on the probability; gradient `2(p − t)·p(1 − p)`.
    Mse,
}

impl Loss {
    /// Loss of one example from the output logit `z` and target `t` in [0, 1].
    #[inline]
    pub fn value(self, z: f32, t: f32) -> f32 {
        match self {
            // softplus(z) − t·z, written to stay finite for large |z|.
            Loss::Bce => z.max(0.0) + (-z.abs()).exp().ln_1p() - t * z,
            Loss::Mse => {
                let d = sigmoid(z) - t;
                d * d
            }
        }
    }

    /// dLoss/dz for one example.
    #[inline]
    pub fn grad_logit(self, z: f32, t: f32) -> f32 {
        let p = sigmoid(z);
        match self {
            Loss::Bce => p - t,
            Loss::Mse => 2.0 * (p - t) * p * (1.0 - p),
        }
    }
}

impl std::str::FromStr for Loss {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "bce" => Ok(Loss::Bce),
            "mse" => Ok(Loss::Mse),
            _ => Err(format!("unknown loss `{s}` (expected bce or mse)")),
        }
    }
}

/// Gradients (or any per-parameter quantity) with the network's shapes.
#[derive(Clone, Debug)]
pub struct Gradients {
    pub layers: Vec<Dense>,
}

impl Gradients {
    pub fn zeros_like(net: &Network) -> Gradients {
        Gradients {
            layers: net
                .layers()
                .iter()
                .map(|l| Dense {
                    weights: Array2::zeros(l.weights.raw_dim()),
                    bias: Array1::zeros(l.bias.raw_dim()),
                })
                .collect(),
        }
    }

    /// `self += other`, shape for shape.
    pub fn add_assign(&mut self, other: &Gradients) {
        for (a, b) in self.layers.iter_mut().zip(&other.layers) {
            a.weights += &b.weights;
            a.bias += &b.bias;
        }
    }
}

/// The derivative of `act` at pre-activation `z`, given the activation `a = act.apply(z)`.
#[inline(always)]
pub fn derivative(act: Activation, z: f32, a: f32) -> f32 {
    match act {
        Activation::Relu => (z > 0.0) as u8 as f32,
        Activation::ClippedRelu => (z > 0.0 && z < 1.0) as u8 as f32,
        Activation::Sigmoid => a * (1.0 - a),
    }
}

/// Losses and gradients of a [`Network`] over a batch.
pub trait Backprop {
    /// Summed loss and summed gradients (not averaged) over a batch. Summing lets callers split
    /// a batch across threads and add the parts; the optimiser divides by the batch size.
    fn loss_and_gradients(
        &self,
        x: ArrayView2<f32>,
        targets: ArrayView1<f32>,
        loss: Loss,
    ) -> (f64, Gradients);

    /// [`Backprop::loss_and_gradients`], plus the gradient of the summed loss with respect to
    /// the inputs `x` (for a trainer that computes the layer before this network itself).
    fn loss_gradients_and_input_delta(
        &self,
        x: ArrayView2<f32>,
        targets: ArrayView1<f32>,
        loss: Loss,
    ) -> (f64, Gradients, Array2<f32>);
}

impl Backprop for Network {
    fn loss_and_gradients(
        &self,
        x: ArrayView2<f32>,
        targets: ArrayView1<f32>,
        loss: Loss,
    ) -> (f64, Gradients) {
        let (total, grads, _) = backward(self, x, targets, loss, false);
        (total, grads)
    }

    fn loss_gradients_and_input_delta(
        &self,
        x: ArrayView2<f32>,
        targets: ArrayView1<f32>,
        loss: Loss,
    ) -> (f64, Gradients, Array2<f32>) {
        let (total, grads, delta) = backward(self, x, targets, loss, true);
        (total, grads, delta.expect("asked for"))
    }
}

/// The forward pass keeping each layer's input and pre-activation, then the backward pass;
/// the gradient with respect to the inputs only when asked for.
fn backward(
    net: &Network,
    x: ArrayView2<f32>,
    targets: ArrayView1<f32>,
    loss: Loss,
    input_delta: bool,
) -> (f64, Gradients, Option<Array2<f32>>) {
    assert_eq!(x.nrows(), targets.len(), "one target per example");
    let last = net.layers().len() - 1;
    // Forward, keeping each layer's input and pre-activation.
    let mut inputs: Vec<Array2<f32>> = Vec::with_capacity(net.layers().len());
    let mut pre: Vec<Array2<f32>> = Vec::with_capacity(net.layers().len());
    let mut a = x.to_owned();
    for (i, l) in net.layers().iter().enumerate() {
        let mut z = a.dot(&l.weights.t());
        z += &l.bias;
        let next = if i < last {
            let act = net.hidden_activation();
            z.mapv(|v| act.apply(v))
        } else {
            z.clone()
        };
        inputs.push(std::mem::replace(&mut a, next));
        pre.push(z);
    }
    let out = a.column(0);
    let mut total = 0.0f64;
    let mut delta = Array2::<f32>::zeros((x.nrows(), 1));
    for ((d, &z), &t) in delta.column_mut(0).iter_mut().zip(out).zip(targets) {
        total += loss.value(z, t) as f64;
        *d = loss.grad_logit(z, t);
    }
    // Backward.
    let mut grads: Vec<Dense> = Vec::with_capacity(net.layers().len());
    for i in (0..net.layers().len()).rev() {
        let l = &net.layers()[i];
        let gw = delta.t().dot(&inputs[i]);
        let gb = delta.sum_axis(Axis(0));
        grads.push(Dense {
            weights: gw,
            bias: gb,
        });
        if i > 0 {
            let mut prev = delta.dot(&l.weights);
            let act = net.hidden_activation();
            Zip::from(&mut prev)
                .and(&pre[i - 1])
                .and(&inputs[i])
                .for_each(|d, &z, &a| *d *= derivative(act, z, a));
            delta = prev;
        }
    }
    grads.reverse();
    let input = input_delta.then(|| delta.dot(&net.layers()[0].weights));
    (total, Gradients { layers: grads }, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn random_batch(rows: usize, cols: usize, seed: u64) -> (Array2<f32>, Array1<f32>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let x = Array2::from_shape_simple_fn((rows, cols), || rng.gen_range(-1.0..2.0f32));
        let t = Array1::from_shape_simple_fn(rows, || rng.gen_range(0.0..1.0f32));
        (x, t)
    }

    /// Parameter `k` of layer `li`: weights row-major first, then biases.
    fn param_mut(n: &mut Network, li: usize, k: usize) -> &mut f32 {
        let l = &mut n.layers_mut()[li];
        let n_w = l.weights.len();
        if k < n_w {
            &mut l.weights.as_slice_mut().unwrap()[k]
        } else {
            &mut l.bias.as_slice_mut().unwrap()[k - n_w]
        }
    }

    /// Which piece of each hidden unit's activation every example falls on. Finite
    /// differences are meaningless across a kink of ReLU or clipped ReLU, so parameters whose
    /// nudge changes this pattern are not compared.
    fn regions(n: &Network, x: &Array2<f32>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut a = x.clone();
        for l in &n.layers()[..n.layers().len() - 1] {
            let mut z = a.dot(&l.weights.t());
            z += &l.bias;
            out.extend(z.iter().map(|&v| (v > 0.0) as u8 + (v > 1.0) as u8));
            a = z.mapv(|v| n.hidden_activation().apply(v));
        }
        out
    }

    /// Central finite differences on every parameter against the analytic gradients.
    fn gradient_check(hidden: Activation, loss: Loss, sizes: &[usize], seed: u64) {
        let mut net = Network::new(sizes, hidden, seed).unwrap();
        // Non-zero biases so that every path through the activations is exercised.
        let mut rng = StdRng::seed_from_u64(seed ^ 0xabc);
        for l in net.layers_mut() {
            l.bias.mapv_inplace(|_| rng.gen_range(-0.3..0.3));
        }
        let (x, t) = random_batch(7, sizes[0], seed + 1);
        let (_, grads) = net.loss_and_gradients(x.view(), t.view(), loss);
        let total = |n: &Network| -> f64 {
            n.logits(x.view())
                .iter()
                .zip(&t)
                .map(|(&z, &t)| loss.value(z, t) as f64)
                .sum()
        };
        let eps = 1e-2f32;
        let base = regions(&net, &x);
        let (mut checked, mut skipped) = (0, 0);
        for li in 0..net.layers().len() {
            let n_w = net.layers()[li].weights.len();
            let n_b = net.layers()[li].bias.len();
            for k in 0..n_w + n_b {
                let analytic = if k < n_w {
                    grads.layers[li].weights.as_slice().unwrap()[k]
                } else {
                    grads.layers[li].bias.as_slice().unwrap()[k - n_w]
                } as f64;
                let mut plus = net.clone();
                *param_mut(&mut plus, li, k) += eps;
                let mut minus = net.clone();
                *param_mut(&mut minus, li, k) -= eps;
                if hidden != Activation::Sigmoid
                    && (regions(&plus, &x) != base || regions(&minus, &x) != base)
                {
                    skipped += 1;
                    continue;
                }
                let numeric = (total(&plus) - total(&minus)) / (2.0 * eps as f64);
                let tol = 2e-3 + 2e-2 * numeric.abs().max(analytic.abs());
                assert!(
                    (numeric - analytic).abs() <= tol,
                    "{hidden:?}/{loss:?} layer {li} param {k}: analytic {analytic}, numeric {numeric}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked + skipped, net.parameter_count());
        assert!(
            skipped * 10 <= checked,
            "{hidden:?}: too many parameters near a kink ({skipped} of {})",
            checked + skipped
        );
    }

    #[test]
    fn gradients_match_finite_differences() {
        for loss in [Loss::Bce, Loss::Mse] {
            gradient_check(Activation::Sigmoid, loss, &[6, 5, 4, 1], 1);
            gradient_check(Activation::Relu, loss, &[6, 5, 4, 1], 2);
            gradient_check(Activation::ClippedRelu, loss, &[6, 5, 4, 1], 3);
            gradient_check(Activation::Relu, loss, &[5, 1], 4);
        }
    }

    #[test]
    fn bce_gradient_is_p_minus_t() {
        for &(z, t) in &[(0.0f32, 1.0f32), (2.0, 0.3), (-3.0, 0.0), (40.0, 1.0)] {
            assert!((Loss::Bce.grad_logit(z, t) - (sigmoid(z) - t)).abs() < 1e-7);
            assert!(Loss::Bce.value(z, t).is_finite());
        }
        // Stable for huge logits: loss of a confident wrong answer is about |z|.
        assert!((Loss::Bce.value(100.0, 0.0) - 100.0).abs() < 1e-3);
        assert!(Loss::Bce.value(-100.0, 0.0).abs() < 1e-6);
    }
}
