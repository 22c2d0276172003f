//! The AVX2 kernels of the quantised path, for the hot loops that the compiler does not
//! vectorise well by itself: finding the inputs a move changed, and the second layer's dot
//! products four rows at a time. Each has a portable twin in `mod.rs` with the same result
//! bit for bit (integer arithmetic, sums wrapping alike); tests compare them.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::super::feature_set::Features;
use super::super::features::NUM_FEATURES;

/// [`super::changes::changed_inputs`] with 32 of the seed's inputs compared by one instruction: only
/// the changed ones (a few dozen of the 361) cost a branch.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn changed_inputs_avx2(
    parent: &Features,
    child: &Features,
    changes: &mut Vec<(u16, i32)>,
) {
    changes.clear();
    let (a, b) = (parent.values(), child.values());
    let n = NUM_FEATURES;
    const CHUNK: usize = 32;
    let chunks = n / CHUNK;
    for c in 0..chunks {
        let at = c * CHUNK;
        // SAFETY: `at + 32 <= n`: the loads stay inside both arrays.
        let (x, y) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().add(at) as *const __m256i),
                _mm256_loadu_si256(b.as_ptr().add(at) as *const __m256i),
            )
        };
        let mut differ = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, y)) as u32);
        while differ != 0 {
            let i = at + differ.trailing_zeros() as usize;
            changes.push((i as u16, b[i] as i32 - a[i] as i32));
            differ &= differ - 1;
        }
    }
    for i in chunks * CHUNK..n {
        if a[i] != b[i] {
            changes.push((i as u16, b[i] as i32 - a[i] as i32));
        }
    }
    super::changes::changed_beyond_seed(parent, child, changes);
}

/// The dot products of `act` with four rows of `act.len()` weights laid end to end in `rows`
/// (`vpmaddwd`): each chunk of activations is loaded once for the four, and the four sums
/// are independent chains.
///
/// # Safety
/// The CPU must have AVX2; `act.len()` is a multiple of 16 and `rows.len() == 4 * act.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dot4_i16_avx2(act: &[i16], rows: &[i16]) -> [i32; 4] {
    let w = act.len();
    assert!(w.is_multiple_of(16) && rows.len() == 4 * w);
    let (pa, pr) = (act.as_ptr(), rows.as_ptr());
    let mut acc = [_mm256_setzero_si256(); 4];
    for c in (0..w).step_by(16) {
        // SAFETY: `c + 16 <= w`, and row `k`'s chunk ends at `k * w + c + 16 <= 4 * w`.
        unsafe {
            let x = _mm256_loadu_si256(pa.add(c) as *const __m256i);
            for (k, sum) in acc.iter_mut().enumerate() {
                let y = _mm256_loadu_si256(pr.add(k * w + c) as *const __m256i);
                *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(x, y));
            }
        }
    }
    // Horizontal sums: lanes (0 1 2 3 | 0 1 2 3) of the four rows, then the two halves added.
    let s01 = _mm256_hadd_epi32(acc[0], acc[1]);
    let s23 = _mm256_hadd_epi32(acc[2], acc[3]);
    let s = _mm256_hadd_epi32(s01, s23);
    let sum = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
    let mut out = [0i32; 4];
    // SAFETY: `out` holds four `i32`, 16 bytes.
    unsafe { _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, sum) };
    out
}

/// The second layer's four dot products as [`dot4_i16_avx2`], 32 activations at a time.
///
/// # Safety
/// The CPU must have AVX-512 F and BW; `act.len()` is a multiple of 32 and
/// `rows.len() == 4 * act.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn dot4_i16_avx512(act: &[i16], rows: &[i16]) -> [i32; 4] {
    let w = act.len();
    assert!(w.is_multiple_of(32) && rows.len() == 4 * w);
    let (pa, pr) = (act.as_ptr(), rows.as_ptr());
    let mut acc = [_mm512_setzero_si512(); 4];
    for c in (0..w).step_by(32) {
        // SAFETY: `c + 32 <= w`, and row `k`'s chunk ends at `k * w + c + 32 <= 4 * w`.
        unsafe {
            let x = _mm512_loadu_si512(pa.add(c) as *const __m512i);
            for (k, sum) in acc.iter_mut().enumerate() {
                let y = _mm512_loadu_si512(pr.add(k * w + c) as *const __m512i);
                *sum = _mm512_add_epi32(*sum, _mm512_madd_epi16(x, y));
            }
        }
    }
    // Wrapping sums, in any order: the same as the portable dot product's.
    acc.map(|a| _mm512_reduce_add_epi32(a))
}

/// `child = parent + Σ d · row(i)` over `changes`, the rows `width` weights long in `rows`:
/// 128 sums (or 64 where the width is not a multiple of 128) held in registers while every
/// changed row is added, row chunks widened from `i16` sixteen at a time.
///
/// # Safety
/// The CPU must have AVX-512 F and BW; `width` is a multiple of 64, both accumulators are
/// `width` long and every changed index `i` has its row inside `rows`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn apply_changes_avx512(
    rows: &[i16],
    width: usize,
    changes: &[(u16, i32)],
    parent: &[i32],
    child: &mut [i32],
) {
    assert!(width.is_multiple_of(64) && parent.len() == width && child.len() == width);
    assert!(
        changes
            .iter()
            .all(|&(i, _)| (i as usize + 1) * width <= rows.len())
    );
    // SAFETY: as this function's.
    unsafe {
        if width.is_multiple_of(128) {
            apply_tiles::<8>(rows, width, changes, parent, child);
        } else {
            apply_tiles::<4>(rows, width, changes, parent, child);
        }
    }
}

/// [`apply_changes_avx512`] in tiles of `16 * R` sums, `R` registers.
///
/// # Safety
/// As [`apply_changes_avx512`]'s, with `width` a multiple of `16 * R`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn apply_tiles<const R: usize>(
    rows: &[i16],
    width: usize,
    changes: &[(u16, i32)],
    parent: &[i32],
    child: &mut [i32],
) {
    for t in (0..width).step_by(16 * R) {
        // SAFETY: `t + 16 R <= width` for both accumulators; each row chunk read is
        // `i * width + t .. + 16 R`, inside `rows` (checked by the caller).
        unsafe {
            let pp = parent.as_ptr().add(t);
            let mut sum: [__m512i; R] =
                std::array::from_fn(|k| _mm512_loadu_si512(pp.add(16 * k) as *const __m512i));
            for &(i, d) in changes {
                let row = rows.as_ptr().add(i as usize * width + t);
                let w: [__m512i; R] = std::array::from_fn(|k| {
                    _mm512_cvtepi16_epi32(_mm256_loadu_si256(row.add(16 * k) as *const __m256i))
                });
                match d {
                    1 => {
                        for k in 0..R {
                            sum[k] = _mm512_add_epi32(sum[k], w[k]);
                        }
                    }
                    -1 => {
                        for k in 0..R {
                            sum[k] = _mm512_sub_epi32(sum[k], w[k]);
                        }
                    }
                    _ => {
                        let dv = _mm512_set1_epi32(d);
                        for k in 0..R {
                            sum[k] = _mm512_add_epi32(sum[k], _mm512_mullo_epi32(w[k], dv));
                        }
                    }
                }
            }
            let cp = child.as_mut_ptr().add(t);
            for (k, s) in sum.iter().enumerate() {
                _mm512_storeu_si512(cp.add(16 * k) as *mut __m512i, *s);
            }
        }
    }
}
