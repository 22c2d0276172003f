//! Particle swarm optimisation as in the seed (`000_c715ea708a239036.txt`, which tunes an
//! Othello evaluation map with it): particles are parameter vectors with velocities; each
//! keeps the best vector it has been at (personal best) and the swarm the best of all (global
//! best). One step evaluates one particle: its fitness is its match score against the start
//! values (the parameters file's), with the games of one step. Once every particle of an
//! iteration has been evaluated, all move:
//!
//! v ← w·v + c1·r1·(pbest − x) + c2·r2·(gbest − x),  x ← clamp(x + v)
//!
//! with r1, r2 uniform in [0, 1) drawn per parameter (the seed: w·v + r1·(pbest − x) +
//! r2·(gbest − x), i.e. c1 = c2 = 1, our defaults). A particle stopped at the edge of a range
//! keeps its velocity, as in the seed. Particle 0 starts at the start values, the others
//! uniformly in the ranges (the seed draws them all at random); velocities start at 0.
//!
//! The answer is the global best. Its score is the best of noisy measurements, so it is an
//! optimistic estimate: confirm the result by a match.

use serde::{Deserialize, Serialize};

use super::rng::Rng;
use super::space::Space;
use super::{Objective, Outcome};

/// A fitness of a particle's values and index, higher is better ([`Swarm::step_scored`]).
pub type Fitness<'a> = dyn FnMut(&[f64], usize) -> Result<f64, String> + 'a;

/// The swarm's constants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PsoConfig {
    pub particles: usize,
    /// w: the share of its velocity a particle keeps.
    pub inertia: f64,
    /// c1: pull towards the personal best.
    pub c1: f64,
    /// c2: pull towards the global best.
    pub c2: f64,
}

impl PsoConfig {
    pub const PARTICLES: usize = 8;
    pub const INERTIA: f64 = 0.7;
    pub const C1: f64 = 1.0;
    pub const C2: f64 = 1.0;

    pub fn validate(&self) -> Result<(), String> {
        if self.particles < 2 {
            return Err(format!(
                "--pso-particles {} must be at least 2",
                self.particles
            ));
        }
        for (name, x) in [
            ("--pso-inertia", self.inertia),
            ("--pso-c1", self.c1),
            ("--pso-c2", self.c2),
        ] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(format!("{name} {x} must be a number ≥ 0"));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Particle {
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    pub best_x: Vec<f64>,
    /// `None` until the particle has been evaluated.
    pub best_score: Option<f64>,
}

/// The swarm between steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Swarm {
    pub particles: Vec<Particle>,
    /// The global best (the start values until a particle has been evaluated).
    pub best_x: Vec<f64>,
    pub best_score: Option<f64>,
    /// Completed iterations (moves of the whole swarm).
    pub iteration: usize,
    /// The particle the next step evaluates.
    pub next: usize,
}

/// What one step played and found.
#[derive(Clone, Debug, PartialEq)]
pub struct PsoStep {
    pub particle: usize,
    /// The iteration the evaluation belongs to (from 0).
    pub iteration: usize,
    pub played: Vec<f64>,
    /// The particle's results against the start values.
    pub outcome: Outcome,
}

impl Swarm {
    pub fn new(config: &PsoConfig, space: &Space, rng: &mut Rng) -> Swarm {
        let start = space.start();
        let particles = (0..config.particles)
            .map(|i| {
                let x: Vec<f64> = if i == 0 {
                    start.clone()
                } else {
                    space
                        .tuned
                        .iter()
                        .map(|t| rng.uniform(t.min, t.max))
                        .collect()
                };
                Particle {
                    v: vec![0.0; x.len()],
                    best_x: x.clone(),
                    x,
                    best_score: None,
                }
            })
            .collect();
        Swarm {
            particles,
            best_x: start,
            best_score: None,
            iteration: 0,
            next: 0,
        }
    }

    /// One step: evaluates the next particle against the start values; after the last particle
    /// of an iteration, moves the swarm.
    pub fn step(
        &mut self,
        config: &PsoConfig,
        space: &Space,
        rng: &mut Rng,
        objective: &mut dyn Objective,
    ) -> Result<PsoStep, String> {
        let start = space.start();
        let iteration = self.iteration;
        let mut outcome = Outcome::default();
        let (particle, played) = self.step_scored(config, space, rng, &mut |x, index| {
            let name = format!("particle-{index}");
            outcome = objective.play(x, &start, [&name, "start"], iteration)?;
            Ok(outcome.score())
        })?;
        Ok(PsoStep {
            particle,
            iteration,
            played,
            outcome,
        })
    }

