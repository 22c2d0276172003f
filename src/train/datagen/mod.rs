//! `engine datagen`: self-play games played by the full search at a small node budget, every
//! searched position stored with the search's score, its best move and the game's result —
//! the data a network learns from search with (`engine train`).
//!
//! Work is split in shards: `--shard K --shards N --seed S` names a stream of games that is the
//! same on every machine and at every thread count (game `i` of shard `K` is seeded by
//! `(S, K, i)` alone and played by a fresh single-threaded searcher with node limits). A shard
//! is one file (see [`format`]) that grows one complete game at a time; a run that is killed
//! loses only the games in flight, and running the same command again continues the shard
//! where it stopped, to the same file an uninterrupted run writes.

pub mod format;
pub mod play;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use crate::eval::Evaluator;
use crate::matches::openings::{Opening, load_openings};
use crate::nn::{self, NetworkEvaluator};
use crate::players::{self, new_player};
use crate::search::{SearchOptions, THREAD_STACK};
use format::{GameSettings, ShardHeader, ShardWriter, SoftRule};

#[derive(clap::Args, Debug, Clone)]
pub struct DatagenArgs {
    /// Folder of the shard files; this run writes `shard-KKKKK-of-NNNNN.dgn` in it.
    #[arg(long, default_value = "data/datagen")]
    pub out: PathBuf,
    /// Which shard this run writes (0-based).
    #[arg(long, default_value_t = 0)]
    pub shard: u32,
    /// How many shards the whole plan has.
    #[arg(long, default_value_t = 1)]
    pub shards: u32,
    /// Seed of the plan: with the shard number and the game's index it decides each game.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The shard is complete once it holds this many games.
    #[arg(long)]
    pub games: Option<u64>,
    /// The shard is complete once it holds at least this many positions (whole games).
    #[arg(long)]
    pub positions: Option<u64>,
    /// Soft node limit of a move: no new iteration starts once the search has used this many.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// How a search keeps to `--nodes`: `predicted` (no iteration starts past it, nor one
    /// predicted to end past it) or `started` (only the first: the one under way finishes, as
    /// the data of generations 1–13 was played).
    #[arg(long, value_enum, default_value_t = SoftRule::Predicted)]
    pub soft_rule: SoftRule,
    /// Hard node limit of a move: the search stops there even in the middle of an iteration.
    #[arg(long, default_value_t = 50_000)]
    pub hard_nodes: u64,
    /// Uniformly random plies played from the opening position before the search takes over.
    #[arg(long, default_value_t = 8)]
    pub random_plies: u32,
    /// The opening is drawn again while the search's |score| of its first position exceeds
    /// this many centipawns.
    #[arg(long, default_value_t = 1000)]
    pub max_opening_score: i32,
    /// A game is adjudicated once |score| ≥ this many centipawns for `--adjudicate-plies` plies
    /// in a row (0 = never; a mate announced by the search always ends the game).
    #[arg(long, default_value_t = 3000)]
    pub adjudicate_score: i32,
    #[arg(long, default_value_t = 6)]
    pub adjudicate_plies: u32,
    /// A game is a draw after this many plies.
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
    /// Openings file (one position per line, as `engine match --openings`); default: the start
    /// position. Each game draws one, then plays the random plies.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Weights file of the network that plays (default: the embedded network).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
    /// Games played at the same time (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Which player searches (`alphabeta`, the only one so far). Not in the shard's header:
    /// continue a shard with the player that began it.
    #[arg(long, value_name = "NAME", default_value = players::ALPHABETA)]
    pub search: String,
    /// Transposition table of each game's searcher, MiB.
    #[arg(long, default_value_t = 8)]
    pub hash: u32,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Seconds between progress lines when standard error is not a terminal (a log file or a
    /// pipe read by a driver such as scripts/distributed/).
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub log_every: u64,
    /// Check shard files instead of playing: one JSON line a file on standard output (its
    /// header, games, positions); fails, naming the file, if one is not whole (a bad header, a
    /// torn or corrupt game).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub verify: Vec<PathBuf>,
}

/// What a run did, for the caller and the tests.
#[derive(Debug, Clone)]
pub struct DatagenReport {
    pub path: PathBuf,
    /// Games and positions in the shard at the end.
    pub games: u64,
    pub positions: u64,
    /// Games and positions this run added.
    pub new_games: u64,
    pub new_positions: u64,
    /// Searches (one a position, and one for each opening drawn again) and nodes of the games
    /// this run added.
    pub searches: u64,
    pub nodes: u64,
    pub seconds: f64,
}

impl DatagenReport {
    pub fn positions_per_second(&self) -> f64 {
        self.new_positions as f64 / self.seconds.max(1e-9)
    }
}

/// When a shard is complete.
#[derive(Clone, Copy, Debug)]
enum Target {
    Games(u64),
    Positions(u64),
}

impl Target {
    fn reached(self, games: u64, positions: u64) -> bool {
        match self {
            Target::Games(n) => games >= n,
            Target::Positions(n) => positions >= n,
        }
    }
}

fn check_args(args: &DatagenArgs) -> Result<Target, String> {
    if args.shards == 0 {
        return Err("--shards must be at least 1".into());
    }
    if args.shard >= args.shards {
        return Err(format!(
            "--shard {} is out of range for --shards {} (shards are numbered 0 to {})",
            args.shard,
            args.shards,
            args.shards - 1
        ));
    }
    if args.nodes == 0 {
        return Err("--nodes must be at least 1".into());
    }
    if args.hard_nodes < args.nodes {
        return Err(format!(
            "--hard-nodes {} is below --nodes {}",
            args.hard_nodes, args.nodes
        ));
    }
    if args.max_plies == 0 || args.max_plies > u16::MAX as u32 {
        return Err(format!("--max-plies {} must be 1 to 65535", args.max_plies));
    }
    if args.hash == 0 || args.hash > 4096 {
        return Err(format!("--hash {} must be 1 to 4096 MiB", args.hash));
    }
    // Refused before any file is touched.
    players::known_name(&args.search).map_err(|e| format!("--search: {e}"))?;
    if args.adjudicate_score < 0 || args.max_opening_score < 0 {
        return Err("--adjudicate-score and --max-opening-score cannot be negative".into());
    }
    match (args.games, args.positions) {
        (Some(_), Some(_)) => Err("give --games or --positions, not both".into()),
        (None, None) => Err("say how big the shard is: --games N or --positions N".into()),
        (Some(0), _) | (_, Some(0)) => Err("the shard size must be at least 1".into()),
        (Some(n), None) => Ok(Target::Games(n)),
        (None, Some(n)) => Ok(Target::Positions(n)),
    }
}

/// The evaluator that plays and the checksum of its weights.
fn load_evaluator(path: Option<&Path>) -> Result<(Arc<NetworkEvaluator>, u64), String> {
    let mut evaluator = NetworkEvaluator::with_default_network();
    if let Some(path) = path {
        evaluator
            .load(path)
            .map_err(|e| format!("--eval-file: {e}"))?;
    }
    let checksum = crate::fileio::fnv1a(&nn::weights::encode(evaluator.network()));
    Ok((Arc::new(evaluator), checksum))
}

fn load_plan_openings(path: Option<&Path>) -> Result<(Vec<Opening>, u64), String> {
    match path {
        None => Ok((Vec::new(), 0)),
        Some(path) => {
            let text = crate::fileio::read_regular_to_string(path)
                .map_err(|e| format!("cannot read openings file {e}"))?;
            let openings = load_openings(path)?;
            Ok((openings, crate::fileio::fnv1a(text.as_bytes())))
        }
    }
}

/// Runs `engine datagen`: creates or continues the shard until it is complete.
pub fn run(args: &DatagenArgs) -> Result<DatagenReport, String> {
    let target = check_args(args)?;
    let (evaluator, network_checksum) = load_evaluator(args.eval_file.as_deref())?;
    let (openings, openings_checksum) = load_plan_openings(args.openings.as_deref())?;
    let header = ShardHeader {
        shard: args.shard,
        shards: args.shards,
        seed: args.seed,
        settings: GameSettings {
            soft_nodes: args.nodes,
            soft_rule: args.soft_rule,
            hard_nodes: args.hard_nodes,
            random_plies: args.random_plies,
            max_opening_score: args.max_opening_score,
            adjudicate_score: args.adjudicate_score,
            adjudicate_plies: args.adjudicate_plies,
            max_plies: args.max_plies,
            hash_mb: args.hash,
        },
        network_checksum,
        openings_checksum,
    };
    std::fs::create_dir_all(&args.out).map_err(|e| {
        format!(
            "--out {}: cannot create the folder: {e}",
            args.out.display()
        )
    })?;
    let path = args
        .out
        .join(format::shard_file_name(args.shard, args.shards));
    let _lock = super::claim_output(&path)?;

    // Create the shard, or continue it.
    let (mut writer, mut games, mut positions) = if path.exists() {
        let contents = format::read_shard(&path).map_err(|e| e.to_string())?;
        if contents.header != header {
            return Err(format!(
                "{} was made with other settings ({:?}); give another --out or --shard, or \
                 delete the file",
                path.display(),
                contents.header
            ));
        }
        if contents.torn_bytes > 0 {
            log::warn!(
                "{}: cutting off {} bytes of an unfinished game (the previous run was stopped)",
                path.display(),
                contents.torn_bytes
            );
        }
        let games = contents.games.len() as u64;
        let positions = contents.positions() as u64;
        log::info!(
            "{}: continuing after {games} games, {positions} positions",
            path.display()
        );
        let writer = ShardWriter::resume(&path, contents.valid_len).map_err(|e| e.to_string())?;
        (writer, games, positions)
    } else {
        let writer = ShardWriter::create(&path, &header).map_err(|e| e.to_string())?;
        (writer, 0, 0)
    };
    let (start_games, start_positions) = (games, positions);
    // Searches and nodes of the games this run wrote.
    let (mut searches, mut nodes) = (0u64, 0u64);
    let start = Instant::now();

    if !target.reached(games, positions) {
        let threads = match args.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let mut progress = Progress::new(target, games, positions, args.quiet, args.log_every);
        let next_index = AtomicU64::new(games);
        let abort = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel();
        let evaluator: Arc<dyn Evaluator> = evaluator;
        let result: Result<(), String> = std::thread::scope(|scope| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (next_index, abort, evaluator) = (&next_index, &abort, evaluator.clone());
                let (header, openings) = (&header, &openings);
                std::thread::Builder::new()
                    .stack_size(THREAD_STACK)
                    .spawn_scoped(scope, move || {
                        let options = SearchOptions {
                            hash_mb: header.settings.hash_mb as usize,
                            threads: 1,
                            ..SearchOptions::default()
                        };
                        // Known: `check_args` tried the name.
                        let mut player =
                            new_player(&args.search, options).expect("the search was checked");
                        player.set_evaluator(evaluator);
                        while !abort.load(Ordering::Relaxed) {
                            let index = next_index.fetch_add(1, Ordering::Relaxed);
                            if let Target::Games(n) = target
                                && index >= n
                            {
                                break;
                            }
                            let seed = game_seed(header, index);
                            let game = play::play_game_with_cost(
                                &mut *player,
                                &header.settings,
                                openings,
                                index,
                                seed,
                                abort,
                            );
                            let sent = game.is_some_and(|game| tx.send(game).is_ok());
                            if !sent {
                                break;
                            }
                        }
                    })
                    .map_err(|e| format!("cannot start a datagen thread: {e}"))?;
            }
            drop(tx);
            // Games arrive in any order; they are written in index order.
            let mut pending = BTreeMap::new();
            let outcome = (|| {
                for (game, cost) in rx.iter() {
                    pending.insert(game.index, (game, cost));
                    while let Some((game, cost)) = pending.remove(&games) {
                        writer.append(&game).map_err(|e| e.to_string())?;
                        games += 1;
                        positions += game.positions.len() as u64;
                        searches += cost.searches;
                        nodes += cost.nodes;
                        progress.update(games, positions);
                        if target.reached(games, positions) {
                            return Ok(());
                        }
                    }
                }
                Ok(())
            })();
            abort.store(true, Ordering::Relaxed);
            outcome
        });
        progress.finish();
        result?;
    }
    let report = DatagenReport {
        path,
        games,
        positions,
        new_games: games - start_games,
        new_positions: positions - start_positions,
        searches,
        nodes,
        seconds: start.elapsed().as_secs_f64(),
    };
    eprintln!(
        "datagen: shard {} of {}: {} games, {} positions in {} ({} games, {} positions this run, \
         {:.1} s, {:.0} positions/s; {} searches, {:.0} nodes a position)",
        args.shard,
        args.shards,
        report.games,
        report.positions,
        report.path.display(),
        report.new_games,
        report.new_positions,
        report.seconds,
        report.positions_per_second(),
        report.searches,
        report.nodes as f64 / report.new_positions.max(1) as f64
    );
    Ok(report)
}

