//! Which evaluator the engine hands to the search: the built-in one, or a network loaded from
//! the `EvalFile` option. The one place where the protocol meets the network loader.

use std::sync::Arc;

use crate::nn;
use crate::search::{Evaluator, MaterialEvaluator};

/// The evaluator used while `EvalFile` is empty: the embedded trained network, or material
/// counting in a build that embeds no trained weights.
pub fn builtin() -> Arc<dyn Evaluator> {
    if nn::has_embedded_weights() {
        Arc::new(nn::Evaluator::with_default_network())
    } else {
        Arc::new(MaterialEvaluator)
    }
}

/// Loads the network weights at `path`. On error the caller keeps its current evaluator.
pub fn load(path: &str) -> Result<Arc<dyn Evaluator>, String> {
    let net = nn::load_from_path(path).map_err(|e| e.to_string())?;
    let evaluator = nn::Evaluator::new(net, path).map_err(|e| format!("{path}: {e}"))?;
    Ok(Arc::new(evaluator))
}
