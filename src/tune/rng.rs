//! The tuner's random numbers: the rules' SplitMix64, whose whole state is one `u64`, so that
//! the state file holds it exactly and a resumed run draws the same numbers an uninterrupted one
//! would.

use serde::{Deserialize, Serialize};

use crate::shogi::splitmix::SplitMix64;

/// Kept as the bare state (`{"state": N}` in the state file); each draw steps a [`SplitMix64`]
/// resumed from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut generator = SplitMix64::new(self.state);
        let drawn = generator.next_u64();
        self.state = generator.state();
        drawn
    }

    /// Uniform in `[0, 1)` (53 random bits).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// +1 or −1 with equal chance.
    pub fn sign(&mut self) -> f64 {
        if self.next_u64() >> 63 == 0 {
            1.0
        } else {
            -1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_uniform_and_balanced() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(Rng::new(8).next_u64(), xs[0]);
        let mut r = Rng::new(1);
        let n = 20_000;
        let mut sum = 0.0;
        let mut plus = 0;
        for _ in 0..n {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            sum += u;
            plus += usize::from(r.sign() > 0.0);
        }
        assert!((sum / n as f64 - 0.5).abs() < 0.01, "{}", sum / n as f64);
        assert!((plus as f64 / n as f64 - 0.5).abs() < 0.02, "{plus}");
        let x = r.uniform(-3.0, 5.0);
        assert!((-3.0..5.0).contains(&x));
    }
}
