//! The run loop: checkpoint or starting network, then iterations of self-play, training,
//! progress matches and saves.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::args::{SelfplayArgs, settings, settings_differences, validate};
use super::checkpoint::{self, Checkpoint};
use super::harness::{MatchScore, play_match};
use super::metrics::{
    GameTally, IterationStats, SelfplayReport, csv_line, csv_start, snapshot_path, summary_line,
};
use super::players::{Player, Policy, SelfplayGame, game_seed, play_selfplay_game};
use super::targets::{games_to_dataset, sample_mate_data};
use crate::fileio;
use crate::nn::{self, Network};
use crate::train::matedata;
use crate::train::trainer::{Dataset, Trainer};

fn load_network(path: &Path, what: &str) -> Result<Network, String> {
    nn::load_from_path(path).map_err(|e| format!("{what} {}: {e}", path.display()))
}

/// The progress matches of `net`: against the reference network and the material baseline.
fn progress_matches(
    net: &Network,
    reference: &Arc<nn::NetworkEvaluator>,
    args: &SelfplayArgs,
) -> Result<(Option<MatchScore>, Option<MatchScore>), String> {
    if args.eval_games == 0 {
        return Ok((None, None));
    }
    let current =
        Arc::new(nn::NetworkEvaluator::new(net.clone(), "current").map_err(|e| e.to_string())?);
    let play = |opponent| {
        play_match(
            Player::Net(&current),
            opponent,
            args.eval_games,
            args.max_plies,
            args.eval_depth.unwrap_or(args.depth),
            args.seed,
        )
    };
    Ok((
        Some(play(Player::Net(reference))),
        Some(play(Player::Material)),
    ))
}

/// The checkpoint of `args.out` to continue from, if there is one and `--restart` is not
/// given (then an old one is removed). One that belongs to other options is an error.
fn checkpoint_to_resume(args: &SelfplayArgs, path: &Path) -> Result<Option<Checkpoint>, String> {
    if args.restart {
        match std::fs::remove_file(path) {
            Ok(()) => log::info!("--restart: removed {}", path.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("--restart: cannot remove {}: {e}", path.display())),
        }
        return Ok(None);
    }
    let Some(checkpoint) = checkpoint::load(path)
        .map_err(|e| format!("cannot resume from {e} (pass --restart to start over)"))?
    else {
        return Ok(None);
    };
    let differences = settings_differences(&settings(args), &checkpoint.settings);
    if !differences.is_empty() {
        return Err(format!(
            "{} was written by a run with other options: {}; run with its options to resume it, \
             or pass --restart to start over",
            path.display(),
            differences.join(", ")
        ));
    }
    Ok(Some(checkpoint))
}

/// Writes what a run publishes after an iteration: the weights, the metrics and their curves
/// and, when due, a snapshot. Everything here can be rebuilt from the checkpoint.
fn publish(args: &SelfplayArgs, net: &Network, csv: &str, iteration: usize) -> Result<(), String> {
    nn::save_to_path(net, &args.out).map_err(|e| e.to_string())?;
    if iteration > 0 && args.snapshot_every > 0 && iteration.is_multiple_of(args.snapshot_every) {
        nn::save_to_path(net, snapshot_path(&args.out, iteration)).map_err(|e| e.to_string())?;
    }
    let metrics_path = args.out.with_extension("csv");
    fileio::write_atomic(&metrics_path, csv.as_bytes()).map_err(|e| e.to_string())?;
    let plot = crate::train::curves::svg(
        csv,
        &metrics_path.display().to_string(),
        &format!("engine selfplay: {}", args.out.display()),
    )?;
    fileio::write_atomic(&args.out.with_extension("svg"), plot.as_bytes())
        .map_err(|e| e.to_string())
}

