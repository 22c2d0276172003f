//! Quantised integer inference with an incrementally updated first layer, for wide networks.
//!
//! The first layer's sum ("accumulator") is kept for both perspectives along the search path.
//! Sente's perspective sums the first-layer rows of [`Features::extract_perspective`] for
//! sente; gote's sums the same inputs' rows through the permutation
//! [`FeatureSet::other_perspective`], which is what gote would see (for every feature set: the
//! king sets' own-king block becomes the opponent king's). One table of rows serves both (a
//! second, permuted copy cost the king sets twice the cache), and the side to move picks its
//! accumulator, so one feature vector per node serves both. A child's accumulators are its
//! parent's plus the rows of the inputs that changed (attack counts change only around the
//! move), found from what the move touched ([`FeatureSet::changes`]).
//!
//! In the king sets the plain piece-square block is folded into the own king's blocks when the
//! network is prepared ([`KingLayout::plain_of_own`](super::king_piece::KingLayout)): each
//! piece then costs two rows, not three, in every refresh and update.
//!
//! Integers make the update exact: the incremental sums equal a refresh bit for bit. The
//! first layer is `i16` weights into `i32` sums at scale `q1`; its activations are `i16` at
//! [`ACT_SCALE`]; the second layer multiplies them by `i16` weights into `i32` (AVX2
//! `vpmaddwd`); later layers (a few dozen units) are float.
//!
//! Here the network and its arithmetic; `path.rs` the accumulators along the search path.

mod path;
#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(test)]
mod tests;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_simd;

pub use path::QuantPathState;

use super::feature_set::{FeatureSet, Features};
use super::network::{Activation, Network, ShapeError};
use std::cell::RefCell;

use crate::shogi::{Color, Position};

/// Instruction levels of the kernels (`apply_impl`, `output_impl`): each is chosen once, by
/// what the CPU reports when the network is prepared, and all give the same result.
const PORTABLE: u8 = 0;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const AVX2: u8 = 1;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const AVX512: u8 = 2;

/// [`QuantNet::row_of`] for an input with no row of its own.
const NO_ROW: u16 = u16::MAX;

/// Fixed-point scale of first-layer activations: resolution 1/1024.
pub const ACT_SCALE: i32 = 1024;
/// Ceiling of a ReLU activation: 16. The second layer's scale is the largest at which no sum
/// can overflow with every activation at the ceiling, so a lower ceiling buys precision; the
/// trained networks' largest activation over 3,000 random positions (768 k activations) is
/// 11.3 (generation 7) to 12.3 (generation 9), and a ceiling of 32 halved generation 9's
/// second-layer scale, doubling its error against the float network (0.0079 logit on average).
const RELU_CEILING: i32 = 16 * ACT_SCALE;
/// Largest first-layer weight scale tried (`q1 = ACT_SCALE << shift`, shift ≤ this).
const MAX_SHIFT: u32 = 4;
/// Largest second-layer weight scale tried.
const MAX_Q2: f32 = 16_384.0;
/// Accumulator widths are padded to a multiple of this; an incremental update adds rows to
/// `TILE` sums at a time, held in eight AVX2 registers.
const LANES: usize = 64;
const TILE: usize = LANES;
/// Independent sums of the second layer's dot products (`vpmaddwd` lanes).
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
const DOT_LANES: usize = 16;
/// The sparse second-layer kernels take outputs padded to a multiple of the first, up to the
/// second (their sums live in registers).
const L2_SPARSE_OUTPUTS: (usize, usize) = (16, 64);

/// Buffers of one output computation, kept by the caller so that no call zeroes or allocates.
#[derive(Clone, Debug)]
pub struct Scratch {
    act: Vec<i16>,
    a: Vec<f32>,
    b: Vec<f32>,
    /// Indices of the activation pairs that are not both zero, and the second layer's sums
    /// (the sparse kernels').
    nonzero: Vec<u32>,
    sums: Vec<i32>,
}

