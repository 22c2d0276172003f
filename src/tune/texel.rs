//! Texel's method, the fast fitness of the classical evaluator: the mean squared difference
//! between the evaluation's win probability and a target, over quiet datagen positions,
//!
//! loss(θ) = mean over positions of (σ(eval_θ(pos) / 600) − t)²,
//! t = λ · result + (1 − λ) · σ(search score / 600),
//!
//! with σ the logistic function of the project's scale (`eval::probability_from_cp`), the
//! result the game's (1, ½, 0 for the side to move) and the score the search's at datagen.
//! Quiet positions only: not in check, the best move no capture, no mate score — so the static
//! evaluation is asked only where a quiescence search would not change it much.
//!
//! The evaluation is linear in its parameters (`eval::classical::features`), so each position
//! is stored once as a sparse row and a loss is a sparse product per position: a swarm of
//! thousands of evaluations over 100,000s of positions runs in minutes. The swarm and SPSA are
//! those of the games (`pso`, `spsa`), with minus the loss as the fitness.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::args::{Method, Target, TuneArgs};
use super::pso::{PsoConfig, Swarm};
use super::rng::Rng;
use super::space::Space;
use super::spsa::{SpsaConfig, SpsaState};
use crate::eval::classical::{self, params};
use crate::eval::{CP_PER_LOGIT, ClassicalParams, EVAL_LIMIT, probability_from_cp};
use crate::fileio;
use crate::plot::{Colour, Figure, Numbers, Panel, Point, Series};
use crate::search::eval_params;
use crate::shogi::Position;
use crate::train::datagen::format::read_shard;
use crate::train::learn::shard_files;

/// The tuned parameters file in `--out`.
pub const PARAMS_FILE: &str = "tuned.params";
/// The fitness curve: one row per evaluation.
pub const CSV_FILE: &str = "texel.csv";
/// Its plot.
pub const PLOT_FILE: &str = "texel.svg";

/// Positions as sparse rows of the evaluation's linear form, with their targets.
#[derive(Clone, Debug, Default)]
pub struct TexelData {
    /// Row `i` is `entries[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    entries: Vec<(u16, i8)>,
    targets: Vec<f32>,
}

impl TexelData {
    pub fn new() -> TexelData {
        TexelData {
            starts: vec![0],
            ..TexelData::default()
        }
    }

    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Adds a position with its target (a win probability for the side to move).
    pub fn push(&mut self, pos: &Position, target: f32, scratch: &mut Vec<(u16, i8)>) {
        classical::features(pos, scratch);
        self.entries.extend_from_slice(scratch);
        self.starts.push(self.entries.len() as u32);
        self.targets.push(target);
    }

    /// The quiet positions of datagen shards (files or folders), with targets mixing the
    /// game's result (weight `lambda`) and the search's score; at most `max` of them.
    pub fn load(paths: &[PathBuf], lambda: f64, max: Option<usize>) -> Result<TexelData, String> {
        let mut data = TexelData::new();
        let mut scratch = Vec::new();
        let limit = max.unwrap_or(usize::MAX);
        for file in shard_files(paths)? {
            let shard = read_shard(&file).map_err(|e| e.to_string())?;
            for game in &shard.games {
                for record in &game.positions {
                    if data.len() >= limit {
                        return Ok(data);
                    }
                    if record.in_check || record.best_is_capture || record.is_mate_score() {
                        continue;
                    }
                    let Some(pos) = record.position.unpack() else {
                        return Err(format!("{}: a position does not unpack", file.display()));
                    };
                    let result = f64::from(game.result_for(record));
                    let score = f64::from(probability_from_cp(record.score as f32));
                    let target = lambda * result + (1.0 - lambda) * score;
                    data.push(&pos, target as f32, &mut scratch);
                }
            }
        }
        Ok(data)
    }

    /// The loss of the parameters `values` (all of them, in `ClassicalParams::values` order).
    pub fn loss(&self, values: &[f64]) -> f64 {
        assert_eq!(values.len(), params::COUNT);
        let sum: f64 = (0..self.len())
            .into_par_iter()
            .with_min_len(4096)
            .map(|i| {
                let row = &self.entries[self.starts[i] as usize..self.starts[i + 1] as usize];
                let eval: f64 = row
                    .iter()
                    .map(|&(j, c)| f64::from(c) * values[usize::from(j)])
                    .sum();
                let limit = f64::from(EVAL_LIMIT);
                // The search's scale, as `probability_from_cp` (in f64: the sum runs over 100,000s).
                let p = 1.0 / (1.0 + (-eval.clamp(-limit, limit) / f64::from(CP_PER_LOGIT)).exp());
                let d = p - f64::from(self.targets[i]);
                d * d
            })
            .sum();
        sum / self.len().max(1) as f64
    }
}