/// Runs the whole job: iterations of self-play and training, checkpoints, metrics. With
/// `--iterations 0` it only measures the starting network (e.g. `--init A --eval-opponent B`
/// compares two weights files). Continues from the checkpoint of `--out` unless `--restart`.
pub fn run(args: &SelfplayArgs) -> Result<SelfplayReport, String> {
    validate(args)?;
    let (config, _lock) = crate::train::TrainerSetup {
        lr: args.lr,
        trainer: &args.trainer,
        seed: args.seed,
        out: &args.out,
    }
    .start()?;
    let checkpoint_path = checkpoint::path_for(&args.out);
    let resumed = checkpoint_to_resume(args, &checkpoint_path)?;

    let start_net = match &args.init {
        Some(path) => load_network(path, "--init")?,
        None => nn::default_network(),
    };
    // The seed's self-play learns on the seed's 361 inputs (`Features::new`); the embedded
    // network has had the piece-bucket set since generation 11.
    if start_net.feature_set() != nn::FeatureSet::Seed361 {
        return Err(format!(
            "selfplay trains a network of the seed's 361 inputs, and {} has the {} set: give \
             --init a seed-set network (weights/gen10.bin, weights/seed-selfplay.bin, or \
             weights/pretrained.bin from engine pretrain)",
            args.init
                .as_ref()
                .map_or("the embedded network".to_string(), |p| p
                    .display()
                    .to_string()),
            start_net.feature_set().name()
        ));
    }
    let reference_net = match &args.eval_opponent {
        Some(path) => load_network(path, "--eval-opponent")?,
        None => start_net.clone(),
    };
    let reference =
        Arc::new(nn::NetworkEvaluator::new(reference_net, "reference").map_err(|e| e.to_string())?);
    let mate_samples = if args.mate_share > 0.0 && args.mate_data.exists() {
        let s = matedata::load(&args.mate_data).map_err(|e| e.to_string())?;
        log::info!(
            "mixing in mate data from {} ({} positions)",
            args.mate_data.display(),
            s.len()
        );
        s
    } else {
        if args.mate_share > 0.0 {
            log::warn!(
                "{} not found: training on self-play data only",
                args.mate_data.display()
            );
        }
        Vec::new()
    };

    let metrics_path = args.out.with_extension("csv");
    let policy = Policy {
        temperature: args.temperature,
        depth: args.depth,
        epsilon: args.epsilon,
    };
    let mut report = SelfplayReport {
        iterations: Vec::new(),
    };
    let (mut trainer, mut window, mut csv, done) = match resumed {
        Some(c) => {
            let net = c.network(&checkpoint_path)?;
            let trainer = Trainer::resume(net, c.trainer)
                .map_err(|e| format!("{}: {e}", checkpoint_path.display()))?;
            eprintln!(
                "selfplay: resuming from iteration {} ({})",
                c.iteration,
                checkpoint_path.display()
            );
            // The outputs may lag the checkpoint if the last run was stopped in between.
            publish(args, trainer.network(), &c.csv, 0)?;
            (trainer, VecDeque::from(c.window), c.csv, c.iteration)
        }
        None => {
            let trainer = Trainer::new(start_net, config).map_err(|e| e.to_string())?;
            // Iteration 0: where the starting network stands.
            let started = Instant::now();
            let (eval, material) = progress_matches(trainer.network(), &reference, args)?;
            let baseline = IterationStats {
                eval,
                material,
                seconds: started.elapsed().as_secs_f64(),
                ..IterationStats::default()
            };
            let csv = csv_start(&baseline);
            fileio::write_atomic(&metrics_path, csv.as_bytes()).map_err(|e| e.to_string())?;
            eprintln!("{}", summary_line(&baseline, args.iterations));
            report.iterations.push(baseline);
            (trainer, VecDeque::new(), csv, 0)
        }
    };
    if done >= args.iterations && done > 0 {
        eprintln!(
            "selfplay: {} already holds iteration {done} of --iterations {}: nothing to do",
            checkpoint_path.display(),
            args.iterations
        );
    }

    for iteration in done + 1..=args.iterations {
        let started = Instant::now();
        let net = Arc::new(
            nn::NetworkEvaluator::new(trainer.network().clone(), "selfplay")
                .map_err(|e| e.to_string())?,
        );
        let pb = crate::train::progress_bar(
            args.games as u64,
            "iteration {msg} {bar:30} {pos}/{len} games ({elapsed})",
        );
        pb.set_message(format!("{iteration}/{}", args.iterations));
        let records: Vec<SelfplayGame> = (0..args.games)
            .into_par_iter()
            .map(|g| {
                let seed = game_seed(args.seed, iteration as u64, g as u64);
                let r = play_selfplay_game(&net, policy, args.max_plies, args.random_plies, seed);
                pb.inc(1);
                r
            })
            .collect();
        pb.finish_and_clear();
        let generation_seconds = started.elapsed().as_secs_f64();
        let mut tally = GameTally::default();
        for r in &records {
            tally.add(r.status, r.plies());
        }

        let selfplay_data = games_to_dataset(&records, args.alpha, args.gamma);
        let positions = selfplay_data.len();
        window.push_back(selfplay_data);
        while window.len() > args.replay {
            window.pop_front();
        }
        let mut train = Dataset::new(nn::NUM_FEATURES);
        for d in &window {
            train.extend(d);
        }
        let mate_wanted = if mate_samples.is_empty() {
            0
        } else {
            (train.len() as f64 * args.mate_share / (1.0 - args.mate_share)).round() as usize
        };
        let mate = sample_mate_data(
            &mate_samples,
            mate_wanted,
            game_seed(args.seed, iteration as u64, u64::MAX - 1),
        )?;
        train.extend(&mate);

        let train_started = Instant::now();
        let mut train_loss = 0.0;
        for _ in 0..args.epochs {
            train_loss = trainer.train_epoch(&train).map_err(|e| e.to_string())?.loss;
        }
        let train_seconds = train_started.elapsed().as_secs_f64();

        let (eval, material) = if iteration % args.eval_every == 0 || iteration == args.iterations {
            progress_matches(trainer.network(), &reference, args)?
        } else {
            (None, None)
        };
        let stats = IterationStats {
            iteration,
            tally,
            positions,
            mate_positions: mate.len(),
            train_loss,
            generation_seconds,
            train_seconds,
            eval,
            material,
            seconds: started.elapsed().as_secs_f64(),
        };
        csv.push_str(&csv_line(&stats));
        // The checkpoint first: once it is written the iteration is done, whatever happens to
        // the other writes (a resumed run redoes them from it).
        let saved = Checkpoint {
            settings: settings(args),
            iteration,
            weights: nn::weights::encode(trainer.network()),
            trainer: trainer.state(),
            window: window.iter().cloned().collect(),
            csv: csv.clone(),
        };
        checkpoint::save(&checkpoint_path, &saved).map_err(|e| e.to_string())?;
        publish(args, trainer.network(), &csv, iteration)?;
        eprintln!("{}", summary_line(&stats, args.iterations));
        report.iterations.push(stats);
    }
    eprintln!(
        "selfplay: weights {}, metrics {}, checkpoint {}",
        args.out.display(),
        metrics_path.display(),
        checkpoint_path.display()
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::matedata;

    #[test]
    fn bad_options_are_refused_with_their_names() {
        let mut args = SelfplayArgs {
            alpha: 1.5,
            ..SelfplayArgs::default()
        };
        assert!(run(&args).unwrap_err().contains("--alpha"));
        args.alpha = 0.5;
        args.mate_share = 1.0;
        assert!(run(&args).unwrap_err().contains("--mate-share"));
        args.mate_share = 0.3;
        args.trainer.optimizer = "rmsprop".into();
        assert!(run(&args).unwrap_err().contains("rmsprop"));
    }

    #[test]
    fn tiny_run_writes_weights_and_metrics_deterministically() {
        let dir = std::env::temp_dir().join(format!("selfplay-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A small mate data set to mix in.
        let mate_path = dir.join("mate.bin");
        let samples = matedata::generate(
            &matedata::MateGenConfig {
                positions: 200,
                seed: 2,
            },
            |_, _| {},
        );
        matedata::save(&mate_path, &samples).unwrap();
        let init = Network::new(&[nn::NUM_FEATURES, 16, 8, 1], nn::Activation::Relu, 4).unwrap();
        let init_path = dir.join("init.bin");
        nn::save_to_path(&init, &init_path).unwrap();
        let run_once = |name: &str| {
            let args = SelfplayArgs {
                iterations: 2,
                games: 8,
                max_plies: 60,
                init: Some(init_path.clone()),
                out: dir.join(name),
                mate_data: mate_path.clone(),
                eval_games: 4,
                replay: 2,
                snapshot_every: 2,
                ..SelfplayArgs::default()
            };
            let report = run(&args).unwrap();
            (report, nn::load_from_path(dir.join(name)).unwrap())
        };
        let (report, net) = run_once("a.bin");
        assert_eq!(report.iterations.len(), 3);
        let baseline = &report.iterations[0];
        assert_eq!(baseline.tally.games, 0);
        assert_eq!(
            baseline.eval.unwrap().score(),
            0.5,
            "the start network against itself"
        );
        assert_eq!(baseline.material.unwrap().games, 4);
        assert_eq!(net.sizes(), vec![nn::NUM_FEATURES, 16, 8, 1]);
        assert_ne!(net, init, "training changed the weights");
        for s in &report.iterations[1..] {
            assert_eq!(s.tally.games, 8);
            assert!(s.positions > 8);
            assert!(s.mate_positions > 0);
            assert!(s.train_loss.is_finite());
            assert_eq!(s.eval.unwrap().games, 4);
            assert_eq!(s.material.unwrap().games, 4);
        }
        assert!(dir.join("a-0002.bin").exists(), "snapshot of iteration 2");
        let csv = std::fs::read_to_string(dir.join("a.csv")).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        let columns = lines[0].split(',').count();
        assert_eq!(columns, 23);
        assert!(lines[1..].iter().all(|l| l.split(',').count() == columns));
        assert!(lines[1].starts_with("0,0,0,"));
        assert!(lines[3].starts_with("2,8,"));

        // The same command again finds the run done in its checkpoint; other options are refused.
        assert!(dir.join("a.ckpt").exists());
        let (resumed, net_resumed) = run_once("a.bin");
        assert!(resumed.iterations.is_empty());
        assert_eq!(net_resumed, net);
        let other = SelfplayArgs {
            games: 9,
            out: dir.join("a.bin"),
            ..SelfplayArgs::default()
        };
        let err = run(&other).unwrap_err();
        assert!(
            err.contains("--games 9") && err.contains("--restart"),
            "{err}"
        );

        let (again, net_again) = run_once("b.bin");
        assert_eq!(net_again, net, "same seed, same weights");
        for (x, y) in report.iterations.iter().zip(&again.iterations) {
            assert_eq!(x.tally, y.tally);
            assert_eq!(x.positions, y.positions);
            assert_eq!(x.eval, y.eval);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
