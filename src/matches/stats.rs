//! Match statistics over game pairs (the same opening with colours swapped): the pentanomial
//! distribution of pair scores, the logistic Elo difference with a 95% interval, and the SPRT's
//! generalized log-likelihood ratio as fishtest computes it for pentanomial results.

use serde::Serialize;

/// Counts of game pairs by the first engine's pair score in half points: index 0 = lost both,
/// 2 = even (two draws, or a win and a loss), 4 = won both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair with this many half points for the first engine (0..=4).
    pub fn add(&mut self, half_points: usize) {
        self.0[half_points] += 1;
    }

    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Mean score per game and the variance of the per-game score of a pair, over `counts`.
    fn mean_and_variance(counts: &[f64; 5]) -> (f64, f64) {
        let n: f64 = counts.iter().sum();
        let score = |i: usize| i as f64 / 4.0;
        let mean = (0..5).map(|i| counts[i] * score(i)).sum::<f64>() / n;
        let variance = (0..5)
            .map(|i| counts[i] * (score(i) - mean).powi(2))
            .sum::<f64>()
            / n;
        (mean, variance)
    }

    /// Elo difference of the first engine with the half-width of its 95% confidence
    /// interval; `None` before the first pair. Infinite values when the score (or an end of
    /// its interval) is 0% or 100%.
    pub fn elo(&self) -> Option<EloEstimate> {
        let pairs = self.pairs();
        if pairs == 0 {
            return None;
        }
        let counts = self.0.map(|c| c as f64);
        let (score, variance) = Self::mean_and_variance(&counts);
        let half_width = Z_975 * (variance / pairs as f64).sqrt();
        let (low, high) = (score - half_width, score + half_width);
        let error95 = if half_width == 0.0 {
            0.0
        } else {
            (score_to_elo(high) - score_to_elo(low)) / 2.0
        };
        Some(EloEstimate {
            score,
            elo: score_to_elo(score),
            error95,
        })
    }
}

impl EloEstimate {
    /// Whether there is an interval to show: a finite Elo with a finite spread above zero.
    /// One pair, or pairs all alike, or an interval reaching a score of 0% or 100% have none.
    pub fn has_interval(&self) -> bool {
        self.elo.is_finite() && self.error95.is_finite() && self.error95 > 0.0
    }

    /// The estimate as the reports print it: `+12.3 ± 45.6 (95%)`. An Elo that is infinite (a
    /// score of 0% or 100%) is `n/a`; a missing interval (see [`Self::has_interval`]) is left
    /// out, saying so. Never `inf`, `NaN` or `-0.0`.
    pub fn describe(&self) -> String {
        self.text(1, "95% interval")
    }

    /// [`Self::describe`] in whole Elo for tables (whose header says 95%): `+12 ± 46`.
    pub fn brief(&self) -> String {
        self.text(0, "interval")
    }

    fn text(&self, decimals: usize, interval: &str) -> String {
        if !self.elo.is_finite() {
            return format!("n/a (score {:.0}%)", 100.0 * self.score);
        }
        // Rounds to +0 what would print as -0.
        let half_unit = 0.5 * 10f64.powi(-(decimals as i32));
        let elo = if self.elo.abs() < half_unit {
            0.0
        } else {
            self.elo
        };
        match (self.has_interval(), decimals) {
            (true, 0) => format!("{elo:+.0} ± {:.0}", self.error95),
            (true, _) => format!("{elo:+.decimals$} ± {:.decimals$} (95%)", self.error95),
            (false, _) => format!("{elo:+.decimals$} ({interval} n/a: too few pairs)"),
        }
    }
}

/// Engine 1's estimate after each game pair: what a chart of a match draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningElo {
    /// Pairs counted so far (twice as many games).
    pub pairs: u64,
    pub estimate: EloEstimate,
}

/// The estimate after each pair, in pair order, from the finished games as (game number, engine
/// 1's points), in any order: games 2p − 1 and 2p form pair p, which counts once both are in.
/// The same list gives the same curve, whether during a match or from its records afterwards.
pub fn running_elo(games: &[(usize, f64)]) -> Vec<RunningElo> {
    let mut legs: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
    for &(number, points) in games {
        legs.entry(number.saturating_sub(1) / 2)
            .or_default()
            .push(points);
    }
    let mut pairs = Pentanomial::default();
    legs.values()
        .filter(|points| points.len() == 2)
        .filter_map(|points| {
            pairs.add(((points[0] + points[1]) * 2.0).round().clamp(0.0, 4.0) as usize);
            Some(RunningElo {
                pairs: pairs.pairs(),
                estimate: pairs.elo()?,
            })
        })
        .collect()
}

