//! `eval`: the network's view of one position — win probability, cp, and how much each
//! feature group contributes.

use std::path::PathBuf;

use crate::nn;

/// Arguments of `eval`.
#[derive(clap::Args, Debug, Clone)]
pub struct EvalArgs {
    /// Position as an SFEN (default: the start position).
    #[arg(long)]
    pub sfen: Option<String>,
    /// USI or course moves to play from that position first.
    #[arg(long, num_args = 1..)]
    pub moves: Vec<String>,
    /// Weights file to use instead of the embedded network.
    #[arg(long)]
    pub weights: Option<PathBuf>,
}

pub fn run(args: &EvalArgs) -> Result<(), String> {
    let pos = super::position::position_from(args.sfen.as_deref(), &args.moves)?;
    let (net, source) = match &args.weights {
        Some(path) => (
            nn::load_from_path(path).map_err(|e| e.to_string())?,
            path.display().to_string(),
        ),
        None => (nn::default_network(), "embedded".to_string()),
    };
    println!("{}", pos.pretty());
    println!("sfen {}", pos.to_sfen());
    println!("weights: {source}");
    print!("{}", nn::eval_report(&net, &pos));
    Ok(())
}