/// A network prepared for quantised inference with incremental first-layer updates.
#[derive(Clone, Debug)]
pub struct QuantNet {
    features: FeatureSet,
    /// First-layer width padded to [`LANES`].
    width: usize,
    /// `rows[input * width ..]`: the first layer's column for an input, quantised at `q1`
    /// (the plain piece-square block folded into the own king's blocks, its rows left zero).
    rows: Vec<i16>,
    /// `row_of[perspective][input]`: the row a sente-view input adds to that perspective's
    /// accumulator, or [`NO_ROW`] (a folded input).
    row_of: [Vec<u16>; 2],
    /// First-layer bias per perspective at `q1`; gote's includes the side-to-move input.
    bias: [Vec<i32>; 2],
    /// `log2(q1 / ACT_SCALE)`: accumulator → activation is a rounding right shift.
    shift: u32,
    /// ClippedRelu caps activations at 1.0; Relu at the `i16` ceiling.
    act_max: i32,
    /// Second layer: one row of `width` weights per output, at `q2`.
    l2_weights: Vec<i16>,
    l2_bias: Vec<f32>,
    /// `1 / (ACT_SCALE · q2)`.
    l2_unscale: f32,
    l2_outputs: usize,
    /// The second layer again for the sparse kernels: for each pair of inputs, every output's
    /// two weights side by side, outputs padded to [`L2_SPARSE_OUTPUTS`]`.0`'s multiple
    /// `l2_padded`; empty where the layer is wider than the kernels take.
    l2_pairs: Vec<i16>,
    l2_padded: usize,
    /// Later layers in float: `(weights out × in row-major, bias)`.
    tail: Vec<(Vec<f32>, Vec<f32>)>,
    hidden: Activation,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    avx2: bool,
    /// AVX-512 (F and BW): the update's row additions and the second layer at twice the width.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    avx512: bool,
}

