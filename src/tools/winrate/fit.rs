//! The logistic that maps a score to a result, fitted by maximum likelihood:
//!
//! ```text
//! P(cp) = 1 / (1 + e^(−cp/k)),   log-loss(k) = mean of −[y·ln P + (1 − y)·ln(1 − P)]
//! ```
//!
//! with `y` the game's result for the side to move (1, ½, 0). The loss is convex in the slope
//! `a = 1/k` (a logistic regression through the origin; a draw's ½ is a soft target, and the
//! fit is then the one whose mean prediction at each score is the mean result), so a safeguarded
//! Newton iteration on `a` finds the one minimum.
//!
//! Scores are whole centipawns and results three values, so the positions are counted into a
//! table by (score, result) and the iteration runs over its cells, not over millions of
//! positions: a bootstrap resample costs one pass of additions.
//!
//! A game's positions share its result, so they are not independent: the interval on `k`
//! resamples whole games (a bootstrap over games), not positions. Intervals that treated the
//! positions of a game as independent would be several times too narrow.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Positions with their scores and results, grouped by game (a game's positions contiguous).
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// The search's score for the side to move, centipawns.
    cp: Vec<i16>,
    /// The game's result for the side to move in half points: 2 won, 1 drawn, 0 lost.
    half_points: Vec<u8>,
    /// Where each game's positions start; a game ends where the next starts (or at the end).
    starts: Vec<usize>,
}

impl Samples {
    pub fn new() -> Samples {
        Samples::default()
    }

    /// Starts a new game: the positions pushed next are its own.
    pub fn begin_game(&mut self) {
        self.starts.push(self.cp.len());
    }

    /// Adds a position to the current game: its score and the game's result for its side to
    /// move (1, ½ or 0; anything else is a bug of the caller's).
    pub fn push(&mut self, cp: i16, result: f32) {
        let half_points = match result {
            0.0 => 0,
            0.5 => 1,
            1.0 => 2,
            _ => panic!("a game's result is 1, 1/2 or 0, not {result}"),
        };
        if self.starts.is_empty() {
            self.begin_game();
        }
        self.cp.push(cp);
        self.half_points.push(half_points);
    }

    /// Drops the current game if it got no position, so that every game counted has some.
    pub fn end_game(&mut self) {
        if self.starts.last() == Some(&self.cp.len()) {
            self.starts.pop();
        }
    }

    pub fn len(&self) -> usize {
        self.cp.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cp.is_empty()
    }

    pub fn games(&self) -> usize {
        self.starts.len()
    }

    fn result(&self, i: usize) -> f64 {
        f64::from(self.half_points[i]) / 2.0
    }

    /// The positions of game `g`.
    fn game(&self, g: usize) -> std::ops::Range<usize> {
        let end = self.starts.get(g + 1).copied().unwrap_or(self.cp.len());
        self.starts[g]..end
    }

    /// The positions counted by score and result, each game's `weights[g]` times (all once
    /// without weights).
    fn table(&self, weights: Option<&[u32]>) -> Table {
        let offset = i32::from(i16::MIN);
        let mut counts = vec![[0u64; 3]; 1 << 16];
        for g in 0..self.games() {
            let w = weights.map_or(1, |w| u64::from(w[g]));
            if w == 0 {
                continue;
            }
            for i in self.game(g) {
                let cell = (i32::from(self.cp[i]) - offset) as usize;
                counts[cell][usize::from(self.half_points[i])] += w;
            }
        }
        let cells = counts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.iter().any(|&n| n > 0))
            .map(|(cell, &[lost, drawn, won])| Cell {
                x: (cell as i32 + offset) as f64,
                lost: lost as f64,
                drawn: drawn as f64,
                won: won as f64,
            })
            .collect();
        Table { cells }
    }
}

/// The positions of one score (weighted): lost, drawn and won.
#[derive(Clone, Copy, Debug)]
struct Cell {
    x: f64,
    lost: f64,
    drawn: f64,
    won: f64,
}

struct Table {
    cells: Vec<Cell>,
}

/// Why there is no finite, positive maximum-likelihood scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoFit {
    NoPositions,
    /// Higher scores do not win more often: the best curve is flat (k = ∞).
    Flat,
    /// Every result follows the sign of its score: the curve steepens without end (k → 0).
    Separated,
}

