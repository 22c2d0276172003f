//! Training targets of self-play games (see the module documentation of `selfplay` for the
//! recursion), and the data set an iteration trains on.

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

use super::players::SelfplayGame;
use crate::nn::{self, Features};
use crate::train::matedata::MateSample;
use crate::train::trainer::Dataset;

/// The seed's targets (see the module documentation), from `values[i] = V(s_i)` and the final
/// return `R_n`. Results are clamped to [0, 1] against rounding.
pub fn td_targets(values: &[f32], final_return: f32, alpha: f32, gamma: f32) -> Vec<f32> {
    let n = values.len();
    let mut targets = vec![0.0; n];
    if n == 0 {
        return targets;
    }
    let mut r = final_return;
    targets[n - 1] = (1.0 - alpha) * values[n - 1] + alpha * r;
    for i in (0..n - 1).rev() {
        r = 1.0 - ((1.0 - gamma) * values[i + 1] + gamma * r);
        targets[i] = (1.0 - alpha) * values[i] + alpha * r;
    }
    targets.iter_mut().for_each(|t| *t = t.clamp(0.0, 1.0));
    targets
}

/// Self-play samples of one batch of games, as a data set.
pub(super) fn games_to_dataset(records: &[SelfplayGame], alpha: f32, gamma: f32) -> Dataset {
    let total = records.iter().map(|r| r.positions.len()).sum();
    let mut data = Dataset::with_capacity(nn::NUM_FEATURES, total);
    let mut features = Features::new();
    for r in records {
        let targets = td_targets(&r.values, r.final_return(), alpha, gamma);
        for (pos, &t) in r.positions.iter().zip(&targets) {
            features.extract(pos);
            data.push(features.values(), t);
        }
    }
    data
}

/// `count` mate samples drawn (without replacement where possible) with a seeded generator.
pub(super) fn sample_mate_data(
    samples: &[MateSample],
    count: usize,
    seed: u64,
) -> Result<Dataset, String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let count = count.min(samples.len());
    crate::train::mate_dataset(samples.choose_multiple(&mut rng, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_follow_the_recursion() {
        // V(s_0..s_3) by hand, s_3 terminal (lost for its side to move).
        let v = [0.6f32, 0.3, 0.8, 0.1];
        let (a, g) = (0.5f32, 0.8f32);
        let t = td_targets(&v, 0.0, a, g);
        // R_3 = 0; R_2 = 1 − (0.2·0.1 + 0.8·0) = 0.98; R_1 = 1 − (0.2·0.8 + 0.8·0.98) = 0.056;
        // R_0 = 1 − (0.2·0.3 + 0.8·0.056) = 0.8952.
        let r = [0.8952f32, 0.056, 0.98, 0.0];
        for i in 0..4 {
            let want = 0.5 * v[i] + 0.5 * r[i];
            assert!((t[i] - want).abs() < 1e-5, "target {i}: {} vs {want}", t[i]);
        }
        // α = 1, γ = 1: pure Monte Carlo, alternating results seen from each side.
        assert_eq!(td_targets(&v, 0.0, 1.0, 1.0), vec![1.0, 0.0, 1.0, 0.0]);
        // A ply-limit draw propagates ½ everywhere when the values are ½.
        assert_eq!(td_targets(&[0.5; 3], 0.5, 0.7, 0.9), vec![0.5; 3]);
        // α = 0 keeps the network's own values.
        assert_eq!(td_targets(&v, 1.0, 0.0, 0.3), v.to_vec());
        assert!(td_targets(&[], 0.0, 0.5, 0.5).is_empty());
    }
}
