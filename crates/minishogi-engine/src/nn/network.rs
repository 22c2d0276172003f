//! The reference (training) network on ndarray: dense layers, forward and backward passes.
//!
//! Layout: `sizes = [361, h1, .., 1]`. Every hidden layer uses the same activation; the output
//! layer is always a single sigmoid unit, read as the win probability of the side to move.
//! Batches are row-major: one example per row.

use super::feature_set::FeatureSet;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, Zip};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Widest layer accepted anywhere (files, fast path). Guards against absurd sizes in a file.
pub const MAX_LAYER_WIDTH: usize = 4096;

/// Hidden-layer activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Activation {
    Relu,
    /// `min(max(x, 0), 1)`: bounded, which keeps a later quantised path possible.
    ClippedRelu,
    Sigmoid,
}

impl Activation {
    #[inline(always)]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Activation::Relu => x.max(0.0),
            Activation::ClippedRelu => x.clamp(0.0, 1.0),
            Activation::Sigmoid => sigmoid(x),
        }
    }

    /// Derivative at pre-activation `z`, given the activation `a = apply(z)`.
    #[inline(always)]
    pub fn derivative(self, z: f32, a: f32) -> f32 {
        match self {
            Activation::Relu => (z > 0.0) as u8 as f32,
            Activation::ClippedRelu => (z > 0.0 && z < 1.0) as u8 as f32,
            Activation::Sigmoid => a * (1.0 - a),
        }
    }

    /// Stable one-byte code used by the weights file.
    pub fn code(self) -> u8 {
        match self {
            Activation::Relu => 0,
            Activation::ClippedRelu => 1,
            Activation::Sigmoid => 2,
        }
    }

    pub fn from_code(code: u8) -> Option<Activation> {
        Some(match code {
            0 => Activation::Relu,
            1 => Activation::ClippedRelu,
            2 => Activation::Sigmoid,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::ClippedRelu => "crelu",
            Activation::Sigmoid => "sigmoid",
        }
    }
}

impl std::str::FromStr for Activation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "relu" => Ok(Activation::Relu),
            "crelu" | "clipped-relu" | "clippedrelu" => Ok(Activation::ClippedRelu),
            "sigmoid" => Ok(Activation::Sigmoid),
            _ => Err(format!(
                "unknown activation `{s}` (expected relu, crelu or sigmoid)"
            )),
        }
    }
}

#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

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

/// A network shape or parameter set that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError(pub String);

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid network shape: {}", self.0)
    }
}

impl std::error::Error for ShapeError {}

/// Checks a layer-size list: at least input and output, output 1, no zero or huge layer (an
/// input layer may also be as wide as a feature set's inputs).
pub fn validate_sizes(sizes: &[usize]) -> Result<(), ShapeError> {
    if sizes.len() < 2 {
        return Err(ShapeError(format!(
            "need at least an input and an output size, got {sizes:?}"
        )));
    }
    if *sizes.last().unwrap() != 1 {
        return Err(ShapeError(format!("output size must be 1, got {sizes:?}")));
    }
    let known_inputs = FeatureSet::with_inputs(sizes[0]).is_some();
    if let Some((_, &w)) = sizes
        .iter()
        .enumerate()
        .find(|&(i, &w)| w == 0 || (w > MAX_LAYER_WIDTH && !(i == 0 && known_inputs)))
    {
        return Err(ShapeError(format!(
            "layer width {w} outside 1..={MAX_LAYER_WIDTH} in {sizes:?}"
        )));
    }
    Ok(())
}

/// One fully connected layer: `z = W·x + b`, `W` is `out × in`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    pub weights: Array2<f32>,
    pub bias: Array1<f32>,
}

