//! `minishogi-engine`: the playing engine alone — USI by default, UCI, the course protocol,
//! `bench`, `perft`, `eval` — with none of the lab's code or crates. This is the program a
//! shogi GUI, a match runner or a bot host starts; the lab's `engine` adds training, matches
//! and the board.

use std::process::ExitCode;

use clap::Parser;
use minishogi_engine::commands::{self, PlayingCommand};

#[derive(Parser)]
#[command(
    name = "minishogi-engine",
    version,
    about = "5五将棋 (minishogi) engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<PlayingCommand>,
}

fn main() -> ExitCode {
    commands::start_process();
    let command = Cli::parse().command.unwrap_or(PlayingCommand::Usi);
    commands::exit_code(commands::run(&command))
}
