//! `engine weights`: what a weights file holds (feature set, shape, encoding, size), and the
//! file rewritten in another encoding — `compact` (the first layer in 16-bit fixed point, half
//! the size: what ships, so the WebAssembly module stays small) or `full` (every parameter
//! `f32`). A rewrite reports how far the network moved: the largest change of a parameter and
//! of the evaluation (the engine's own path) over the bench positions and their children.

use std::path::PathBuf;

use crate::fileio;
use crate::nn::weights::{self, Encoding};
use crate::nn::{Network, NetworkEvaluator};
use crate::shogi::Position;

/// Arguments of `engine weights`.
#[derive(clap::Args, Debug, Clone)]
pub struct WeightsArgs {
    /// The weights file to read.
    pub input: PathBuf,
    /// Write the network here (atomically) in `--encoding`.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Encoding of `--output`: compact (first layer 16-bit fixed point) or full (all f32).
    #[arg(long, default_value = "compact", value_parser = parse_encoding)]
    pub encoding: Encoding,
}

fn parse_encoding(name: &str) -> Result<Encoding, String> {
    match name {
        "compact" => Ok(Encoding::Compact),
        "full" => Ok(Encoding::Full),
        _ => Err(format!("{name}: not an encoding (compact, full)")),
    }
}

fn encoding_name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Compact => "compact",
        Encoding::Full => "full",
    }
}

/// Runs `engine weights`.
pub fn run(args: &WeightsArgs) -> Result<(), String> {
    let bytes = fileio::read_regular(&args.input).map_err(|e| format!("cannot read {e}"))?;
    let name = args.input.display();
    let net = weights::decode(&bytes).map_err(|e| format!("{name}: {e}"))?;
    let encoding = weights::encoding_of(&bytes).map_err(|e| format!("{name}: {e}"))?;
    println!(
        "{name}: feature set {}, sizes {:?}, {}, {} parameters, {} encoding, {} bytes",
        net.feature_set(),
        net.sizes(),
        net.hidden_activation().name(),
        net.parameter_count(),
        encoding_name(encoding),
        bytes.len()
    );
    let Some(output) = &args.output else {
        return Ok(());
    };
    let written = weights::encode_as(&net, args.encoding);
    let back = weights::decode(&written).map_err(|e| format!("re-reading the rewrite: {e}"))?;
    let (param, eval) = distance(&net, &back)?;
    fileio::write_atomic(output, &written).map_err(|e| format!("cannot write {e}"))?;
    println!(
        "wrote {} ({} encoding, {} bytes); largest parameter change {param:.3e}, largest \
         evaluation change {eval:.3e} logit over {} positions",
        output.display(),
        encoding_name(args.encoding),
        written.len(),
        probe_positions().len()
    );
    Ok(())
}

/// The largest change of a parameter, and of the logit the engine computes, between two
/// networks of one shape.
fn distance(a: &Network, b: &Network) -> Result<(f32, f32), String> {
    let param = a
        .layers()
        .iter()
        .zip(b.layers())
        .flat_map(|(x, y)| {
            let weights = x.weights.iter().zip(y.weights.iter());
            weights.chain(x.bias.iter().zip(y.bias.iter()))
        })
        .fold(0f32, |m, (x, y)| m.max((x - y).abs()));
    let eval_a = NetworkEvaluator::new(a.clone(), "before").map_err(|e| e.to_string())?;
    let eval_b = NetworkEvaluator::new(b.clone(), "after").map_err(|e| e.to_string())?;
    let eval = probe_positions()
        .iter()
        .map(|p| (eval_a.evaluate_logit(p) - eval_b.evaluate_logit(p)).abs())
        .fold(0f32, f32::max);
    Ok((param, eval))
}

/// The bench positions and every position one legal move from them.
fn probe_positions() -> Vec<Position> {
    let mut out = Vec::new();
    for pos in crate::bench::positions() {
        for &mv in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.make_move(mv);
            out.push(child);
        }
        out.push(pos);
    }
    out
}
