//! Command-line arguments of `engine match` and `engine random`. Engines are given as
//! `--engine COMMAND` followed by their own `--engine-option NAME=VALUE`, `--engine-name NAME`
//! and `--engine-limit depth=N` flags, so the flags of each engine follow its command.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches};

use super::openings::{default_openings, load_openings};
use super::referee::RefereeSettings;
use super::stats::Sprt;
use super::{MatchConfig, run_match};
use crate::usi_client::{EngineSpec, TimeControl, seconds, split_command};

/// Lateness tolerated before a time forfeit, in seconds (default of `--time-margin`).
pub const DEFAULT_TIME_MARGIN_S: f64 = 0.1;
/// Time an engine gets to answer `usi` and `isready`, in seconds (default of
/// `--startup-timeout`).
pub const DEFAULT_STARTUP_TIMEOUT_S: f64 = 10.0;
/// Plies after which a game is drawn (default of `--max-plies`).
pub const DEFAULT_MAX_PLIES: u32 = 300;

/// The engines of a match, each with the flags that follow its `--engine`.
#[derive(Clone, Debug, Default)]
pub struct EngineArgs {
    pub specs: Vec<EngineSpec>,
    /// Whether each engine was given `--engine-name`.
    pub named: Vec<bool>,
}

const ENGINE: &str = "engine";
const OPTION: &str = "engine_option";
const NAME: &str = "engine_name";
const LIMIT: &str = "engine_limit";
const TIME: &str = "engine_time";
const CLOCKS: &str = "engine_clocks";
const MOVETIME: &str = "engine_movetime";
const TC: &str = "engine_tc";
const BYOYOMI: &str = "engine_byoyomi";

impl Args for EngineArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(
            Arg::new(ENGINE)
                .long("engine")
                .value_name("COMMAND")
                .action(ArgAction::Append)
                .required(true)
                .help(
                    "A USI engine's command line (give two: engine 1 is measured against \
                     engine 2). Split into words like a shell does (quotes honoured, no other \
                     shell syntax); a first word `self` is this program, e.g. \"self usi\"",
                ),
        )
        .arg(
            Arg::new(OPTION)
                .long("engine-option")
                .value_name("NAME=VALUE")
                .action(ArgAction::Append)
                .help("A USI option (setoption) for the engine named before it"),
        )
        .arg(
            Arg::new(NAME)
                .long("engine-name")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("Display name of the engine named before it"),
        )
        .arg(
            Arg::new(TIME)
                .long("engine-time")
                .value_name("byoyomi|movetime")
                .action(ArgAction::Append)
                .help(
                    "How a fixed time a move is sent to the engine named before it: `byoyomi` \
                     (USI's `go btime 0 wtime 0 byoyomi N`, the default) or `movetime` \
                     (`go movetime N`; Fairy-Stockfish needs it, it spends a fifth of a byoyomi)",
                ),
        )
        .arg(
            Arg::new(CLOCKS)
                .long("engine-clocks")
                .value_name("usi|swapped")
                .action(ArgAction::Append)
                .help(
                    "How the clocks are sent to the engine named before it: `usi` (btime is \
                     sente's, the default) or `swapped` (sente's clock as wtime: Debian's \
                     Fairy-Stockfish 11.1 reads them the wrong way round)",
                ),
        )
        .arg(
            Arg::new(MOVETIME)
                .long("engine-movetime")
                .value_name("SECS")
                .action(ArgAction::Append)
                .help(
                    "Time odds: a fixed time a move for the engine named before it, instead of \
                     the match's time control",
                ),
        )
        .arg(
            Arg::new(TC)
                .long("engine-tc")
                .value_name("BASE[+INC]")
                .action(ArgAction::Append)
                .help(
                    "Time odds: a clock (seconds, BASE or BASE+INC) for the engine named before \
                     it, instead of the match's time control",
                ),
        )
        .arg(
            Arg::new(BYOYOMI)
                .long("engine-byoyomi")
                .value_name("SECS")
                .action(ArgAction::Append)
                .help(
                    "Time odds: byoyomi for the engine named before it (with --engine-tc or alone)",
                ),
        )
        .arg(
            Arg::new(LIMIT)
                .long("engine-limit")
                .value_name("depth=N|nodes=N")
                .action(ArgAction::Append)
                .help("A search limit added to every `go` of the engine named before it"),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// An `--engine-option NAME=VALUE` (of `engine match` and `engine tune`) as the option's name
/// and value, both trimmed; the value may hold `=`.
pub fn parse_engine_option(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--engine-option '{text}' is not NAME=VALUE"))?;
    Ok((name.trim().to_string(), value.trim().to_string()))
}

fn invalid(message: String) -> clap::Error {
    clap::Error::raw(clap::error::ErrorKind::ValueValidation, message + "\n")
}

/// Values of `id` with the index of each on the command line.
fn indexed<'a>(matches: &'a ArgMatches, id: &str) -> Vec<(usize, &'a String)> {
    match (matches.indices_of(id), matches.get_many::<String>(id)) {
        (Some(indices), Some(values)) => indices.zip(values).collect(),
        _ => Vec::new(),
    }
}

