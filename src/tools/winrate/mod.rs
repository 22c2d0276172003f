//! `engine winrate`: how the search's score maps to the game's result, measured on datagen
//! shards (each position's score and its game's result, both for the side to move). Fits the
//! logistic `P = 1/(1 + e^(−cp/k))` by maximum likelihood ([`fit`]), with a bootstrap interval
//! over games, and scores it against the curves in use — the engine's two (the search's unit
//! `eval::CP_PER_LOGIT`, the result curve `eval::RESULT_CP_SCALE` this fit chose),
//! ShogiHome's, lishogi's and lichess's — by log-loss and Brier score;
//! the same fit per generation (the shards' folders) and per stretch of plies. Writes the
//! table to standard output, `--json` the report, `--plot` an SVG of the binned win rates under
//! the curves ([`figure`]); the report and its text: [`report`]. See docs/winrate.md.

pub mod figure;
pub mod fit;
pub mod report;

use std::path::{Path, PathBuf};

use crate::eval::{CP_PER_LOGIT, EVAL_LIMIT, RESULT_CP_SCALE};
use crate::fileio;
use crate::train::datagen::format::{self, Ending, GameRecord, Side};
use crate::train::learn::shard_files;
use fit::Samples;
use report::{CurveLoss, Decided, Fit, Games, PHASES, Report, known_curves, phase_name, text};

#[derive(clap::Args, Debug, Clone)]
pub struct WinrateArgs {
    /// Shard files, or folders whose `*.dgn` files are all read; each folder's shards are one
    /// generation in the per-generation fits.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Write the report as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Draw the win rate by score, the curves and the per-generation scales as SVG.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Bins of the plot's win rates, equal numbers of positions each.
    #[arg(long, default_value_t = 50)]
    pub bins: usize,
    /// Resamples of the games for each interval on k (0 = no intervals).
    #[arg(long, default_value_t = 200)]
    pub bootstrap: usize,
    /// Seed of the resampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Leave out positions whose |score| exceeds this (cp): to see whether the decided
    /// positions — games are adjudicated once |score| stays above 3000 — drive the fit.
    #[arg(long, value_name = "CP", default_value_t = EVAL_LIMIT)]
    pub max_cp: i32,
}

/// The positions read, all together and split.
struct Data {
    files: usize,
    games: Games,
    positions_read: usize,
    mates: Decided,
    verdicts: Decided,
    max_cp: i32,
    beyond_max_cp: usize,
    all: Samples,
    generations: Vec<(String, Samples)>,
    phases: Vec<Samples>,
}

/// The generation of a shard file: its folder's name.
fn generation_name(file: &Path) -> String {
    file.parent()
        .and_then(Path::file_name)
        .map_or_else(|| ".".to_string(), |n| n.to_string_lossy().into_owned())
}

fn phase_of(ply: u16) -> usize {
    PHASES
        .iter()
        .position(|&(lo, hi)| ply >= lo && ply < hi)
        .unwrap_or(PHASES.len() - 1)
}

impl Data {
    fn read(paths: &[PathBuf], max_cp: i32) -> Result<Data, String> {
        let mut data = Data {
            files: 0,
            games: Games::default(),
            positions_read: 0,
            mates: Decided::default(),
            verdicts: Decided::default(),
            max_cp,
            beyond_max_cp: 0,
            all: Samples::new(),
            generations: Vec::new(),
            phases: vec![Samples::new(); PHASES.len()],
        };
        for file in shard_files(paths)? {
            let shard = format::read_shard(&file).map_err(|e| e.to_string())?;
            if shard.torn_bytes > 0 {
                log::warn!(
                    "{}: {} bytes after the last whole game are ignored (a torn or corrupt \
                     record)",
                    file.display(),
                    shard.torn_bytes
                );
            }
            let name = generation_name(&file);
            let generation = match data.generations.iter().position(|(n, _)| *n == name) {
                Some(g) => g,
                None => {
                    data.generations.push((name, Samples::new()));
                    data.generations.len() - 1
                }
            };
            for game in &shard.games {
                data.add_game(game, generation);
            }
            data.files += 1;
        }
        data.mates.finish();
        data.verdicts.finish();
        Ok(data)
    }