impl QuantNet {
    /// Quantises `net`. Refused: a sigmoid hidden activation, no hidden layer, an input count
    /// other than its feature set's, or weights too large for `i16` at the coarsest scale.
    pub fn from_network(net: &Network) -> Result<QuantNet, ShapeError> {
        let sizes = net.sizes();
        let features = net.feature_set();
        let inputs = features.inputs();
        if sizes[0] != inputs {
            return Err(ShapeError(format!(
                "quantised path needs {inputs} inputs for feature set {features}, network has {}",
                sizes[0]
            )));
        }
        if inputs >= NO_ROW as usize {
            return Err(ShapeError(format!(
                "quantised path takes fewer than {NO_ROW} inputs, not {inputs}"
            )));
        }
        if sizes.len() < 3 {
            return Err(ShapeError("quantised path needs a hidden layer".into()));
        }
        let hidden = net.hidden_activation();
        let act_max = match hidden {
            Activation::Relu => RELU_CEILING,
            Activation::ClippedRelu => ACT_SCALE,
            Activation::Sigmoid => {
                return Err(ShapeError(
                    "quantised path takes relu or crelu, not sigmoid".into(),
                ));
            }
        };
        let layers = net.layers();
        let (l1, l2) = (&layers[0], &layers[1]);
        let h1 = l1.outputs();
        let width = h1.div_ceil(LANES) * LANES;

        // Unit `o`'s weight on input `i` once the plain piece-square block (`plain`, the
        // block row `i` folds in) is added to it.
        let layout = features.king_layout();
        let folded = |o: usize, i: usize, plain: Option<usize>| {
            l1.weights[[o, i]] + plain.map_or(0.0, |j| l1.weights[[o, j]])
        };
        let max_w1 = (0..inputs)
            .map(|i| {
                let plain = layout.and_then(|l| l.plain_of_own(i));
                (0..h1)
                    .map(|o| folded(o, i, plain))
                    .fold(0f32, |m, w| m.max(w.abs()))
            })
            .fold(0f32, f32::max);
        let shift = (0..=MAX_SHIFT)
            .rev()
            .find(|&s| max_w1 * (ACT_SCALE << s) as f32 <= i16::MAX as f32)
            .ok_or_else(|| {
                ShapeError(format!("first-layer weight {max_w1} too large to quantise"))
            })?;
        let q1 = (ACT_SCALE << shift) as f32;
        let quant16 = |w: f32, q: f32| (w * q).round() as i16;
        let mut rows = vec![0i16; inputs * width];
        for i in 0..inputs {
            if layout.is_some_and(|l| l.is_plain(i)) {
                continue;
            }
            let plain = layout.and_then(|l| l.plain_of_own(i));
            for o in 0..h1 {
                rows[i * width + o] = quant16(folded(o, i, plain), q1);
            }
        }
        let row_of = [0, 1].map(|p| {
            (0..inputs)
                .map(|i| match layout {
                    Some(l) if l.is_plain(i) => NO_ROW,
                    _ if p == 0 => i as u16,
                    _ => features.other_perspective(i) as u16,
                })
                .collect::<Vec<u16>>()
        });
        let mut bias = [vec![0i32; width], vec![0i32; width]];
        for o in 0..h1 {
            bias[0][o] = (l1.bias[o] * q1).round() as i32;
            bias[1][o] = bias[0][o] + rows[features.side_to_move_index() * width + o] as i32;
        }

        // Second layer: the largest scale at which every weight fits `i16` and no row's sum
        // can overflow `i32` whatever the activations.
        let l2_outputs = l2.outputs();
        let max_w2 = l2.weights.iter().fold(0f32, |m, w| m.max(w.abs()));
        let max_row: f32 = (0..l2_outputs)
            .map(|o| l2.weights.row(o).iter().map(|w| w.abs()).sum::<f32>())
            .fold(0.0, f32::max);
        let mut q2 = MAX_Q2;
        while q2 >= 1.0
            && (max_w2 * q2 > i16::MAX as f32
                || (max_row * q2 + h1 as f32) * act_max as f32 > i32::MAX as f32)
        {
            q2 /= 2.0;
        }
        if q2 < 1.0 {
            return Err(ShapeError(format!(
                "second-layer weights (max {max_w2}) too large to quantise"
            )));
        }
        let mut l2_weights = vec![0i16; l2_outputs * width];
        for o in 0..l2_outputs {
            for i in 0..h1 {
                l2_weights[o * width + i] = quant16(l2.weights[[o, i]], q2);
            }
        }
        let l2_padded = l2_outputs.div_ceil(L2_SPARSE_OUTPUTS.0) * L2_SPARSE_OUTPUTS.0;
        let l2_pairs = if l2_padded <= L2_SPARSE_OUTPUTS.1 {
            let mut pairs = vec![0i16; width * l2_padded];
            for o in 0..l2_outputs {
                for i in 0..h1 {
                    pairs[((i / 2) * l2_padded + o) * 2 + i % 2] = l2_weights[o * width + i];
                }
            }
            pairs
        } else {
            Vec::new()
        };
        let tail = layers[2..]
            .iter()
            .map(|l| {
                let w = l.weights.iter().copied().collect::<Vec<f32>>();
                (w, l.bias.to_vec())
            })
            .collect();
        Ok(QuantNet {
            features,
            width,
            rows,
            row_of,
            bias,
            shift,
            act_max,
            l2_weights,
            l2_bias: l2.bias.to_vec(),
            l2_unscale: 1.0 / (ACT_SCALE as f32 * q2),
            l2_outputs,
            l2_pairs,
            l2_padded,
            tail,
            hidden,
            avx2: detect_avx2(),
            avx512: detect_avx512(),
        })
    }

    /// Buffers for [`QuantNet::output`].
    pub fn scratch(&self) -> Scratch {
        let (width, a, b) = self.scratch_sizes();
        Scratch {
            act: vec![0; width],
            a: vec![0.0; a],
            b: vec![0.0; b],
            nonzero: vec![0; width / 2 + 16],
            sums: vec![0; self.l2_padded],
        }
    }

