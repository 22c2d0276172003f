//! SplitMix64, the project's one small seeded generator: the rules depend on no random number
//! crate, so their tests draw from it (`testing`), and its whole state is one `u64`, so the
//! lab's tuner can keep it in a state file and resume drawing the same numbers.

/// SplitMix64 (Steele, Lea and Flood): good enough to spread test positions and perturb tuned
/// parameters, not for statistics that need a strong generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded by `seed`, or resumed from a [`state`](Self::state).
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The whole state: `SplitMix64::new(g.state())` draws what `g` would draw next.
    pub fn state(&self) -> u64 {
        self.state
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// An index in `0..n` (`n > 0`); the modulo bias is negligible for the small `n` of tests.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `below` as the `draw` of [`crate::random`].
    pub fn draw(&mut self) -> impl FnMut(usize) -> usize + '_ {
        |n| self.below(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_resumes_the_sequence() {
        let mut a = SplitMix64::new(7);
        a.next_u64();
        let mut b = SplitMix64::new(a.state());
        assert_eq!(a.next_u64(), b.next_u64());
        // The first output for seed 0 of the reference implementation.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xe220_a839_7b1d_cdaf);
    }
}
