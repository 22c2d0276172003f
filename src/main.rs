//! The `engine` command line: the playing engine's commands (`minishogi_engine::commands`, the
//! same as the `minishogi-engine` binary's) and the lab's, one subcommand per mode, each
//! handled by its module.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use engine::commands::{self, PlayingCommand};

#[derive(Parser)]
#[command(name = "engine", version, about = "5五将棋 (minishogi) engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// What the playing engine (`minishogi-engine`) does: usi, uci, perft, play, bench, eval.
    #[command(flatten)]
    Playing(PlayingCommand),
    /// Play a match between two USI engines, refereed by our rules.
    Match(engine::matches::cli::MatchArgs),
    /// Scaling ladder: a match at each of several limits, with a table and an Elo plot.
    Scale(engine::tools::scale::ScaleArgs),
    /// Time to depth of USI engines over a set of positions (median, p90, p99, max).
    Ttd(engine::tools::ttd::TtdArgs),
    /// Draw positions with pieces in hand from played games (for `engine ttd`).
    SamplePositions(engine::tools::ttd::SampleArgs),
    /// Fit the curve from the search's score to the game's result on datagen shards, and
    /// score the curves in use (the engine's, lishogi's, lichess's, ShogiHome's) against it.
    Winrate(engine::tools::winrate::WinrateArgs),
    /// Review game records (KIF, KIFU, CSA, USI; files or folders): every move's loss in
    /// win%, its mark and the better move, each side's accuracy; the records written back
    /// with the comments, and a JSON report.
    Review(engine::tools::review::ReviewArgs),
    /// Puzzles from games (shards, KIF, KIFU, CSA, USI; files or folders): mates in 1–5 and
    /// advantages, each solution unique, written as the board's puzzle file.
    Puzzles(engine::tools::puzzles::PuzzlesArgs),
    /// Convert a game record: KIF (.kif Shift_JIS, .kifu UTF-8), CSA, USI position line.
    Convert(engine::tools::convert::ConvertArgs),
    /// What a weights file holds (feature set, shape, encoding), and the file rewritten as
    /// compact (first layer 16-bit fixed point, half the size) or full (all f32).
    Weights(engine::tools::weights::WeightsArgs),
    /// A USI engine that plays uniformly random legal moves (a baseline opponent).
    Random(engine::matches::cli::RandomArgs),
    /// Build the mate / pre-mate data set and train the network on it.
    Pretrain(engine::train::pretrain::PretrainArgs),
    /// Train the network by self-play (TD-style targets from the game's end).
    Selfplay(engine::train::selfplay::SelfplayArgs),
    /// Self-play games by the full search at a node budget, written as training data shards.
    Datagen(engine::train::datagen::DatagenArgs),
    /// Train the network on datagen shards (targets from the search's score and the result).
    Train(engine::train::learn::TrainArgs),
    /// Train MCTS's move policy on the moves the search chose in datagen shards.
    TrainPolicy(engine::train::policy::TrainPolicyArgs),
    /// Tune search parameters by matches (SPSA or particle swarm); resumable.
    Tune(engine::tune::cli::TuneArgs),
    /// Draw as SVG a file the project writes: training metrics, generations, a match, a
    /// scale ladder, a tuning run.
    Plot(engine::tools::plot::PlotArgs),
    /// Build an opening book (YaneuraOu's text format) from games or by the engine's search.
    Book(engine::book::build::BookArgs),
    /// A board in the browser: play and analyse against this or any USI engine.
    Gui(engine::gui::GuiArgs),
}

fn main() -> ExitCode {
    commands::start_process();
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Playing(PlayingCommand::Usi)) {
        Command::Playing(command) => commands::run(&command),
        Command::Match(args) => engine::matches::cli::run(&args).map_err(|e| e.to_string()),
        Command::Scale(args) => engine::tools::scale::run(&args),
        Command::Ttd(args) => engine::tools::ttd::run(&args),
        Command::SamplePositions(args) => engine::tools::ttd::run_sample(&args),
        Command::Winrate(args) => engine::tools::winrate::run(&args),
        Command::Review(args) => engine::tools::review::run(&args),
        Command::Puzzles(args) => engine::tools::puzzles::run(&args),
        Command::Convert(args) => engine::tools::convert::run(&args),
        Command::Weights(args) => engine::tools::weights::run(&args),
        Command::Random(args) => engine::matches::cli::run_random(&args).map_err(|e| e.to_string()),
        Command::Pretrain(args) => engine::train::pretrain::run(&args).map(|_| ()),
        Command::Selfplay(args) => engine::train::selfplay::run(&args).map(|_| ()),
        Command::Datagen(args) if !args.verify.is_empty() => {
            engine::train::datagen::verify(&args.verify)
        }
        Command::Datagen(args) => engine::train::datagen::run(&args).map(|_| ()),
        Command::Train(args) => engine::train::learn::run(&args).map(|_| ()),
        Command::TrainPolicy(args) => engine::train::policy::run(&args),
        Command::Tune(args) => engine::tune::cli::run(&args),
        Command::Gui(args) => engine::gui::run(&args),
        Command::Plot(args) => engine::tools::plot::run(&args),
        Command::Book(args) => engine::book::build::run(&args),
    };
    commands::exit_code(result)
}
