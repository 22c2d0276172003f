//! Which evaluator the engine hands to the search: the built-in one, or a network loaded from
//! the `EvalFile` option. The one place where the protocol meets the network loader.

use std::sync::Arc;

use crate::search::{Evaluator, MaterialEvaluator};

/// The evaluator used while `EvalFile` is empty.
pub fn builtin() -> Arc<dyn Evaluator> {
    Arc::new(MaterialEvaluator)
}

/// Loads the network weights at `path`. On error the caller keeps its current evaluator.
///
/// PENDING MERGE of `src/nn`: the network loader is not on this branch yet, so after checking
/// that the file can be read this reports that loading is unavailable. At merge this becomes
/// `nn` loading (e.g. `nn::Evaluator::load`) wrapped for the search.
pub fn load(path: &str) -> Result<Arc<dyn Evaluator>, String> {
    std::fs::File::open(path).map_err(|e| format!("cannot open '{path}': {e}"))?;
    Err(format!(
        "cannot load '{path}': this build has no network loader yet"
    ))
}
