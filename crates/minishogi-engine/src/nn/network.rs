//! The reference network on ndarray: dense layers and the forward pass (what trains it, the
//! loss and the backward pass, is the lab's `train::backprop`).
//!
//! Layout: `sizes = [361, h1, .., 1]`. Every hidden layer uses the same activation; the output
//! layer is always a single sigmoid unit, read as the win probability of the side to move.
//! Batches are row-major: one example per row.

use super::feature_set::FeatureSet;
use ndarray::{Array1, Array2, ArrayView2, Axis};
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
