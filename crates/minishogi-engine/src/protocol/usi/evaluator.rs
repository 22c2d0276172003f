//! Which evaluator the engine hands to the search: the built-in one, or a network loaded from
//! the `EvalFile` option. The one place where the protocol meets the network loader.

use std::sync::Arc;

use crate::eval::Evaluator;
use crate::nn;

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
