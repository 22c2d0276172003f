//! The playing binary's commands — USI (the default), UCI, the course protocol, `bench`,
//! `perft`, `eval` — parsed and run here, so that the engine crate's own binary
//! (`src/main.rs`) and the lab's `engine` offer the same commands from one definition.

pub mod eval;
pub mod perft;
pub mod position;

use std::process::ExitCode;

use clap::Subcommand;

/// What a program that only plays can be asked to do.
#[derive(Subcommand, Debug, Clone)]
pub enum PlayingCommand {
    /// Speak USI on standard input and output (the default without a subcommand).
    Usi,
    /// Speak UCI in Fairy-Stockfish's dialect for minishogi (FEN, moves such as a2a3), as
    /// cutechess-cli's proto=uci does.
    Uci,
    /// Count the leaves of the legal move tree (move generator check and speed).
    Perft(perft::PerftArgs),
    /// Play one game by the course protocol: 1 = the engine is sente, 0 = the opponent is.
    Play(crate::protocol::course::PlayArgs),
    /// Search a fixed set of positions to a fixed depth; prints `Bench: N nodes M nps`.
    Bench(crate::bench::BenchArgs),
    /// Show the network's evaluation of a position, by feature group.
    Eval(eval::EvalArgs),
}

/// Runs one playing command to its end.
pub fn run(command: &PlayingCommand) -> Result<(), String> {
    match command {
        PlayingCommand::Usi => crate::protocol::usi::run_stdio().map_err(|e| e.to_string()),
        PlayingCommand::Uci => crate::protocol::usi::run_stdio_uci().map_err(|e| e.to_string()),
        PlayingCommand::Perft(args) => perft::run(args),
        PlayingCommand::Play(args) => crate::protocol::course::run(args),
        PlayingCommand::Bench(args) => crate::bench::run(args),
        PlayingCommand::Eval(args) => eval::run(args),
    }
}

/// What every binary of the project does first: logs to standard error (standard output is
/// the protocol channel), `warn` unless `RUST_LOG` says otherwise, and a file too large for
/// the process's limit reported as an error instead of killing it.
pub fn start_process() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    crate::fileio::report_file_size_limit_as_error();
}

/// A command's outcome as the process's exit status, its error logged.
pub fn exit_code(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
