//! Finding the inputs a move changed, portably: what the accumulators are updated by. The
//! AVX2 twin of [`changed_inputs`] is in `simd.rs`; both end with [`changed_beyond_seed`].

use super::super::feature_set::Features;
use super::super::features::NUM_FEATURES;

/// The inputs that differ between `parent` and `child`, as `(index, child − parent)`, into
/// `changes`: the seed's inputs in index order, then any larger set's additions. The seed's
/// dense values are compared eight at a time: a move changes a few dozen of the 361 inputs, so
/// most words are equal and skipped by one comparison (walking both sparse lists instead was
/// half of an update's time, in mispredicted branches).
#[inline(always)]
pub(super) fn changed_inputs(parent: &Features, child: &Features, changes: &mut Vec<(u16, i32)>) {
    changes.clear();
    let (a, b) = (parent.values(), child.values());
    let words = NUM_FEATURES / 8;
    for w in 0..words {
        let at = w * 8;
        let x = u64::from_le_bytes(a[at..at + 8].try_into().expect("8 bytes"));
        let y = u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        let mut diff = x ^ y;
        while diff != 0 {
            let i = at + (diff.trailing_zeros() / 8) as usize;
            changes.push((i as u16, b[i] as i32 - a[i] as i32));
            diff &= !(0xff << ((i - at) * 8));
        }
    }
    for i in words * 8..NUM_FEATURES {
        if a[i] != b[i] {
            changes.push((i as u16, b[i] as i32 - a[i] as i32));
        }
    }
    changed_beyond_seed(parent, child, changes);
}

/// Appends the changed inputs past the seed's (the king-piece set's pieces: a few dozen 1s in
/// a position, kept ascending): a merge of the parent's list with the child's.
#[inline(always)]
pub(super) fn changed_beyond_seed(
    parent: &Features,
    child: &Features,
    changes: &mut Vec<(u16, i32)>,
) {
    let (a, b) = (parent.beyond_seed_indices(), child.beyond_seed_indices());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                changes.push((a[i], -1));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                changes.push((b[j], 1));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    changes.extend(a[i..].iter().map(|&x| (x, -1)));
    changes.extend(b[j..].iter().map(|&x| (x, 1)));
}
