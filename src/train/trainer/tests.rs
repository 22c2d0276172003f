//! The trainer on toy problems: learning, reproducibility at any thread count, resumption.

use super::*;
use crate::nn::feature_set::Features;
use crate::nn::features::NUM_FEATURES;
use crate::nn::network::Activation;
use crate::shogi::Position;
use rand::Rng;
use rand::rngs::StdRng;

/// A learnable toy problem: target 1 when feature 0 exceeds feature 1 plus feature 2.
fn toy_data(n: usize, seed: u64) -> Dataset {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut d = Dataset::new(12);
    for _ in 0..n {
        let row: Vec<u8> = (0..12).map(|_| rng.gen_range(0..4)).collect();
        let t = if row[0] > row[1] + row[2] { 1.0 } else { 0.0 };
        d.push(&row, t);
    }
    d
}

fn config(optimizer: Optimizer, lr: f32) -> TrainConfig {
    TrainConfig {
        learning_rate: lr,
        optimizer,
        batch_size: 32,
        ..TrainConfig::default()
    }
}

fn learns(cfg: TrainConfig) {
    let data = toy_data(4000, 1);
    let test = toy_data(1000, 2);
    let net = Network::new(&[12, 16, 8, 1], Activation::Relu, 3).unwrap();
    let before = evaluate(&net, &test);
    let mut tr = Trainer::new(net, cfg.clone()).unwrap();
    let mut last = f64::INFINITY;
    for _ in 0..15 {
        last = tr.train_epoch(&data).unwrap().loss;
    }
    let after = evaluate(tr.network(), &test);
    assert!(
        after.bce < 0.5 * before.bce,
        "{cfg:?}: {before:?} -> {after:?}"
    );
    assert!(after.accuracy > 0.93, "{cfg:?}: {after:?}");
    assert!(last < 0.25, "{cfg:?}: final training loss {last}");
}

#[test]
fn sgd_momentum_learns() {
    learns(config(Optimizer::sgd(), 0.05));
}

#[test]
fn adam_learns() {
    learns(config(Optimizer::adam(), 3e-3));
}

#[test]
fn mse_and_weight_decay_learn() {
    learns(TrainConfig {
        loss: Loss::Mse,
        weight_decay: 1e-3,
        ..config(Optimizer::adam(), 3e-3)
    });
}

#[test]
fn first_steps_follow_the_update_rules() {
    let data = toy_data(64, 5);
    let idx: Vec<usize> = (0..64).collect();
    let (x, t) = data.batch(&idx);
    let net = Network::new(&[12, 6, 1], Activation::Sigmoid, 9).unwrap();
    let (_, g) = net.loss_and_gradients(x.view(), t.view(), Loss::Bce);
    let lr = 1e-2;

    // SGD, first step: v = g/n, w -= lr·v.
    let mut sgd = Trainer::new(
        net.clone(),
        TrainConfig {
            chunks: 1,
            ..config(Optimizer::sgd(), lr)
        },
    )
    .unwrap();
    sgd.step(x.view(), t.view());
    for (l, (new, gl)) in net
        .layers()
        .iter()
        .zip(sgd.network().layers().iter().zip(&g.layers))
    {
        for ((&w0, &w1), &gw) in l.weights.iter().zip(&new.weights).zip(&gl.weights) {
            assert!((w1 - (w0 - lr * gw / 64.0)).abs() < 1e-6);
        }
    }

    // Adam, first step: bias-corrected m/sqrt(v) = sign(g), so each parameter moves by lr.
    let mut adam = Trainer::new(
        net.clone(),
        TrainConfig {
            chunks: 1,
            ..config(Optimizer::adam(), lr)
        },
    )
    .unwrap();
    adam.step(x.view(), t.view());
    for (l, (new, gl)) in net
        .layers()
        .iter()
        .zip(adam.network().layers().iter().zip(&g.layers))
    {
        for ((&w0, &w1), &gw) in l.weights.iter().zip(&new.weights).zip(&gl.weights) {
            if gw.abs() > 1e-4 {
                assert!(
                    (w1 - (w0 - lr * gw.signum())).abs() < 1e-4,
                    "{w0} {w1} {gw}"
                );
            }
        }
    }

    // Decoupled weight decay alone (lr·wd = 0.5) halves the weights before the update.
    let mut decay = Trainer::new(
        net.clone(),
        TrainConfig {
            chunks: 1,
            weight_decay: 50.0,
            ..config(Optimizer::sgd(), lr)
        },
    )
    .unwrap();
    decay.step(x.view(), t.view());
    let (w0, w1) = (
        &net.layers()[0].weights,
        &decay.network().layers()[0].weights,
    );
    let gw = &g.layers[0].weights;
    for ((&a, &b), &gw) in w0.iter().zip(w1).zip(gw) {
        assert!((b - (0.5 * a - lr * gw / 64.0)).abs() < 1e-6);
    }
}