    /// One step with any fitness (higher is better) of the next particle's values and index:
    /// a match's score, or minus a loss (`tune::texel`). Returns the particle and what it
    /// played.
    pub fn step_scored(
        &mut self,
        config: &PsoConfig,
        space: &Space,
        rng: &mut Rng,
        fitness: &mut Fitness<'_>,
    ) -> Result<(usize, Vec<f64>), String> {
        let index = self.next;
        let played = self.particles[index].x.clone();
        let score = fitness(&played, index)?;
        let particle = &mut self.particles[index];
        if particle.best_score.is_none_or(|best| score > best) {
            particle.best_score = Some(score);
            particle.best_x = played.clone();
        }
        if self.best_score.is_none_or(|best| score > best) {
            self.best_score = Some(score);
            self.best_x = played.clone();
        }
        self.next += 1;
        if self.next == self.particles.len() {
            self.move_particles(config, space, rng);
            self.next = 0;
            self.iteration += 1;
        }
        Ok((index, played))
    }

    fn move_particles(&mut self, config: &PsoConfig, space: &Space, rng: &mut Rng) {
        for p in &mut self.particles {
            for i in 0..p.x.len() {
                let (r1, r2) = (rng.unit(), rng.unit());
                p.v[i] = config.inertia * p.v[i]
                    + config.c1 * r1 * (p.best_x[i] - p.x[i])
                    + config.c2 * r2 * (self.best_x[i] - p.x[i]);
            }
            let moved: Vec<f64> = p.x.iter().zip(&p.v).map(|(x, v)| x + v).collect();
            p.x = space.clamp(&moved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores each particle by its first coordinate (higher wins more), recording the rounds.
    struct ByFirst(Vec<usize>);

    impl Objective for ByFirst {
        fn play(
            &mut self,
            a: &[f64],
            _: &[f64],
            _: [&str; 2],
            round: usize,
        ) -> Result<Outcome, String> {
            self.0.push(round);
            let wins = a[0].round() as u64;
            Ok(Outcome {
                wins,
                losses: 100 - wins,
                draws: 0,
            })
        }
    }

    #[test]
    fn bests_are_kept_and_the_swarm_moves_after_each_iteration() {
        let space = Space::from_text("rfp_margin 50 0 100 5\nfutility_margin 10 0 20 1\n").unwrap();
        let config = PsoConfig {
            particles: 3,
            inertia: 0.5,
            c1: 1.0,
            c2: 1.0,
        };
        let mut rng = Rng::new(11);
        let mut swarm = Swarm::new(&config, &space, &mut rng);
        assert_eq!(swarm.particles[0].x, [50.0, 10.0]);
        assert!(swarm.particles.iter().all(|p| p.v == [0.0, 0.0]));
        let before: Vec<Vec<f64>> = swarm.particles.iter().map(|p| p.x.clone()).collect();
        let mut objective = ByFirst(Vec::new());
        for (i, x) in before.iter().enumerate() {
            let step = swarm
                .step(&config, &space, &mut rng, &mut objective)
                .unwrap();
            assert_eq!((step.particle, step.iteration), (i, 0));
            assert_eq!(&step.played, x);
        }
        assert_eq!((swarm.iteration, swarm.next), (1, 0));
        let best = before
            .iter()
            .max_by(|a, b| a[0].round().total_cmp(&b[0].round()))
            .unwrap();
        assert_eq!(&swarm.best_x, best);
        assert_eq!(swarm.best_score, Some(best[0].round() / 100.0));
        for (p, x0) in swarm.particles.iter().zip(&before) {
            assert_eq!(&p.best_x, x0);
            // Each moved towards the global best (or stayed, being it).
            for i in 0..2 {
                let (to_best, moved) = (best[i] - x0[i], p.x[i] - x0[i]);
                assert!(to_best * moved >= 0.0, "{x0:?} → {:?}", p.x);
                assert!((0.0..=100.0).contains(&p.x[0]) && (0.0..=20.0).contains(&p.x[1]));
            }
        }
        swarm
            .step(&config, &space, &mut rng, &mut objective)
            .unwrap();
        assert_eq!(objective.0, [0, 0, 0, 1]);
        assert!(
            PsoConfig {
                particles: 1,
                ..config
            }
            .validate()
            .is_err()
        );
    }
}