impl std::fmt::Display for NoFit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoFit::NoPositions => "no positions to fit",
            NoFit::Flat => {
                "the scores do not predict the results: no curve rising with the score fits \
                 them better than a coin"
            }
            NoFit::Separated => "the results follow the sign of the score alone: k tends to 0",
        })
    }
}

impl Table {
    fn weight(&self) -> f64 {
        self.cells.iter().map(|c| c.lost + c.drawn + c.won).sum()
    }

    /// First and second derivatives of the summed log-loss in the slope `a`. P and 1 − P are
    /// computed apart, so that a curve steep enough to round P to 1 still has a slope.
    fn derivatives(&self, a: f64) -> (f64, f64) {
        self.cells.iter().fold((0.0, 0.0), |(d1, d2), c| {
            let (p, q) = (logistic(a * c.x), logistic(-a * c.x));
            let weight = c.lost + c.drawn + c.won;
            (
                d1 + (p * c.lost - q * c.won + 0.5 * (p - q) * c.drawn) * c.x,
                d2 + p * q * weight * c.x * c.x,
            )
        })
    }

    fn loss(&self, k: f64) -> Loss {
        let (log_loss, brier) = self.cells.iter().fold((0.0, 0.0), |(l, b), c| {
            let z = c.x / k;
            let p = logistic(z);
            let points = c.won + 0.5 * c.drawn;
            let weight = c.lost + c.drawn + c.won;
            // −ln P = softplus(−z), −ln(1 − P) = softplus(z); Σ(P − y)² over the three results.
            (
                l + points * softplus(-z) + (weight - points) * softplus(z),
                b + c.lost * p * p
                    + c.drawn * (p - 0.5) * (p - 0.5)
                    + c.won * (1.0 - p) * (1.0 - p),
            )
        });
        let n = self.weight().max(1.0);
        Loss {
            log_loss: log_loss / n,
            brier: brier / n,
        }
    }

    /// The `k` of least log-loss, the search starting at `start`.
    fn fit(&self, start: f64) -> Result<f64, NoFit> {
        if self.cells.is_empty() {
            return Err(NoFit::NoPositions);
        }
        // At a = 0 the loss falls towards positive slopes only if better scores win more often.
        if self.derivatives(0.0).0 >= 0.0 {
            return Err(NoFit::Flat);
        }
        // A bracket (lo, hi) of the root of the derivative, negative at lo and positive at hi:
        // 0 is a lo, and doubling from the start finds a hi (the start is near the root
        // mostly, so this costs a pass or two).
        let (mut lo, mut a) = (0.0, 1.0 / start);
        let (mut d1, mut d2) = self.derivatives(a);
        while d1 < 0.0 || d2 == 0.0 {
            // No curvature left: every P rounds to 0 or 1, and rightly (d1 ≤ 0).
            if d2 == 0.0 || 2.0 * a > MAX_SLOPE {
                return Err(NoFit::Separated);
            }
            lo = a;
            a *= 2.0;
            (d1, d2) = self.derivatives(a);
        }
        let mut hi = a;
        // Newton's steps inside the bracket, halving it where a step would leave it.
        for _ in 0..200 {
            if d1 == 0.0 {
                return Ok(1.0 / a);
            }
            let newton = a - d1 / d2;
            let next = if d2 > 0.0 && newton > lo && newton < hi {
                newton
            } else {
                0.5 * (lo + hi)
            };
            if (next - a).abs() <= 1e-12 * a || hi - lo <= 1e-12 * hi {
                return Ok(1.0 / next);
            }
            a = next;
            (d1, d2) = self.derivatives(a);
            if d1 < 0.0 {
                lo = a;
            } else {
                hi = a;
            }
        }
        Ok(1.0 / a)
    }
}

/// Largest slope tried (k = 0.01 cp): beyond it the results follow the score's sign alone.
const MAX_SLOPE: f64 = 100.0;

pub fn logistic(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// ln(1 + e^z) without overflow.
fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// How well a curve predicts the results: mean log-loss and Brier score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Loss {
    pub log_loss: f64,
    pub brier: f64,
}

/// The loss of the curve `P = 1/(1 + e^(−cp/k))` on `samples`; `k = ∞` is the coin, P = ½.
pub fn loss(samples: &Samples, k: f64) -> Loss {
    samples.table(None).loss(k)
}