#[test]
fn training_is_deterministic_and_chunking_only_reorders_sums() {
    let data = toy_data(1000, 7);
    let run = |chunks: usize, seed: u64| {
        let net = Network::new(&[12, 8, 1], Activation::Relu, 1).unwrap();
        let cfg = TrainConfig {
            chunks,
            seed,
            ..config(Optimizer::adam(), 1e-2)
        };
        let mut tr = Trainer::new(net, cfg).unwrap();
        for _ in 0..3 {
            tr.train_epoch(&data).unwrap();
        }
        tr.into_network()
    };
    let a = run(2, 5);
    assert_eq!(a, run(2, 5), "same seed, same chunks: bit-identical");
    assert_ne!(a, run(2, 6), "another shuffling seed gives another network");
    let serial = run(1, 5);
    for (la, lb) in a.layers().iter().zip(serial.layers()) {
        for (x, y) in la.weights.iter().zip(&lb.weights) {
            assert!((x - y).abs() < 1e-3, "{x} vs {y}");
        }
    }
}

#[test]
fn a_resumed_trainer_continues_bit_for_bit() {
    let data = toy_data(300, 3);
    for optimizer in [Optimizer::adam(), Optimizer::sgd()] {
        let net = Network::new(&[12, 8, 1], Activation::Relu, 2).unwrap();
        let cfg = config(optimizer, 1e-2);
        let mut straight = Trainer::new(net.clone(), cfg.clone()).unwrap();
        let mut first = Trainer::new(net, cfg).unwrap();
        for _ in 0..2 {
            straight.train_epoch(&data).unwrap();
            first.train_epoch(&data).unwrap();
        }
        let state = first.state();
        let mut resumed = Trainer::resume(first.network().clone(), state.clone()).unwrap();
        assert_eq!(resumed.state(), state);
        for _ in 0..2 {
            straight.train_epoch(&data).unwrap();
            resumed.train_epoch(&data).unwrap();
        }
        assert_eq!(resumed.network(), straight.network(), "{optimizer:?}");
        // Saved moments that do not fit the network are refused.
        let other = Network::new(&[12, 4, 1], Activation::Relu, 2).unwrap();
        assert!(Trainer::resume(other, state).is_err());
    }
}

#[test]
fn bad_configs_and_widths_are_errors() {
    let net = Network::new(&[12, 4, 1], Activation::Relu, 1).unwrap();
    for cfg in [
        TrainConfig {
            learning_rate: 0.0,
            ..TrainConfig::default()
        },
        TrainConfig {
            learning_rate: f32::NAN,
            ..TrainConfig::default()
        },
        TrainConfig {
            batch_size: 0,
            ..TrainConfig::default()
        },
        TrainConfig {
            chunks: 0,
            ..TrainConfig::default()
        },
        TrainConfig {
            weight_decay: -1.0,
            ..TrainConfig::default()
        },
        TrainConfig {
            optimizer: Optimizer::Sgd { momentum: 1.0 },
            ..TrainConfig::default()
        },
    ] {
        assert!(matches!(
            Trainer::new(net.clone(), cfg),
            Err(TrainError::InvalidConfig(_))
        ));
    }
    let mut tr = Trainer::new(net, TrainConfig::default()).unwrap();
    let err = tr.train_epoch(&Dataset::new(13)).unwrap_err();
    assert_eq!(
        err,
        TrainError::WidthMismatch {
            dataset: 13,
            network: 12
        }
    );
    assert!(err.to_string().contains("13"));
}

#[test]
fn dataset_from_positions_holds_their_features() {
    let a = Position::startpos();
    let b = a.flipped();
    let d = Dataset::from_positions([(&a, 1.0), (&b, 0.25)]);
    assert_eq!(d.len(), 2);
    assert_eq!(d.width(), NUM_FEATURES);
    assert_eq!(d.features(0), Features::from_position(&a).values());
    assert_eq!(d.features(1), Features::from_position(&b).values());
    assert_eq!((d.target(0), d.target(1)), (1.0, 0.25));
}

#[test]
fn dataset_basics() {
    let mut d = toy_data(10, 1);
    assert_eq!(d.len(), 10);
    let first = d.features(0).to_vec();
    let (x, t) = d.batch(&[0, 3]);
    assert_eq!(x.nrows(), 2);
    assert_eq!(
        x.row(0).to_vec(),
        first.iter().map(|&v| v as f32).collect::<Vec<_>>()
    );
    assert_eq!(t[1], d.target(3));
    let val = d.split_off_fraction(0.3);
    assert_eq!((d.len(), val.len()), (7, 3));
    d.extend(&val);
    assert_eq!(d.len(), 10);
    assert_eq!(d.features(0), first.as_slice());
}
