//! `engine selfplay` resumes: a run continued (after it ended, or after `kill -9` at any
//! moment) ends with weights byte-equal to an uninterrupted run of the same command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-resume-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small fixed-seed self-play command writing `out`.
fn selfplay(out: &Path, iterations: u32) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_engine"));
    c.args([
        "selfplay",
        "--games",
        "12",
        "--max-plies",
        "40",
        "--eval-games",
        "2",
        "--mate-share",
        "0",
        "--replay",
        "2",
        "--threads",
        "1",
        "--seed",
        "9",
        "--iterations",
        &iterations.to_string(),
        // A network of the seed's inputs, which self-play trains (the embedded one is not).
        "--init",
        concat!(env!("CARGO_MANIFEST_DIR"), "/weights/gen10.bin"),
    ])
    .arg("--out")
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

fn no_temp_files(dir: &Path) {
    let temps: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

/// The CSV without its timing columns (the last four), which differ from run to run.
fn csv_without_timings(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let cols: Vec<&str> = l.split(',').collect();
            cols[..cols.len() - 4].join(",")
        })
        .collect()
}

#[test]
fn more_iterations_continue_from_the_checkpoint_to_the_same_weights() {
    let dir = temp_dir("more");
    let straight = dir.join("straight.bin");
    let (_, full_time) = run_ok(&mut selfplay(&straight, 3));

    let resumed = dir.join("resumed.bin");
    run_ok(&mut selfplay(&resumed, 1));
    let (o, resume_time) = run_ok(&mut selfplay(&resumed, 3));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("resuming from iteration 1"), "{err}");
    assert!(
        !err.contains("selfplay 1/3"),
        "iteration 1 is not played again: {err}"
    );
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&straight).unwrap(),
        "byte-equal weights"
    );
    // The CSV is continued: the same rows as the uninterrupted run, timings apart.
    assert_eq!(
        csv_without_timings(&resumed.with_extension("csv")),
        csv_without_timings(&straight.with_extension("csv"))
    );
    // Its curves are drawn beside it, all three iterations.
    let svg = std::fs::read_to_string(resumed.with_extension("svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("training loss"));
    // Two iterations instead of a baseline match and three: the work is what is checked (wall
    // times on a shared machine are too noisy to assert); they are printed for people.
    assert!(
        err.contains("selfplay 2/3") && err.contains("selfplay 3/3"),
        "{err}"
    );
    eprintln!("resumed run {resume_time:?}, uninterrupted run {full_time:?}");
    // --restart starts over: the same weights again, every iteration played.
    let (o, _) = run_ok(selfplay(&resumed, 3).arg("--restart"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("selfplay 1/3") && !err.contains("resuming"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&straight).unwrap()
    );
    no_temp_files(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kill_9_at_any_moment_then_a_rerun_ends_with_the_same_weights() {
    let dir = temp_dir("kill");
    let straight = dir.join("straight.bin");
    let (_, full_time) = run_ok(&mut selfplay(&straight, 4));
    let want = std::fs::read(&straight).unwrap();

    // Moments spread over the run, in a fixed pseudo-random order (reproducible failures).
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for round in 0..4 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let fraction = 0.1 + 0.8 * ((x % 1000) as f64 / 1000.0);
        let out = dir.join(format!("killed-{round}.bin"));
        let mut child = selfplay(&out, 4).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(full_time.mul_f64(fraction));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // A second kill of the continued run, half way through what is left.
        if round % 2 == 1 {
            let mut child = selfplay(&out, 4).stderr(Stdio::null()).spawn().unwrap();
            std::thread::sleep(full_time.mul_f64((1.0 - fraction) / 2.0));
            child.kill().unwrap();
            child.wait().unwrap();
        }
        run_ok(&mut selfplay(&out, 4));
        assert_eq!(
            std::fs::read(&out).unwrap(),
            want,
            "round {round}: killed at {fraction:.2} of the run"
        );
    }
    no_temp_files(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
}