/// What `engine datagen --verify` prints for a whole shard file (one JSON line).
#[derive(serde::Serialize)]
struct ShardSummary<'a> {
    file: String,
    bytes: u64,
    games: u64,
    positions: u64,
    /// Positions of the last game (a `--positions P` shard stops at the first game that
    /// reaches P: `positions - last_game_positions < P <= positions`).
    last_game_positions: u64,
    header: &'a ShardHeader,
}

/// `engine datagen --verify FILE…`: reads each shard whole, checking its header and every
/// game's checksum and index, and prints its summary. A file that is not whole is an error.
pub fn verify(paths: &[PathBuf]) -> Result<(), String> {
    let mut errors = Vec::new();
    for path in paths {
        let contents = match format::read_shard(path) {
            Ok(contents) => contents,
            Err(e) => {
                errors.push(e.to_string());
                continue;
            }
        };
        if contents.torn_bytes > 0 {
            errors.push(format!(
                "{}: {} bytes after game {} are not a whole game with a good checksum (a torn \
                 write or corruption); {} games, {} positions before them",
                path.display(),
                contents.torn_bytes,
                contents.games.len(),
                contents.games.len(),
                contents.positions()
            ));
            continue;
        }
        let summary = ShardSummary {
            file: path.display().to_string(),
            bytes: contents.valid_len,
            games: contents.games.len() as u64,
            positions: contents.positions() as u64,
            last_game_positions: contents
                .games
                .last()
                .map_or(0, |g| g.positions.len() as u64),
            header: &contents.header,
        };
        println!(
            "{}",
            serde_json::to_string(&summary).map_err(|e| e.to_string())?
        );
    }
    match errors.len() {
        0 => Ok(()),
        1 => Err(errors.remove(0)),
        n => Err(format!("{n} shard files are bad:\n{}", errors.join("\n"))),
    }
}

