//! Measures network shapes against each other: accuracy after training on the seed's
//! mate / pre-mate positions, and the fast path's ns per evaluation (features included).
//! With `--save PATH`, the network of the last shape listed is written as a weights file.
//!
//! cargo run --release --example nn_shapes -- [--positions 360000] [--epochs 4]
//!     [--shapes 32x32,64x32,128x32,256x32] [--seed 1] [--save weights/default.bin]

use engine::nn::{Activation, FastNet, NUM_FEATURES, Network, save_to_path};
use engine::shogi::Position;
use engine::testing::random_positions;
use engine::train::generate_mate_dataset as mate_dataset;
use engine::train::trainer::{Optimizer, TrainConfig, Trainer, evaluate};
use std::hint::black_box;
use std::time::Instant;

struct Args {
    positions: usize,
    epochs: usize,
    shapes: Vec<Vec<usize>>,
    seed: u64,
    save: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        positions: 360_000,
        epochs: 4,
        shapes: vec![vec![32, 32], vec![64, 32], vec![128, 32], vec![256, 32]],
        seed: 1,
        save: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--positions" => a.positions = value()?.parse().map_err(|e| format!("{e}"))?,
            "--epochs" => a.epochs = value()?.parse().map_err(|e| format!("{e}"))?,
            "--seed" => a.seed = value()?.parse().map_err(|e| format!("{e}"))?,
            "--save" => a.save = Some(value()?),
            "--shapes" => {
                a.shapes = value()?
                    .split(',')
                    .map(|s| {
                        s.split('x')
                            .map(|w| w.parse::<usize>().map_err(|e| format!("{s}: {e}")))
                            .collect()
                    })
                    .collect::<Result<_, _>>()?
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok(a)
}

/// Best of 300 timed passes over the positions, in ns per evaluation. The minimum filters out
/// interference from other processes on a shared machine.
fn ns_per_eval(fast: &FastNet, positions: &[Position]) -> f64 {
    (0..300)
        .map(|_| {
            let t = Instant::now();
            let mut s = 0.0;
            for p in positions {
                s += fast.evaluate(black_box(p));
            }
            black_box(s);
            t.elapsed().as_nanos() as f64 / positions.len() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    env_logger::init();
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    let mut train = mate_dataset(args.positions, args.seed);
    let valid = train.split_off_fraction(0.1);
    eprintln!(
        "{} training / {} validation mate and pre-mate positions in {:.1} s",
        train.len(),
        valid.len(),
        t.elapsed().as_secs_f64()
    );
    let bench_positions = random_positions(1000, args.seed + 1, 100);
    println!("| shape | params | ns/eval | train pos/s | val BCE | val accuracy |");
    println!("|---|---|---|---|---|---|");
    let mut last = None;
    for hidden in &args.shapes {
        let mut sizes = vec![NUM_FEATURES];
        sizes.extend(hidden);
        sizes.push(1);
        let name = sizes
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("-");
        let net = match Network::new(&sizes, Activation::Relu, args.seed) {
            Ok(n) => n,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        };
        let cfg = TrainConfig {
            learning_rate: 1e-3,
            optimizer: Optimizer::adam(),
            weight_decay: 1e-4,
            batch_size: 256,
            seed: args.seed,
            chunks: 2,
            ..TrainConfig::default()
        };
        let mut tr = Trainer::new(net, cfg).expect("valid configuration");
        let mut rate = 0.0;
        for epoch in 1..=args.epochs {
            let s = tr.train_epoch(&train).expect("widths match");
            let v = evaluate(tr.network(), &valid);
            rate = s.positions_per_second();
            eprintln!(
                "{name} epoch {epoch}: train loss {:.4}, val BCE {:.4}, val acc {:.4}, {:.0} pos/s",
                s.loss, v.bce, v.accuracy, rate
            );
        }
        let v = evaluate(tr.network(), &valid);
        let fast = FastNet::from_network(tr.network()).expect("fits the fast path");
        let ns = ns_per_eval(&fast, &bench_positions);
        println!(
            "| {name} | {} | {ns:.0} | {rate:.0} | {:.4} | {:.4} |",
            tr.network().parameter_count(),
            v.bce,
            v.accuracy
        );
        last = Some(tr.into_network());
    }
    if let (Some(path), Some(net)) = (&args.save, &last) {
        match save_to_path(net, path) {
            Ok(()) => eprintln!("saved {path}"),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
}