/// A two-valued flag's value: false for `off` (its default), true for `on`.
fn switch(text: &str, flag: &str, off: &str, on: &str) -> Result<bool, clap::Error> {
    match text.trim() {
        value if value == on => Ok(true),
        value if value == off => Ok(false),
        _ => Err(invalid(format!("--{flag} '{text}' is not {off} or {on}"))),
    }
}

impl FromArgMatches for EngineArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let engines = indexed(matches, ENGINE);
        let mut specs: Vec<EngineSpec> = engines
            .iter()
            .map(|(_, command)| EngineSpec {
                name: String::new(),
                command: command.to_string(),
                options: Vec::new(),
                go_limits: Vec::new(),
                movetime_go: false,
                swap_clocks: false,
                time_control: None,
            })
            .collect();
        // The engine a flag belongs to: the last `--engine` before it.
        let owner = |index: usize, flag: &str| {
            engines
                .iter()
                .rposition(|(i, _)| *i < index)
                .ok_or_else(|| invalid(format!("--{flag} must follow the --engine it is for")))
        };
        for (index, text) in indexed(matches, OPTION) {
            let spec = &mut specs[owner(index, "engine-option")?];
            spec.options
                .push(parse_engine_option(text).map_err(invalid)?);
        }
        let mut named = vec![false; specs.len()];
        for (index, text) in indexed(matches, NAME) {
            let engine = owner(index, "engine-name")?;
            specs[engine].name = text.clone();
            named[engine] = true;
        }
        for (index, text) in indexed(matches, LIMIT) {
            let spec = &mut specs[owner(index, "engine-limit")?];
            let parsed = text.split_once('=').and_then(|(key, value)| {
                let key = key.trim();
                let value = value.trim().parse::<u64>().ok()?;
                matches!(key, "depth" | "nodes").then(|| (key.to_string(), value))
            });
            spec.go_limits.push(parsed.ok_or_else(|| {
                invalid(format!("--engine-limit '{text}' is not depth=N or nodes=N"))
            })?);
        }
        for (index, text) in indexed(matches, TIME) {
            specs[owner(index, "engine-time")?].movetime_go =
                switch(text, "engine-time", "byoyomi", "movetime")?;
        }
        for (index, text) in indexed(matches, CLOCKS) {
            specs[owner(index, "engine-clocks")?].swap_clocks =
                switch(text, "engine-clocks", "usi", "swapped")?;
        }
        // Time odds: each engine's own time control, from its flags taken together.
        let mut own: Vec<[Option<&String>; 3]> = vec![[None; 3]; specs.len()];
        for (slot, (flag, id)) in [
            ("engine-movetime", MOVETIME),
            ("engine-tc", TC),
            ("engine-byoyomi", BYOYOMI),
        ]
        .into_iter()
        .enumerate()
        {
            for (index, text) in indexed(matches, id) {
                own[owner(index, flag)?][slot] = Some(text);
            }
        }
        for (spec, [movetime, tc, byoyomi]) in specs.iter_mut().zip(own) {
            let number = |text: Option<&String>, flag: &str| {
                text.map(|t| {
                    t.trim()
                        .parse::<f64>()
                        .map_err(|_| invalid(format!("--{flag} '{t}' is not a number of seconds")))
                })
                .transpose()
            };
            let movetime = number(movetime, "engine-movetime")?;
            let byoyomi = number(byoyomi, "engine-byoyomi")?;
            spec.time_control = parse_time_control(movetime, tc.map(String::as_str), byoyomi)
                .map_err(|e| invalid(e.replace("--", "--engine-")))?;
        }
        name_engines(&mut specs);
        Ok(EngineArgs { specs, named })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// Engines without `--engine-name` are named after their command (program file name and
