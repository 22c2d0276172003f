//! `engine tune`: the command line, the run loop (resume, a step, the state and outputs
//! written after it) and the progress display.

use std::cell::Cell;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use super::args::{Method, Target, TuneArgs};
use super::games::{MatchPlay, MoveLimit};
use super::pso::{PsoConfig, Swarm};
use super::report;
use super::rng::Rng;
use super::space::Space;
use super::spsa::{SpsaConfig, SpsaState};
use super::state::{self, MethodState, Row, TuneState};
use crate::fileio::{self, OutputLock};
use crate::matches::cli::parse_engine_option;
use crate::matches::openings::{Opening, default_openings, load_openings};
use crate::matches::referee::RefereeSettings;
use crate::players::PlayerParams;
use crate::usi_client::{EngineSpec, TimeControl, positive_seconds, split_command};

/// The tuned parameters file in `--out`.
pub const PARAMS_FILE: &str = "tuned.params";
/// The run's CSV in `--out`.
pub const CSV_FILE: &str = "tune.csv";
/// The run's plot in `--out`.
pub const PLOT_FILE: &str = "tune.svg";
/// The folder in `--out` of the parameters files the engines of a match are given.
pub const PLAY_DIR: &str = "play";
/// The state file in `--out` when `--state` is not given.
pub const STATE_FILE: &str = "tune.state";

/// Everything a run needs, checked.
struct Plan {
    method: Method,
    space: Space,
    spsa: SpsaConfig,
    pso: PsoConfig,
    limit: MoveLimit,
    engine: EngineSpec,
    openings: Vec<Opening>,
    referee: RefereeSettings,
    state_path: PathBuf,
    /// The options that decide the results, as `key=value` pairs.
    settings: Vec<(String, String)>,
}

fn plan(args: &TuneArgs) -> Result<Plan, String> {
    if args.games_per_step < 2 || !args.games_per_step.is_multiple_of(2) {
        return Err(format!(
            "--games-per-step {} must be even and at least 2 (games are played in pairs, \
             colours swapped)",
            args.games_per_step
        ));
    }
    if args.concurrency == 0 {
        return Err("--concurrency must be at least 1".to_string());
    }
    let limit = match (args.nodes, args.movetime) {
        (Some(0), _) => return Err("--nodes must be at least 1".to_string()),
        (Some(nodes), None) => MoveLimit::Nodes {
            nodes,
            bound: positive_seconds(args.node_time_bound, "--node-time-bound")?,
        },
        (None, Some(0)) => return Err("--movetime must be at least 1 ms".to_string()),
        (None, Some(ms)) => MoveLimit::MoveTime(Duration::from_millis(ms)),
        _ => return Err("give either --nodes or --movetime".to_string()),
    };
    let own = args.out.join(PARAMS_FILE);
    if let (Ok(a), Ok(b)) = (
        std::fs::canonicalize(&args.params),
        std::fs::canonicalize(&own),
    ) && a == b
    {
        return Err(format!(
            "--params {} is this run's own output, rewritten after every step: copy it and \
             give the copy",
            args.params.display()
        ));
    }
    let text = fileio::read_regular_to_string(&args.params)
        .map_err(|e| format!("cannot read --params {e}"))?;
    let space = args
        .target
        .space(&text)
        .map_err(|e| format!("{}: {e}", args.params.display()))?;
    let mut options = args.target.options();
    for text in &args.engine_options {
        let (name, value) = parse_engine_option(text)?;
        let file_option = args.target.file_option();
        if name.eq_ignore_ascii_case(file_option) {
            return Err(format!(
                "--engine-option {file_option}: the tuner gives each side its own parameters file"
            ));
        }
        if let Some(spec) = PlayerParams::specs().find(|s| s.name.eq_ignore_ascii_case(&name))
            && (space.tuned.iter().any(|t| t.name == spec.name)
                || space.fixed.iter().any(|f| f.0 == spec.name))
        {
            return Err(format!(
                "--engine-option {name}: the parameters file sets {}",
                spec.name
            ));
        }
        options.push((name, value));
    }
    split_command(&args.engine).map_err(|e| format!("--engine: {e}"))?;
    let engine = EngineSpec {
        name: String::new(),
        command: args.engine.clone(),
        options,
        go_limits: Vec::new(),
        movetime_go: false,
        swap_clocks: false,
        time_control: None,
    };
    let openings = match &args.openings {
        Some(path) => load_openings(path)?,
        None => default_openings(),
    };
    let spsa = SpsaConfig {
        steps: args.steps,
        alpha: args.spsa_alpha,
        gamma: args.spsa_gamma,
        a_ratio: args.spsa_a_ratio,
        r_end: args.spsa_r_end,
    };
    let pso = PsoConfig {
        particles: args.pso_particles,
        inertia: args.pso_inertia,
        c1: args.pso_c1,
        c2: args.pso_c2,
    };
    match args.method {
        Method::Spsa => spsa.validate()?,
        Method::Pso => {
            pso.validate()?;
            if args.steps == 0 {
                return Err("--steps must be at least 1".to_string());
            }
        }
    }
    for t in &space.tuned {
        if args.method == Method::Spsa && t.step < 0.5 {
            log::warn!(
                "{}: step {} is below 0.5: θ+ and θ− may round to the same value at the end \
                 of the run",
                t.name,
                t.step
            );
        }
    }
    // The time control is set per match by `MatchPlay` from the move limit.
    let referee = args
        .referee
        .settings(TimeControl::MoveTime(Duration::from_secs(1)))?;
    let positions: String = openings
        .iter()
        .map(|o| o.position_command(&[]) + "\n")
        .collect();
    let mut settings = vec![
        ("method", args.method.name().to_string()),
        ("target", args.target.name().to_string()),
        ("params", space.describe()),
        ("games_per_step", args.games_per_step.to_string()),
        ("limit", limit.describe()),
        (
            "openings",
            format!("{:016x}", fileio::fnv1a(positions.as_bytes())),
        ),
        ("engine", engine.command.clone()),
        ("engine_options", format!("{:?}", engine.options)),
        ("max_plies", args.referee.max_plies.to_string()),
        ("seed", args.seed.to_string()),
    ];
    match args.method {
        // SPSA's gains are scheduled over the whole run, so its length is a setting; a swarm
        // can be given more steps.
        Method::Spsa => settings.push(("spsa", format!("{spsa:?}"))),
        Method::Pso => settings.push(("pso", format!("{pso:?}"))),
    }
    Ok(Plan {
        method: args.method,
        space,
        spsa,
        pso,
        limit,
        engine,
        openings,
        referee,
        state_path: args
            .state
            .clone()
            .unwrap_or_else(|| args.out.join(STATE_FILE)),
        settings: settings
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    })
}

