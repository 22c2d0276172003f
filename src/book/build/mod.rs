//! `engine book`: builds an opening book from game records (`from-games`, see [`games`]) or by
//! the engine's own search (`search`, see [`search`]), written atomically in YaneuraOu's text
//! format.

pub mod games;
pub mod search;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::book::choice::DEFAULT_MAX_PLY;
use crate::book::format::{self, Book};
use crate::eval::Evaluator;
use crate::fileio;
use crate::matches::openings::load_openings;
use crate::nn::NetworkEvaluator;
use crate::shogi::Position;

#[derive(clap::Args, Debug, Clone)]
pub struct BookArgs {
    #[command(subcommand)]
    pub command: BookCommand,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum BookCommand {
    /// A book of the moves played in games, with counts and values from the games' results.
    FromGames(FromGamesArgs),
    /// A book made by the engine's own search over the first plies (MultiPV at a node budget).
    Search(SearchArgs),
}

#[derive(clap::Args, Debug, Clone)]
pub struct FromGamesArgs {
    /// Game files: `engine match`'s games.txt and other files of position lines (one game a
    /// line), KIF (.kif, .kifu), CSA (.csa), datagen shards (.dgn) or folders of shards.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The book file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Moves played at a game ply below this go into the book (ply 0 = the first move).
    #[arg(long, default_value_t = DEFAULT_MAX_PLY)]
    pub max_ply: u32,
    /// Moves played fewer times than this are left out.
    #[arg(long, default_value_t = 1)]
    pub min_count: u64,
}

#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    /// Plies of book: positions fewer plies than this from a root are searched.
    #[arg(long, default_value_t = 6)]
    pub depth_plies: u32,
    /// Node limit of each position's search.
    #[arg(long, default_value_t = 20_000)]
    pub nodes: u64,
    /// Lines searched in each position (MultiPV), and most book moves kept there.
    #[arg(long, default_value_t = 3)]
    pub width: usize,
    /// Lines scoring more than this many centipawns below the position's best are left out
    /// (and not expanded).
    #[arg(long, default_value_t = 100)]
    pub max_loss: i32,
    /// Lines scoring more than this many centipawns below the best are kept with count 0: in
    /// the book for the replies to them, never played by the weighted choice.
    #[arg(long, default_value_t = 30)]
    pub play_loss: i32,
    /// Roots: every position of an openings file (as `engine match --openings`); default: the
    /// start position.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Weights file of the network that searches (default: the embedded network).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
    /// Transposition table of each position's search, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Positions searched at the same time (0 = all cores); the book is the same at any count.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// The book file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Runs `engine book …`.
pub fn run(args: &BookArgs) -> Result<(), String> {
    match &args.command {
        BookCommand::FromGames(args) => run_from_games(args),
        BookCommand::Search(args) => run_search(args),
    }
}

/// Writes `book` to `out` atomically (holding `out`'s lock) with `comments` at the top, and
/// says what was written on standard error.
fn write_book(
    out: &Path,
    book: &Book,
    comments: &[String],
    started: Instant,
) -> Result<(), String> {
    let _lock = crate::train::claim_output(out)?;
    fileio::write_atomic(out, format::write(book, comments).as_bytes())
        .map_err(|e| e.to_string())?;
    eprintln!(
        "book: {} positions, {} moves written to {} ({:.1} s)",
        book.len(),
        book.move_count(),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn run_from_games(args: &FromGamesArgs) -> Result<(), String> {
    let started = Instant::now();
    if args.min_count == 0 {
        return Err("--min-count must be at least 1".to_string());
    }
    fileio::check_replaceable(&args.out).map_err(|e| format!("--out {e}"))?;
    let mut tally = games::Tally::default();
    for path in &args.files {
        games::add_file(&mut tally, path, args.max_ply)?;
    }
    let (games, moves) = (tally.games, tally.moves);
    let book = tally.into_book(args.min_count);
    eprintln!(
        "book: {games} games, {moves} moves at plies below {}",
        args.max_ply
    );
    let comments = vec![format!(
        "engine book from-games --max-ply {} --min-count {}: {games} games",
        args.max_ply, args.min_count
    )];
    write_book(&args.out, &book, &comments, started)
}

fn run_search(args: &SearchArgs) -> Result<(), String> {
    let started = Instant::now();
    if args.width == 0 || args.nodes == 0 || args.depth_plies == 0 {
        return Err("--width, --nodes and --depth-plies must be at least 1".to_string());
    }
    if args.max_loss < 0 || args.play_loss < 0 {
        return Err("--max-loss and --play-loss cannot be negative".to_string());
    }
    if args.hash == 0 || args.hash > 4096 {
        return Err(format!("--hash {} must be 1 to 4096 MiB", args.hash));
    }
    fileio::check_replaceable(&args.out).map_err(|e| format!("--out {e}"))?;
    let roots: Vec<Position> = match &args.openings {
        None => vec![Position::startpos()],
        Some(path) => load_openings(path)?
            .iter()
            .map(|o| o.game().position().clone())
            .collect(),
    };
    let mut network = NetworkEvaluator::with_default_network();
    if let Some(path) = &args.eval_file {
        network
            .load(path)
            .map_err(|e| format!("--eval-file: {e}"))?;
    }
    let evaluator: Arc<dyn Evaluator> = Arc::new(network);
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let settings = search::SearchSettings {
        depth_plies: args.depth_plies,
        nodes: args.nodes,
        width: args.width,
        max_loss: args.max_loss,
        play_loss: args.play_loss,
        hash_mb: args.hash,
    };
    let bar = if args.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        crate::train::progress_bar(
            0,
            "book search {bar:30} {pos}/{len} positions {msg} ({elapsed}, {per_sec})",
        )
    };
    let searched = |ply: u32, done: u64, known: u64| {
        bar.set_length(known);
        bar.set_position(done);
        bar.set_message(format!("· ply {}/{}", ply + 1, args.depth_plies));
    };
    // A line a ply as well: on a log file or a pipe, where no bar is drawn, the only progress.
    let ply_done = |ply: u32, positions: usize| {
        let line = format!(
            "book search: ply {}/{} done, {positions} positions ({:.0} s)",
            ply + 1,
            args.depth_plies,
            started.elapsed().as_secs_f64()
        );
        if args.quiet {
            return;
        }
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            bar.println(line);
        } else {
            eprintln!("{line}");
        }
    };
    let progress = search::Progress {
        searched: &searched,
        ply_done: &ply_done,
    };
    let book = search::build(&roots, &settings, &evaluator, threads, &progress)?;
    bar.finish_and_clear();
    let mut comments = vec![format!(
        "engine book search --depth-plies {} --nodes {} --width {} --max-loss {} --play-loss {} \
         --hash {}",
        args.depth_plies, args.nodes, args.width, args.max_loss, args.play_loss, args.hash
    )];
    if let Some(path) = &args.openings {
        comments.push(format!(
            "roots: the {} positions of {}",
            roots.len(),
            path.display()
        ));
    }
    if let Some(path) = &args.eval_file {
        comments.push(format!("network: {}", path.display()));
    }
    write_book(&args.out, &book, &comments, started)
}
