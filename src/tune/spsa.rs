//! SPSA (simultaneous perturbation stochastic approximation) as chess engines tune with it
//! (Fishtest): every step perturbs all parameters at once by ±c_k·Δ (Δ_i = ±1 at random),
//! plays θ+ = θ + c_k·Δ against θ− = θ − c_k·Δ, and moves θ along the estimated gradient of
//! the score: θ_i += a_k,i · (W − L) / (2 c_k,i Δ_i), where W − L is θ+'s wins minus losses
//! (its points minus θ−'s). Gains decay as a_k = a / (A + k + 1)^α and c_k = c / (k + 1)^γ
//! (k = 0, 1, …, N − 1 for a run of N steps).
//!
//! Per parameter, its `step` is the perturbation at the last step, c_end: c = c_end · N^γ.
//! The learning rate is set by r_end, Fishtest's a_end / c_end² (a_end = a_{N−1}):
//! a = 2 · r_end · c_end² · (A + N)^α, so that a step is Fishtest's θ += r_k c_k (W − L) Δ
//! with r_k = a_k / (2 c_k²). Values are kept as reals and clamped to their ranges; the match
//! rounds them when it plays them.

use serde::{Deserialize, Serialize};

use super::rng::Rng;
use super::space::Space;
use super::{Objective, Outcome};

/// How much better θ+ did than θ− ([`SpsaState::step_compared`]).
pub type Comparison<'a> = dyn FnMut(&[f64], &[f64]) -> Result<f64, String> + 'a;

/// SPSA's constants (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaConfig {
    /// Steps in the run, N: the gains decay towards their end values at the last one.
    pub steps: usize,
    /// Decay of a_k (0.602, as Spall and Fishtest).
    pub alpha: f64,
    /// Decay of c_k (0.101).
    pub gamma: f64,
    /// A as a share of N (Fishtest: 0.1).
    pub a_ratio: f64,
    /// The learning rate at the end, a_end / c_end² (Fishtest's default 0.002).
    pub r_end: f64,
}

impl SpsaConfig {
    pub const ALPHA: f64 = 0.602;
    pub const GAMMA: f64 = 0.101;
    pub const A_RATIO: f64 = 0.1;
    pub const R_END: f64 = 0.002;

    fn big_a(&self) -> f64 {
        self.a_ratio * self.steps as f64
    }

    /// c_k of a parameter whose step (c_end) is `c_end`, at step `k` (from 0).
    pub fn c_k(&self, c_end: f64, k: usize) -> f64 {
        c_end * (self.steps as f64).powf(self.gamma) / ((k + 1) as f64).powf(self.gamma)
    }

    /// a_k of a parameter whose step (c_end) is `c_end`, at step `k` (from 0).
    pub fn a_k(&self, c_end: f64, k: usize) -> f64 {
        let a =
            2.0 * self.r_end * c_end * c_end * (self.big_a() + self.steps as f64).powf(self.alpha);
        a / (self.big_a() + (k + 1) as f64).powf(self.alpha)
    }

    /// Checks the constants.
    pub fn validate(&self) -> Result<(), String> {
        if self.steps == 0 {
            return Err("--steps must be at least 1".to_string());
        }
        for (name, x) in [
            ("--spsa-alpha", self.alpha),
            ("--spsa-gamma", self.gamma),
            ("--spsa-a-ratio", self.a_ratio),
        ] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(format!("{name} {x} must be a number ≥ 0"));
            }
        }
        if !(self.r_end.is_finite() && self.r_end > 0.0) {
            return Err(format!("--spsa-r-end {} must be positive", self.r_end));
        }
        Ok(())
    }
}

/// Where SPSA stands: θ.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaState {
    pub theta: Vec<f64>,
}

/// What one step played and found.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaStep {
    pub plus: Vec<f64>,
    pub minus: Vec<f64>,
    /// θ+'s results against θ−.
    pub outcome: Outcome,
}

impl SpsaState {
    pub fn new(space: &Space) -> SpsaState {
        SpsaState {
            theta: space.start(),
        }
    }

    /// Step `k` (from 0): draws Δ, plays θ+ against θ− and moves θ.
    pub fn step(
        &mut self,
        config: &SpsaConfig,
        space: &Space,
        k: usize,
        rng: &mut Rng,
        objective: &mut dyn Objective,
    ) -> Result<SpsaStep, String> {
        let mut outcome = Outcome::default();
        let (plus, minus) = self.step_compared(config, space, k, rng, &mut |plus, minus| {
            outcome = objective.play(plus, minus, ["theta+", "theta-"], k)?;
            Ok(outcome.wins as f64 - outcome.losses as f64)
        })?;
        Ok(SpsaStep {
            plus,
            minus,
            outcome,
        })
    }

