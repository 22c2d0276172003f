//! The `engine` command line: one subcommand per mode, each handled by its module.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "engine", version, about = "5五将棋 (minishogi) engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Speak USI on standard input and output (the default without a subcommand).
    Usi,
    /// Count the leaves of the legal move tree (move generator check and speed).
    Perft(engine::tools::perft::PerftArgs),
    /// Build the mate / pre-mate data set and train the network on it.
    Pretrain(engine::train::pretrain::PretrainArgs),
    /// Train the network by self-play (one-ply search, TD-style targets from the game's end).
    Selfplay(engine::train::selfplay::SelfplayArgs),
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Usi) {
        Command::Usi => engine::protocol::usi::run_stdio().map_err(|e| e.to_string()),
        Command::Perft(args) => engine::tools::perft::run(&args),
        Command::Pretrain(args) => engine::train::pretrain::run(&args).map(|_| ()),
        Command::Selfplay(args) => engine::train::selfplay::run(&args).map(|_| ()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