    pub fn feature_set(&self) -> FeatureSet {
        self.features
    }

    /// Length of one perspective's accumulator.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Output logit of `pos` by a full refresh of the side to move's accumulator.
    ///
    /// The buffers are the thread's, kept between calls: the MCTS evaluates every leaf this
    /// way, a hundred thousand times a second, and allocating them each time cost it a tenth.
    pub fn logit(&self, pos: &Position) -> f32 {
        thread_local! {
            static BUFFERS: RefCell<(Vec<i32>, Option<Scratch>)> =
                const { RefCell::new((Vec::new(), None)) };
        }
        let mut f = Features::for_set(self.features);
        f.extract_perspective(pos, Color::Sente);
        let p = perspective(pos.side_to_move());
        BUFFERS.with_borrow_mut(|(acc, scratch)| {
            acc.resize(self.width, 0);
            self.refresh(&f, p, acc);
            let scratch = match scratch {
                Some(s) if self.fits(s) => s,
                _ => scratch.insert(self.scratch()),
            };
            self.output(acc, scratch)
        })
    }

    /// Whether `scratch` has the sizes [`QuantNet::scratch`] gives (another network's may not).
    fn fits(&self, scratch: &Scratch) -> bool {
        let fresh = self.scratch_sizes();
        (scratch.act.len(), scratch.a.len(), scratch.b.len()) == fresh
            && scratch.sums.len() == self.l2_padded
    }

    fn scratch_sizes(&self) -> (usize, usize, usize) {
        let widest = self
            .tail
            .iter()
            .map(|(_, b)| b.len())
            .fold(self.l2_outputs, usize::max);
        (self.width, widest, widest)
    }

    /// `acc = bias + Σ value · row` over the non-zero inputs, for perspective `p`.
    pub fn refresh(&self, f: &Features, p: usize, acc: &mut [i32]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is true only if the CPU reported AVX2 at construction.
            return unsafe { self.refresh_avx2(f, p, acc) };
        }
        self.refresh_impl(f, p, acc)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn refresh_avx2(&self, f: &Features, p: usize, acc: &mut [i32]) {
        self.refresh_impl(f, p, acc)
    }

    #[inline(always)]
    fn refresh_impl(&self, f: &Features, p: usize, acc: &mut [i32]) {
        acc.copy_from_slice(&self.bias[p]);
        let row_of = &self.row_of[p];
        for (i, v) in f.nonzero() {
            let r = row_of[i];
            if r != NO_ROW {
                add_row(acc, self.row(r as usize), v as i32);
            }
        }
    }

    #[inline(always)]
    fn row(&self, r: usize) -> &[i16] {
        &self.rows[r * self.width..(r + 1) * self.width]
    }

    /// The rows perspective `p` adds for `changes` (`(input, child − parent)`, sente's view,
    /// as [`FeatureSet::changes`] finds them from a move), into `rows` (cleared first), for
    /// [`QuantNet::apply_changes`].
    pub fn rows_changed(&self, p: usize, changes: &[(u16, i32)], rows: &mut Vec<(u16, i32)>) {
        let row_of = &self.row_of[p];
        rows.clear();
        rows.extend(
            changes
                .iter()
                .map(|&(i, d)| (row_of[i as usize], d))
                .filter(|&(r, _)| r != NO_ROW),
        );
    }