/// Why a state's settings are not the plan's: the settings that differ, old and new.
fn settings_differ(old: &[(String, String)], new: &[(String, String)]) -> Option<String> {
    let old_text: Vec<String> = old.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let new_text: Vec<String> = new.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if old_text == new_text {
        return None;
    }
    let mut diffs = Vec::new();
    for (k, v) in new {
        match old.iter().find(|(ok, _)| ok == k) {
            Some((_, ov)) if ov == v => {}
            Some((_, ov)) => diffs.push(format!("{k} was {ov}, now {v}")),
            None => diffs.push(format!("{k} is new ({v})")),
        }
    }
    if diffs.is_empty() {
        diffs.push(format!("was {}", old_text.join("; ")));
    }
    Some(diffs.join("; "))
}

/// The state a run starts from: the state file's if it holds a run of these settings (an
/// error if it holds another run), else a fresh one.
fn initial_state(plan: &Plan, args: &TuneArgs) -> Result<TuneState, String> {
    let loaded = if args.restart {
        None
    } else {
        state::load(&plan.state_path).map_err(|e| format!("cannot read the state {e}"))?
    };
    if let Some(state) = loaded {
        if let Some(why) = settings_differ(&state.settings, &plan.settings) {
            return Err(format!(
                "{} holds a run with other settings ({why}); pass --restart to start over, or \
                 give another --state",
                plan.state_path.display()
            ));
        }
        return Ok(state);
    }
    let mut rng = Rng::new(args.seed);
    let method = match plan.method {
        Method::Spsa => MethodState::Spsa(SpsaState::new(&plan.space)),
        Method::Pso => MethodState::Pso(Swarm::new(&plan.pso, &plan.space, &mut rng)),
    };
    Ok(TuneState {
        settings: plan.settings.clone(),
        step: 0,
        rng,
        method,
        rows: Vec::new(),
        elapsed_s: 0.0,
    })
}

