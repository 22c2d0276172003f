//! The AVX2 kernels of the quantised path, for the hot loops that the compiler does not
//! vectorise well by itself: the second layer's dot products four rows at a time, and the
//! accumulator update. Each has a portable twin in `mod.rs` with the same result
//! bit for bit (integer arithmetic, sums wrapping alike); tests compare them.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

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

/// The second layer from the activation pairs that are not both zero (three quarters of the
/// activations are): `sums[o] = Σ act[i] · w[o][i]`, the same wrapping sums as the dense dot
/// products. `pairs` holds, for each pair of inputs `(2k, 2k+1)`, every output's two weights
/// side by side (`16 R` outputs), so one `vpmaddwd` of the broadcast pair adds sixteen outputs'
/// share and no horizontal sum is needed. `nonzero` is scratch, at least `act.len() / 2 + 16`.
///
/// # Safety
/// The CPU must have AVX-512 F and BW; `act.len()` is a multiple of 32, `pairs.len() ==
/// act.len() * 16 R` and `sums.len() == 16 R`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub(super) unsafe fn l2_sparse_avx512<const R: usize>(
    act: &[i16],
    pairs: &[i16],
    nonzero: &mut [u32],
    sums: &mut [i32],
) {
    let n_pairs = act.len() / 2;
    assert!(act.len().is_multiple_of(32) && pairs.len() == act.len() * 16 * R);
    assert!(nonzero.len() >= n_pairs + 16 && sums.len() == 16 * R);
    let pa = act.as_ptr() as *const i32;
    let mut n = 0;
    // SAFETY: `c + 16 <= n_pairs`: each load reads 16 pairs of `act`; each store writes 16
    // indices at `n <= c`, inside `nonzero` (`n_pairs + 16` long).
    unsafe {
        let step = _mm512_set1_epi32(16);
        let mut iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        for c in (0..n_pairs).step_by(16) {
            let v = _mm512_loadu_si512(pa.add(c) as *const __m512i);
            let m = _mm512_test_epi32_mask(v, v);
            let packed = _mm512_maskz_compress_epi32(m, iota);
            _mm512_storeu_si512(nonzero.as_mut_ptr().add(n) as *mut __m512i, packed);
            n += m.count_ones() as usize;
            iota = _mm512_add_epi32(iota, step);
        }
    }
    let mut acc = [_mm512_setzero_si512(); R];
    for &k in &nonzero[..n] {
        // SAFETY: `k < n_pairs`: the pair read is inside `act`, and its `32 R` weights start at
        // `k * 32 R`, inside `pairs`.
        unsafe {
            let a = _mm512_set1_epi32(pa.add(k as usize).read_unaligned());
            let w = pairs.as_ptr().add(k as usize * 32 * R);
            for (r, sum) in acc.iter_mut().enumerate() {
                let y = _mm512_loadu_si512(w.add(32 * r) as *const __m512i);
                *sum = _mm512_add_epi32(*sum, _mm512_madd_epi16(a, y));
            }
        }
    }
    for (r, sum) in acc.iter().enumerate() {
        // SAFETY: `sums` holds `16 R` values.
        unsafe { _mm512_storeu_si512(sums.as_mut_ptr().add(16 * r) as *mut __m512i, *sum) };
    }
}

/// [`l2_sparse_avx512`] in 256-bit registers: `8 R` outputs, the non-zero pairs found by a
/// branch-free scan.
///
/// # Safety
/// The CPU must have AVX2; `act.len()` is even, `pairs.len() == act.len() * 8 R`,
/// `nonzero.len() >= act.len() / 2` and `sums.len() == 8 R`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn l2_sparse_avx2<const R: usize>(
    act: &[i16],
    pairs: &[i16],
    nonzero: &mut [u32],
    sums: &mut [i32],
) {
    let n_pairs = act.len() / 2;
    assert!(act.len().is_multiple_of(2) && pairs.len() == act.len() * 8 * R);
    assert!(nonzero.len() >= n_pairs && sums.len() == 8 * R);
    let mut n = 0;
    for k in 0..n_pairs {
        nonzero[n] = k as u32;
        n += (act[2 * k] | act[2 * k + 1] != 0) as usize;
    }
    let pa = act.as_ptr() as *const i32;
    let mut acc = [_mm256_setzero_si256(); R];
    for &k in &nonzero[..n] {
        // SAFETY: as in `l2_sparse_avx512`, with `16 R` weights a pair.
        unsafe {
            let a = _mm256_set1_epi32(pa.add(k as usize).read_unaligned());
            let w = pairs.as_ptr().add(k as usize * 16 * R);
            for (r, sum) in acc.iter_mut().enumerate() {
                let y = _mm256_loadu_si256(w.add(16 * r) as *const __m256i);
                *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(a, y));
            }
        }
    }
    for (r, sum) in acc.iter().enumerate() {
        // SAFETY: `sums` holds `8 R` values.
        unsafe { _mm256_storeu_si256(sums.as_mut_ptr().add(8 * r) as *mut __m256i, *sum) };
    }
}
