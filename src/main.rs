//! The `engine` binary: wires the command line to the library's modules.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "engine", version, about = "5五将棋 (minishogi) engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Speak USI on standard input/output (the default).
    Usi,
    /// Count the leaves of the legal move tree (move generator check and speed).
    Perft(engine::tools::perft::PerftArgs),
    /// Play a match between two USI engines, refereed by our rules.
    Match(engine::matches::cli::MatchArgs),
    /// A USI engine that plays uniformly random legal moves (a baseline opponent).
    Random(engine::matches::cli::RandomArgs),
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Usi) {
        Command::Usi => Err("the USI loop is not part of this build yet".to_string()),
        Command::Perft(args) => engine::tools::perft::run(&args),
        Command::Match(args) => engine::matches::cli::run(&args).map_err(|e| e.to_string()),
        Command::Random(args) => engine::matches::cli::run_random(&args).map_err(|e| e.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            log::error!("{message}");
            ExitCode::FAILURE
        }
    }
}
