//! Inference for the search: flat f32 arrays, a sparse first layer, no allocation per call.
//!
//! Every weight matrix is stored transposed (one contiguous row per *input*), so a layer is a
//! sum of `input × row` over its non-zero inputs. The first layer thereby touches only the
//! ~60–100 non-zero features of a position, and later layers skip inputs that ReLU zeroed.
//! Results equal [`Network`]'s forward pass up to float summation order.

use super::feature_set::{FeatureSet, Features};
use super::network::{Activation, Network, ShapeError, sigmoid};
use crate::shogi::Position;
use std::cell::RefCell;

/// Widest layer the fast path takes: its scratch buffers live on the stack.
pub const FAST_MAX_WIDTH: usize = 512;

/// Outputs are computed `BLOCK` at a time with the partial sums held in registers (4 AVX2
/// registers), so each weight row is read once per block and no accumulator goes through memory.
/// Layer widths are padded to a multiple of it with zero weights.
const BLOCK: usize = 32;

/// Most non-zero inputs any layer can have.
const SPARSE_MAX: usize = {
    let mut most = FAST_MAX_WIDTH;
    let mut i = 0;
    while i < FeatureSet::ALL.len() {
        if FeatureSet::ALL[i].max_active() > most {
            most = FeatureSet::ALL[i].max_active();
        }
        i += 1;
    }
    most
};

thread_local! {
    /// One extraction buffer per thread and feature set: [`FastNet::evaluate_logit`] takes
    /// `&self` from every search thread, and a fresh buffer per call would cost an allocation.
    static BUFFERS: RefCell<Vec<Features>> = const { RefCell::new(Vec::new()) };
}

#[derive(Clone, Debug)]
struct Layer {
    /// Padded output width (a multiple of `BLOCK`, except 1 for the output layer).
    outputs: usize,
    /// `inputs × outputs`, row per input; padded rows and columns are zero.
    weights: Vec<f32>,
    bias: Vec<f32>,
}

/// A network prepared for fast single-position evaluation.
#[derive(Clone, Debug)]
pub struct FastNet {
    layers: Vec<Layer>,
    hidden: Activation,
    sizes: Vec<usize>,
    features: FeatureSet,
    /// AVX2 was detected at construction; selects the code path compiled for it.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    avx2: bool,
}

impl FastNet {
    pub fn from_network(net: &Network) -> Result<FastNet, ShapeError> {
        let sizes = net.sizes();
        let features = net.feature_set();
        if sizes[0] != features.inputs() {
            return Err(ShapeError(format!(
                "fast path needs {} inputs for feature set {features}, network has {}",
                features.inputs(),
                sizes[0]
            )));
        }
        if let Some(&w) = sizes[1..].iter().find(|&&w| w > FAST_MAX_WIDTH) {
            return Err(ShapeError(format!(
                "layer width {w} exceeds the fast path's {FAST_MAX_WIDTH}"
            )));
        }
        let pad = |w: usize| w.div_ceil(BLOCK) * BLOCK;
        let last = net.layers().len() - 1;
        let mut layers = Vec::with_capacity(net.layers().len());
        let mut in_padded = features.inputs();
        for (li, l) in net.layers().iter().enumerate() {
            let out_padded = if li == last { 1 } else { pad(l.outputs()) };
            let mut weights = vec![0f32; in_padded * out_padded];
            for ((o, i), &w) in l.weights.indexed_iter() {
                weights[i * out_padded + o] = w;
            }
            let mut bias = vec![0f32; out_padded];
            bias[..l.outputs()].copy_from_slice(l.bias.as_slice().expect("contiguous bias"));
            layers.push(Layer {
                outputs: out_padded,
                weights,
                bias,
            });
            in_padded = out_padded;
        }
        Ok(FastNet {
            layers,
            hidden: net.hidden_activation(),
            sizes,
            features,
            avx2: detect_avx2(),
        })
    }

    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    pub fn feature_set(&self) -> FeatureSet {
        self.features
    }

    /// Win probability of the side to move.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        sigmoid(self.evaluate_logit(pos))
    }

    /// Output logit (pre-sigmoid) for a position; the search may prefer it to the probability.
    pub fn evaluate_logit(&self, pos: &Position) -> f32 {
        BUFFERS.with_borrow_mut(|buffers| {
            let f = match buffers
                .iter()
                .position(|f| f.feature_set() == self.features)
            {
                Some(i) => &mut buffers[i],
                None => {
                    buffers.push(Features::for_set(self.features));
                    buffers.last_mut().expect("just pushed")
                }
            };
            f.extract(pos);
            self.logit(f)
        })
    }

    /// Output logit from already extracted features (of this network's set).
    pub fn logit(&self, f: &Features) -> f32 {
        debug_assert_eq!(f.feature_set(), self.features);
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is true only if the CPU reported AVX2 and FMA at construction.
            return unsafe { self.logit_avx2(f) };
        }
        self.logit_impl(f)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn logit_avx2(&self, f: &Features) -> f32 {
        // The body is inlined here, so the compiler vectorises it with 256-bit registers.
        self.logit_impl(f)
    }

    #[inline(always)]
    fn logit_impl(&self, f: &Features) -> f32 {
        // Non-zero inputs of the current layer: offset of their weight row, and value.
        let mut rows = [0u32; SPARSE_MAX];
        let mut vals = [0f32; SPARSE_MAX];
        let mut acts = [0f32; FAST_MAX_WIDTH];
        let first = &self.layers[0];
        let mut n = 0;
        for (i, v) in f.nonzero() {
            rows[n] = (i * first.outputs) as u32;
            vals[n] = v as f32;
            n += 1;
        }
        let mut layer = first;
        for next in &self.layers[1..] {
            let width = layer.outputs;
            sparse_layer(layer, &rows[..n], &vals[..n], &mut acts[..width]);
            activate(&mut acts[..width], self.hidden);
            if next.outputs == 1 {
                return dot(&acts[..width], &next.weights) + next.bias[0];
            }
            n = 0;
            // Branch-free compaction: about half the units are zero in no predictable pattern,
            // and a mispredicted branch per unit cost more than the whole layer.
            for (j, &a) in acts[..width].iter().enumerate() {
                rows[n] = (j * next.outputs) as u32;
                vals[n] = a;
                n += (a != 0.0) as usize;
            }
            layer = next;
        }
        // Only reached for a network without hidden layers (inputs → 1).
        let mut out = [0f32; 1];
        sparse_layer(layer, &rows[..n], &vals[..n], &mut out);
        out[0]
    }
}

