//! The state file of a run: everything the rest of the run depends on, written atomically
//! after every step (`fileio::save`: magic, version, checksum, bincode), so that a run stopped
//! at any moment — `kill -9` included — continues from its last completed step. Reals are
//! stored bit for bit.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Objective;
use super::pso::{PsoConfig, Swarm};
use super::rng::Rng;
use super::space::Space;
use super::spsa::{SpsaConfig, SpsaState};
use crate::fileio::{self, FileError};

const MAGIC: &[u8; 8] = b"MSTUNEST";
const VERSION: u32 = 1;

/// The method's own state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum MethodState {
    Spsa(SpsaState),
    Pso(Swarm),
}

/// One completed step, as the CSV shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// 1-based.
    pub step: usize,
    /// SPSA: the step's k (from 0); PSO: the swarm's iteration (from 0).
    pub iteration: usize,
    /// PSO: the particle evaluated.
    pub particle: Option<usize>,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Points per game of the first side (SPSA: θ+ against θ−; PSO: the particle against the
    /// start values).
    pub score: f64,
    /// PSO: the global best's score after the step.
    pub best_score: Option<f64>,
    /// Seconds since the run began (over all its sessions).
    pub elapsed_s: f64,
    /// The run's answer after the step: SPSA's θ, PSO's global best.
    pub values: Vec<f64>,
    /// What the first side played: SPSA's θ+, PSO's particle.
    pub played: Vec<f64>,
}

/// The state after a completed step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneState {
    /// The options that decide the run's results, as `(name, value)`; a state of other
    /// settings is not resumed.
    pub settings: Vec<(String, String)>,
    /// Completed steps.
    pub step: usize,
    pub rng: Rng,
    pub method: MethodState,
    pub rows: Vec<Row>,
    /// Seconds spent so far, over all sessions.
    pub elapsed_s: f64,
}

impl TuneState {
    /// The run's current answer: SPSA's θ, PSO's global best.
    pub fn answer(&self) -> &[f64] {
        match &self.method {
            MethodState::Spsa(s) => &s.theta,
            MethodState::Pso(s) => &s.best_x,
        }
    }

    pub fn games(&self) -> u64 {
        self.rows.iter().map(|r| r.wins + r.losses + r.draws).sum()
    }

    /// Plays the next step by the state's method and records it: the method's state, the
    /// generator, the step count, the elapsed time (`clock()`: seconds since the run began,
    /// read once the step is over) and its row. On an error nothing changes.
    pub fn advance(
        &mut self,
        spsa: &SpsaConfig,
        pso: &PsoConfig,
        space: &Space,
        objective: &mut dyn Objective,
        clock: &dyn Fn() -> f64,
    ) -> Result<&Row, String> {
        let k = self.step;
        let mut rng = self.rng;
        let row = match &mut self.method {
            MethodState::Spsa(state) => {
                let mut next = state.clone();
                let s = next.step(spsa, space, k, &mut rng, objective)?;
                *state = next;
                Row {
                    step: k + 1,
                    iteration: k,
                    particle: None,
                    wins: s.outcome.wins,
                    losses: s.outcome.losses,
                    draws: s.outcome.draws,
                    score: s.outcome.score(),
                    best_score: None,
                    elapsed_s: 0.0,
                    values: state.theta.clone(),
                    played: s.plus,
                }
            }
            MethodState::Pso(swarm) => {
                let mut next = swarm.clone();
                let s = next.step(pso, space, &mut rng, objective)?;
                *swarm = next;
                Row {
                    step: k + 1,
                    iteration: s.iteration,
                    particle: Some(s.particle),
                    wins: s.outcome.wins,
                    losses: s.outcome.losses,
                    draws: s.outcome.draws,
                    score: s.outcome.score(),
                    best_score: swarm.best_score,
                    elapsed_s: 0.0,
                    values: swarm.best_x.clone(),
                    played: s.played,
                }
            }
        };
        self.rng = rng;
        self.step = k + 1;
        self.elapsed_s = clock();
        self.rows.push(Row {
            elapsed_s: self.elapsed_s,
            ..row
        });
        Ok(self.rows.last().expect("just pushed"))
    }
}

pub fn save(path: &Path, state: &TuneState) -> Result<(), FileError> {
    fileio::save(path, MAGIC, VERSION, state)
}

/// The state at `path`; `None` if there is no file.
pub fn load(path: &Path) -> Result<Option<TuneState>, FileError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => fileio::load(path, MAGIC, VERSION).map(Some),
    }
}