impl Dense {
    pub fn inputs(&self) -> usize {
        self.weights.ncols()
    }
    pub fn outputs(&self) -> usize {
        self.weights.nrows()
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
                .layers
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

/// The multi-layer perceptron, and the feature set its inputs are.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    layers: Vec<Dense>,
    hidden: Activation,
    features: FeatureSet,
}

/// The set a network of `inputs` inputs takes: the one with that many inputs, else the seed's
/// (networks of other widths are the tests' and the trainer's, never loaded by the engine:
/// the weights file and the inference paths check the count against the set).
fn set_for_inputs(inputs: usize) -> FeatureSet {
    FeatureSet::with_inputs(inputs).unwrap_or_default()
}

impl Network {
    /// Random initialisation, deterministic in `seed`. Uniform He/Kaiming range
    /// `±sqrt(6 / fan_in)` for ReLU-like activations, Xavier range for sigmoid; biases zero.
    pub fn new(sizes: &[usize], hidden: Activation, seed: u64) -> Result<Network, ShapeError> {
        validate_sizes(sizes)?;
        let mut rng = StdRng::seed_from_u64(seed);
        let layers = sizes
            .windows(2)
            .map(|w| {
                let (fan_in, fan_out) = (w[0], w[1]);
                let limit = match hidden {
                    Activation::Sigmoid => (6.0 / (fan_in + fan_out) as f32).sqrt(),
                    _ => (6.0 / fan_in as f32).sqrt(),
                };
                Dense {
                    weights: Array2::from_shape_simple_fn((fan_out, fan_in), || {
                        rng.gen_range(-limit..limit)
                    }),
                    bias: Array1::zeros(fan_out),
                }
            })
            .collect();
        Ok(Network {
            layers,
            hidden,
            features: set_for_inputs(sizes[0]),
        })
    }

    /// Builds a network from explicit layers, checking that the shapes chain and end in 1.
    pub fn from_layers(layers: Vec<Dense>, hidden: Activation) -> Result<Network, ShapeError> {
        if layers.is_empty() {
            return Err(ShapeError("no layers".into()));
        }
        for (i, l) in layers.iter().enumerate() {
            if l.bias.len() != l.outputs() {
                return Err(ShapeError(format!(
                    "layer {i}: bias length {} != {} outputs",
                    l.bias.len(),
                    l.outputs()
                )));
            }
            if i > 0 && layers[i - 1].outputs() != l.inputs() {
                return Err(ShapeError(format!(
                    "layer {i} takes {} inputs but layer {} gives {}",
                    l.inputs(),
                    i - 1,
                    layers[i - 1].outputs()
                )));
            }
        }
        let features = set_for_inputs(layers[0].inputs());
        let net = Network {
            layers,
            hidden,
            features,
        };
        validate_sizes(&net.sizes())?;
        Ok(net)
    }

    /// The feature set the inputs are.
    pub fn feature_set(&self) -> FeatureSet {
        self.features
    }

    /// Layer sizes, input first: e.g. `[361, 128, 32, 1]`.
    pub fn sizes(&self) -> Vec<usize> {
        let mut s = vec![self.layers[0].inputs()];
        s.extend(self.layers.iter().map(|l| l.outputs()));
        s
    }

    pub fn input_size(&self) -> usize {
        self.layers[0].inputs()
    }

    pub fn hidden_activation(&self) -> Activation {
        self.hidden
    }

    pub fn layers(&self) -> &[Dense] {
        &self.layers
    }

    pub fn layers_mut(&mut self) -> &mut [Dense] {
        &mut self.layers
    }

    pub fn parameter_count(&self) -> usize {
        self.layers
            .iter()
            .map(|l| l.weights.len() + l.bias.len())
            .sum()
    }

    /// Output logits (pre-sigmoid) for a batch, one per row of `x`.
    pub fn logits(&self, x: ArrayView2<f32>) -> Array1<f32> {
        let mut a = x.to_owned();
        let last = self.layers.len() - 1;
        for (i, l) in self.layers.iter().enumerate() {
            let mut z = a.dot(&l.weights.t());
            z += &l.bias;
            if i < last {
                let act = self.hidden;
                z.mapv_inplace(|v| act.apply(v));
            }
            a = z;
        }
        a.index_axis_move(Axis(1), 0)
    }

    /// Win probabilities for a batch.
    pub fn predict_batch(&self, x: ArrayView2<f32>) -> Array1<f32> {
        self.logits(x).mapv(sigmoid)
    }

    /// Output logit for one input vector.
    pub fn logit(&self, x: &[f32]) -> f32 {
        let view = ArrayView2::from_shape((1, x.len()), x).expect("one row");
        self.logits(view)[0]
    }

    /// Win probability of the side to move for one input vector.
    pub fn predict(&self, x: &[f32]) -> f32 {
        sigmoid(self.logit(x))
    }