/// The maximum-likelihood scale `k` of the curve on `samples`.
pub fn fit(samples: &Samples) -> Result<f64, NoFit> {
    samples.table(None).fit(600.0)
}

/// A 95% interval on `k`: the 2.5th and 97.5th percentiles of the fits to `resamples` samples
/// of whole games drawn with replacement (`k`, the fit on all of them, is where each search
/// starts). The same for a `seed` at any thread count.
pub fn bootstrap(samples: &Samples, k: f64, resamples: usize, seed: u64) -> Option<(f64, f64)> {
    let games = samples.games();
    if resamples < 2 || games < 2 {
        return None;
    }
    let mut fits: Vec<f64> = (0..resamples)
        .into_par_iter()
        .map(|r| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(r as u64);
            let mut weights = vec![0u32; games];
            for _ in 0..games {
                weights[rng.gen_range(0..games)] += 1;
            }
            // A resample without a finite k counts at the end it tends to.
            match samples.table(Some(&weights)).fit(k) {
                Ok(k) => k,
                Err(NoFit::Flat) => f64::INFINITY,
                Err(NoFit::Separated | NoFit::NoPositions) => 0.0,
            }
        })
        .collect();
    fits.sort_by(f64::total_cmp);
    Some((percentile(&fits, 0.025), percentile(&fits, 0.975)))
}

/// The `q` quantile of sorted values, interpolated linearly.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let at = q * (sorted.len() - 1) as f64;
    let (i, t) = (at.floor() as usize, at.fract());
    match sorted.get(i + 1) {
        Some(next) if t > 0.0 => sorted[i] + t * (next - sorted[i]),
        _ => sorted[i],
    }
}

/// Positions of similar scores: the mean score and the mean result, with a 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Bin {
    pub positions: usize,
    pub cp_min: i16,
    pub cp_max: i16,
    pub cp_mean: f64,
    /// Mean result of the side to move (a draw ½).
    pub score: f64,
    /// Half-width of the 95% interval of `score`: 1.96 times its standard error with each
    /// game's positions taken as one draw (cluster-robust), not as independent ones.
    pub error: f64,
}

