//! The quantised path against the float network: incremental sums equal a refresh, portable
//! equals vectorised, outputs agree, shapes it cannot represent refused.

use super::*;
use crate::eval::PathState;
use crate::nn::NUM_FEATURES;
use crate::nn::network::Dense;
use crate::shogi::PieceKind;
use crate::shogi::random::random_legal_move;
use crate::testing::{random_positions, seeded_draw};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A random network with non-zero biases, scaled like a trained one (small weights).
fn random_net(sizes: &[usize], act: Activation, seed: u64) -> Network {
    let mut net = Network::new(sizes, act, seed).unwrap();
    let mut rng = StdRng::seed_from_u64(seed + 100);
    for l in net.layers_mut() {
        l.weights.mapv_inplace(|w| w * 0.5);
        l.bias.mapv_inplace(|_| rng.gen_range(-0.3..0.3));
    }
    net
}

/// Kinds of move a walk played: drops, captures, promotions, king moves.
#[derive(Default, Debug)]
struct Played {
    drops: usize,
    captures: usize,
    promotions: usize,
    king_moves: usize,
}

/// Walks random games with the path state, making, unmaking and null-moving, and checks at
/// every node that both incremental accumulators equal a full refresh of that position.
/// Returns the nodes checked and the kinds of move played.
fn walk_and_compare(q: &QuantNet, games: usize, seed: u64) -> (usize, Played) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut draw = seeded_draw(seed ^ 0x9e37);
    let mut played = Played::default();
    let mut checked = 0;
    let mut f = Features::for_set(q.feature_set());
    let mut fresh = vec![0i32; q.width()];
    for _ in 0..games {
        let mut pos = Position::startpos();
        let mut state = QuantPathState::new(q, &pos);
        let mut path = Vec::new();
        for _ in 0..rng.gen_range(20..90) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Now and then take a move back, or play a null move, as the search does.
            let r = rng.gen_range(0..10);
            if r == 0 && !path.is_empty() {
                let (mv, undo) = path.pop().unwrap();
                pos.unmake_move(mv, undo);
                state.on_unmake(&pos, mv);
            } else if r == 1 && !pos.in_check() {
                pos.make_null_move();
                state.on_null_move(&pos, true);
                if rng.gen_bool(0.5) {
                    let _ = state.logit();
                }
                pos.unmake_null_move();
                state.on_null_move(&pos, false);
            } else {
                let mv = random_legal_move(&pos, &mut draw).expect("checked above");
                played.drops += mv.is_drop() as usize;
                played.promotions += mv.is_promotion() as usize;
                played.captures += pos.piece_at(mv.to()).is_some() as usize;
                played.king_moves +=
                    mv.from()
                        .and_then(|from| pos.piece_at(from))
                        .is_some_and(|p| p.kind == PieceKind::King) as usize;
                let undo = pos.make_move(mv);
                state.on_make(&pos, mv);
                path.push((mv, undo));
            }
            // Skip some evaluations, so that children of uncomputed parents occur too.
            if rng.gen_bool(0.2) {
                continue;
            }
            f.extract_perspective(&pos, Color::Sente);
            for p in 0..2 {
                q.refresh(&f, p, &mut fresh);
                assert_eq!(state.accumulator(p), &fresh[..], "perspective {p}");
            }
            assert_eq!(state.logit(), q.logit(&pos));
            checked += 1;
        }
    }
    (checked, played)
}

#[test]
fn incremental_accumulators_equal_a_refresh_at_every_node() {
    for (sizes, act, seed) in [
        (vec![NUM_FEATURES, 256, 32, 1], Activation::Relu, 1),
        (
            vec![NUM_FEATURES, 136, 16, 8, 1],
            Activation::ClippedRelu,
            2,
        ),
        (vec![NUM_FEATURES, 128, 1], Activation::Relu, 3),
    ] {
        let q = QuantNet::from_network(&random_net(&sizes, act, seed)).unwrap();
        assert!(walk_and_compare(&q, 40, seed).0 > 1000);
    }
}

#[test]
fn king_piece_accumulators_equal_a_refresh_at_every_node() {
    let (squares, buckets, pieces) = (
        FeatureSet::KingPiece.inputs(),
        FeatureSet::KingBucket.inputs(),
        FeatureSet::PieceBucket.inputs(),
    );
    for (sizes, act, seed) in [
        (vec![squares, 256, 32, 1], Activation::Relu, 11),
        (vec![squares, 128, 16, 1], Activation::ClippedRelu, 12),
        (vec![buckets, 256, 32, 1], Activation::Relu, 13),
        (vec![pieces, 256, 32, 1], Activation::Relu, 14),
    ] {
        let q = QuantNet::from_network(&random_net(&sizes, act, seed)).unwrap();
        assert_eq!(q.feature_set(), FeatureSet::with_inputs(sizes[0]).unwrap());
        let (checked, played) = walk_and_compare(&q, 40, seed);
        assert!(checked > 1000, "{checked} nodes");
        assert!(
            played.drops > 0
                && played.captures > 0
                && played.promotions > 0
                && played.king_moves > 0,
            "{played:?}"
        );
    }
}