    fn add_game(&mut self, game: &GameRecord, generation: usize) {
        match game.winner {
            Some(Side::Sente) => self.games.sente_wins += 1,
            Some(Side::Gote) => self.games.gote_wins += 1,
            None => self.games.draws += 1,
        }
        match game.ending {
            Ending::Rules => self.games.by_rules += 1,
            Ending::SearchMate => self.games.by_search_mate += 1,
            Ending::Score => self.games.by_score += 1,
            Ending::MaxPlies => self.games.by_max_plies += 1,
        }
        let sets = std::iter::once(&mut self.all)
            .chain(std::iter::once(&mut self.generations[generation].1))
            .chain(self.phases.iter_mut());
        sets.for_each(Samples::begin_game);
        for record in &game.positions {
            self.positions_read += 1;
            let result = game.result_for(record);
            if record.is_mate_score() {
                self.mates.add(record.score, result);
                continue;
            }
            // Beyond the evaluations' clamp lie repetition verdicts: decided, not evaluated.
            if record.score.abs() > EVAL_LIMIT {
                self.verdicts.add(record.score, result);
                continue;
            }
            if record.score.abs() > self.max_cp {
                self.beyond_max_cp += 1;
                continue;
            }
            let cp = i16::try_from(record.score).expect("evaluations are within EVAL_LIMIT");
            self.all.push(cp, result);
            self.generations[generation].1.push(cp, result);
            self.phases[phase_of(record.ply)].push(cp, result);
        }
        let sets = std::iter::once(&mut self.all)
            .chain(std::iter::once(&mut self.generations[generation].1))
            .chain(self.phases.iter_mut());
        sets.for_each(Samples::end_game);
    }
}

/// The fit on `samples`, with its interval when `resamples` is at least 2.
fn fit_set(name: &str, samples: &Samples, resamples: usize, seed: u64) -> Fit {
    let search = fit::loss(samples, f64::from(CP_PER_LOGIT));
    let result = fit::loss(samples, f64::from(RESULT_CP_SCALE));
    let k = match fit::fit(samples) {
        Ok(k) => Some(k),
        Err(fit::NoFit::NoPositions) => None,
        Err(e) => {
            log::warn!("{name}: no fit: {e}");
            None
        }
    };
    let k_interval = k
        .and_then(|k| fit::bootstrap(samples, k, resamples, seed))
        .map(|(lo, hi)| [lo, hi]);
    let loss = k.map(|k| fit::loss(samples, k));
    Fit {
        name: name.to_string(),
        games: samples.games(),
        positions: samples.len(),
        k,
        k_interval,
        log_loss: loss.map(|l| l.log_loss),
        brier: loss.map(|l| l.brier),
        search_scale_log_loss: search.log_loss,
        search_scale_brier: search.brier,
        result_curve_log_loss: result.log_loss,
        result_curve_brier: result.brier,
    }
}

fn progress(fit: &Fit) {
    let k = fit.k.map_or("none".to_string(), |k| format!("{k:.1}"));
    let interval = fit
        .k_interval
        .map_or(String::new(), |[lo, hi]| format!(" [{lo:.1}, {hi:.1}]"));
    eprintln!(
        "winrate: {}: {} positions, k = {k}{interval}",
        fit.name, fit.positions
    );
}

