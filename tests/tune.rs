//! `engine tune` end to end at a tiny size (a few games at a few hundred nodes a move): an
//! SPSA run killed mid-run and continued from its state file, a particle swarm run with its
//! outputs, other settings refused, and bad parameters files named.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use engine::search::params_file;

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-tune-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn params(dir: &Path) -> PathBuf {
    let path = dir.join("start.params");
    std::fs::write(
        &path,
        "# two tuned, one fixed\nfutility_margin 120 40 300 20\nrfp_margin 120 40 300 20\n\
         lmr_divisor_centi 250\n",
    )
    .unwrap();
    path
}

/// The arguments of a tiny run.
fn tune_args(dir: &Path, method: &str, steps: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "tune",
        "--method",
        method,
        "--params",
        params(dir).to_str().unwrap(),
        "--steps",
        steps,
        "--games-per-step",
        "2",
        "--nodes",
        "300",
        "--max-plies",
        "60",
        "--engine-option",
        "USI_Hash=4",
        "--quiet",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn engine(args: &[String]) -> Output {
    Command::new(ENGINE)
        .args(args)
        .output()
        .expect("engine runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The CSV's data rows.
fn csv_rows(dir: &Path) -> Vec<String> {
    read(&dir.join("out/tune.csv"))
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

#[test]
fn spsa_run_killed_mid_run_continues_from_its_state() {
    let dir = out_dir("spsa");
    let args = tune_args(&dir, "spsa", "6", &[]);
    let csv = dir.join("out/tune.csv");
    let mut child = Command::new(ENGINE)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("engine starts");
    // Killed (SIGKILL) as soon as the first step is in the CSV (written after the state), in
    // the middle of the second step (or between its state and its CSV).
    let deadline = Instant::now() + Duration::from_secs(60);
    while !csv.exists() || csv_rows(&dir).is_empty() {
        assert!(Instant::now() < deadline, "no step done after 60 s");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = csv_rows(&dir);
    assert!((1..6).contains(&before.len()), "{before:?}");

    let output = engine(&args);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    let resumed: usize = err
        .split("tune: resuming after step ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no resuming line: {err}"));
    assert!(
        (before.len()..6).contains(&resumed) && resumed <= before.len() + 1,
        "resumed after step {resumed}; {} in the CSV at the kill",
        before.len()
    );
    assert!(
        err.contains(&format!("after step {resumed} of 6 (")),
        "{err}"
    );
    let rows = csv_rows(&dir);
    assert_eq!(rows.len(), 6);
    assert_eq!(
        rows[..before.len()],
        before[..],
        "the steps done before are kept"
    );
    for (i, row) in rows.iter().enumerate() {
        let cols: Vec<&str> = row.split(',').collect();
        assert_eq!(cols[0], (i + 1).to_string(), "{row}");
        assert_eq!(cols[3], "2", "two games a step: {row}");
        // θ after the step and θ+ lie in their ranges.
        for v in &cols[10..14] {
            let v: f64 = v.parse().unwrap();
            assert!((40.0..=300.0).contains(&v), "{row}");
        }
    }
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        report.starts_with("engine tune --method spsa: 6 of 6 steps, 12 games"),
        "{report}"
    );
    // The tuned file is a parameters file the engine reads, with the fixed value kept.
    let tuned = read(&dir.join("out/tuned.params"));
    let p = params_file::params_from_text(&tuned).unwrap();
    assert_eq!(p.lmr_divisor_centi, 250);
    assert!((40..=300).contains(&p.futility_margin), "{tuned}");
    assert!(read(&dir.join("out/tune.svg")).starts_with("<svg"));

    // Run again: nothing left to do, same answer.
    let again = engine(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stderr(&again).contains("no step left to run"));
    assert_eq!(read(&dir.join("out/tuned.params")), tuned);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pso_run_writes_its_outputs_and_refuses_other_settings() {
    let dir = out_dir("pso");
    let args = tune_args(&dir, "pso", "3", &["--pso-particles", "2", "--seed", "4"]);
    let output = engine(&args);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    let rows = csv_rows(&dir);
    assert_eq!(rows.len(), 3);
    let cols: Vec<Vec<&str>> = rows.iter().map(|r| r.split(',').collect()).collect();
    // step, iteration, particle: two particles an iteration.
    let order: Vec<(&str, &str, &str)> = cols.iter().map(|c| (c[0], c[1], c[2])).collect();
    assert_eq!(order, [("1", "0", "0"), ("2", "0", "1"), ("3", "1", "0")]);
    // Particle 0 starts at the file's values.
    assert_eq!(&cols[0][12..14], ["120.000", "120.000"]);
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("Global best: score"), "{report}");
    let tuned = read(&dir.join("out/tuned.params"));
    assert!(params_file::params_from_text(&tuned).is_ok(), "{tuned}");

    // Other settings with the same state: refused, naming what differs.
    let other = tune_args(&dir, "pso", "3", &["--pso-particles", "2", "--seed", "5"]);
    let refused = engine(&other);
    assert!(!refused.status.success());
    let err = stderr(&refused);
    assert!(
        err.contains("holds a run with other settings (seed was 4, now 5)")
            && err.contains("--restart"),
        "{err}"
    );
    assert_eq!(csv_rows(&dir).len(), 3, "nothing changed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_parameters_files_are_named_with_their_line() {
    let dir = out_dir("bad");
    let cases = [
        (
            "rfp_margin 120 40 300 20\nfutility 3\n",
            "line 2: unknown search parameter 'futility'",
        ),
        (
            "rfp_margin 120 40 3000 20\n",
            "line 1: rfp_margin: max 3000 is outside",
        ),
        (
            "rfp_margin 120 40\n",
            "line 1: expected 'name value' or 'name value min max step'",
        ),
        ("rfp_margin 120\n", "no tunable parameter"),
    ];
    for (text, expected) in cases {
        let path = dir.join("bad.params");
        std::fs::write(&path, text).unwrap();
        let output = engine(&[
            "tune".to_string(),
            "--method".to_string(),
            "spsa".to_string(),
            "--params".to_string(),
            path.to_str().unwrap().to_string(),
            "--steps".to_string(),
            "2".to_string(),
            "--nodes".to_string(),
            "100".to_string(),
            "--out".to_string(),
            dir.join("out").to_str().unwrap().to_string(),
        ]);
        let err = stderr(&output);
        assert!(!output.status.success(), "{text:?}");
        assert!(
            err.contains(&format!("{}: {expected}", path.display())),
            "{text:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!dir.join("out/tune.state").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
