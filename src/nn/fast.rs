//! Inference for the search: flat f32 arrays, a sparse first layer, no allocation per call.
//!
//! Every weight matrix is stored transposed (one contiguous row per *input*), so a layer is a
//! sum of `input × row` over its non-zero inputs. The first layer thereby touches only the
//! ~60–100 non-zero features of a position, and later layers skip inputs that ReLU zeroed.
//! Results equal [`Network`]'s forward pass up to float summation order.

use super::features::{Features, NUM_FEATURES};
use super::network::{Activation, Network, ShapeError, sigmoid};
use crate::shogi::Position;

/// Widest layer the fast path takes: its scratch buffers live on the stack.
pub const FAST_MAX_WIDTH: usize = 512;

#[derive(Clone, Debug)]
struct Layer {
    outputs: usize,
    /// `inputs × outputs`, row per input.
    weights: Vec<f32>,
    bias: Vec<f32>,
}

/// A network prepared for fast single-position evaluation.
#[derive(Clone, Debug)]
pub struct FastNet {
    layers: Vec<Layer>,
    hidden: Activation,
    sizes: Vec<usize>,
    /// AVX2 was detected at construction; selects the code path compiled for it.
    avx2: bool,
}

impl FastNet {
    pub fn from_network(net: &Network) -> Result<FastNet, ShapeError> {
        let sizes = net.sizes();
        if sizes[0] != NUM_FEATURES {
            return Err(ShapeError(format!(
                "fast path needs {NUM_FEATURES} inputs, network has {}",
                sizes[0]
            )));
        }
        if let Some(&w) = sizes[1..].iter().find(|&&w| w > FAST_MAX_WIDTH) {
            return Err(ShapeError(format!(
                "layer width {w} exceeds the fast path's {FAST_MAX_WIDTH}"
            )));
        }
        let layers = net
            .layers()
            .iter()
            .map(|l| Layer {
                outputs: l.outputs(),
                weights: l.weights.t().iter().copied().collect(),
                bias: l.bias.to_vec(),
            })
            .collect();
        Ok(FastNet {
            layers,
            hidden: net.hidden_activation(),
            sizes,
            avx2: detect_avx2(),
        })
    }

    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Win probability of the side to move.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        sigmoid(self.evaluate_logit(pos))
    }

    /// Output logit (pre-sigmoid) for a position; the search may prefer it to the probability.
    pub fn evaluate_logit(&self, pos: &Position) -> f32 {
        let mut f = Features::new();
        f.extract(pos);
        self.logit(&f)
    }

    /// Output logit from already extracted features.
    pub fn logit(&self, f: &Features) -> f32 {
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
        let mut buf_a = [0f32; FAST_MAX_WIDTH];
        let mut buf_b = [0f32; FAST_MAX_WIDTH];
        let first = &self.layers[0];
        let h = &mut buf_a[..first.outputs];
        h.copy_from_slice(&first.bias);
        for (i, v) in f.nonzero() {
            let row = &first.weights[i * first.outputs..(i + 1) * first.outputs];
            if v == 1 {
                add(h, row);
            } else {
                axpy(h, v as f32, row);
            }
        }
        let (mut cur, mut next) = (&mut buf_a, &mut buf_b);
        let mut width = first.outputs;
        for layer in &self.layers[1..] {
            activate(&mut cur[..width], self.hidden);
            let x = &cur[..width];
            if layer.outputs == 1 {
                return dot(x, &layer.weights) + layer.bias[0];
            }
            let out = &mut next[..layer.outputs];
            out.copy_from_slice(&layer.bias);
            for (j, &xj) in x.iter().enumerate() {
                if xj != 0.0 {
                    axpy(
                        out,
                        xj,
                        &layer.weights[j * layer.outputs..(j + 1) * layer.outputs],
                    );
                }
            }
            width = layer.outputs;
            std::mem::swap(&mut cur, &mut next);
        }
        // Only reached for a network without hidden layers (361 → 1).
        cur[0]
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
fn add(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

#[inline(always)]
fn axpy(dst: &mut [f32], a: f32, src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += a * s;
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
    use crate::nn::test_util::random_positions;
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
            let f = Features::from_position(pos);
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
        let positions = random_positions(3000, 21);
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
    }

    #[test]
    fn portable_path_equals_vectorised_path() {
        let net = random_net(&[NUM_FEATURES, 128, 32, 1], Activation::Relu, 6);
        let fast = FastNet::from_network(&net).unwrap();
        for pos in random_positions(300, 8) {
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