    /// Summed loss and summed gradients (not averaged) over a batch. Summing lets callers split
    /// a batch across threads and add the parts; the optimiser divides by the batch size.
    pub fn loss_and_gradients(
        &self,
        x: ArrayView2<f32>,
        targets: ArrayView1<f32>,
        loss: Loss,
    ) -> (f64, Gradients) {
        let (total, grads, _) = self.backward(x, targets, loss, false);
        (total, grads)
    }

    /// [`Network::loss_and_gradients`], plus the gradient of the summed loss with respect to
    /// the inputs `x` (for a trainer that computes the layer before this network itself).
    pub fn loss_gradients_and_input_delta(
        &self,
        x: ArrayView2<f32>,
        targets: ArrayView1<f32>,
        loss: Loss,
    ) -> (f64, Gradients, Array2<f32>) {
        let (total, grads, delta) = self.backward(x, targets, loss, true);
        (total, grads, delta.expect("asked for"))
    }

    fn backward(
        &self,
        x: ArrayView2<f32>,
        targets: ArrayView1<f32>,
        loss: Loss,
        input_delta: bool,
    ) -> (f64, Gradients, Option<Array2<f32>>) {
        assert_eq!(x.nrows(), targets.len(), "one target per example");
        let last = self.layers.len() - 1;
        // Forward, keeping each layer's input and pre-activation.
        let mut inputs: Vec<Array2<f32>> = Vec::with_capacity(self.layers.len());
        let mut pre: Vec<Array2<f32>> = Vec::with_capacity(self.layers.len());
        let mut a = x.to_owned();
        for (i, l) in self.layers.iter().enumerate() {
            let mut z = a.dot(&l.weights.t());
            z += &l.bias;
            let next = if i < last {
                let act = self.hidden;
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
        let mut grads: Vec<Dense> = Vec::with_capacity(self.layers.len());
        for i in (0..self.layers.len()).rev() {
            let l = &self.layers[i];
            let gw = delta.t().dot(&inputs[i]);
            let gb = delta.sum_axis(Axis(0));
            grads.push(Dense {
                weights: gw,
                bias: gb,
            });
            if i > 0 {
                let mut prev = delta.dot(&l.weights);
                let act = self.hidden;
                Zip::from(&mut prev)
                    .and(&pre[i - 1])
                    .and(&inputs[i])
                    .for_each(|d, &z, &a| *d *= act.derivative(z, a));
                delta = prev;
            }
        }
        grads.reverse();
        let input = input_delta.then(|| delta.dot(&self.layers[0].weights));
        (total, Gradients { layers: grads }, input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn single_and_batch_forward_agree() {
        let net = Network::new(&[10, 8, 3, 1], Activation::Relu, 7).unwrap();
        let (x, _) = random_batch(5, 10, 8);
        let batch = net.predict_batch(x.view());
        for (i, row) in x.rows().into_iter().enumerate() {
            let p = net.predict(row.as_slice().unwrap());
            assert!((p - batch[i]).abs() < 1e-6);
        }
    }

    #[test]
    fn shapes_are_validated() {
        assert!(Network::new(&[10], Activation::Relu, 0).is_err());
        assert!(Network::new(&[10, 4, 2], Activation::Relu, 0).is_err());
        assert!(Network::new(&[10, 0, 1], Activation::Relu, 0).is_err());
        assert!(Network::new(&[10, MAX_LAYER_WIDTH + 1, 1], Activation::Relu, 0).is_err());
        let a = Dense {
            weights: Array2::zeros((4, 10)),
            bias: Array1::zeros(4),
        };
        let b = Dense {
            weights: Array2::zeros((1, 3)),
            bias: Array1::zeros(1),
        };
        assert!(Network::from_layers(vec![a.clone(), b], Activation::Relu).is_err());
        let c = Dense {
            weights: Array2::zeros((1, 4)),
            bias: Array1::zeros(1),
        };
        let net = Network::from_layers(vec![a, c], Activation::Relu).unwrap();
        assert_eq!(net.sizes(), vec![10, 4, 1]);
    }

    #[test]
    fn init_is_deterministic_in_seed() {
        let a = Network::new(&[20, 6, 1], Activation::Relu, 42).unwrap();
        let b = Network::new(&[20, 6, 1], Activation::Relu, 42).unwrap();
        let c = Network::new(&[20, 6, 1], Activation::Relu, 43).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
