//! `engine tune`'s command line: the method, what is tuned (`Target`), how it is measured.

use std::path::PathBuf;

use clap::ValueEnum;

use super::pso::PsoConfig;
use super::space::Space;
use super::spsa::SpsaConfig;
use crate::matches::cli::RefereeArgs;
use crate::search::eval_params as classical;

/// What a parameters file holds, and how an engine is given it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// The search's parameters (`ParamsFile`).
    Search,
    /// The classical evaluator's (`ClassicalFile`, with `Evaluator=classical`).
    Classical,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Search => "search",
            Target::Classical => "classical",
        }
    }

    /// The USI option that gives an engine the file.
    pub fn file_option(self) -> &'static str {
        match self {
            Target::Search => "ParamsFile",
            Target::Classical => "ClassicalFile",
        }
    }

    /// The options an engine needs besides the file.
    pub fn options(self) -> Vec<(String, String)> {
        match self {
            Target::Search => Vec::new(),
            Target::Classical => vec![("Evaluator".to_string(), "classical".to_string())],
        }
    }

    /// The tuning space of a parameters file's text of this target.
    pub fn space(self, text: &str) -> Result<Space, String> {
        match self {
            Target::Search => Space::from_text(text),
            Target::Classical => Space::from_text_with(text, classical::WHAT, classical::spec),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// Simultaneous perturbation stochastic approximation (Fishtest style).
    Spsa,
    /// Particle swarm optimisation (as in the seed).
    Pso,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Spsa => "spsa",
            Method::Pso => "pso",
        }
    }
}

/// Arguments of `engine tune`.
#[derive(clap::Args, Debug, Clone)]
pub struct TuneArgs {
    /// The tuning method.
    #[arg(long, value_enum)]
    pub method: Method,
    /// Parameters file: `name value min max step` for each tuned parameter, `name value` for
    /// a fixed one; `#` starts a comment. Search parameters, or the classical evaluator's with
    /// `--target classical` (e.g. weights/classical-untuned.params).
    #[arg(long, value_name = "FILE")]
    pub params: PathBuf,
    /// Steps in the run, each a match of --games-per-step games (SPSA: θ+ against θ−; PSO:
    /// one particle against the start values).
    #[arg(long)]
    pub steps: usize,
    /// Games a step (even: game pairs with colours swapped).
    #[arg(long, default_value_t = 16)]
    pub games_per_step: usize,
    /// What the parameters file tunes.
    #[arg(long, value_enum, default_value = "search")]
    pub target: Target,
    /// Tune by Texel's method on these datagen shards (files, or folders of `*.dgn`) instead
    /// of by games: the fitness is the logistic loss of the classical evaluation against the
    /// positions' results and search scores (`--target classical` implied). Steps are then
    /// evaluations of the loss (PSO: one particle; SPSA: θ+ and θ−).
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub texel: Vec<PathBuf>,
    /// Texel: the target's weight on the game's result; the rest on the search's score.
    #[arg(long, default_value_t = 0.5)]
    pub texel_lambda: f64,
    /// Texel: use at most this many positions (the first quiet ones of the shards).
    #[arg(long)]
    pub texel_max_positions: Option<usize>,
    /// Texel with SPSA: the loss difference θ− − θ+ (relative to θ's loss) times this is the
    /// step's "wins minus losses".
    #[arg(long, default_value_t = 2000.0)]
    pub texel_spsa_gain: f64,
    /// Nodes a move (`go … nodes N`).
    #[arg(
        long,
        conflicts_with = "movetime",
        required_unless_present_any = ["movetime", "texel"]
    )]
    pub nodes: Option<u64>,
    /// Time a move in milliseconds (instead of --nodes).
    #[arg(long, value_name = "MS")]
    pub movetime: Option<u64>,
    /// With --nodes: the time a move allowed as a bound, in seconds (the nodes should bind
    /// first).
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub node_time_bound: f64,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// State file (default: OUT/tune.state). Re-running with the same settings continues it.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Output folder: tuned.params, tune.csv, tune.svg (rewritten after every step).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Openings file, as for `engine match` (default: the built-in set).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// The engine's command line (both sides), as for `engine match`.
    #[arg(long, value_name = "COMMAND", default_value = "self usi")]
    pub engine: String,
    /// A USI option for both sides (repeatable), e.g. USI_Hash=16.
    #[arg(long = "engine-option", value_name = "NAME=VALUE")]
    pub engine_options: Vec<String>,
    #[command(flatten)]
    pub referee: RefereeArgs,
    /// Seed of the tuner's random numbers (SPSA's perturbations, PSO's swarm).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// SPSA: decay of the step size a_k.
    #[arg(long, default_value_t = SpsaConfig::ALPHA)]
    pub spsa_alpha: f64,
    /// SPSA: decay of the perturbation c_k.
    #[arg(long, default_value_t = SpsaConfig::GAMMA)]
    pub spsa_gamma: f64,
    /// SPSA: A as a share of --steps.
    #[arg(long, default_value_t = SpsaConfig::A_RATIO)]
    pub spsa_a_ratio: f64,
    /// SPSA: learning rate at the end, a_end / c_end² (Fishtest's r_end).
    #[arg(long, default_value_t = SpsaConfig::R_END)]
    pub spsa_r_end: f64,
    /// PSO: particles in the swarm.
    #[arg(long, default_value_t = PsoConfig::PARTICLES)]
    pub pso_particles: usize,
    /// PSO: inertia w.
    #[arg(long, default_value_t = PsoConfig::INERTIA)]
    pub pso_inertia: f64,
    /// PSO: pull towards the personal best, c1.
    #[arg(long, default_value_t = PsoConfig::C1)]
    pub pso_c1: f64,
    /// PSO: pull towards the global best, c2.
    #[arg(long, default_value_t = PsoConfig::C2)]
    pub pso_c2: f64,
    /// Start over even if the state file holds a run.
    #[arg(long)]
    pub restart: bool,
    /// No progress bar or progress lines.
    #[arg(long)]
    pub quiet: bool,
}
