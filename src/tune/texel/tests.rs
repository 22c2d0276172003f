use super::*;
use crate::eval::{ClassicalEvaluator, Evaluator};
use crate::shogi::testing::random_positions_with_drops;

/// Positions labelled by a "true" evaluation: the untuned one plus a bonus of 80 for golds on
/// their owner's second rank, so a tuner has something to find.
fn labelled(n: usize) -> (Vec<Position>, Vec<f32>, ClassicalParams) {
    let mut truth = ClassicalParams::untuned();
    for file in 1..=5 {
        let sq = crate::shogi::Square::new(file, 3);
        truth.values[params::map_index(crate::shogi::PieceKind::Gold, sq)] = 80;
    }
    let e = ClassicalEvaluator::new(&truth);
    let positions = random_positions_with_drops(21, n);
    let targets = positions
        .iter()
        .map(|p| probability_from_cp(e.evaluate_cp(p) as f32))
        .collect();
    (positions, targets, truth)
}

fn data_of(positions: &[Position], targets: &[f32]) -> TexelData {
    let mut data = TexelData::new();
    let mut scratch = Vec::new();
    for (p, &t) in positions.iter().zip(targets) {
        data.push(p, t, &mut scratch);
    }
    data
}

fn as_f64(p: &ClassicalParams) -> Vec<f64> {
    p.values.iter().map(|&v| f64::from(v)).collect()
}

#[test]
fn the_loss_is_the_mean_squared_error_of_the_evaluations_probability() {
    let (positions, targets, truth) = labelled(50);
    let data = data_of(&positions, &targets);
    assert_eq!(data.len(), 50);
    // At the truth the loss is (nearly) zero; elsewhere it is the formula's.
    assert!(data.loss(&as_f64(&truth)) < 1e-9);
    let untuned = ClassicalParams::untuned();
    let e = ClassicalEvaluator::new(&untuned);
    let expected: f64 = positions
        .iter()
        .zip(&targets)
        .map(|(p, &t)| {
            let d = f64::from(probability_from_cp(e.evaluate_cp(p) as f32)) - f64::from(t);
            d * d
        })
        .sum::<f64>()
        / 50.0;
    let loss = data.loss(&as_f64(&untuned));
    assert!(loss > 1e-5, "{loss}");
    assert!((loss - expected).abs() < 1e-6, "{loss} vs {expected}");
}

#[test]
fn the_swarm_and_spsa_lower_the_loss_on_tiny_data() {
    let (positions, targets, _) = labelled(400);
    let data = data_of(&positions, &targets);
    // Tune only the five gold squares of the second rank, from zero.
    let text: String = (1..=5)
        .map(|f| format!("map_gold_{f}d 0 -300 300 10\n"))
        .collect();
    let space = Target::Classical.space(&text).unwrap();
    let embed = Embedding::new(&space);
    let loss = |x: &[f64]| data.loss(&embed.full(x));
    let start = loss(&space.start());
    let pso = PsoConfig {
        particles: 8,
        inertia: 0.7,
        c1: 1.0,
        c2: 1.0,
    };
    let mut rng = Rng::new(3);
    let mut swarm = Swarm::new(&pso, &space, &mut rng);
    for _ in 0..400 {
        swarm
            .step_scored(&pso, &space, &mut rng, &mut |x, _| Ok(-loss(x)))
            .unwrap();
    }
    let best = -swarm.best_score.unwrap();
    assert!(best < start / 4.0, "{best} vs {start}");
    for v in &swarm.best_x {
        assert!((v - 80.0).abs() < 25.0, "{:?}", swarm.best_x);
    }
    let spsa = SpsaConfig {
        steps: 300,
        alpha: SpsaConfig::ALPHA,
        gamma: SpsaConfig::GAMMA,
        a_ratio: SpsaConfig::A_RATIO,
        r_end: SpsaConfig::R_END,
    };
    let mut state = SpsaState::new(&space);
    for k in 0..spsa.steps {
        let base = loss(&state.theta);
        state
            .step_compared(&spsa, &space, k, &mut rng, &mut |p, m| {
                Ok((loss(m) - loss(p)) / base * 2000.0)
            })
            .unwrap();
    }
    let end = loss(&state.theta);
    assert!(end < start / 2.0, "{end} vs {start}: {:?}", state.theta);
}

#[test]
fn the_curve_is_written_as_csv_and_svg() {
    let rows = vec![
        Row {
            evaluation: 1,
            iteration: 0,
            particle: Some(0),
            loss: 0.05,
            best_loss: 0.05,
            elapsed_s: 0.01,
        },
        Row {
            evaluation: 2,
            iteration: 0,
            particle: Some(1),
            loss: 0.5,
            best_loss: 0.05,
            elapsed_s: 0.02,
        },
    ];
    assert_eq!(
        csv(&rows),
        "evaluation,iteration,particle,loss,best_loss,elapsed_s\n\
         1,0,0,0.0500000,0.0500000,0.01\n2,0,1,0.5000000,0.0500000,0.02\n"
    );
    let svg = figure("pso", 0.05, &rows).svg().unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..50]);
    assert!(svg.contains("best loss"));
}