/// Rewrites the outputs from the state: tuned parameters, CSV, plot.
fn write_outputs(plan: &Plan, state: &TuneState, out: &Path) -> Result<(), String> {
    let header = format!(
        "engine tune --method {}: {} steps done, {} games ({}); the values the search plays, \
         the tuner's exact ones in the comments",
        plan.method.name(),
        state.step,
        state.games(),
        plan.limit.describe()
    );
    let write = |name: &str, bytes: &[u8]| {
        fileio::write_atomic(&out.join(name), bytes).map_err(|e| format!("cannot write {e}"))
    };
    write(
        PARAMS_FILE,
        plan.space.params_file(state.answer(), &header).as_bytes(),
    )?;
    write(CSV_FILE, report::csv(&plan.space, &state.rows).as_bytes())?;
    let svg = report::plot(&plan.space, plan.method.name(), &state.rows)?;
    write(PLOT_FILE, svg.as_bytes())
}

/// Progress: a bar on a terminal, with the games per second; on a log file (standard error
/// redirected) a line a step.
struct Progress {
    bar: indicatif::ProgressBar,
    lines: bool,
    start: Instant,
    games: Cell<u64>,
}

impl Progress {
    fn new(total_games: u64, done_games: u64, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = if quiet || !terminal {
            indicatif::ProgressBar::hidden()
        } else {
            let bar = indicatif::ProgressBar::new(total_games);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "tune {bar:30} {pos}/{len} games {msg} ({elapsed}, eta {eta})",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        };
        bar.set_position(done_games);
        Progress {
            bar,
            lines: !quiet && !terminal,
            start: Instant::now(),
            games: Cell::new(0),
        }
    }

    fn rate(&self) -> f64 {
        self.games.get() as f64 / self.start.elapsed().as_secs_f64().max(1e-3)
    }

    fn game(&self) {
        self.games.set(self.games.get() + 1);
        self.bar.inc(1);
        self.bar
            .set_message(format!("· {:.2} games/s", self.rate()));
    }