/// `count` bins of (nearly) equal numbers of positions, in order of score.
pub fn bins(samples: &Samples, count: usize) -> Vec<Bin> {
    let n = samples.len();
    let count = count.min(n);
    if count == 0 {
        return Vec::new();
    }
    let mut game = Vec::with_capacity(n);
    for g in 0..samples.games() {
        game.extend(std::iter::repeat_n(g as u32, samples.game(g).len()));
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.par_sort_by_key(|&i| samples.cp[i as usize]);
    (0..count)
        .map(|b| {
            let members = &order[b * n / count..(b + 1) * n / count];
            let m = members.len() as f64;
            let mean =
                |f: &dyn Fn(usize) -> f64| members.iter().map(|&i| f(i as usize)).sum::<f64>() / m;
            let cp_mean = mean(&|i| f64::from(samples.cp[i]));
            let score = mean(&|i| samples.result(i));
            // The residuals summed game by game: a game's positions are one draw of its result.
            let mut by_game: Vec<(u32, f64)> = members
                .iter()
                .map(|&i| (game[i as usize], samples.result(i as usize) - score))
                .collect();
            by_game.sort_unstable_by_key(|&(g, _)| g);
            let mut sum_sq = 0.0;
            let mut run = 0.0;
            for (j, &(g, r)) in by_game.iter().enumerate() {
                run += r;
                if by_game.get(j + 1).is_none_or(|&(next, _)| next != g) {
                    sum_sq += run * run;
                    run = 0.0;
                }
            }
            Bin {
                positions: members.len(),
                cp_min: samples.cp[members[0] as usize],
                cp_max: samples.cp[*members.last().expect("a bin has members") as usize],
                cp_mean,
                score,
                error: 1.96 * sum_sq.sqrt() / m,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Games of one score each (every position at it), the result drawn from the curve of `k`.
    fn synthetic(k: f64, games: usize, per_game: usize, seed: u64) -> Samples {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut s = Samples::new();
        for _ in 0..games {
            let cp: i16 = rng.gen_range(-2000..=2000);
            let p = logistic(f64::from(cp) / k);
            // Draws taken evenly from wins and losses, so that the expected result stays p.
            let draw = 0.4 * p.min(1.0 - p);
            let u: f64 = rng.r#gen();
            let result = if u < p - draw / 2.0 {
                1.0
            } else if u < p + draw / 2.0 {
                0.5
            } else {
                0.0
            };
            s.begin_game();
            for _ in 0..per_game {
                s.push(cp, result);
            }
            s.end_game();
        }
        s
    }

    #[test]
    fn the_fit_minimises_the_log_loss() {
        let s = synthetic(500.0, 3000, 1, 3);
        let k = fit(&s).unwrap();
        let best = loss(&s, k).log_loss;
        for other in [0.9 * k, 0.99 * k, 1.01 * k, 1.1 * k] {
            assert!(loss(&s, other).log_loss > best, "{other} vs {k}");
        }
        assert!((loss(&s, f64::INFINITY).log_loss - std::f64::consts::LN_2).abs() < 1e-12);
    }

    #[test]
    fn the_table_gives_the_losses_position_by_position() {
        let s = synthetic(500.0, 300, 2, 4);
        let k = 450.0;
        let (mut log_loss, mut brier) = (0.0, 0.0);
        for i in 0..s.len() {
            let p = logistic(f64::from(s.cp[i]) / k);
            let y = s.result(i);
            log_loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
            brier += (p - y) * (p - y);
        }
        let n = s.len() as f64;
        let got = loss(&s, k);
        assert!((got.log_loss - log_loss / n).abs() < 1e-12, "{got:?}");
        assert!((got.brier - brier / n).abs() < 1e-12, "{got:?}");
    }

    #[test]
    fn a_game_counts_once_in_the_interval() {
        // The same games with each position repeated 20 times: the same fit and the same
        // interval (a bootstrap over positions would shrink it by √20).
        let once = synthetic(700.0, 2000, 1, 5);
        let many = synthetic(700.0, 2000, 20, 5);
        let (k1, k20) = (fit(&once).unwrap(), fit(&many).unwrap());
        assert!((k1 - k20).abs() < 1e-6 * k1, "{k1} {k20}");
        let (lo1, hi1) = bootstrap(&once, k1, 100, 9).unwrap();
        let (lo20, hi20) = bootstrap(&many, k20, 100, 9).unwrap();
        let ratio = (hi20 - lo20) / (hi1 - lo1);
        assert!((0.999..1.001).contains(&ratio), "{ratio}");
        assert!(lo1 < k1 && k1 < hi1, "{lo1} {k1} {hi1}");
    }

    #[test]
    fn bins_hold_equal_shares_in_score_order() {
        let s = synthetic(600.0, 1000, 3, 1);
        let b = bins(&s, 10);
        assert_eq!(b.len(), 10);
        assert_eq!(b.iter().map(|b| b.positions).sum::<usize>(), 3000);
        assert!(b.windows(2).all(|w| w[0].cp_max <= w[1].cp_min));
        assert!(b[0].score < 0.2 && b[9].score > 0.8, "{b:?}");
        // About 100 games a bin (3 positions each): the interval of a proportion of ~100 draws,
        // not of 300.
        let middle = &b[5];
        let p = middle.score;
        let per_game = 1.96 * (p * (1.0 - p) / 100.0).sqrt();
        assert!(
            middle.error > 0.7 * per_game && middle.error < 1.3 * per_game,
            "{middle:?} {per_game}"
        );
    }

    #[test]
    fn scores_that_predict_nothing_are_refused() {
        let mut s = Samples::new();
        for (cp, y) in [(100, 0.0), (-100, 1.0), (50, 0.5)] {
            s.begin_game();
            s.push(cp, y);
        }
        assert_eq!(fit(&s), Err(NoFit::Flat));
        let mut s = Samples::new();
        for (cp, y) in [(100, 1.0), (-100, 0.0)] {
            s.begin_game();
            s.push(cp, y);
        }
        assert_eq!(fit(&s), Err(NoFit::Separated));
        // Steep enough for every P to round to 0 or 1 on the way: still separated, not fitted.
        let mut s = Samples::new();
        for (cp, y) in [(3000, 1.0), (-2500, 0.0), (4000, 1.0)] {
            s.begin_game();
            s.push(cp, y);
        }
        assert_eq!(fit(&s), Err(NoFit::Separated));
        assert_eq!(fit(&Samples::new()), Err(NoFit::NoPositions));
    }
}