#[test]
fn portable_path_equals_vectorised_path() {
    for inputs in [
        NUM_FEATURES,
        FeatureSet::KingPiece.inputs(),
        FeatureSet::KingBucket.inputs(),
    ] {
        portable_equals_vectorised(&random_net(&[inputs, 256, 32, 1], Activation::Relu, 4));
    }
}

fn portable_equals_vectorised(net: &Network) {
    let q = QuantNet::from_network(net).unwrap();
    let mut f = Features::for_set(q.feature_set());
    let (mut a, mut b) = (vec![0; q.width()], vec![0; q.width()]);
    for pos in random_positions(300, 5, 100) {
        f.extract_perspective(&pos, Color::Sente);
        for p in 0..2 {
            q.refresh(&f, p, &mut a);
            q.refresh_impl(&f, p, &mut b);
            assert_eq!(a, b);
            let mut scratch = q.scratch();
            assert_eq!(
                q.output(&a, &mut scratch.clone()),
                q.output_impl::<PORTABLE>(&a, &mut scratch)
            );
        }
    }
}

/// Every instruction level this CPU has gives the portable code's accumulators and output, bit
/// for bit, from a parent to each child of random positions, updated by the changes found from
/// the move; and those equal a refresh of the child.
#[test]
fn every_instruction_level_equals_the_portable_code() {
    let avx2 = detect_avx2();
    let avx512 = detect_avx512();
    eprintln!("this CPU: AVX2 {avx2}, AVX-512 {avx512}");
    for (sizes, seed) in [
        (vec![NUM_FEATURES, 256, 32, 1], 6),
        (vec![NUM_FEATURES, 136, 18, 8, 1], 7),
        (vec![FeatureSet::KingPiece.inputs(), 256, 32, 1], 8),
        (vec![FeatureSet::KingBucket.inputs(), 256, 32, 1], 9),
        (vec![FeatureSet::PieceBucket.inputs(), 256, 32, 1], 10),
    ] {
        let q = QuantNet::from_network(&random_net(&sizes, Activation::Relu, seed)).unwrap();
        let set = q.feature_set();
        let (mut parent_f, mut child_f) = (Features::for_set(set), Features::for_set(set));
        let mut parent_acc = vec![0; q.width()];
        let (mut changes, mut rows) = (Vec::new(), Vec::new());
        let mut checked = 0;
        for pos in random_positions(150, seed, 80) {
            parent_f.extract_perspective(&pos, Color::Sente);
            for mv in pos.legal_moves().iter().take(12) {
                let child = pos.after(*mv);
                child_f.extract_perspective(&child, Color::Sente);
                set.changes(&pos, &child, &mut changes);
                for p in 0..2 {
                    q.refresh_impl(&parent_f, p, &mut parent_acc);
                    q.rows_changed(p, &changes, &mut rows);
                    let mut portable = vec![0; q.width()];
                    q.apply_impl::<PORTABLE>(&rows, &parent_acc, &mut portable);
                    let mut fresh = vec![0; q.width()];
                    q.refresh_impl(&child_f, p, &mut fresh);
                    assert_eq!(portable, fresh);
                    let out = q.output_impl::<PORTABLE>(&portable, &mut q.scratch());
                    #[cfg(target_arch = "x86_64")]
                    for (level, has) in [(AVX2, avx2), (AVX512, avx512)] {
                        if !has {
                            continue;
                        }
                        let mut acc = vec![0; q.width()];
                        // SAFETY: the CPU has the level's instructions.
                        let level_out = unsafe {
                            if level == AVX512 {
                                q.apply_avx512(&rows, &parent_acc, &mut acc);
                                q.output_avx512(&acc, &mut q.scratch())
                            } else {
                                q.apply_avx2(&rows, &parent_acc, &mut acc);
                                q.output_avx2(&acc, &mut q.scratch())
                            }
                        };
                        assert_eq!(acc, portable, "level {level}");
                        assert_eq!(level_out.to_bits(), out.to_bits(), "level {level}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}

/// Largest and mean |quantised − float| logit over `positions`.
fn errors(net: &Network, positions: &[Position]) -> (f32, f32) {
    let q = QuantNet::from_network(net).unwrap();
    let errs: Vec<f32> = positions
        .iter()
        .map(|pos| {
            let float = net.logit(&Features::of_set(net.feature_set(), pos).to_f32());
            (q.logit(pos) - float).abs()
        })
        .collect();
    let worst = errs.iter().copied().fold(0.0, f32::max);
    (worst, errs.iter().sum::<f32>() / errs.len() as f32)
}

/// The tolerance the quantised path is held to: at most 0.04 logit (24 centipawns) on any
/// position, 0.005 (3 centipawns) on average. The shipped network (generation 9) measures
/// 0.015 and 0.0027: activations are rounded to 1/1024, and the second layer's weights to
/// the scale at which no sum can overflow.
const WORST_TOLERANCE: f32 = 0.04;
const MEAN_TOLERANCE: f32 = 0.005;

#[test]
fn quantised_output_agrees_with_float() {
    let positions = random_positions(3000, 6, 120);
    // Trained weights' scales: the shipped network, and generation 3 (generation 2's 64 units
    // widened to 256 as `engine train --widen` does, then trained).
    let gen3 = crate::nn::load_from_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../weights/gen3.bin"
    ))
    .unwrap();
    for (name, net) in [
        (
            "relu 256-32",
            random_net(&[NUM_FEATURES, 256, 32, 1], Activation::Relu, 7),
        ),
        (
            "relu 512-32-32",
            random_net(&[NUM_FEATURES, 512, 32, 32, 1], Activation::Relu, 8),
        ),
        (
            "crelu 256-32",
            random_net(&[NUM_FEATURES, 256, 32, 1], Activation::ClippedRelu, 9),
        ),
        ("generation 3", gen3),
        (
            "king-piece relu 256-32",
            random_net(
                &[FeatureSet::KingPiece.inputs(), 256, 32, 1],
                Activation::Relu,
                10,
            ),
        ),
        (
            "king-piece crelu 128-32",
            random_net(
                &[FeatureSet::KingPiece.inputs(), 128, 32, 1],
                Activation::ClippedRelu,
                11,
            ),
        ),
        ("shipped", crate::nn::default_network()),
    ] {
        let (worst, mean) = errors(&net, &positions);
        assert!(
            worst <= WORST_TOLERANCE && mean <= MEAN_TOLERANCE,
            "{name}: worst error {worst}, mean {mean}"
        );
    }
}

#[test]
fn refuses_what_it_cannot_represent() {
    let sigmoid = random_net(&[NUM_FEATURES, 128, 1], Activation::Sigmoid, 1);
    assert!(QuantNet::from_network(&sigmoid).is_err());
    let mut huge = random_net(&[NUM_FEATURES, 128, 1], Activation::Relu, 1);
    huge.layers_mut()[0].weights[[0, 0]] = 1000.0;
    assert!(QuantNet::from_network(&huge).is_err());
    let no_hidden = Network::from_layers(
        vec![Dense {
            weights: ndarray::Array2::zeros((1, NUM_FEATURES)),
            bias: ndarray::Array1::zeros(1),
        }],
        Activation::Relu,
    )
    .unwrap();
    assert!(QuantNet::from_network(&no_hidden).is_err());
}

/// The sparse second-layer kernels (a sum over the activation pairs that are not both zero)
/// give the portable dense sums bit for bit at every output width they take — padded to 16,
/// 32, 48 and 64 — and wider layers keep the dense kernels.
#[test]
fn sparse_second_layer_equals_the_dense_sums_at_every_width() {
    for (l2, seed) in [
        (8, 21),
        (16, 22),
        (20, 23),
        (32, 24),
        (40, 25),
        (64, 26),
        (72, 27),
    ] {
        let net = random_net(&[NUM_FEATURES, 192, l2, 1], Activation::Relu, seed);
        let q = QuantNet::from_network(&net).unwrap();
        assert_eq!(q.l2_pairs.is_empty(), l2 > 64, "{l2} outputs");
        let mut f = Features::for_set(q.feature_set());
        let mut acc = vec![0; q.width()];
        let mut zero_pairs = 0;
        for pos in random_positions(200, seed, 100) {
            f.extract_perspective(&pos, Color::Sente);
            for p in 0..2 {
                q.refresh_impl(&f, p, &mut acc);
                let mut scratch = q.scratch();
                let portable = q.output_impl::<PORTABLE>(&acc, &mut scratch);
                zero_pairs += scratch.act.chunks(2).filter(|a| a == &[0, 0]).count();
                #[cfg(target_arch = "x86_64")]
                for (level, has) in [(AVX2, detect_avx2()), (AVX512, detect_avx512())] {
                    if has {
                        // SAFETY: the CPU has the level's instructions.
                        let out = unsafe {
                            if level == AVX512 {
                                q.output_avx512(&acc, &mut q.scratch())
                            } else {
                                q.output_avx2(&acc, &mut q.scratch())
                            }
                        };
                        assert_eq!(out.to_bits(), portable.to_bits(), "{l2} outputs, {level}");
                    }
                }
            }
        }
        // Both kinds of pair were met: skipped ones and summed ones.
        assert!(
            zero_pairs > 400 && zero_pairs < 400 * 96,
            "{l2}: {zero_pairs}"
        );
    }
}
