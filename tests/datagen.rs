//! `engine datagen` and `engine train` seen from outside: the same shard at any thread count,
//! after a continued run and after `kill -9`; training from shards, resumable to the same
//! weights; bad plans refused with a message naming what is wrong.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");
const SHARD: &str = "shard-00001-of-00003.dgn";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-datagen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small fixed plan: shard 1 of 3, seed 5, tiny node budgets, short games.
fn datagen(out: &Path, games: u32, threads: u32) -> Command {
    let mut c = Command::new(ENGINE);
    c.args(["datagen", "--shard", "1", "--shards", "3", "--seed", "5"])
        .args([
            "--nodes",
            "150",
            "--hard-nodes",
            "1500",
            "--max-plies",
            "120",
        ])
        .args([
            "--games",
            &games.to_string(),
            "--threads",
            &threads.to_string(),
        ])
        .args(["--quiet", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

fn run_ok(cmd: &mut Command) -> (Output, Duration) {
    let start = Instant::now();
    let o = cmd.output().unwrap();
    let took = start.elapsed();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (o, took)
}

fn run_err(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap();
    assert!(!o.status.success(), "should have failed");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_shard_is_the_same_at_any_thread_count_continued_or_killed() {
    let dir = temp_dir("same");
    let one = dir.join("one");
    let (o, full_time) = run_ok(&mut datagen(&one, 24, 1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("24 games"), "{err}");
    // What the games cost, for comparing builds: searches and nodes a position.
    assert!(
        err.contains(" searches, ") && err.contains(" nodes a position"),
        "{err}"
    );
    let want = std::fs::read(one.join(SHARD)).unwrap();
    assert!(want.len() > 1000, "{} bytes", want.len());

    let two = dir.join("two");
    run_ok(&mut datagen(&two, 24, 2));
    assert_eq!(std::fs::read(two.join(SHARD)).unwrap(), want, "2 threads");

    // A shard made in two runs (10 games, then on to 24) is the one made in one run.
    let continued = dir.join("continued");
    run_ok(&mut datagen(&continued, 10, 2));
    let shorter = std::fs::read(continued.join(SHARD)).unwrap();
    assert!(
        want.starts_with(&shorter),
        "the first 10 games are a prefix"
    );
    let (o, _) = run_ok(&mut datagen(&continued, 24, 2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("14 games") && err.contains("this run"),
        "{err}"
    );
    assert_eq!(std::fs::read(continued.join(SHARD)).unwrap(), want);
    // A complete shard is left as it is.
    let (o, _) = run_ok(&mut datagen(&continued, 24, 2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 games, 0 positions this run"));

    // kill -9 during a run, a torn record at the end, then the same command again.
    let killed = dir.join("killed");
    let mut child = datagen(&killed, 24, 2)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(full_time.mul_f64(0.4));
    child.kill().unwrap();
    child.wait().unwrap();
    let path = killed.join(SHARD);
    if let Ok(mut bytes) = std::fs::read(&path) {
        assert!(
            want.starts_with(&bytes),
            "what was written is a prefix of the shard"
        );
        bytes.extend_from_slice(&[7, 0, 0]);
        std::fs::write(&path, bytes).unwrap();
    }
    run_ok(&mut datagen(&killed, 24, 1));
    assert_eq!(std::fs::read(&path).unwrap(), want, "after kill -9");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_plans_are_refused_with_a_reason() {
    let dir = temp_dir("bad");
    let out = dir.join("data");
    let bad = |extra: &[&str]| {
        let mut c = Command::new(ENGINE);
        c.arg("datagen")
            .args(extra)
            .arg("--out")
            .arg(&out)
            .arg("--quiet");
        run_err(&mut c)
    };
    assert!(
        bad(&["--games", "1", "--shard", "3", "--shards", "3"])
            .contains("--shard 3 is out of range")
    );
    assert!(bad(&["--games", "1", "--shards", "0"]).contains("--shards must be at least 1"));
    assert!(bad(&[]).contains("--games N or --positions N"));
    assert!(bad(&["--games", "1", "--positions", "5"]).contains("not both"));
    assert!(
        bad(&["--games", "1", "--nodes", "100", "--hard-nodes", "50"]).contains("below --nodes")
    );
    let missing = dir.join("missing.bin");
    let e = bad(&["--games", "1", "--eval-file", missing.to_str().unwrap()]);
    assert!(
        e.contains("--eval-file") && e.contains("missing.bin"),
        "{e}"
    );
    let e = bad(&["--games", "1", "--openings", missing.to_str().unwrap()]);
    assert!(e.contains("missing.bin"), "{e}");

    // A shard made with other settings is not continued.
    run_ok(&mut datagen(&out, 1, 1));
    let e = run_err(datagen(&out, 2, 1).args(["--random-plies", "4"]));
    assert!(e.contains("other settings"), "{e}");
    let e = run_err(datagen(&out, 2, 1).args(["--soft-rule", "started"]));
    assert!(e.contains("other settings"), "{e}");
    assert!(bad(&["--games", "1", "--soft-rule", "guess"]).contains("--soft-rule"));
    // An output that is a file, not a folder.
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    let e = run_err(&mut datagen(&file, 1, 1));
    assert!(e.contains("--out"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn verify(files: &[&Path]) -> Output {
    Command::new(ENGINE)
        .args(["datagen", "--verify"])
        .args(files)
        .output()
        .unwrap()
}

#[test]
fn verify_summarises_a_whole_shard_and_refuses_a_torn_or_corrupt_one() {
    let dir = temp_dir("verify");
    run_ok(&mut datagen(&dir, 6, 2));
    let path = dir.join(SHARD);
    let whole = std::fs::read(&path).unwrap();
    let o = verify(&[&path]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let line = String::from_utf8(o.stdout).unwrap();
    let summary: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(summary["games"], 6, "{line}");
    assert_eq!(summary["bytes"], whole.len() as u64, "{line}");
    assert_eq!(summary["header"]["shard"], 1, "{line}");
    assert_eq!(summary["header"]["shards"], 3, "{line}");
    assert_eq!(summary["header"]["seed"], 5, "{line}");
    assert_eq!(summary["header"]["settings"]["soft_nodes"], 150, "{line}");
    assert_eq!(
        summary["header"]["settings"]["soft_rule"], "Predicted",
        "{line}"
    );
    let positions = summary["positions"].as_u64().unwrap();
    let last = summary["last_game_positions"].as_u64().unwrap();
    assert!(positions > 6 && last > 0 && last < positions, "{line}");

    // A torn last game (a killed run), a flipped bit in a game, a file that is no shard: each
    // fails and names the file; the whole one beside them is still summarised.
    let torn = dir.join("torn.dgn");
    std::fs::write(&torn, &whole[..whole.len() - 3]).unwrap();
    let flipped = dir.join("flipped.dgn");
    let mut bytes = whole.clone();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    std::fs::write(&flipped, &bytes).unwrap();
    let bogus = dir.join("bogus.dgn");
    std::fs::write(&bogus, "hello").unwrap();
    let o = verify(&[&torn, &path, &flipped, &bogus]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("3 shard files are bad"), "{err}");
    assert!(
        err.contains("torn.dgn") && err.contains("after game 5"),
        "{err}"
    );
    assert!(
        err.contains("flipped.dgn") && err.contains("bogus.dgn"),
        "{err}"
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn train(data: &Path, out: &Path, epochs: u32) -> Command {
    let mut c = Command::new(ENGINE);
    c.args(["train", "--data"])
        .arg(data)
        .args([
            "--epochs",
            &epochs.to_string(),
            "--threads",
            "1",
            "--seed",
            "3",
        ])
        .args(["--val-fraction", "0.2", "--batch-size", "64", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

#[test]
fn training_on_shards_writes_weights_metrics_and_a_plot_and_resumes() {
    let dir = temp_dir("train");
    let data = dir.join("data");
    run_ok(&mut datagen(&data, 16, 2));

    let straight = dir.join("straight.bin");
    let (o, _) = run_ok(&mut train(&data, &straight, 2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("validation bce"), "{err}");
    let csv = std::fs::read_to_string(straight.with_extension("csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "header, epoch 0, two epochs: {csv}");
    let svg = std::fs::read_to_string(straight.with_extension("svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("validation BCE"));
    // The weights are a network the engine plays with.
    let o = Command::new(ENGINE)
        .args(["eval", "--weights"])
        .arg(&straight)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // One epoch, then on to two: the same weights as two at once.
    let resumed = dir.join("resumed.bin");
    run_ok(&mut train(&data, &resumed, 1));
    let (o, _) = run_ok(&mut train(&data, &resumed, 2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("continuing after epoch 1"));
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&straight).unwrap()
    );
    // Other settings do not continue that checkpoint.
    let e = run_err(train(&data, &resumed, 2).args(["--target", "td"]));
    assert!(e.contains("--restart"), "{e}");
    run_ok(train(&data, &resumed, 1).args(["--target", "td", "--restart"]));

    // `--max-score` leaves out positions the search scored beyond it, and no others.
    let trained_on = |extra: &[&str]| -> usize {
        let (o, _) = run_ok(train(&data, &dir.join("m.bin"), 1).args(extra));
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let count = err
            .split("train: ")
            .find_map(|s| s.split(" training and ").next()?.parse().ok());
        count.unwrap_or_else(|| panic!("no position count in: {err}"))
    };
    let all = trained_on(&["--restart"]);
    let near_level = trained_on(&["--restart", "--max-score", "150"]);
    let wide = trained_on(&["--restart", "--max-score", "30000"]);
    assert!(0 < near_level && near_level < all, "{near_level} of {all}");
    assert!(near_level < wide && wide <= all, "{wide} of {all}");

    // Bad input names what is wrong.
    let e = run_err(train(&data, &resumed, 1).args(["--target", "nope"]));
    assert!(e.contains("unknown --target 'nope'"), "{e}");
    let not_a_shard = dir.join("bogus.dgn");
    std::fs::write(&not_a_shard, "hello").unwrap();
    let e = run_err(&mut train(&not_a_shard, &dir.join("x.bin"), 1));
    assert!(e.contains("bogus.dgn"), "{e}");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = run_err(&mut train(&empty, &dir.join("y.bin"), 1));
    assert!(e.contains("no .dgn shard files"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_move_policy_trains_on_shards_and_beats_uniform_priors() {
    let dir = temp_dir("policy");
    let data = dir.join("data");
    // 72 games (~3,000 positions): with 24, the 41 held-out positions left the learned policy
    // behind uniform priors for one network (generation 10) and ahead for another.
    run_ok(&mut datagen(&data, 72, 2));
    let out = dir.join("policy.bin");
    let policy = |epochs: &str| {
        let mut c = Command::new(ENGINE);
        c.args(["train-policy", "--epochs", epochs, "--data"])
            .arg(&data)
            .arg("--out")
            .arg(&out);
        c
    };
    let (o, _) = run_ok(&mut policy("3"));
    let line = String::from_utf8_lossy(&o.stdout).into_owned();
    // "... held out (N positions): cross-entropy X, top-1 Y% (move ordering's priors X, Y%;
    // uniform X, Y%) ..."
    let number_after = |key: &str| -> f64 {
        line.split(key)
            .nth(1)
            .and_then(|rest| rest.split([',', '%', ')']).next())
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no '{key}' in {line}"))
    };
    let learned = number_after("cross-entropy ");
    let uniform = number_after("uniform ");
    assert!(learned < uniform, "{line}");
    let csv = std::fs::read_to_string(out.with_extension("csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "header and three epochs: {csv}");
    assert!(std::fs::metadata(&out).unwrap().len() > 1000);

    let e = run_err(&mut policy("0"));
    assert!(e.contains("--epochs"), "{e}");
    let not_a_shard = dir.join("bogus.dgn");
    std::fs::write(&not_a_shard, "hello").unwrap();
    let e = run_err(
        Command::new(ENGINE)
            .args(["train-policy", "--data"])
            .arg(&not_a_shard)
            .arg("--out")
            .arg(dir.join("p2.bin")),
    );
    assert!(e.contains("bogus.dgn"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn king_piece_training_extends_the_network_plays_and_resumes() {
    let dir = temp_dir("train-king-piece");
    let data = dir.join("data");
    run_ok(&mut datagen(&data, 16, 2));
    let kp = |out: &Path, epochs| {
        let mut c = train(&data, out, epochs);
        c.args(["--features", "king-piece"]);
        c
    };
    // Generation 10, the last shipped network of the seed's set (the embedded one has no seed
    // inputs to extend).
    let seed_net = concat!(env!("CARGO_MANIFEST_DIR"), "/weights/gen10.bin");
    let straight = dir.join("straight.bin");
    let (o, _) = run_ok(kp(&straight, 2).args(["--init", seed_net]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("validation bce"), "{err}");
    let net = engine::nn::load_from_path(&straight).unwrap();
    assert_eq!(net.feature_set(), engine::nn::FeatureSet::KingPiece);
    // Started from generation 10: its hidden layers' shapes, and the evaluation report names
    // the king-piece groups.
    let gen10 = engine::nn::load_from_path(seed_net).unwrap();
    assert_eq!(net.sizes()[1..], gen10.sizes()[1..]);
    let o = Command::new(ENGINE)
        .args(["eval", "--weights"])
        .arg(&straight)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("pieces by own king"));

    let resumed = dir.join("resumed.bin");
    run_ok(kp(&resumed, 1).args(["--init", seed_net]));
    let (o, _) = run_ok(kp(&resumed, 2).args(["--init", seed_net]));
    assert!(String::from_utf8_lossy(&o.stderr).contains("continuing after epoch 1"));
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&straight).unwrap()
    );
    // A fresh network of the set and given widths.
    let fresh = dir.join("fresh.bin");
    run_ok(kp(&fresh, 1).args(["--init", "none", "--arch", "32,8"]));
    assert_eq!(
        engine::nn::load_from_path(&fresh).unwrap().sizes(),
        vec![engine::nn::FeatureSet::KingPiece.inputs(), 32, 8, 1]
    );
    let e = run_err(train(&data, &dir.join("z.bin"), 1).args(["--features", "nope"]));
    assert!(e.contains("unknown feature set"), "{e}");

    // The piece-bucket set has no seed inputs to start from a seed network: fresh (or from a
    // network of its own set), and then it plays.
    let e = run_err(train(&data, &dir.join("p.bin"), 1).args([
        "--features",
        "piece-bucket",
        "--init",
        seed_net,
    ]));
    assert!(e.contains("--init none"), "{e}");
    let pieces = dir.join("pieces.bin");
    run_ok(train(&data, &pieces, 1).args([
        "--features",
        "piece-bucket",
        "--init",
        "none",
        "--arch",
        "32,8",
    ]));
    let net = engine::nn::load_from_path(&pieces).unwrap();
    assert_eq!(net.feature_set(), engine::nn::FeatureSet::PieceBucket);
    let o = Command::new(ENGINE)
        .args(["bench", "--depth", "5", "--eval-file"])
        .arg(&pieces)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Bench: "));
    std::fs::remove_dir_all(&dir).unwrap();
}