/// The full parameter vector of a point of a classical space: the untuned values, the file's
/// fixed ones, and the point's tuned ones.
pub struct Embedding {
    base: Vec<f64>,
    slots: Vec<usize>,
}

impl Embedding {
    pub fn new(space: &Space) -> Embedding {
        let index = |name: &str| {
            eval_params::index_of(name).expect("the space's names are classical parameters")
        };
        let mut base: Vec<f64> = ClassicalParams::untuned()
            .values
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        for &(name, v) in &space.fixed {
            base[index(name)] = v;
        }
        Embedding {
            base,
            slots: space.tuned.iter().map(|t| index(t.name)).collect(),
        }
    }

    pub fn full(&self, x: &[f64]) -> Vec<f64> {
        let mut v = self.base.clone();
        for (&slot, &value) in self.slots.iter().zip(x) {
            v[slot] = value;
        }
        v
    }
}

/// One evaluation of the run, as the CSV shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub evaluation: usize,
    pub iteration: usize,
    /// PSO: the particle; SPSA: `None`.
    pub particle: Option<usize>,
    /// The loss of what was evaluated (PSO: the particle; SPSA: θ after the step).
    pub loss: f64,
    /// The best loss so far (PSO: the global best; SPSA: the lowest θ loss).
    pub best_loss: f64,
    pub elapsed_s: f64,
}

pub fn csv(rows: &[Row]) -> String {
    let mut s = "evaluation,iteration,particle,loss,best_loss,elapsed_s\n".to_string();
    for r in rows {
        let particle = r.particle.map_or(String::new(), |p| p.to_string());
        let _ = writeln!(
            s,
            "{},{},{particle},{:.7},{:.7},{:.2}",
            r.evaluation, r.iteration, r.loss, r.best_loss, r.elapsed_s
        );
    }
    s
}

/// The fitness curve: the best loss by evaluation (a line, drawn where it changes) and each
/// evaluation's loss (dots: at most about [`MAX_DOTS`] of them, evenly spaced; those above 1.5 ×
/// the start loss, a swarm's first random particles, are left out).
pub fn figure(method: &str, start_loss: f64, rows: &[Row]) -> Figure {
    let mut panel = Panel::new("evaluation", "loss (mean squared error of win probability)");
    panel.x_numbers = Numbers::Whole;
    let cap = start_loss * 1.5;
    let stride = rows.len().div_ceil(MAX_DOTS).max(1);
    let dots = rows
        .iter()
        .step_by(stride)
        .filter(|r| r.loss <= cap)
        .map(|r| Point::new(r.evaluation as f64, r.loss))
        .collect();
    let mut best = vec![Point::new(0.0, start_loss)];
    for (i, r) in rows.iter().enumerate() {
        let changed = i == 0 || r.best_loss != rows[i - 1].best_loss;
        if changed || i + 1 == rows.len() {
            best.push(Point::new(r.evaluation as f64, r.best_loss));
        }
    }
    panel
        .series
        .push(Series::new("loss of the evaluation", Colour::GREY, dots).markers());
    panel
        .series
        .push(Series::new("best loss", Colour::nth(0), best).line());
    panel.reference_y = Some(start_loss);
    Figure::new(
        format!("engine tune --texel ({method}): the fitness curve"),
        vec![panel],
    )
}

/// The most dots [`figure`] draws.
pub const MAX_DOTS: usize = 1000;

fn write(out: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    fileio::write_atomic(&out.join(name), bytes).map_err(|e| format!("cannot write {e}"))
}

