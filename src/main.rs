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
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Usi) {
        Command::Usi => Err("the USI loop is not part of this build yet".to_string()),
        Command::Perft(args) => engine::tools::perft::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            log::error!("{message}");
            ExitCode::FAILURE
        }
    }
}