/// Reads the shards and fits the curves.
pub fn measure(args: &WinrateArgs) -> Result<Report, String> {
    let data = Data::read(&args.data, args.max_cp)?;
    eprintln!(
        "winrate: {} files, {} games, {} positions; {} fitted ({} mate scores, {} repetition \
         verdicts, {} beyond --max-cp left out)",
        data.files,
        data.games.sente_wins + data.games.gote_wins + data.games.draws,
        data.positions_read,
        data.all.len(),
        data.mates.positions,
        data.verdicts.positions,
        data.beyond_max_cp
    );
    if data.all.is_empty() {
        return Err(format!(
            "--data: no position with an evaluated score in {} shard files",
            data.files
        ));
    }
    // No curve for the whole is an error; for a part of it, a row without k.
    let k = fit::fit(&data.all).map_err(|e| format!("--data: no fit: {e}"))?;
    let all = fit_set("all", &data.all, args.bootstrap, args.seed);
    progress(&all);
    let mut curves = vec![curve_loss(
        "fit",
        "1/(1+e^(-cp/k)), k fitted",
        Some(k),
        &data,
    )];
    for c in known_curves() {
        curves.push(curve_loss(c.name, c.formula, Some(c.k), &data));
    }
    curves.push(curve_loss("coin", "1/2", None, &data));
    let mut generations = Vec::new();
    if data.generations.len() > 1 {
        for (name, samples) in &data.generations {
            let fit = fit_set(name, samples, args.bootstrap, args.seed);
            progress(&fit);
            generations.push(fit);
        }
    }
    let mut phases = Vec::new();
    for (range, samples) in PHASES.iter().zip(&data.phases) {
        let fit = fit_set(&phase_name(range), samples, args.bootstrap, args.seed);
        progress(&fit);
        phases.push(fit);
    }
    Ok(Report {
        data: args.data.clone(),
        files: data.files,
        games: data.games,
        positions_read: data.positions_read,
        mate_scores: data.mates,
        repetition_verdicts: data.verdicts,
        max_cp: data.max_cp,
        beyond_max_cp: data.beyond_max_cp,
        bootstrap_resamples: args.bootstrap,
        seed: args.seed,
        bins: fit::bins(&data.all, args.bins),
        fit: all,
        curves,
        generations,
        phases,
    })
}

fn curve_loss(name: &str, formula: &str, k: Option<f64>, data: &Data) -> CurveLoss {
    let loss = fit::loss(&data.all, k.unwrap_or(f64::INFINITY));
    CurveLoss {
        name: name.to_string(),
        formula: formula.to_string(),
        k,
        log_loss: loss.log_loss,
        brier: loss.brier,
    }
}

/// Refuses, before the work, outputs that cannot be written.
fn check_outputs(args: &WinrateArgs) -> Result<(), String> {
    if let Some(plot) = &args.plot
        && plot.extension().is_none_or(|e| e != "svg")
    {
        return Err(format!(
            "--plot {}: the picture is SVG: name it *.svg",
            plot.display()
        ));
    }
    if args.json.is_some() && args.json == args.plot {
        return Err("--json and --plot name the same file".into());
    }
    if args.bins == 0 {
        return Err("--bins must be at least 1".into());
    }
    if args.max_cp <= 0 {
        return Err(format!("--max-cp {} must be positive", args.max_cp));
    }
    for out in args.json.iter().chain(&args.plot) {
        if args.data.contains(out) {
            return Err(format!("{}: an input would be overwritten", out.display()));
        }
        fileio::check_replaceable(out).map_err(|e| format!("cannot write {e}"))?;
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fileio::create_parent_dir(path).map_err(|e| format!("cannot create the folder {e}"))?;
    fileio::write_atomic(path, bytes).map_err(|e| format!("cannot write {e}"))?;
    eprintln!("winrate: wrote {}", path.display());
    Ok(())
}

/// Runs `engine winrate`: the table on standard output, the JSON and the SVG if asked.
pub fn run(args: &WinrateArgs) -> Result<(), String> {
    check_outputs(args)?;
    let report = measure(args)?;
    print!("{}", text(&report));
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        write(path, format!("{json}\n").as_bytes())?;
    }
    if let Some(path) = &args.plot {
        write(path, figure::figure(&report).svg()?.as_bytes())?;
    }
    Ok(())
}
