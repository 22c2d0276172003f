use clap::{Parser, Subcommand};
use engine::matches;
use engine::shogi::{Position, perft};

#[derive(Parser)]
#[command(name = "engine", about = "5五将棋 (minishogi) engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count leaf nodes of the move tree from the initial position.
    Perft { depth: u32 },
    /// Play a match between two USI engines, refereed by our rules.
    Match(matches::cli::MatchArgs),
    /// A USI engine that plays uniformly random legal moves (a baseline opponent).
    Random(matches::cli::RandomArgs),
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result: Result<(), Box<dyn std::error::Error>> = match cli.command {
        Command::Perft { depth } => {
            let mut p = Position::startpos();
            let t = std::time::Instant::now();
            let n = perft(&mut p, depth);
            let e = t.elapsed().as_secs_f64();
            println!("{n} {e:.3}s {:.1} Mnps", n as f64 / e / 1e6);
            Ok(())
        }
        Command::Match(args) => matches::cli::run(&args),
        Command::Random(args) => matches::cli::run_random(&args).map_err(Into::into),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