/// `engine tune --texel`: tunes a classical parameters file by the loss, with `--method`'s
/// swarm or SPSA for `--steps` evaluations (PSO) or steps (SPSA); writes the tuned file, the
/// CSV and the plot to `--out`, and prints a summary.
pub fn run(args: &TuneArgs) -> Result<(), String> {
    if !(0.0..=1.0).contains(&args.texel_lambda) {
        return Err(format!(
            "--texel-lambda {} must be within 0..=1",
            args.texel_lambda
        ));
    }
    if args.steps == 0 {
        return Err("--steps must be at least 1".to_string());
    }
    let text = fileio::read_regular_to_string(&args.params)
        .map_err(|e| format!("cannot read --params {e}"))?;
    let space = Target::Classical
        .space(&text)
        .map_err(|e| format!("{}: {e}", args.params.display()))?;
    let pso = PsoConfig {
        particles: args.pso_particles,
        inertia: args.pso_inertia,
        c1: args.pso_c1,
        c2: args.pso_c2,
    };
    let spsa = SpsaConfig {
        steps: args.steps,
        alpha: args.spsa_alpha,
        gamma: args.spsa_gamma,
        a_ratio: args.spsa_a_ratio,
        r_end: args.spsa_r_end,
    };
    match args.method {
        Method::Pso => pso.validate()?,
        Method::Spsa => spsa.validate()?,
    }
    let started = Instant::now();
    let data = TexelData::load(&args.texel, args.texel_lambda, args.texel_max_positions)?;
    if data.is_empty() {
        return Err("--texel: no quiet position in the shards".to_string());
    }
    eprintln!(
        "tune: {} quiet positions loaded in {:.1} s",
        data.len(),
        started.elapsed().as_secs_f64()
    );
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create --out {}: {e}", args.out.display()))?;
    let embed = Embedding::new(&space);
    let loss = |x: &[f64]| data.loss(&embed.full(x));
    let start_loss = loss(&space.start());
    let mut rng = Rng::new(args.seed);
    let mut rows: Vec<Row> = Vec::new();
    let clock = Instant::now();
    let answer = match args.method {
        Method::Pso => {
            let mut swarm = Swarm::new(&pso, &space, &mut rng);
            for evaluation in 1..=args.steps {
                let iteration = swarm.iteration;
                let mut evaluated = 0.0;
                let (particle, _) = swarm.step_scored(&pso, &space, &mut rng, &mut |x, _| {
                    evaluated = loss(x);
                    Ok(-evaluated)
                })?;
                let best = -swarm.best_score.expect("a particle was scored");
                rows.push(Row {
                    evaluation,
                    iteration,
                    particle: Some(particle),
                    loss: evaluated,
                    best_loss: best,
                    elapsed_s: clock.elapsed().as_secs_f64(),
                });
                if !args.quiet && swarm.next == 0 {
                    eprintln!(
                        "tune: iteration {} ({evaluation} evaluations): best loss {best:.6} \
                         (start {start_loss:.6})",
                        swarm.iteration
                    );
                }
            }
            swarm.best_x
        }
        Method::Spsa => {
            let mut state = SpsaState::new(&space);
            let mut best = start_loss;
            for k in 0..args.steps {
                let base = loss(&state.theta);
                state.step_compared(&spsa, &space, k, &mut rng, &mut |plus, minus| {
                    Ok((loss(minus) - loss(plus)) / base * args.texel_spsa_gain)
                })?;
                let now = loss(&state.theta);
                best = best.min(now);
                rows.push(Row {
                    evaluation: 3 * (k + 1),
                    iteration: k,
                    particle: None,
                    loss: now,
                    best_loss: best,
                    elapsed_s: clock.elapsed().as_secs_f64(),
                });
                if !args.quiet && (k + 1) % 50 == 0 {
                    eprintln!(
                        "tune: step {}: loss {now:.6} (start {start_loss:.6})",
                        k + 1
                    );
                }
            }
            state.theta
        }
    };
    let final_loss = loss(&answer);
    let header = format!(
        "engine tune --texel --method {}: {} {}, {} quiet positions (λ {}), loss {:.6} → \
         {:.6}; the values the evaluator plays, the tuner's exact ones in the comments",
        args.method.name(),
        args.steps,
        if args.method == Method::Pso {
            "evaluations"
        } else {
            "steps"
        },
        data.len(),
        args.texel_lambda,
        start_loss,
        final_loss
    );
    write(
        &args.out,
        PARAMS_FILE,
        space.params_file(&answer, &header).as_bytes(),
    )?;
    write(&args.out, CSV_FILE, csv(&rows).as_bytes())?;
    let svg = figure(args.method.name(), start_loss, &rows).svg()?;
    write(&args.out, PLOT_FILE, svg.as_bytes())?;
    println!(
        "engine tune --texel --method {}: loss {start_loss:.6} → {final_loss:.6} over {} \
         positions in {:.1} s; tuned: {} (USI option ClassicalFile, with Evaluator \
         classical); curve: {}, {}",
        args.method.name(),
        data.len(),
        clock.elapsed().as_secs_f64(),
        args.out.join(PARAMS_FILE).display(),
        args.out.join(CSV_FILE).display(),
        args.out.join(PLOT_FILE).display()
    );
    Ok(())
}

#[cfg(test)]
mod tests;
