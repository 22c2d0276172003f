//! Growing a trained network into a larger one that evaluates exactly as it did, for training
//! to go on from (`engine train --widen`; `--features king-piece` or `king-bucket` from a seed
//! network).

use ndarray::{Array1, Array2, s};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::nn::{Dense, FeatureSet, NUM_FEATURES, Network, ShapeError};

/// `net` with its first hidden layer widened to `width` units. The new units get small random
/// input weights (a tenth of the fresh-network range, deterministic in `seed`), zero bias and
/// zero weights into the next layer: the widened network's outputs equal `net`'s exactly, and
/// training grows the new units from there.
pub fn widen(net: &Network, width: usize, seed: u64) -> Result<Network, ShapeError> {
    let sizes = net.sizes();
    if sizes.len() < 3 {
        return Err(ShapeError("no hidden layer to widen".into()));
    }
    let old = sizes[1];
    if width < old {
        return Err(ShapeError(format!(
            "cannot narrow the first layer from {old} to {width} units"
        )));
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let limit = 0.1 * (6.0 / sizes[0] as f32).sqrt();
    let mut layers = net.layers().to_vec();
    let (l1, l2) = (&layers[0], &layers[1]);
    let mut w1 = Array2::zeros((width, sizes[0]));
    w1.slice_mut(s![..old, ..]).assign(&l1.weights);
    for v in w1.slice_mut(s![old.., ..]).iter_mut() {
        *v = rng.gen_range(-limit..limit);
    }
    let mut b1 = Array1::zeros(width);
    b1.slice_mut(s![..old]).assign(&l1.bias);
    let mut w2 = Array2::zeros((l2.outputs(), width));
    w2.slice_mut(s![.., ..old]).assign(&l2.weights);
    layers[0] = Dense {
        weights: w1,
        bias: b1,
    };
    layers[1].weights = w2;
    Network::from_layers(layers, net.hidden_activation())
}

/// `net` (of the seed's set) taking the inputs of `set`, a set with king blocks: the seed's 361
/// columns copied (those sets start with the seed's inputs, same indices), the new inputs'
/// weights zero. It evaluates every position exactly as `net` does; training grows the new
/// weights.
pub fn extend_to_king_set(net: &Network, set: FeatureSet) -> Result<Network, ShapeError> {
    if net.feature_set() != FeatureSet::Seed361 || net.input_size() != NUM_FEATURES {
        return Err(ShapeError(format!(
            "only a network of the seed's {NUM_FEATURES} inputs extends to the {set} set"
        )));
    }
    if set.king_layout().is_none() {
        return Err(ShapeError(format!("the {set} set has no king blocks")));
    }
    if !set.has_seed() {
        return Err(ShapeError(format!(
            "the {set} set does not start with the seed's inputs: train it from --init none"
        )));
    }
    let mut layers = net.layers().to_vec();
    let old = &layers[0].weights;
    let mut w = Array2::zeros((old.nrows(), set.inputs()));
    w.slice_mut(s![.., ..NUM_FEATURES]).assign(old);
    layers[0].weights = w;
    Network::from_layers(layers, net.hidden_activation())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{Features, NetworkEvaluator, default_network, load_from_path};
    use crate::shogi::Position;

    #[test]
    fn extending_to_king_sets_keeps_the_outputs() {
        // Generation 10, the last shipped network of the seed's set.
        let net =
            load_from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/weights/gen10.bin")).unwrap();
        assert!(extend_to_king_set(&net, FeatureSet::Seed361).is_err());
        let pieces_only = default_network();
        assert_eq!(pieces_only.feature_set(), FeatureSet::PieceBucket);
        assert!(extend_to_king_set(&pieces_only, FeatureSet::KingBucket).is_err());
        let a = NetworkEvaluator::new(net.clone(), "seed").unwrap();
        for set in [FeatureSet::KingPiece, FeatureSet::KingBucket] {
            let kp = extend_to_king_set(&net, set).unwrap();
            assert_eq!(kp.feature_set(), set);
            assert!(extend_to_king_set(&kp, set).is_err());
            let b = NetworkEvaluator::new(kp, set.name()).unwrap();
            assert_eq!(b.fast().feature_set(), set);
            for pos in crate::testing::random_positions(300, 4, 100) {
                assert!((a.evaluate_logit(&pos) - b.evaluate_logit(&pos)).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn widening_keeps_the_outputs_and_picks_the_quantised_path() {
        let net = load_from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/weights/gen2.bin")).unwrap();
        assert_eq!(net.sizes()[1], 64);
        let wide = widen(&net, 256, 3).unwrap();
        assert_eq!(wide.sizes()[1], 256);
        assert_eq!(wide.sizes()[2..], net.sizes()[2..]);
        for pos in crate::testing::random_positions(300, 2, 100) {
            let x = Features::from_position(&pos).to_f32();
            assert!((wide.logit(&x) - net.logit(&x)).abs() < 1e-4);
        }
        assert!(widen(&net, 32, 3).is_err());
        assert!(
            NetworkEvaluator::new(net, "narrow")
                .unwrap()
                .quant()
                .is_none()
        );
        let ev = NetworkEvaluator::new(wide, "wide").unwrap();
        assert!(ev.quant().is_some());
        use crate::eval::Evaluator;
        assert!(ev.path_state(&Position::startpos()).is_some());
    }
}