/// The 97.5% quantile of the standard normal distribution.
pub const Z_975: f64 = 1.959_963_984_540_054;

/// The logistic Elo difference that gives `score` (0..=1) as the expected score.
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The maximum-likelihood distribution with mean `s` near the empirical `pdf` over the pair
/// scores a_i = i/4 is p_i = pdf_i / (1 + λ (a_i - s)), where λ solves
/// Σ pdf_i (a_i - s) / (1 + λ (a_i - s)) = 0. The left side falls with λ on the interval
/// where every denominator is positive, so bisection finds it.
fn mle_tilt(pdf: &[f64; 5], s: f64) -> f64 {
    let f = |lambda: f64| -> f64 {
        (0..5)
            .map(|i| {
                let d = i as f64 / 4.0 - s;
                pdf[i] * d / (1.0 + lambda * d)
            })
            .sum()
    };
    // Denominators stay positive for λ in (-1/(1-s), 1/s).
    let (mut low, mut high) = (-1.0 / (1.0 - s), 1.0 / s);
    let shrink = 1e-12 * (high - low);
    low += shrink;
    high -= shrink;
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if f(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

/// The expected score at a logistic Elo difference.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// Mean score per game of the first engine, 0..=1.
    pub score: f64,
    pub elo: f64,
    /// Half-width of the 95% confidence interval, in Elo.
    pub error95: f64,
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1` (logistic
/// Elo), with error rates `alpha` (accepting H1 wrongly) and `beta` (accepting H0 wrongly).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SprtDecision {
    /// H0 accepted: the first engine is not `elo1` stronger.
    H0,
    /// H1 accepted: the first engine is at least `elo0` stronger.
    H1,
}

impl Sprt {
    /// Parses `elo0=0 elo1=10 alpha=0.05 beta=0.05` (any order; alpha and beta default to 0.05).
    pub fn parse(words: &[String]) -> Result<Sprt, String> {
        let mut sprt = Sprt {
            elo0: f64::NAN,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
        };
        for word in words.iter().flat_map(|w| w.split_whitespace()) {
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| format!("SPRT parameter '{word}' is not KEY=VALUE"))?;
            let value: f64 = value
                .parse()
                .map_err(|_| format!("SPRT parameter '{word}' has no number"))?;
            match key {
                "elo0" => sprt.elo0 = value,
                "elo1" => sprt.elo1 = value,
                "alpha" => sprt.alpha = value,
                "beta" => sprt.beta = value,
                _ => {
                    return Err(format!(
                        "unknown SPRT parameter '{key}' (elo0 elo1 alpha beta)"
                    ));
                }
            }
        }
        if sprt.elo0.is_nan() || sprt.elo1.is_nan() {
            return Err("SPRT needs elo0=… and elo1=…".to_string());
        }
        if sprt.elo1 <= sprt.elo0 {
            return Err("SPRT needs elo1 > elo0".to_string());
        }
        for p in [sprt.alpha, sprt.beta] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("SPRT error rate {p} is not in (0, 0.5)"));
            }
        }
        Ok(sprt)
    }

    /// (lower, upper) bounds on the log-likelihood ratio: below the lower one H0 is accepted,
    /// above the upper one H1.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The generalized log-likelihood ratio of H1 against H0 for these pair results, as
    /// fishtest computes it for the pentanomial model (`LLR_logistic`): the likelihood of the
    /// observed pair scores under the most likely distribution whose mean is the expected
    /// score at `elo1`, against the same at `elo0`. Empty cells count as 0.001 pairs
    /// (fishtest's regularization) so every outcome stays possible.
    pub fn llr(&self, results: &Pentanomial) -> f64 {
        if results.pairs() == 0 {
            return 0.0;
        }
        let counts = results.0.map(|c| if c == 0 { 1e-3 } else { c as f64 });
        let n: f64 = counts.iter().sum();
        let empirical = counts.map(|c| c / n);
        let log_ratio_to_mle = |s: f64| -> [f64; 5] {
            let lambda = mle_tilt(&empirical, s);
            std::array::from_fn(|i| (1.0 + lambda * (i as f64 / 4.0 - s)).ln())
        };
        // log p_s(i) = log p̂(i) - log(1 + λ_s (a_i - s)), so the p̂ terms cancel.
        let (t0, t1) = (
            log_ratio_to_mle(elo_to_score(self.elo0)),
            log_ratio_to_mle(elo_to_score(self.elo1)),
        );
        n * (0..5).map(|i| empirical[i] * (t0[i] - t1[i])).sum::<f64>()
    }

    pub fn decision(&self, results: &Pentanomial) -> Option<SprtDecision> {
        let llr = self.llr(results);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(SprtDecision::H1)
        } else if llr <= lower {
            Some(SprtDecision::H0)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_of_simple_scores() {
        assert_eq!(score_to_elo(0.5), 0.0);
        // 10^(191.2/400) = 3.0: a 75% score is about +190.8 Elo.
        assert!(close(score_to_elo(0.75), 190.848, 0.001));
        assert!(close(elo_to_score(190.848), 0.75, 1e-6));
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
    }

    #[test]
    fn pentanomial_elo_and_interval() {
        assert_eq!(Pentanomial::default().elo(), None);
        // All pairs even: Elo 0, no spread.
        let even = Pentanomial([0, 0, 10, 0, 0]).elo().unwrap();
        assert_eq!((even.score, even.elo, even.error95), (0.5, 0.0, 0.0));
        // [1,2,4,2,1]: mean 0.5, pair variance 0.075, standard error sqrt(0.0075) = 0.086603,
        // interval 0.5 ± 0.169738, Elo(0.669738) = 122.818, so 0 ± 122.82.
        let symmetric = Pentanomial([1, 2, 4, 2, 1]).elo().unwrap();
        assert!(close(symmetric.elo, 0.0, 1e-9));
        assert!(close(symmetric.error95, 122.818, 0.001), "{symmetric:?}");
        // [0,1,3,4,2]: mean 0.675, variance 0.050625, se 0.071151, interval
        // [0.535548, 0.814452]; Elo 126.968 ± (256.964 - 24.743)/2 = 116.11.
        let skewed = Pentanomial([0, 1, 3, 4, 2]).elo().unwrap();
        assert!(close(skewed.score, 0.675, 1e-12));
        assert!(close(skewed.elo, 126.968, 0.001), "{skewed:?}");
        assert!(close(skewed.error95, 116.112, 0.001), "{skewed:?}");
        // Won every pair: infinite Elo.
        assert_eq!(
            Pentanomial([0, 0, 0, 0, 3]).elo().unwrap().elo,
            f64::INFINITY
        );
    }

    #[test]
    fn estimates_print_without_infinities_or_negative_zero() {
        let text = |counts: [u64; 5]| Pentanomial(counts).elo().unwrap().describe();
        // One even pair: Elo -400·log10(1) = -0.0 with a zero-width interval.
        assert_eq!(
            text([0, 0, 1, 0, 0]),
            "+0.0 (95% interval n/a: too few pairs)"
        );
        assert_eq!(text([0, 0, 0, 0, 2]), "n/a (score 100%)");
        assert_eq!(text([1, 0, 0, 0, 0]), "n/a (score 0%)");
        // [1,0,0,0,1]: mean 0.5, the interval reaches 0 and 1, an infinite half-width.
        assert_eq!(
            text([1, 0, 0, 0, 1]),
            "+0.0 (95% interval n/a: too few pairs)"
        );
        assert_eq!(text([1, 2, 4, 2, 1]), "+0.0 ± 122.8 (95%)");
        assert_eq!(text([0, 1, 3, 4, 2]), "+127.0 ± 116.1 (95%)");
        // Tables' whole numbers: the same cases.
        let brief = |counts: [u64; 5]| Pentanomial(counts).elo().unwrap().brief();
        assert_eq!(brief([0, 0, 1, 0, 0]), "+0 (interval n/a: too few pairs)");
        assert_eq!(brief([0, 0, 3, 0, 0]), "+0 (interval n/a: too few pairs)");
        assert_eq!(brief([0, 0, 0, 0, 2]), "n/a (score 100%)");
        assert_eq!(brief([4, 0, 0, 0, 0]), "n/a (score 0%)");
        assert_eq!(brief([1, 0, 0, 0, 1]), "+0 (interval n/a: too few pairs)");
        assert_eq!(brief([0, 1, 3, 4, 2]), "+127 ± 116");
        // An estimate just below zero rounds to +0, not -0.
        let tiny = EloEstimate {
            score: 0.4999,
            elo: -0.3,
            error95: 40.0,
        };
        assert_eq!(tiny.brief(), "+0 ± 40");
        assert_eq!(tiny.describe(), "-0.3 ± 40.0 (95%)");
    }

    #[test]
    fn the_running_estimate_counts_whole_pairs_in_pair_order() {
        assert!(running_elo(&[]).is_empty());
        // Pair 2 (games 3, 4) is complete, pair 1 lacks game 2, pair 3 is whole too.
        let games = [(3, 1.0), (1, 1.0), (4, 0.5), (6, 0.0), (5, 1.0)];
        let run = running_elo(&games);
        assert_eq!(run.iter().map(|r| r.pairs).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(run[0].estimate, Pentanomial([0, 0, 0, 1, 0]).elo().unwrap());
        assert_eq!(run[1].estimate, Pentanomial([0, 0, 1, 1, 0]).elo().unwrap());
        assert!(!run[0].estimate.has_interval());
        assert!(run[1].estimate.has_interval());
    }

    #[test]
    fn sprt_bounds_and_llr() {
        let sprt = Sprt::parse(&["elo0=0 elo1=10".to_string(), "alpha=0.05".to_string()]).unwrap();
        let (lower, upper) = sprt.bounds();
        assert!(close(lower, -2.944439, 1e-6) && close(upper, 2.944439, 1e-6));
        assert_eq!(sprt.llr(&Pentanomial::default()), 0.0);
        // Figures from an independent script of fishtest's formulas (bisection for λ). The
        // normal approximation N (s1-s0)(2 mean - s0 - s1) / (2 var) gives nearly the same
        // on balanced samples: -0.137994 and 0.678967 for these two.
        let even = Pentanomial([10, 20, 40, 20, 10]);
        assert!(
            close(sprt.llr(&even), -0.137899, 1e-5),
            "{}",
            sprt.llr(&even)
        );
        assert_eq!(sprt.decision(&even), None);
        let better = Pentanomial([5, 20, 40, 25, 10]);
        assert!(
            close(sprt.llr(&better), 0.671580, 1e-5),
            "{}",
            sprt.llr(&better)
        );
        // Unlike the normal approximation (3.8 here), one won pair is weak evidence.
        let one = Pentanomial([0, 0, 0, 0, 1]);
        assert!(close(sprt.llr(&one), 0.028424, 1e-5), "{}", sprt.llr(&one));
        let strong = Pentanomial([0, 2, 10, 30, 60]);
        assert!(
            close(sprt.llr(&strong), 2.893503, 1e-5),
            "{}",
            sprt.llr(&strong)
        );
        assert_eq!(sprt.decision(&strong), None);
        let weak = Pentanomial([60, 30, 10, 2, 0]);
        assert!(
            close(sprt.llr(&weak), -2.977992, 1e-5),
            "{}",
            sprt.llr(&weak)
        );
        assert_eq!(sprt.decision(&weak), Some(SprtDecision::H0));
        assert_eq!(
            sprt.decision(&Pentanomial([0, 2, 10, 30, 80])),
            Some(SprtDecision::H1)
        );
    }

    #[test]
    fn sprt_parameters_are_checked() {
        let p = |s: &str| Sprt::parse(&[s.to_string()]);
        assert!(p("elo0=0").is_err());
        assert!(p("elo0=5 elo1=0").is_err());
        assert!(p("elo0=0 elo1=5 alpha=0.7").is_err());
        assert!(p("elo0=0 elo1=5 gamma=1").is_err());
        assert!(p("elo0=0 elo1=x").is_err());
        assert_eq!(p("elo1=5 elo0=-1 beta=0.1").unwrap().beta, 0.1);
    }
}