    /// Step `k` with any comparison of θ+ and θ−: `compare` returns how much better θ+ did,
    /// in the units of a match's wins minus losses (`tune::texel` scales a loss difference).
    /// Returns θ+ and θ−.
    pub fn step_compared(
        &mut self,
        config: &SpsaConfig,
        space: &Space,
        k: usize,
        rng: &mut Rng,
        compare: &mut Comparison<'_>,
    ) -> Result<(Vec<f64>, Vec<f64>), String> {
        let delta: Vec<f64> = (0..space.dims()).map(|_| rng.sign()).collect();
        let c: Vec<f64> = space.tuned.iter().map(|t| config.c_k(t.step, k)).collect();
        let shifted = |sign: f64| -> Vec<f64> {
            let x: Vec<f64> = (0..space.dims())
                .map(|i| self.theta[i] + sign * c[i] * delta[i])
                .collect();
            space.clamp(&x)
        };
        let (plus, minus) = (shifted(1.0), shifted(-1.0));
        let diff = compare(&plus, &minus)?;
        let moved: Vec<f64> = space
            .tuned
            .iter()
            .enumerate()
            .map(|(i, t)| self.theta[i] + config.a_k(t.step, k) * diff / (2.0 * c[i] * delta[i]))
            .collect();
        self.theta = space.clamp(&moved);
        Ok((plus, minus))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(steps: usize) -> SpsaConfig {
        SpsaConfig {
            steps,
            alpha: SpsaConfig::ALPHA,
            gamma: SpsaConfig::GAMMA,
            a_ratio: SpsaConfig::A_RATIO,
            r_end: SpsaConfig::R_END,
        }
    }

    #[test]
    fn gains_reach_their_end_values_at_the_last_step() {
        let c = config(200);
        assert!((c.c_k(10.0, 199) - 10.0).abs() < 1e-9);
        assert!(c.c_k(10.0, 0) > c.c_k(10.0, 100));
        // r_end = a_end / (2 c_end²) in this module's convention (Fishtest's a_end / c_end²
        // with its update written without the gradient's 1/2).
        let a_end = c.a_k(10.0, 199);
        assert!((a_end / (2.0 * 100.0) - SpsaConfig::R_END).abs() < 1e-12);
        assert!(c.a_k(10.0, 0) > a_end);
        assert!(c.validate().is_ok());
        assert!(config(0).validate().is_err());
        assert!(
            SpsaConfig {
                r_end: 0.0,
                ..config(5)
            }
            .validate()
            .is_err()
        );
    }

    struct Fixed(Outcome, Vec<(Vec<f64>, Vec<f64>)>);

    impl Objective for Fixed {
        fn play(
            &mut self,
            a: &[f64],
            b: &[f64],
            _: [&str; 2],
            _: usize,
        ) -> Result<Outcome, String> {
            self.1.push((a.to_vec(), b.to_vec()));
            Ok(self.0)
        }
    }

    #[test]
    fn a_step_moves_theta_towards_the_winner_by_the_formula() {
        let space =
            Space::from_text("rfp_margin 100 0 1000 10\nfutility_margin 50 0 55 20\n").unwrap();
        let c = config(10);
        let mut state = SpsaState::new(&space);
        let mut rng = Rng::new(3);
        let outcome = Outcome {
            wins: 6,
            losses: 2,
            draws: 2,
        };
        let mut objective = Fixed(outcome, Vec::new());
        let step = state.step(&c, &space, 0, &mut rng, &mut objective).unwrap();
        let (plus, minus) = &objective.1[0];
        assert_eq!((&step.plus, &step.minus), (plus, minus));
        let ck = c.c_k(10.0, 0);
        // rfp_margin: θ+ − θ = ±c_k, and θ moves towards θ+ by a_k·4/(2c_k).
        let sign = (plus[0] - 100.0).signum();
        assert!(((plus[0] - 100.0).abs() - ck).abs() < 1e-9);
        assert!((plus[0] + minus[0] - 200.0).abs() < 1e-9);
        let expected = 100.0 + sign * c.a_k(10.0, 0) * 4.0 / (2.0 * ck);
        assert!(
            (state.theta[0] - expected).abs() < 1e-9,
            "{}",
            state.theta[0]
        );
        // futility_margin: perturbations and θ stay within 0..=55.
        assert!(plus[1] <= 55.0 && minus[1] <= 55.0 && state.theta[1] <= 55.0);
        assert!(plus[1] == 55.0 || minus[1] == 55.0);
    }
}
