//! Neural evaluator benchmarks: ns per evaluation (features included) for several shapes; the
//! shipped network as it plays (`shipped`: the quantised integer path, by full refresh and
//! incrementally along random games as the search walks them, beside the float path), and the
//! same shape on the king-piece feature set (`king-piece`: the shipped network extended to its
//! inputs, as `engine train --features king-piece` starts; the arithmetic is a trained one's); and
//! training throughput. After the criterion groups, one full training epoch over 360,000
//! mate/pre-mate positions is timed (skip it with `NN_BENCH_EPOCH=0`).

use criterion::{BenchmarkId, Criterion, Throughput, black_box};
use engine::eval::PathState;
use engine::nn::{
    Activation, DEFAULT_SIZES, FastNet, FeatureSet, Features, NUM_FEATURES, Network, QuantNet,
    QuantPathState, default_network,
};
use engine::shogi::random::random_legal_move;
use engine::shogi::{Move, Position};
use engine::testing::{random_positions, seeded_draw};
use engine::train::generate_mate_dataset as mate_dataset;
use engine::train::grow::extend_to_king_set;
use engine::train::trainer::{TrainConfig, Trainer};

const SHAPES: [&[usize]; 5] = [
    &[NUM_FEATURES, 32, 32, 1],
    &[NUM_FEATURES, 64, 32, 1],
    &[NUM_FEATURES, 128, 32, 1],
    &[NUM_FEATURES, 256, 32, 1],
    &[NUM_FEATURES, 256, 64, 1],
];

fn shape_name(s: &[usize]) -> String {
    s.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("-")
}

fn bench_eval(c: &mut Criterion) {
    let positions = random_positions(1000, 1, 100);
    let mut g = c.benchmark_group("eval");
    g.throughput(Throughput::Elements(positions.len() as u64));
    for set in FeatureSet::ALL {
        g.bench_function(BenchmarkId::new("features-only", set.name()), |b| {
            let mut f = Features::for_set(set);
            b.iter(|| {
                for p in &positions {
                    f.extract(black_box(p));
                    black_box(&f);
                }
            })
        });
    }
    for shape in SHAPES {
        let net = Network::new(shape, Activation::Relu, 1).unwrap();
        let fast = FastNet::from_network(&net).unwrap();
        g.bench_function(BenchmarkId::new("fast", shape_name(shape)), |b| {
            b.iter(|| {
                let mut s = 0.0;
                for p in &positions {
                    s += fast.evaluate(black_box(p));
                }
                s
            })
        });
    }
    // The ndarray reference path, for comparison (allocates per call).
    let net = Network::new(&DEFAULT_SIZES, Activation::Relu, 1).unwrap();
    g.bench_function(
        BenchmarkId::new("ndarray", shape_name(&DEFAULT_SIZES)),
        |b| {
            b.iter(|| {
                let mut s = 0.0;
                for p in &positions {
                    s += net.predict(&Features::from_position(black_box(p)).to_f32());
                }
                s
            })
        },
    );
    g.finish();
}

/// Random games from the start position, each as its moves and the positions after them: the
/// path a search thread walks, made and evaluated ply by ply.
fn random_paths(games: usize, plies: usize, seed: u64) -> Vec<Vec<(Move, Position)>> {
    let mut draw = seeded_draw(seed);
    (0..games)
        .map(|_| {
            let mut pos = Position::startpos();
            let mut path = Vec::new();
            while path.len() < plies {
                let Some(mv) = random_legal_move(&pos, &mut draw) else {
                    break;
                };
                pos = pos.after(mv);
                path.push((mv, pos.clone()));
            }
            path
        })
        .collect()
}

/// The embedded network as the engine plays it, and its king-piece and king-bucket extensions.
fn bench_shipped(c: &mut Criterion) {
    let net = default_network();
    let extended =
        |set| extend_to_king_set(&net, set).expect("the shipped network is the seed's set");
    let (king_piece, king_bucket) = (
        extended(FeatureSet::KingPiece),
        extended(FeatureSet::KingBucket),
    );
    bench_as_played(c, "shipped", net);
    bench_as_played(c, "king-piece", king_piece);
    bench_as_played(c, "king-bucket", king_bucket);
}

