//! The objective of real runs: a match between two copies of the engine, one playing each
//! side's values, through the match runner — game pairs with colours swapped, refereed by the
//! rules. Each side's values go to its engine as a parameters file (`<dir>/<name>.params`,
//! rounded values, fixed ones included) through the USI option `ParamsFile` (or
//! `ClassicalFile` for the classical evaluator's numbers): the same way a tuned file is used
//! afterwards.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::space::Space;
use super::{Objective, Outcome};
use crate::fileio;
use crate::matches::openings::Opening;
use crate::matches::referee::RefereeSettings;
use crate::matches::{GameSummary, MatchConfig, run_match_with};
use crate::usi_client::{EngineSpec, TimeControl};

/// What limits each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// `go … nodes N`, with a time a move as a bound for a runaway search.
    Nodes { nodes: u64, bound: Duration },
    /// A fixed time a move.
    MoveTime(Duration),
}

impl MoveLimit {
    pub fn describe(&self) -> String {
        match self {
            MoveLimit::Nodes { nodes, bound } => {
                format!("nodes {nodes} (bound {} s)", bound.as_secs_f64())
            }
            MoveLimit::MoveTime(t) => format!("movetime {} ms", t.as_millis()),
        }
    }
}

/// Plays matches of `games` games (game pairs) for the tuners.
pub struct MatchPlay<'a> {
    pub space: &'a Space,
    /// The engine's command and the options both sides get (besides the parameters).
    pub engine: EngineSpec,
    pub limit: MoveLimit,
    /// Played from in turn: comparison `round` starts `round · pairs` openings further on.
    pub openings: Vec<Opening>,
    /// Games a comparison (even).
    pub games: usize,
    pub concurrency: usize,
    /// Ply limit, time margin and start-up timeout (the time control comes from `limit`).
    pub referee: RefereeSettings,
    /// Where the sides' parameters files are written.
    pub params_dir: PathBuf,
    /// The USI option that gives an engine its file (`Target::file_option`).
    pub file_option: &'static str,
    /// Told of every finished game.
    pub on_game: &'a mut dyn FnMut(&GameSummary),
}

impl MatchPlay<'_> {
    /// The parameters file of a side named `name`.
    pub fn params_path(&self, name: &str) -> PathBuf {
        self.params_dir.join(format!("{name}.params"))
    }

    /// The match between the sides whose parameters files are `files` for comparison `round`.
    pub fn config(&self, files: [&Path; 2], names: [&str; 2], round: usize) -> MatchConfig {
        let pairs = (self.games / 2).max(1);
        let n = self.openings.len().max(1);
        let offset = round.wrapping_mul(pairs) % n;
        let openings = (0..self.openings.len())
            .map(|i| self.openings[(offset + i) % n].clone())
            .collect();
        let spec = |file: &Path, name: &str| {
            let mut spec = self.engine.clone();
            spec.name = name.to_string();
            // First: the file sets every parameter (the defaults, then its values), so that
            // options given after it (`--engine-option`) still count.
            spec.options.insert(
                0,
                (self.file_option.to_string(), file.display().to_string()),
            );
            if let MoveLimit::Nodes { nodes, .. } = self.limit {
                spec.go_limits.push(("nodes".to_string(), nodes));
            }
            spec
        };
        let mut referee = self.referee.clone();
        referee.time_control = TimeControl::MoveTime(match self.limit {
            MoveLimit::Nodes { bound, .. } => bound,
            MoveLimit::MoveTime(t) => t,
        });
        MatchConfig {
            engines: [spec(files[0], names[0]), spec(files[1], names[1])],
            openings,
            pairs,
            concurrency: self.concurrency,
            referee,
            sprt: None,
            out_dir: None,
            progress: false,
            // The tuner names both sides itself (θ+ / θ−, particle / base).
            id_names: [false, false],
        }
    }
}

impl Objective for MatchPlay<'_> {
    fn play(
        &mut self,
        a: &[f64],
        b: &[f64],
        names: [&str; 2],
        round: usize,
    ) -> Result<Outcome, String> {
        let paths = names.map(|name| self.params_path(name));
        for (path, (x, name)) in paths.iter().zip([(a, names[0]), (b, names[1])]) {
            let text = self
                .space
                .params_file(x, &format!("engine tune: {name}, comparison {round}"));
            fileio::create_parent_dir(path).map_err(|e| e.to_string())?;
            fileio::write_atomic(path, text.as_bytes()).map_err(|e| format!("cannot write {e}"))?;
        }
        let config = self.config([&paths[0], &paths[1]], names, round);
        let summary = run_match_with(&config, self.on_game).map_err(|e| e.to_string())?;
        Ok(Outcome {
            wins: summary.wins,
            losses: summary.losses,
            draws: summary.draws,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::openings::default_openings;

    #[test]
    fn each_side_gets_its_file_and_rounds_rotate_the_openings() {
        let space = Space::from_text("rfp_margin 100 0 200 10\nlmr_divisor_centi 240\n").unwrap();
        let openings = default_openings();
        let mut ignore = |_: &GameSummary| {};
        let play = MatchPlay {
            space: &space,
            engine: EngineSpec {
                name: String::new(),
                command: "self usi".to_string(),
                options: vec![("USI_Hash".to_string(), "16".to_string())],
                go_limits: Vec::new(),
                movetime_go: false,
                swap_clocks: false,
                time_control: None,
            },
            limit: MoveLimit::Nodes {
                nodes: 500,
                bound: Duration::from_secs(5),
            },
            openings: openings.clone(),
            games: 4,
            concurrency: 1,
            referee: RefereeSettings {
                time_control: TimeControl::MoveTime(Duration::from_secs(1)),
                max_plies: Some(300),
                time_margin: Duration::from_millis(100),
                startup_timeout: Duration::from_secs(10),
            },
            params_dir: PathBuf::from("out/play"),
            file_option: "ParamsFile",
            on_game: &mut ignore,
        };
        let files = [Path::new("out/play/plus.params"), Path::new("b.params")];
        assert_eq!(play.params_path("plus"), files[0]);
        let config = play.config(files, ["plus", "minus"], 3);
        assert_eq!(config.pairs, 2);
        let [one, two] = &config.engines;
        assert_eq!(one.name, "plus");
        let option = |spec: &EngineSpec, name: &str| {
            spec.options
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            option(one, "ParamsFile").as_deref(),
            Some("out/play/plus.params")
        );
        assert_eq!(option(two, "ParamsFile").as_deref(), Some("b.params"));
        assert_eq!(two.options[0].0, "ParamsFile");
        assert_eq!(option(two, "USI_Hash").as_deref(), Some("16"));
        assert_eq!(one.go_limits, [("nodes".to_string(), 500)]);
        assert_eq!(
            config.referee.time_control,
            TimeControl::MoveTime(Duration::from_secs(5))
        );
        // Round 3 with 2 pairs a round starts at opening 6.
        assert_eq!(config.openings[0], openings[6]);
        assert_eq!(config.openings.len(), openings.len());
    }
}
