//! Which evaluator the engine hands to the search: the network (the built-in one, or one loaded
//! from the `EvalFile` option), the classical value map (shipped, or from `ClassicalFile`), or
//! material only — as the option `Evaluator` says. The one place where the protocol meets the
//! evaluators' loaders.

use std::sync::Arc;

use crate::eval::{ClassicalEvaluator, Evaluator, MaterialEvaluator};
use crate::fileio;
use crate::nn;
use crate::search::eval_params;

/// The names of the option `Evaluator`, the default first.
pub const KINDS: &[&str] = &[NETWORK, CLASSICAL, MATERIAL];
pub const NETWORK: &str = "network";
pub const CLASSICAL: &str = "classical";
pub const MATERIAL: &str = "material";

/// What the evaluator options ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// One of [`KINDS`].
    pub kind: &'static str,
    /// `EvalFile`: the network's weights; empty for the embedded network.
    pub eval_file: String,
    /// `ClassicalFile`: the classical parameters; empty for the shipped ones.
    pub classical_file: String,
}

impl Default for Choice {
    fn default() -> Choice {
        Choice {
            kind: NETWORK,
            eval_file: String::new(),
            classical_file: String::new(),
        }
    }
}

/// The evaluator `choice` asks for; only the file its kind uses is read. On error the caller
/// keeps its current evaluator.
pub fn select(choice: &Choice) -> Result<Loaded, String> {
    match choice.kind {
        CLASSICAL => classical(&choice.classical_file),
        MATERIAL => Ok(Loaded {
            evaluator: Arc::new(MaterialEvaluator),
            description: "material only".to_string(),
        }),
        _ if choice.eval_file.is_empty() => Ok(builtin()),
        _ => load(&choice.eval_file),
    }
}

/// The classical evaluator of the parameters file at `path` (its values set on the untuned
/// ones, see `eval::classical::params`), or of the shipped parameters for an empty path.
pub fn classical(path: &str) -> Result<Loaded, String> {
    if path.is_empty() {
        return Ok(Loaded {
            evaluator: Arc::new(ClassicalEvaluator::new(&eval_params::shipped())),
            description: "the classical value map (weights/classical.params)".to_string(),
        });
    }
    let text =
        fileio::read_regular_to_string(std::path::Path::new(path)).map_err(|e| e.to_string())?;
    let params = eval_params::from_text(&text).map_err(|e| format!("{path}: {e}"))?;
    Ok(Loaded {
        evaluator: Arc::new(ClassicalEvaluator::new(&params)),
        description: format!(
            "the classical value map '{path}' (checksum {:016x})",
            fileio::fnv1a(text.as_bytes())
        ),
    })
}

/// An evaluator with what a person needs to know which one it is.
pub struct Loaded {
    pub evaluator: Arc<dyn Evaluator>,
    /// E.g. `'nets/a.bin' (12345 bytes, checksum 0123456789abcdef)`.
    pub description: String,
}

/// The evaluator used while `EvalFile` is empty: the embedded trained network.
pub fn builtin() -> Loaded {
    let bytes = nn::weights::encode(&nn::default_network());
    Loaded {
        evaluator: nn::engine_evaluator(),
        description: format!("the embedded network ({})", size_and_checksum(&bytes)),
    }
}

/// Loads the network weights at `path`. On error the caller keeps its current evaluator.
pub fn load(path: &str) -> Result<Loaded, String> {
    let net = nn::load_from_path(path).map_err(|e| e.to_string())?;
    // The file held exactly this encoding (decoding checks its checksum and length).
    let bytes = nn::weights::encode(&net);
    let evaluator = nn::NetworkEvaluator::new(net, path).map_err(|e| format!("{path}: {e}"))?;
    Ok(Loaded {
        evaluator: Arc::new(evaluator),
        description: format!("'{path}' ({})", size_and_checksum(&bytes)),
    })
}

fn size_and_checksum(bytes: &[u8]) -> String {
    format!(
        "{} bytes, checksum {:016x}",
        bytes.len(),
        crate::fileio::fnv1a(bytes)
    )
}