    fn step(&self, line: String) {
        log::info!("{line}");
        let line = format!("{line} · {:.2} games/s", self.rate());
        if self.lines {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn values_text(space: &Space, x: &[f64]) -> String {
    space
        .tuned
        .iter()
        .zip(x)
        .map(|(t, v)| format!("{} {v:.1}", t.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The progress line of a step.
fn step_line(plan: &Plan, steps: usize, row: &Row) -> String {
    let result = format!(
        "+{} -{} ={} ({:.3})",
        row.wins, row.losses, row.draws, row.score
    );
    match row.particle {
        None => format!(
            "tune: step {}/{steps}: θ+ vs θ−: {result}; θ: {}",
            row.step,
            values_text(&plan.space, &row.values)
        ),
        Some(particle) => format!(
            "tune: step {}/{steps} (iteration {}, particle {particle}): {} vs start: {result}; \
             best {}: {}",
            row.step,
            row.iteration,
            values_text(&plan.space, &row.played),
            row.best_score
                .map_or_else(|| "n/a".to_string(), |b| format!("{b:.3}")),
            values_text(&plan.space, &row.values)
        ),
    }
}

/// The final report (standard output).
fn final_report(plan: &Plan, state: &TuneState, args: &TuneArgs) -> String {
    let mut s = String::new();
    let games = state.games();
    let _ = writeln!(
        s,
        "engine tune --method {}: {} of {} steps, {} games ({} a step, {}), {:.0} s{}",
        plan.method.name(),
        state.step,
        args.steps,
        games,
        args.games_per_step,
        plan.limit.describe(),
        state.elapsed_s,
        if state.elapsed_s > 0.0 {
            format!(" ({:.2} games/s)", games as f64 / state.elapsed_s)
        } else {
            String::new()
        }
    );
    let answer = state.answer();
    let width = plan
        .space
        .tuned
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(9)
        .max(9);
    let _ = writeln!(
        s,
        "{:width$}  {:>8}  {:>10}  range",
        "parameter", "start", "tuned"
    );
    for (t, v) in plan.space.tuned.iter().zip(answer) {
        let _ = writeln!(
            s,
            "{:width$}  {:>8}  {:>10}  {}..{} (step {})",
            t.name,
            t.start,
            format!("{v:.2}"),
            t.min,
            t.max,
            t.step
        );
    }
    match &state.method {
        MethodState::Spsa(_) => {
            let last: Vec<&Row> = state.rows.iter().rev().take(10).collect();
            if !last.is_empty() {
                let w: u64 = last.iter().map(|r| r.wins).sum();
                let l: u64 = last.iter().map(|r| r.losses).sum();
                let d: u64 = last.iter().map(|r| r.draws).sum();
                let _ = writeln!(
                    s,
                    "θ+ against θ− over the last {} steps: +{w} -{l} ={d}",
                    last.len()
                );
            }
        }
        MethodState::Pso(swarm) => {
            if let Some(best) = swarm.best_score {
                let _ = writeln!(
                    s,
                    "Global best: score {best:.3} against the start values in one step's \
                     games (the best of {} noisy evaluations: confirm it by a match)",
                    state.rows.len()
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "Tuned parameters: {} (USI option {}); run: {}, {}; state: {}",
        args.out.join(PARAMS_FILE).display(),
        args.target.file_option(),
        args.out.join(CSV_FILE).display(),
        args.out.join(PLOT_FILE).display(),
        plan.state_path.display()
    );
    s
}

fn claim(path: &Path) -> Result<OutputLock, String> {
    fileio::check_replaceable(path).map_err(|e| e.to_string())?;
    fileio::create_parent_dir(path).map_err(|e| e.to_string())?;
    fileio::lock_output(path).map_err(|e| e.to_string())
}

/// Runs `engine tune`: continues the state's run (or starts one) up to `--steps`, writing the
/// state and outputs after every step; prints the final report on standard output.
pub fn run(args: &TuneArgs) -> Result<(), String> {
    if !args.texel.is_empty() {
        return super::texel::run(args);
    }
    let plan = plan(args)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create --out {}: {e}", args.out.display()))?;
    let _state_lock = claim(&plan.state_path)?;
    let _out_lock = claim(&args.out.join(PARAMS_FILE))?;
    let mut state = initial_state(&plan, args)?;
    if state.step > 0 {
        eprintln!(
            "tune: resuming after step {} of {} ({} games) from {}",
            state.step,
            args.steps,
            state.games(),
            plan.state_path.display()
        );
    }
    write_outputs(&plan, &state, &args.out)?;
    if state.step >= args.steps {
        eprintln!(
            "tune: no step left to run (--steps {}, {} done)",
            args.steps, state.step
        );
    }
    let total = (args.steps.max(state.step) * args.games_per_step) as u64;
    let progress = Progress::new(total, state.games(), args.quiet);
    let mut on_game = |_: &crate::matches::GameSummary| progress.game();
    let mut objective = MatchPlay {
        space: &plan.space,
        engine: plan.engine.clone(),
        limit: plan.limit,
        openings: plan.openings.clone(),
        games: args.games_per_step,
        concurrency: args.concurrency,
        referee: plan.referee.clone(),
        params_dir: args.out.join(PLAY_DIR),
        file_option: args.target.file_option(),
        on_game: &mut on_game,
    };
    let session = Instant::now();
    let elapsed_before = state.elapsed_s;
    let clock = || elapsed_before + session.elapsed().as_secs_f64();
    while state.step < args.steps {
        let row = state.advance(&plan.spsa, &plan.pso, &plan.space, &mut objective, &clock)?;
        let line = step_line(&plan, args.steps, row);
        state::save(&plan.state_path, &state).map_err(|e| format!("cannot write {e}"))?;
        write_outputs(&plan, &state, &args.out)?;
        progress.step(line);
    }
    progress.finish();
    print!("{}", final_report(&plan, &state, args));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: TuneArgs,
    }

    fn parse(line: &str) -> Result<TuneArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("tune").chain(line.split(' '))).map(|c| c.args)
    }

    #[test]
    fn bad_plans_are_refused_with_reasons() {
        let dir = std::env::temp_dir().join(format!("tune-cli-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let params = dir.join("p.params");
        std::fs::write(&params, "rfp_margin 120 40 300 10\nfutility_margin 100\n").unwrap();
        let p = params.display();
        let args = |rest: &str| parse(&format!("--params {p} --out {} {rest}", dir.display()));
        let err = |rest: &str| plan(&args(rest).unwrap()).err().unwrap();
        assert!(args("--method spsa --steps 3").is_err(), "no limit");
        assert!(args("--method spsa --steps 3 --nodes 5 --movetime 5").is_err());
        assert!(args("--method sa --steps 3 --nodes 5").is_err());
        let ok = plan(&args("--method spsa --steps 3 --nodes 500").unwrap()).unwrap();
        assert_eq!(ok.state_path, dir.join(STATE_FILE));
        assert_eq!(ok.space.fixed, [("futility_margin", 100.0)]);
        assert!(err("--method spsa --steps 3 --nodes 5 --games-per-step 3").contains("even"));
        assert!(err("--method spsa --steps 0 --nodes 5").contains("--steps"));
        assert!(err("--method pso --steps 3 --nodes 5 --pso-particles 1").contains("particles"));
        assert!(err("--method spsa --steps 3 --nodes 0").contains("--nodes"));
        assert_eq!(
            err("--method spsa --steps 3 --nodes 5 --engine-option rfp_margin=3"),
            "--engine-option rfp_margin: the parameters file sets rfp_margin"
        );
        assert!(err("--method spsa --steps 3 --nodes 5 --engine-option X").contains("NAME=VALUE"));
        // The classical evaluator's numbers, by games: each side gets Evaluator=classical.
        std::fs::write(&params, "tempo 0 -100 100 5\npiece_pawn 100\n").unwrap();
        let classical =
            plan(&args("--target classical --method pso --steps 3 --nodes 5").unwrap()).unwrap();
        assert_eq!(classical.space.fixed, [("piece_pawn", 100.0)]);
        assert_eq!(
            classical.engine.options,
            [("Evaluator".to_string(), "classical".to_string())]
        );
        assert!(err("--method pso --steps 3 --nodes 5").contains("unknown search parameter"));
        assert_eq!(
            err(
                "--target classical --method pso --steps 3 --nodes 5 --engine-option ClassicalFile=x"
            ),
            "--engine-option ClassicalFile: the tuner gives each side its own parameters file"
        );
        std::fs::write(&params, "rfp_margin 120 40 300 10\nrfp_marg 3\n").unwrap();
        assert_eq!(
            err("--method spsa --steps 3 --nodes 5"),
            format!("{p}: line 2: unknown search parameter 'rfp_marg'")
        );
        std::fs::write(dir.join(PARAMS_FILE), "rfp_margin 120 40 300 10\n").unwrap();
        let own = parse(&format!(
            "--params {}/{PARAMS_FILE} --out {} --method pso --steps 3 --nodes 5",
            dir.display(),
            dir.display()
        ))
        .unwrap();
        assert!(
            plan(&own).err().unwrap().contains("this run's own output"),
            "the tuned file of the same --out"
        );
        let missing = dir.join("missing.params");
        let e = plan(
            &parse(&format!(
                "--params {} --out x --method spsa --steps 3 --nodes 5",
                missing.display()
            ))
            .unwrap(),
        )
        .err()
        .unwrap();
        assert!(e.contains("missing.params"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reports_show_no_nan_or_infinity() {
        let dir = std::env::temp_dir().join(format!("tune-report-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let params = dir.join("p.params");
        std::fs::write(&params, "rfp_margin 120 40 300 10\n").unwrap();
        let clean = |text: &str| {
            for bad in [" inf", "NaN", "-0.0"] {
                assert!(!text.contains(bad), "{bad}: {text}");
            }
        };
        for method in ["spsa", "pso"] {
            let args = parse(&format!(
                "--params {} --out {} --method {method} --steps 3 --nodes 5",
                params.display(),
                dir.display()
            ))
            .unwrap();
            let plan = plan(&args).unwrap();
            // No step yet.
            let mut state = initial_state(&plan, &args).unwrap();
            clean(&final_report(&plan, &state, &args));
            // A step of no games, and no global best known yet.
            let row = Row {
                step: 1,
                iteration: 0,
                particle: (method == "pso").then_some(0),
                wins: 0,
                losses: 0,
                draws: 0,
                score: 0.5,
                best_score: None,
                elapsed_s: 0.0,
                values: vec![120.0],
                played: vec![120.0],
            };
            let line = step_line(&plan, 3, &row);
            clean(&line);
            if method == "pso" {
                assert!(line.contains("best n/a"), "{line}");
            }
            state.rows.push(row);
            state.step = 1;
            clean(&final_report(&plan, &state, &args));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn settings_differences_are_named() {
        let kv = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let a = kv(&[("method", "spsa"), ("seed", "1")]);
        assert_eq!(settings_differ(&a, &a), None);
        assert_eq!(
            settings_differ(&a, &kv(&[("method", "spsa"), ("seed", "2")])).unwrap(),
            "seed was 1, now 2"
        );
        assert_eq!(
            settings_differ(&a, &kv(&[("method", "spsa")])).unwrap(),
            "was method=spsa; seed=1"
        );
    }
}
