//! The sparse second layer on WebAssembly's 128-bit SIMD: [`super::simd`]'s x86 kernels in
//! `i32x4.dot_i16x8_s`, the same wrapping sums (tests compare them natively; `same-search`
//! in `web/test` compares the module's search with the native one's).

use std::arch::wasm32::*;

/// `sums[o] = Σ act[i] · w[o][i]` over the activation pairs that are not both zero, with
/// `pairs` laid out as for the x86 kernels (each pair's `4 R` outputs' two weights side by
/// side). `nonzero` is scratch, at least `act.len() / 2`; `sums` is `4 R` long.
#[inline(always)]
pub(super) fn l2_sparse<const R: usize>(
    act: &[i16],
    pairs: &[i16],
    nonzero: &mut [u32],
    sums: &mut [i32],
) {
    let n_pairs = act.len() / 2;
    assert!(pairs.len() == act.len() * 4 * R && nonzero.len() >= n_pairs);
    assert!(sums.len() == 4 * R);
    let mut n = 0;
    for k in 0..n_pairs {
        nonzero[n] = k as u32;
        n += (act[2 * k] | act[2 * k + 1] != 0) as usize;
    }
    let mut acc = [i32x4_splat(0); R];
    let pa = act.as_ptr() as *const i32;
    for &k in &nonzero[..n] {
        let k = k as usize;
        // SAFETY: `k < n_pairs`: the pair read is inside `act`, and its `8 R` weights at
        // `8 R k` inside `pairs` (wasm loads may be unaligned).
        unsafe {
            let a = i32x4_splat(pa.add(k).read_unaligned());
            let w = pairs.as_ptr().add(k * 8 * R);
            for (r, sum) in acc.iter_mut().enumerate() {
                let y = v128_load(w.add(8 * r) as *const v128);
                *sum = i32x4_add(*sum, i32x4_dot_i16x8(a, y));
            }
        }
    }
    for (r, sum) in acc.iter().enumerate() {
        // SAFETY: `sums` holds `4 R` values: the store of `4 r .. 4 r + 4` is inside it.
        unsafe { v128_store(sums.as_mut_ptr().add(4 * r) as *mut v128, *sum) };
    }
}
