//! Shared transposition table: buckets of four 16-byte entries, one cache line each.
//!
//! Lockless: each entry is two relaxed atomics, the data word and `key ^ data`. A torn read
//! (a writer racing a reader) fails the key check and counts as a miss, so Lazy SMP threads
//! share the table without locks. Callers still verify a TT move against the legal moves.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::shogi::Move;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Bound {
    /// Only the move and static evaluation are meaningful.
    None = 0,
    /// The score is an upper bound (fail low).
    Upper = 1,
    /// The score is a lower bound (fail high).
    Lower = 2,
    Exact = 3,
}

impl Bound {
    fn from_bits(b: u64) -> Bound {
        match b & 3 {
            0 => Bound::None,
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        }
    }
}

/// What a probe returns. `score` is table-relative (see `score::from_tt`).
#[derive(Clone, Copy, Debug)]
pub struct TtEntry {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// Lowest depth that can be stored (quiescence uses 0 and -1).
const DEPTH_OFFSET: i32 = 2;
const GENERATION_MASK: u8 = 63;

#[derive(Default)]
struct Slot {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; 4],
}

// Data word layout: move 0..16, score 16..32, eval 32..48, depth+offset 48..56,
// bound 56..58, generation 58..64. The depth byte is never 0, so a used slot is never 0.
#[inline(always)]
fn pack(mv: Move, score: i32, eval: i32, depth: i32, bound: Bound, generation: u8) -> u64 {
    let depth8 = (depth + DEPTH_OFFSET).clamp(1, 255) as u64;
    mv.raw() as u64
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (depth8 << 48)
        | ((bound as u64) << 56)
        | ((generation as u64) << 58)
}

#[inline(always)]
fn depth8(data: u64) -> i32 {
    ((data >> 48) & 0xff) as i32
}

#[inline(always)]
fn generation_of(data: u64) -> u8 {
    (data >> 58) as u8
}

pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: u8,
    /// The size asked for, MiB.
    requested_mb: usize,
    /// The size held, MiB: less than asked when memory was short.
    size_mb: usize,
    /// Whether anything may have been stored since the table was last zeroed.
    dirty: bool,
}