    /// A child's accumulator from its parent's: `child = parent + Σ d · row` over `rows`
    /// (`(row, d)`, as [`QuantNet::rows_changed`] gives them for the perspective).
    pub fn apply_changes(&self, rows: &[(u16, i32)], parent_acc: &[i32], child_acc: &mut [i32]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            // SAFETY: `avx512` is true only if the CPU reported AVX2, AVX-512 F and BW, and POPCNT.
            return unsafe { self.apply_avx512(rows, parent_acc, child_acc) };
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: as in `refresh`.
            return unsafe { self.apply_avx2(rows, parent_acc, child_acc) };
        }
        self.apply_impl::<PORTABLE>(rows, parent_acc, child_acc)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn apply_avx2(&self, changes: &[(u16, i32)], parent_acc: &[i32], child_acc: &mut [i32]) {
        self.apply_impl::<AVX2>(changes, parent_acc, child_acc)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512bw")]
    fn apply_avx512(&self, changes: &[(u16, i32)], parent_acc: &[i32], child_acc: &mut [i32]) {
        self.apply_impl::<AVX512>(changes, parent_acc, child_acc)
    }

    /// `LEVEL`: the instructions the caller's CPU has ([`PORTABLE`], [`AVX2`], [`AVX512`]);
    /// `changes`: rows, as [`QuantNet::rows_changed`] gives them.
    #[inline(always)]
    fn apply_impl<const LEVEL: u8>(
        &self,
        changes: &[(u16, i32)],
        parent_acc: &[i32],
        child_acc: &mut [i32],
    ) {
        #[cfg(target_arch = "x86_64")]
        if LEVEL >= AVX512 {
            // SAFETY: `LEVEL` is AVX512 only in `apply_avx512`, called when the CPU has it;
            // the width is a multiple of 64 and every changed index below the set's inputs.
            unsafe {
                simd::apply_changes_avx512(&self.rows, self.width, changes, parent_acc, child_acc)
            };
            return;
        }
        // Tile by tile, the partial sums held in registers while every changed row is added.
        let rows = &self.rows;
        let w = self.width;
        #[cfg(target_arch = "x86_64")]
        if LEVEL >= AVX2 {
            // The piece rows (a 13 MB table for the king-piece set, 4.4 MB for piece-bucket) are mostly not in the
            // cache: ask for all of them before the first tile needs them.
            let dense = self.features.dense_inputs();
            for &(i, _) in changes.iter().filter(|&&(i, _)| i as usize >= dense) {
                let row = &rows[i as usize * w..(i as usize + 1) * w];
                for line in row.chunks(32) {
                    // SAFETY: a prefetch reads nothing; the pointer is inside `rows`.
                    unsafe {
                        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                            line.as_ptr() as *const i8,
                        )
                    };
                }
            }
        }
        for t in (0..w).step_by(TILE) {
            let mut tile: [i32; TILE] = parent_acc[t..t + TILE].try_into().expect("tile");
            for &(i, d) in changes.iter() {
                let start = i as usize * w + t;
                let row: &[i16; TILE] = rows[start..start + TILE].try_into().expect("tile");
                add_row(&mut tile, row, d);
            }
            child_acc[t..t + TILE].copy_from_slice(&tile);
        }
    }