/// The seed of game `index` of the shard: the plan's seed, the shard and the index alone.
pub fn game_seed(header: &ShardHeader, index: u64) -> u64 {
    super::selfplay::game_seed(header.seed, u64::from(header.shard), index)
}

/// Progress: a bar on a terminal; on a log file or a pipe (standard error redirected) a line
/// every `--log-every` seconds, since a bar would not be drawn there.
struct Progress {
    bar: indicatif::ProgressBar,
    target: Target,
    log_lines: bool,
    log_every: u64,
    last_line: Instant,
    start: Instant,
    start_positions: u64,
}

impl Progress {
    fn new(target: Target, games: u64, positions: u64, quiet: bool, log_every: u64) -> Progress {
        use std::io::IsTerminal;
        let terminal = std::io::stderr().is_terminal();
        let (len, pos, unit) = match target {
            Target::Games(n) => (n, games, "games"),
            Target::Positions(n) => (n, positions, "positions"),
        };
        let bar = if quiet || !terminal {
            indicatif::ProgressBar::hidden()
        } else {
            super::progress_bar(
                len,
                &format!(
                    "datagen {{bar:30}} {{pos}}/{{len}} {unit} {{msg}} ({{elapsed}}, eta {{eta}})"
                ),
            )
        };
        bar.set_position(pos);
        let now = Instant::now();
        Progress {
            bar,
            target,
            log_lines: !quiet && !terminal,
            log_every,
            last_line: now,
            start: now,
            start_positions: positions,
        }
    }

    fn update(&mut self, games: u64, positions: u64) {
        let elapsed = self.start.elapsed().as_secs_f64().max(1e-3);
        let rate = (positions - self.start_positions) as f64 / elapsed;
        let (done, len) = match self.target {
            Target::Games(n) => (games, n),
            Target::Positions(n) => (positions.min(n), n),
        };
        self.bar.set_position(done);
        self.bar.set_message(match self.target {
            Target::Games(_) => format!("· {positions} positions · {rate:.0} positions/s"),
            Target::Positions(_) => format!("· {games} games · {rate:.0} positions/s"),
        });
        if self.log_lines && self.last_line.elapsed().as_secs() >= self.log_every {
            self.last_line = Instant::now();
            let share = done as f64 / len.max(1) as f64;
            let eta = match self.target {
                Target::Positions(n) => (n.saturating_sub(positions)) as f64 / rate.max(1e-9),
                Target::Games(_) => elapsed * (1.0 - share) / share.max(1e-9),
            };
            eprintln!(
                "datagen: {games} games, {positions} positions ({:.1}%), {rate:.0} positions/s, \
                 eta {:.0} min",
                100.0 * share,
                eta / 60.0
            );
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