/// arguments) and options, until the match names them by their USI `id name`; equal names
/// get a number.
fn name_engines(specs: &mut [EngineSpec]) {
    for spec in specs.iter_mut() {
        if spec.name.is_empty() {
            let mut words = split_command(&spec.command).unwrap_or_default();
            if let Some(first) = words.first_mut()
                && let Some(file) = std::path::Path::new(first.as_str()).file_name()
            {
                *first = file.to_string_lossy().into_owned();
            }
            for (name, value) in &spec.options {
                words.push(format!("{name}={value}"));
            }
            for (name, value) in &spec.go_limits {
                words.push(format!("{name}={value}"));
            }
            spec.name = words.join(" ");
        }
    }
    super::number_equal_names(specs);
}

/// `engine match`: plays game pairs between two USI engines and reports the result.
#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    #[command(flatten)]
    pub engines: EngineArgs,
    /// Openings file: one position per line (`startpos`, an SFEN, optionally followed by
    /// `moves …`); `#` starts a comment. Default: the built-in set.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Number of games (rounded up to a whole number of pairs). Default: each opening once
    /// with each colour.
    #[arg(long)]
    pub games: Option<usize>,
    /// Fixed time per move, in seconds (the default time control: 1 s).
    #[arg(long, value_name = "SECS", conflicts_with_all = ["tc", "byoyomi"])]
    pub movetime: Option<f64>,
    /// Clock per side: BASE or BASE+INCREMENT, in seconds (e.g. 60+1).
    #[arg(long, value_name = "BASE[+INC]")]
    pub tc: Option<String>,
    /// Byoyomi in seconds: time for each move once the clock is empty.
    #[arg(long, value_name = "SECS")]
    pub byoyomi: Option<f64>,
    #[command(flatten)]
    pub referee: RefereeArgs,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Sequential test, stopping the match once decided: elo0=E0 elo1=E1 [alpha=A] [beta=B].
    #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
    /// Folder for the records: games.txt (USI move lists), kif/game-NNNN.kif (Shift_JIS),
    /// csa/game-NNNN.csa, summary.json.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// The referee's flags shared by `engine match`, `engine scale` and `engine tune`.
#[derive(clap::Args, Clone, Debug)]
pub struct RefereeArgs {
    /// Lateness tolerated before a time forfeit, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TIME_MARGIN_S)]
    pub time_margin: f64,
    /// Time an engine gets to answer `usi` and `isready`, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_STARTUP_TIMEOUT_S)]
    pub startup_timeout: f64,
    /// A game is drawn after this many plies (opening moves included); 0 = no limit.
    #[arg(long, default_value_t = DEFAULT_MAX_PLIES)]
    pub max_plies: u32,
}

impl RefereeArgs {
    /// The referee's settings with these flags and `time_control`.
    pub fn settings(&self, time_control: TimeControl) -> Result<RefereeSettings, String> {
        Ok(RefereeSettings {
            time_control,
            max_plies: (self.max_plies > 0).then_some(self.max_plies),
            time_margin: seconds(self.time_margin, "--time-margin")?,
            startup_timeout: seconds(self.startup_timeout, "--startup-timeout")?,
        })
    }
}

/// The time control of `--movetime`, `--tc` and `--byoyomi` (or their `--engine-` forms);
/// `None` when none is given.
pub fn parse_time_control(
    movetime: Option<f64>,
    tc: Option<&str>,
    byoyomi: Option<f64>,
) -> Result<Option<TimeControl>, String> {
    if let Some(t) = movetime {
        if tc.is_some() || byoyomi.is_some() {
            return Err(
                "--movetime is a time control of its own: not with --tc or --byoyomi".to_string(),
            );
        }
        let t = seconds(t, "--movetime")?;
        if t.is_zero() {
            return Err("--movetime must be positive".to_string());
        }
        return Ok(Some(TimeControl::MoveTime(t)));
    }
    if tc.is_none() && byoyomi.is_none_or(|b| b == 0.0) {
        return Ok(None);
    }
    let byoyomi = seconds(byoyomi.unwrap_or(0.0), "--byoyomi")?;
    let (base, increment) = match tc {
        None => (Duration::ZERO, Duration::ZERO),
        Some(text) => {
            let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
            let number = |s: &str| {
                s.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("--tc '{text}' is not BASE or BASE+INC in seconds"))
            };
            (
                seconds(number(base)?, "--tc base")?,
                seconds(number(inc)?, "--tc increment")?,
            )
        }
    };
    if !increment.is_zero() && !byoyomi.is_zero() {
        return Err("give an increment or a byoyomi, not both".to_string());
    }
    if base.is_zero() && increment.is_zero() && byoyomi.is_zero() {
        return Err("the time control gives no time".to_string());
    }
    Ok(Some(TimeControl::Clock {
        base,
        increment,
        byoyomi,
    }))
}