    /// Output logit from the side to move's accumulator.
    pub fn output(&self, acc: &[i32], scratch: &mut Scratch) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            // SAFETY: as in `apply_changes`.
            return unsafe { self.output_avx512(acc, scratch) };
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: as in `refresh`.
            return unsafe { self.output_avx2(acc, scratch) };
        }
        self.output_impl::<PORTABLE>(acc, scratch)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn output_avx2(&self, acc: &[i32], scratch: &mut Scratch) -> f32 {
        self.output_impl::<AVX2>(acc, scratch)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512bw,popcnt")]
    fn output_avx512(&self, acc: &[i32], scratch: &mut Scratch) -> f32 {
        self.output_impl::<AVX512>(acc, scratch)
    }

    /// `LEVEL`: as in `apply_impl`.
    #[inline(always)]
    fn output_impl<const LEVEL: u8>(&self, acc: &[i32], scratch: &mut Scratch) -> f32 {
        let Scratch {
            act,
            a,
            b,
            nonzero,
            sums,
        } = scratch;
        #[cfg(not(any(
            target_arch = "x86_64",
            all(target_arch = "wasm32", target_feature = "simd128")
        )))]
        let _ = (nonzero, sums);
        let round = (1i32 << self.shift) >> 1;
        for (x, &s) in act.iter_mut().zip(acc) {
            *x = ((s + round) >> self.shift).clamp(0, self.act_max) as i16;
        }
        let mut n = self.l2_outputs;
        let w = self.width;
        // Only the SIMD kernels below move `o` before the portable loop.
        #[cfg_attr(
            not(any(
                target_arch = "x86_64",
                all(target_arch = "wasm32", target_feature = "simd128")
            )),
            allow(unused_mut)
        )]
        let mut o = 0;
        #[cfg(target_arch = "x86_64")]
        if LEVEL >= AVX2 && !self.l2_pairs.is_empty() {
            let pairs = &self.l2_pairs[..];
            // SAFETY: `LEVEL` as below; `w` is a multiple of LANES, `pairs` holds `w ×
            // l2_padded` weights, `nonzero` `w / 2 + 16` entries and `sums` `l2_padded`, and
            // each `R` is `l2_padded` over the kernel's outputs a register.
            unsafe {
                match (LEVEL >= AVX512, self.l2_padded) {
                    (true, 16) => simd::l2_sparse_avx512::<1>(act, pairs, nonzero, sums),
                    (true, 32) => simd::l2_sparse_avx512::<2>(act, pairs, nonzero, sums),
                    (true, 48) => simd::l2_sparse_avx512::<3>(act, pairs, nonzero, sums),
                    (true, _) => simd::l2_sparse_avx512::<4>(act, pairs, nonzero, sums),
                    (false, 16) => simd::l2_sparse_avx2::<2>(act, pairs, nonzero, sums),
                    (false, 32) => simd::l2_sparse_avx2::<4>(act, pairs, nonzero, sums),
                    (false, 48) => simd::l2_sparse_avx2::<6>(act, pairs, nonzero, sums),
                    (false, _) => simd::l2_sparse_avx2::<8>(act, pairs, nonzero, sums),
                }
            }
            self.unscale_l2(&sums[..n], &mut a[..n]);
            o = n;
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        if !self.l2_pairs.is_empty() {
            let pairs = &self.l2_pairs[..];
            match self.l2_padded {
                16 => wasm_simd::l2_sparse::<4>(act, pairs, nonzero, sums),
                32 => wasm_simd::l2_sparse::<8>(act, pairs, nonzero, sums),
                48 => wasm_simd::l2_sparse::<12>(act, pairs, nonzero, sums),
                _ => wasm_simd::l2_sparse::<16>(act, pairs, nonzero, sums),
            }
            self.unscale_l2(&sums[..n], &mut a[..n]);
            o = n;
        }
        #[cfg(target_arch = "x86_64")]
        if LEVEL >= AVX2 {
            while o + 4 <= n {
                let rows = &self.l2_weights[o * w..(o + 4) * w];
                // SAFETY: `LEVEL` is AVX2 or more only in functions called when the CPU has
                // it (AVX512 likewise); `w` is a multiple of LANES and `rows` four rows of it.
                let sums = unsafe {
                    if LEVEL >= AVX512 {
                        simd::dot4_i16_avx512(act, rows)
                    } else {
                        simd::dot4_i16_avx2(act, rows)
                    }
                };
                for (k, sum) in sums.into_iter().enumerate() {
                    a[o + k] = sum as f32 * self.l2_unscale + self.l2_bias[o + k];
                }
                o += 4;
            }
        }
        for (o, x) in a[..n].iter_mut().enumerate().skip(o) {
            let row = &self.l2_weights[o * w..(o + 1) * w];
            *x = dot_i16(act, row) as f32 * self.l2_unscale + self.l2_bias[o];
        }
        // The float tail: a few dozen units, two buffers swapped layer by layer.
        for (w, bias) in &self.tail {
            for v in &mut a[..n] {
                *v = match self.hidden {
                    Activation::ClippedRelu => v.clamp(0.0, 1.0),
                    _ => v.max(0.0),
                };
            }
            for (o, (out, &bo)) in b.iter_mut().zip(bias).enumerate() {
                *out = bo + dot_f32(&w[o * n..(o + 1) * n], &a[..n]);
            }
            n = bias.len();
            std::mem::swap(a, b);
        }
        a[0]
    }

    /// The second layer's outputs from its integer sums.
    #[cfg_attr(
        not(any(
            target_arch = "x86_64",
            all(target_arch = "wasm32", target_feature = "simd128")
        )),
        allow(dead_code)
    )]
    #[inline(always)]
    fn unscale_l2(&self, sums: &[i32], out: &mut [f32]) {
        for ((x, &sum), &bias) in out.iter_mut().zip(sums).zip(&self.l2_bias) {
            *x = sum as f32 * self.l2_unscale + bias;
        }
    }
}

