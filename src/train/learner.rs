//! What an `engine train` run holds for its feature set: the seed's 361 inputs train on dense
//! byte rows with the dense [`Trainer`]; a wide sparse set (king-piece) on packed positions with
//! the [`SparseTrainer`].

use crate::nn::{FeatureSet, Features, Network};
use crate::shogi::Position;
use crate::train::trainer::{
    self, Dataset, EpochStats, EvalStats, PositionSet, SparseTrainer, TrainConfig, Trainer,
    TrainerState,
};

/// Whether `set` trains with the sparse trainer.
pub fn is_sparse(set: FeatureSet) -> bool {
    set != FeatureSet::Seed361
}

/// Training or validation examples in the form their set trains from.
pub enum Examples {
    Dense(Dataset),
    Packed(PositionSet),
}

impl Examples {
    pub fn new(set: FeatureSet) -> Examples {
        if is_sparse(set) {
            Examples::Packed(PositionSet::default())
        } else {
            Examples::Dense(Dataset::new(set.inputs()))
        }
    }

    /// Adds `pos`; `features` is the dense rows' extraction buffer (of the seed's set).
    pub fn push(&mut self, pos: &Position, target: f32, features: &mut Features) {
        match self {
            Examples::Dense(d) => {
                features.extract(pos);
                d.push(features.values(), target);
            }
            Examples::Packed(p) => p.push(pos, target),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Examples::Dense(d) => d.len(),
            Examples::Packed(p) => p.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The trainer of a run.
// The sparse trainer is large, but a run holds exactly one learner.
#[allow(clippy::large_enum_variant)]
pub enum Learner {
    Dense(Trainer),
    Sparse(SparseTrainer),
}

impl Learner {
    pub fn new(net: Network, config: TrainConfig) -> Result<Learner, String> {
        let learner = if is_sparse(net.feature_set()) {
            Learner::Sparse(SparseTrainer::new(net, config).map_err(|e| e.to_string())?)
        } else {
            Learner::Dense(Trainer::new(net, config).map_err(|e| e.to_string())?)
        };
        Ok(learner)
    }

    pub fn resume(net: Network, state: TrainerState) -> Result<Learner, String> {
        let learner = if is_sparse(net.feature_set()) {
            Learner::Sparse(SparseTrainer::resume(net, state).map_err(|e| e.to_string())?)
        } else {
            Learner::Dense(Trainer::resume(net, state).map_err(|e| e.to_string())?)
        };
        Ok(learner)
    }

    pub fn network(&self) -> Network {
        match self {
            Learner::Dense(t) => t.network().clone(),
            Learner::Sparse(t) => t.network(),
        }
    }

    pub fn state(&self) -> TrainerState {
        match self {
            Learner::Dense(t) => t.state(),
            Learner::Sparse(t) => t.state(),
        }
    }

    pub fn set_learning_rate(&mut self, lr: f32) {
        match self {
            Learner::Dense(t) => t.set_learning_rate(lr),
            Learner::Sparse(t) => t.set_learning_rate(lr),
        }
    }

    pub fn train_epoch(&mut self, data: &Examples) -> Result<EpochStats, String> {
        match (self, data) {
            (Learner::Dense(t), Examples::Dense(d)) => t.train_epoch(d).map_err(|e| e.to_string()),
            (Learner::Sparse(t), Examples::Packed(p)) => {
                t.train_epoch(p).map_err(|e| e.to_string())
            }
            _ => Err("the examples are not in the form this network's trainer takes".into()),
        }
    }

    pub fn evaluate(&mut self, data: &Examples) -> EvalStats {
        match (self, data) {
            (Learner::Dense(t), Examples::Dense(d)) => trainer::evaluate(t.network(), d),
            (Learner::Sparse(t), Examples::Packed(p)) => t.evaluate(p),
            _ => panic!("examples built for another feature set"),
        }
    }
}