impl TranspositionTable {
    /// A table of about `mb` MiB (at least one bucket), every page touched now so that no
    /// search pays for it. When that much cannot be had (more than half the memory the system
    /// has available, or the allocation fails), the largest halving of it that fits is taken:
    /// `size_mb` then tells.
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::within(mb, crate::memory::available_bytes())
    }

    /// `new` when the system has `available` bytes to give (`None`: unknown).
    fn within(mb: usize, available: Option<u64>) -> TranspositionTable {
        let requested_mb = mb.max(1);
        let cap_mb = available.map_or(usize::MAX, |bytes| ((bytes / 2) >> 20) as usize);
        let mut size_mb = requested_mb;
        while size_mb > cap_mb && size_mb > 1 {
            size_mb /= 2;
        }
        let buckets = loop {
            if let Some(buckets) = allocate_buckets(size_mb) {
                break buckets;
            }
            if size_mb == 0 {
                // Not even one bucket could be had fallibly: nothing else could run either.
                break vec![Bucket::default()];
            }
            size_mb /= 2;
        };
        TranspositionTable {
            buckets,
            generation: 0,
            requested_mb,
            size_mb,
            dirty: false,
        }
    }

    /// The size held, MiB (see `new`).
    pub fn size_mb(&self) -> usize {
        self.size_mb
    }

    /// The size asked for, MiB.
    pub fn requested_mb(&self) -> usize {
        self.requested_mb
    }

    /// Makes the table hold about `mb` MiB, freeing the old one first. Nothing happens when
    /// that size was already asked for.
    pub fn resize(&mut self, mb: usize) {
        if mb.max(1) != self.requested_mb {
            self.buckets = Vec::new();
            *self = TranspositionTable::new(mb);
        }
    }

    /// Forgets every entry. Zeroing a big table takes a while, so it is done on all cores and
    /// skipped when no search has run since the last time.
    pub fn clear(&mut self) {
        if self.dirty {
            self.buckets.par_iter_mut().for_each(|bucket| {
                for slot in &mut bucket.slots {
                    *slot.key_xor_data.get_mut() = 0;
                    *slot.data.get_mut() = 0;
                }
            });
            self.dirty = false;
        }
        self.generation = 0;
    }

    /// Ages the entries of earlier searches (they become preferred victims for replacement).
    pub fn new_search(&mut self) {
        self.dirty = true;
        self.generation = (self.generation + 1) & GENERATION_MASK;
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-high maps the key uniformly onto any bucket count.
        let index = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Asks the CPU to fetch the bucket of `key` ahead of the probe.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: prefetching is a hint; the pointer is to a live bucket.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(self.bucket(key) as *const Bucket as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for slot in &self.bucket(key).slots {
            let data = slot.data.load(Relaxed);
            if data != 0 && slot.key_xor_data.load(Relaxed) ^ data == key {
                return Some(TtEntry {
                    mv: Move::from_raw(data as u16),
                    score: (data >> 16) as u16 as i16 as i32,
                    eval: (data >> 32) as u16 as i16 as i32,
                    depth: depth8(data) - DEPTH_OFFSET,
                    bound: Bound::from_bits(data >> 56),
                });
            }
        }
        None
    }

    /// Stores a result. `score` must already be table-relative.
    #[inline]
    pub fn store(&self, key: u64, mv: Move, score: i32, eval: i32, depth: i32, bound: Bound) {
        let bucket = self.bucket(key);
        let mut victim = &bucket.slots[0];
        let mut victim_worth = i32::MAX;
        for slot in &bucket.slots {
            let data = slot.data.load(Relaxed);
            if data == 0 {
                if victim_worth > i32::MIN {
                    victim = slot;
                    victim_worth = i32::MIN;
                }
                continue;
            }
            if slot.key_xor_data.load(Relaxed) ^ data == key {
                // Same position: keep a deeper result of this search unless the new one is exact,
                // and keep the old move when the new result has none.
                let old_depth = depth8(data) - DEPTH_OFFSET;
                if bound != Bound::Exact
                    && depth + 3 < old_depth
                    && generation_of(data) == self.generation
                {
                    return;
                }
                let mv = if mv.is_null() {
                    Move::from_raw(data as u16)
                } else {
                    mv
                };
                self.write(slot, key, mv, score, eval, depth, bound);
                return;
            }
            let age = (self.generation.wrapping_sub(generation_of(data)) & GENERATION_MASK) as i32;
            let worth = depth8(data) - 8 * age;
            if worth < victim_worth {
                victim = slot;
                victim_worth = worth;
            }
        }
        self.write(victim, key, mv, score, eval, depth, bound);
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn write(
        &self,
        slot: &Slot,
        key: u64,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let data = pack(mv, score, eval, depth, bound, self.generation);
        slot.data.store(data, Relaxed);
        slot.key_xor_data.store(key ^ data, Relaxed);
    }

    /// Permille of a sample of entries written by the current search (USI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for bucket in &self.buckets[..sample] {
            for slot in &bucket.slots {
                let data = slot.data.load(Relaxed);
                if data != 0 && generation_of(data) == self.generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * 4).max(1)) as u32
    }
}

/// `mb` MiB of zeroed buckets, every page written (on all cores), or `None` when the memory
/// cannot be had.
fn allocate_buckets(mb: usize) -> Option<Vec<Bucket>> {
    let count = ((mb << 20) / std::mem::size_of::<Bucket>()).max(1);
    let mut buckets: Vec<Bucket> = Vec::new();
    buckets.try_reserve_exact(count).ok()?;
    advise_huge_pages(
        buckets.as_mut_ptr().cast(),
        count * std::mem::size_of::<Bucket>(),
    );
    // The capacity is there, so collecting reallocates nothing.
    (0..count)
        .into_par_iter()
        .map(|_| Bucket::default())
        .collect_into_vec(&mut buckets);
    Some(buckets)
}