/// `out = bias + Σ vals[k] · weights[rows[k]..]`.
#[inline(always)]
fn sparse_layer(layer: &Layer, rows: &[u32], vals: &[f32], out: &mut [f32]) {
    let width = out.len();
    if width.is_multiple_of(2 * BLOCK) {
        // Twice as many independent sums per pass over the inputs: fewer passes, and the
        // adds of one sum no longer wait on each other's latency.
        sparse_blocks::<{ 2 * BLOCK }>(layer, rows, vals, out);
    } else if width.is_multiple_of(BLOCK) {
        sparse_blocks::<BLOCK>(layer, rows, vals, out);
    } else {
        // The output layer (width 1).
        out.copy_from_slice(&layer.bias);
        for (&r, &v) in rows.iter().zip(vals) {
            let r = r as usize;
            for (o, w) in out.iter_mut().zip(&layer.weights[r..r + width]) {
                *o += v * w;
            }
        }
    }
}

/// [`sparse_layer`] `B` outputs at a time, the partial sums held in registers.
#[inline(always)]
fn sparse_blocks<const B: usize>(layer: &Layer, rows: &[u32], vals: &[f32], out: &mut [f32]) {
    for b in (0..out.len()).step_by(B) {
        let mut acc: [f32; B] = layer.bias[b..b + B].try_into().expect("block");
        for (&r, &v) in rows.iter().zip(vals) {
            let start = r as usize + b;
            let w: &[f32; B] = layer.weights[start..start + B].try_into().expect("block");
            for j in 0..B {
                acc[j] += v * w[j];
            }
        }
        out[b..b + B].copy_from_slice(&acc);
    }
}

fn detect_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[inline(always)]
fn activate(x: &mut [f32], act: Activation) {
    for v in x {
        *v = act.apply(*v);
    }
}

/// Dot product with eight independent partial sums, which lets the compiler vectorise it.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut s = acc.iter().sum::<f32>();
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::NUM_FEATURES;
    use crate::testing::random_positions;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A random network with non-zero biases (a fresh one has zero biases, which would hide
    /// bias-handling bugs).
    fn random_net(sizes: &[usize], act: Activation, seed: u64) -> Network {
        let mut net = Network::new(sizes, act, seed).unwrap();
        let mut rng = StdRng::seed_from_u64(seed + 100);
        for l in net.layers_mut() {
            l.bias.mapv_inplace(|_| rng.gen_range(-0.5..0.5));
        }
        net
    }

    fn assert_matches_reference(net: &Network, positions: &[Position]) {
        let fast = FastNet::from_network(net).unwrap();
        let mut worst = 0f32;
        for pos in positions {
            let f = Features::of_set(net.feature_set(), pos);
            let reference = net.predict(&f.to_f32());
            let p = fast.evaluate(pos);
            worst = worst.max((p - reference).abs());
            assert!(
                (p - reference).abs() <= 1e-5,
                "{:?}: fast {p} vs ndarray {reference}",
                net.sizes()
            );
        }
        assert!(worst <= 1e-5);
    }

    #[test]
    fn equals_ndarray_forward_on_random_positions() {
        let positions = random_positions(3000, 21, 120);
        assert_matches_reference(
            &random_net(&[NUM_FEATURES, 128, 32, 1], Activation::Relu, 1),
            &positions,
        );
        let few = &positions[..500];
        assert_matches_reference(
            &random_net(&[NUM_FEATURES, 64, 16, 1], Activation::ClippedRelu, 2),
            few,
        );
        assert_matches_reference(
            &random_net(&[NUM_FEATURES, 48, 1], Activation::Sigmoid, 3),
            few,
        );
        assert_matches_reference(
            &random_net(&[NUM_FEATURES, 40, 24, 8, 1], Activation::Relu, 4),
            few,
        );
        assert_matches_reference(&random_net(&[NUM_FEATURES, 1], Activation::Relu, 5), few);
        let king_piece = FeatureSet::KingPiece.inputs();
        assert_matches_reference(
            &random_net(&[king_piece, 64, 32, 1], Activation::Relu, 6),
            few,
        );
    }

    #[test]
    fn portable_path_equals_vectorised_path() {
        let net = random_net(&[NUM_FEATURES, 128, 32, 1], Activation::Relu, 6);
        let fast = FastNet::from_network(&net).unwrap();
        for pos in random_positions(300, 8, 120) {
            let f = Features::from_position(&pos);
            assert!((fast.logit(&f) - fast.logit_impl(&f)).abs() < 1e-4);
        }
    }

    #[test]
    fn rejects_shapes_it_cannot_hold() {
        let wide =
            Network::new(&[NUM_FEATURES, FAST_MAX_WIDTH + 1, 1], Activation::Relu, 1).unwrap();
        assert!(FastNet::from_network(&wide).is_err());
        let narrow_input = Network::new(&[10, 4, 1], Activation::Relu, 1).unwrap();
        assert!(FastNet::from_network(&narrow_input).is_err());
    }
}