/// `acc += d · row`, vectorised by the compiler (`i16` widened to `i32`).
#[inline(always)]
fn add_row(acc: &mut [i32], row: &[i16], d: i32) {
    match d {
        1 => acc.iter_mut().zip(row).for_each(|(a, &w)| *a += w as i32),
        -1 => acc.iter_mut().zip(row).for_each(|(a, &w)| *a -= w as i32),
        _ => acc
            .iter_mut()
            .zip(row)
            .for_each(|(a, &w)| *a += d * w as i32),
    }
}

/// `Σ a·b` in `i32` with sixteen independent sums (the compiler makes it `vpmaddwd`).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn dot_i16(a: &[i16], b: &[i16]) -> i32 {
    let mut acc = [0i32; DOT_LANES];
    for (x, y) in a.chunks_exact(DOT_LANES).zip(b.chunks_exact(DOT_LANES)) {
        for k in 0..DOT_LANES {
            acc[k] = acc[k].wrapping_add(x[k] as i32 * y[k] as i32);
        }
    }
    acc.iter().fold(0i32, |s, &v| s.wrapping_add(v))
}

/// [`dot_i16`] on WebAssembly's 128-bit SIMD (`i32x4.dot_i16x8_s`, which LLVM does not find by
/// itself; the second layer is a third of the search's time there): the same sum, as sums wrap
/// alike in any order.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn dot_i16(a: &[i16], b: &[i16]) -> i32 {
    use std::arch::wasm32::*;
    let n = a.len().min(b.len());
    let mut acc = [i32x4_splat(0); 4];
    let mut i = 0;
    while i + 32 <= n {
        for (k, sum) in acc.iter_mut().enumerate() {
            let at = i + 8 * k;
            // SAFETY: `at + 8 <= n`: both loads stay inside their slices (wasm loads may be
            // unaligned).
            let (x, y) = unsafe {
                (
                    v128_load(a.as_ptr().add(at) as *const v128),
                    v128_load(b.as_ptr().add(at) as *const v128),
                )
            };
            *sum = i32x4_add(*sum, i32x4_dot_i16x8(x, y));
        }
        i += 32;
    }
    let all = i32x4_add(i32x4_add(acc[0], acc[1]), i32x4_add(acc[2], acc[3]));
    let mut total = i32x4_extract_lane::<0>(all)
        .wrapping_add(i32x4_extract_lane::<1>(all))
        .wrapping_add(i32x4_extract_lane::<2>(all))
        .wrapping_add(i32x4_extract_lane::<3>(all));
    for j in i..n {
        total = total.wrapping_add(a[j] as i32 * b[j] as i32);
    }
    total
}

/// `Σ a·b` with eight independent sums: one sum in order was a chain of dependent adds, a
/// seventh of an evaluation's output for the last layer alone.
#[inline(always)]
fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    const SUMS: usize = 8;
    let mut acc = [0f32; SUMS];
    let (ca, cb) = (a.chunks_exact(SUMS), b.chunks_exact(SUMS));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..SUMS {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Index of a colour's accumulator.
#[inline(always)]
pub(super) fn perspective(c: Color) -> usize {
    match c {
        Color::Sente => 0,
        Color::Gote => 1,
    }
}

fn detect_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn detect_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