/// The match's time control: its flags, or 1 s a move.
fn time_control(args: &MatchArgs) -> Result<TimeControl, String> {
    Ok(
        parse_time_control(args.movetime, args.tc.as_deref(), args.byoyomi)?
            .unwrap_or(TimeControl::MoveTime(Duration::from_secs(1))),
    )
}

/// Builds the match configuration from the arguments.
pub fn match_config(args: &MatchArgs) -> Result<MatchConfig, String> {
    let specs = &args.engines.specs;
    if specs.len() != 2 {
        return Err(format!("a match needs two --engine, got {}", specs.len()));
    }
    let openings = match &args.openings {
        Some(path) => load_openings(path)?,
        None => default_openings(),
    };
    let games = args.games.unwrap_or(2 * openings.len());
    if games == 0 {
        return Err("--games must be at least 1".to_string());
    }
    if args.concurrency == 0 {
        return Err("--concurrency must be at least 1".to_string());
    }
    Ok(MatchConfig {
        engines: [specs[0].clone(), specs[1].clone()],
        pairs: games.div_ceil(2),
        openings,
        concurrency: args.concurrency,
        referee: args.referee.settings(time_control(args)?)?,
        sprt: args.sprt.as_deref().map(Sprt::parse).transpose()?,
        out_dir: args.out.clone(),
        progress: !args.quiet,
        id_names: [0, 1].map(|i| !args.engines.named.get(i).copied().unwrap_or(false)),
    })
}

/// Runs `engine match`: the report goes to standard output, progress to stderr.
pub fn run(args: &MatchArgs) -> Result<(), Box<dyn std::error::Error>> {
    let config = match_config(args)?;
    let summary = run_match(&config)?;
    print!("{}", summary.report());
    Ok(())
}

/// `engine random`: a USI engine playing uniformly random legal moves.
#[derive(Args, Debug, Clone)]
pub struct RandomArgs {
    /// Random seed (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
}