/// Asks Linux to back `len` bytes at `start` with 2 MiB pages where it can (transparent huge
/// pages in `madvise` mode): touching a big table then takes a fraction of the page faults, and
/// the search misses the TLB less. Only advice: nothing changes if it is refused.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *mut u8, len: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: the range lies inside an allocation this process owns, and MADV_HUGEPAGE
        // changes neither its contents nor its validity.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::super::score::{from_tt, mate_in, mated_in, to_tt};
    use super::*;
    use crate::shogi::{PieceKind, Square};

    #[test]
    fn stores_and_probes_every_field() {
        let tt = TranspositionTable::new(1);
        let mv = Move::drop(PieceKind::Gold, Square::new(3, 2));
        tt.store(0xdead_beef_1234_5678, mv, -1234, 77, 9, Bound::Lower);
        let e = tt.probe(0xdead_beef_1234_5678).expect("hit");
        assert_eq!(
            (e.mv, e.score, e.eval, e.depth, e.bound),
            (mv, -1234, 77, 9, Bound::Lower)
        );
        assert!(tt.probe(0x1111_2222_3333_4444).is_none());
        // Quiescence depths survive the offset.
        tt.store(42, Move::NULL, 5, 5, -1, Bound::Upper);
        assert_eq!(tt.probe(42).unwrap().depth, -1);
    }

    #[test]
    fn mate_scores_are_adjusted_by_ply() {
        let tt = TranspositionTable::new(1);
        let key = 0x0123_4567_89ab_cdef;
        // Found at ply 6 while searching: the side to move there mates in 3 more plies.
        tt.store(key, Move::NULL, to_tt(mate_in(9), 6), 0, 5, Bound::Exact);
        let hit = tt.probe(key).unwrap();
        // Reached again at ply 2 through another move order: mate in 5 from the root.
        assert_eq!(from_tt(hit.score, 2), mate_in(5));
        tt.store(
            key + 1,
            Move::NULL,
            to_tt(mated_in(8), 8),
            0,
            5,
            Bound::Exact,
        );
        assert_eq!(from_tt(tt.probe(key + 1).unwrap().score, 1), mated_in(1));
    }

    #[test]
    fn keeps_deeper_entry_and_old_move() {
        let tt = TranspositionTable::new(1);
        let mv = Move::board(Square::new(5, 3), Square::new(5, 2), false);
        tt.store(7, mv, 10, 0, 12, Bound::Lower);
        tt.store(7, Move::NULL, 20, 0, 2, Bound::Upper);
        let e = tt.probe(7).unwrap();
        assert_eq!((e.depth, e.score, e.mv), (12, 10, mv));
        tt.store(7, Move::NULL, 30, 0, 11, Bound::Upper);
        let e = tt.probe(7).unwrap();
        assert_eq!((e.depth, e.score, e.mv), (11, 30, mv));
    }

    #[test]
    fn more_than_the_memory_is_cut_down_to_what_fits() {
        // 1000 MiB asked with 16 MiB available: halved down to at most half of that.
        let tt = TranspositionTable::within(1000, Some(16 << 20));
        assert_eq!((tt.requested_mb(), tt.size_mb()), (1000, 7));
        assert_eq!(tt.buckets.len(), (7 << 20) / 64);
        tt.store(5, Move::NULL, 1, 2, 3, Bound::Exact);
        assert_eq!(tt.probe(5).unwrap().score, 1);
    }

    #[test]
    fn clear_and_hashfull() {
        let mut tt = TranspositionTable::new(1);
        let keys: Vec<u64> = (0..100_000u64)
            .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
            .collect();
        let found =
            |tt: &TranspositionTable| keys.iter().filter(|&&k| tt.probe(k).is_some()).count();
        tt.new_search();
        for &key in &keys {
            tt.store(key, Move::NULL, 0, 0, 1, Bound::Exact);
        }
        assert!(tt.hashfull() > 500);
        let stored = found(&tt);
        assert!(stored > 50_000, "{stored}");
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        tt.clear();
        assert_eq!(found(&tt), 0);
        // Once zeroed, a table that has seen no search since is not zeroed again (the entries
        // stored here without a search stay: a search always starts with `new_search`).
        tt.store(keys[0], Move::NULL, 0, 0, 1, Bound::Exact);
        tt.clear();
        assert_eq!(found(&tt), 1);
    }
}