/// `net` as the engine plays it: the quantised path by full refresh and incrementally (make,
/// evaluate, …, then unmake back to the root), and the float path.
fn bench_as_played(c: &mut Criterion, group: &str, net: Network) {
    let quant = QuantNet::from_network(&net).expect("the shipped network has a quantised path");
    let fast = FastNet::from_network(&net).expect("the shipped network has a float path");
    let shape = shape_name(&net.sizes());
    let positions = random_positions(1000, 1, 100);
    let paths = random_paths(25, 40, 2);
    let evaluations: usize = paths.iter().map(Vec::len).sum();

    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function(BenchmarkId::new("quant-refresh", &shape), |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| quant.logit(black_box(p)))
                .sum::<f32>()
        })
    });
    g.bench_function(BenchmarkId::new("float", &shape), |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| fast.evaluate(black_box(p)))
                .sum::<f32>()
        })
    });
    g.throughput(Throughput::Elements(evaluations as u64));
    let root = Position::startpos();
    g.bench_function(BenchmarkId::new("quant-incremental", &shape), |b| {
        b.iter(|| {
            let mut cp = 0i64;
            for path in &paths {
                let mut state = QuantPathState::new(&quant, &root);
                for (mv, pos) in path {
                    state.on_make(pos, *mv);
                    cp += i64::from(state.evaluate_cp(black_box(pos)));
                }
                for i in (0..path.len()).rev() {
                    let before = if i == 0 { &root } else { &path[i - 1].1 };
                    state.on_unmake(before, path[i].0);
                }
            }
            cp
        })
    });
    g.finish();
}

fn bench_train_step(c: &mut Criterion) {
    let data = mate_dataset(4096, 2);
    let idx: Vec<usize> = (0..256).collect();
    let (x, t) = data.batch(&idx);
    let mut g = c.benchmark_group("train-step-256");
    g.throughput(Throughput::Elements(256));
    g.sample_size(20);
    for chunks in [1, 2] {
        let net = Network::new(&DEFAULT_SIZES, Activation::Relu, 1).unwrap();
        let cfg = TrainConfig {
            chunks,
            ..TrainConfig::default()
        };
        let mut tr = Trainer::new(net, cfg).unwrap();
        g.bench_function(BenchmarkId::new("chunks", chunks), |b| {
            b.iter(|| tr.step(x.view(), t.view()))
        });
    }
    g.finish();
}

/// One epoch over 360,000 positions, as the issue asks; printed, not sampled (it takes seconds).
fn epoch_throughput() {
    let start = std::time::Instant::now();
    let data = mate_dataset(360_000, 3);
    eprintln!(
        "generated {} mate/pre-mate positions in {:.1} s",
        data.len(),
        start.elapsed().as_secs_f64()
    );
    for shape in [&DEFAULT_SIZES[..], &[NUM_FEATURES, 128, 32, 1]] {
        for chunks in [1, 2] {
            let net = Network::new(shape, Activation::Relu, 1).unwrap();
            let cfg = TrainConfig {
                chunks,
                ..TrainConfig::default()
            };
            let mut tr = Trainer::new(net, cfg).unwrap();
            let s = tr.train_epoch(&data).unwrap();
            println!(
                "epoch {} chunks={chunks} batch=256 adam: {} positions in {:.2} s = {:.0} positions/s (loss {:.4})",
                shape_name(shape),
                s.positions,
                s.seconds,
                s.positions_per_second(),
                s.loss
            );
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_eval(&mut c);
    bench_shipped(&mut c);
    bench_train_step(&mut c);
    c.final_summary();
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    if std::env::var("NN_BENCH_EPOCH").as_deref() != Ok("0") && !filtered {
        epoch_throughput();
    }
}