pub fn run_random(args: &RandomArgs) -> std::io::Result<()> {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let stdin = std::io::stdin();
    super::random_mover::run_random_engine(seed, stdin.lock(), std::io::stdout().lock())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: MatchArgs,
    }

    #[test]
    fn engine_options_are_name_equals_value() {
        let option = |name: &str, value: &str| Ok((name.to_string(), value.to_string()));
        assert_eq!(parse_engine_option("Threads=2"), option("Threads", "2"));
        assert_eq!(parse_engine_option(" Hash = 64 "), option("Hash", "64"));
        assert_eq!(
            parse_engine_option("EvalFile=a=b.bin"),
            option("EvalFile", "a=b.bin")
        );
        assert_eq!(parse_engine_option("Empty="), option("Empty", ""));
        assert_eq!(
            parse_engine_option("Threads"),
            Err("--engine-option 'Threads' is not NAME=VALUE".to_string())
        );
    }

    fn parse(line: &str) -> Result<MatchArgs, clap::Error> {
        let words = std::iter::once("match").chain(line.split(' '));
        Cli::try_parse_from(words).map(|cli| cli.args)
    }

    #[test]
    fn engine_flags_belong_to_the_engine_before_them() {
        let words = [
            "match",
            "--engine",
            "self usi",
            "--engine-option",
            "Depth=1",
            "--engine-option",
            "Hash = 16",
            "--engine",
            "other prog",
            "--engine-name",
            "ref",
            "--engine-limit",
            "depth=3",
            "--engine-time",
            "movetime",
            "--engine-clocks",
            "swapped",
            "--games",
            "4",
        ];
        let args = Cli::try_parse_from(words).unwrap().args;
        let specs = &args.engines.specs;
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[0].command, "self usi");
        assert_eq!(
            specs[0].options,
            [("Depth".into(), "1".into()), ("Hash".into(), "16".into())]
        );
        assert_eq!(specs[0].name, "self usi Depth=1 Hash=16");
        assert_eq!(specs[1].name, "ref");
        assert_eq!(specs[1].go_limits, [("depth".to_string(), 3)]);
        assert!(!specs[0].movetime_go && specs[1].movetime_go);
        assert!(!specs[0].swap_clocks && specs[1].swap_clocks);
        let config = match_config(&args).unwrap();
        assert_eq!(config.pairs, 2);
        assert_eq!(
            config.referee.time_control,
            TimeControl::MoveTime(Duration::from_secs(1))
        );
    }

    #[test]
    fn misplaced_or_malformed_engine_flags_are_errors() {
        assert!(parse("--engine-option A=1 --engine x --engine y").is_err());
        assert!(parse("--engine x --engine-option A --engine y").is_err());
        assert!(parse("--engine x --engine-limit time=3 --engine y").is_err());
        assert!(parse("--engine x --engine-time clock --engine y").is_err());
        assert!(parse("--engine-time movetime --engine x --engine y").is_err());
        assert!(parse("--engine x --engine-clocks gote --engine y").is_err());
        assert!(parse("--engine x --movetime 1 --tc 10").is_err());
        let one = parse("--engine x").unwrap();
        assert!(match_config(&one).is_err());
    }

    #[test]
    fn same_commands_get_distinct_names() {
        let args = parse("--engine x --engine x").unwrap();
        let names: Vec<&str> = args.engines.specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["x #1", "x #2"]);
    }

    #[test]
    fn time_controls() {
        let tc =
            |line: &str| match_config(&parse(&format!("--engine a --engine b {line}")).unwrap());
        assert_eq!(
            tc("--tc 60+0.5").unwrap().referee.time_control,
            TimeControl::Clock {
                base: Duration::from_secs(60),
                increment: Duration::from_millis(500),
                byoyomi: Duration::ZERO
            }
        );
        assert_eq!(
            tc("--tc 10 --byoyomi 2").unwrap().referee.time_control,
            TimeControl::Clock {
                base: Duration::from_secs(10),
                increment: Duration::ZERO,
                byoyomi: Duration::from_secs(2)
            }
        );
        assert!(tc("--tc 10+1 --byoyomi 2").is_err());
        assert!(tc("--tc x").is_err());
        assert!(tc("--movetime=-1").is_err());
        assert!(tc("--tc 0").is_err());
        let sprt = tc("--sprt elo0=0 elo1=5 --games 7").unwrap();
        assert_eq!(sprt.sprt.unwrap().elo1, 5.0);
        assert_eq!(sprt.pairs, 4);
    }

    #[test]
    fn time_odds_give_an_engine_its_own_time_control() {
        let args =
            parse("--engine a --engine-movetime 0.1 --engine b --engine-tc 60+1 --movetime 0.5")
                .unwrap();
        let specs = &args.engines.specs;
        assert_eq!(
            specs[0].time_control,
            Some(TimeControl::MoveTime(Duration::from_millis(100)))
        );
        assert_eq!(
            specs[1].time_control,
            Some(TimeControl::Clock {
                base: Duration::from_secs(60),
                increment: Duration::from_secs(1),
                byoyomi: Duration::ZERO
            })
        );
        let config = match_config(&args).unwrap();
        let names = ["a".to_string(), "b".to_string()];
        assert_eq!(config.time_controls_text(&names), "a 0.1s/move, b 60s+1s");
        // Without odds the match's control is all there is to say.
        let even = match_config(&parse("--engine a --engine b --movetime 0.5").unwrap()).unwrap();
        assert_eq!(even.engines[0].time_control, None);
        assert_eq!(even.time_controls_text(&names), "0.5s/move");
        // Odds for one engine: the other plays the match's control.
        let one =
            match_config(&parse("--engine a --engine b --engine-byoyomi 3").unwrap()).unwrap();
        assert_eq!(one.time_controls_text(&names), "a 1s/move, b 0s byoyomi 3s");
        // Search limits decide the moves before the clock: the report says so.
        let limited = match_config(
            &parse("--engine a --engine-limit nodes=20000 --engine b --engine-limit depth=3")
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            limited.time_controls_text(&names),
            "1s/move; limits: a nodes 20000, b depth 3"
        );
        for bad in [
            "--engine-movetime 1 --engine a --engine b",
            "--engine a --engine-movetime x --engine b",
            "--engine a --engine-movetime 1 --engine-tc 10 --engine b",
            "--engine a --engine-tc 10+1 --engine-byoyomi 2 --engine b",
            "--engine a --engine-movetime 0 --engine b",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
