//! `engine pretrain` end to end at a small size: the data and weights it writes load back, and
//! the network tells mated from pre-mate positions far better than chance.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use engine::nn::{self, Features};
use engine::train::matedata;
use engine::train::trainer::{self, Dataset};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn pretrain_small_run_writes_loadable_data_and_useful_weights() {
    let dir = temp_dir("pretrain");
    let data = dir.join("mate.bin");
    let out = dir.join("net.bin");
    let status = Command::new(env!("CARGO_BIN_EXE_engine"))
        .args([
            "pretrain",
            "--positions",
            "6000",
            "--epochs",
            "6",
            "--seed",
            "11",
        ])
        .arg("--data")
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());

    let samples = matedata::load(&data).expect("data set loads");
    assert_eq!(samples.len(), 6000);
    let net = nn::load_from_path(&out).expect("weights load");
    let mut features = Features::default();
    let mut dataset = Dataset::new(nn::NUM_FEATURES);
    for s in &samples {
        features.extract(&s.position.unpack().unwrap());
        dataset.push(features.values(), s.target);
    }
    let stats = trainer::evaluate(&net, &dataset);
    assert!(stats.accuracy > 0.9, "accuracy {}", stats.accuracy);

    let csv = std::fs::read_to_string(out.with_extension("csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        7,
        "header and one line per epoch:\n{csv}"
    );
    let svg = std::fs::read_to_string(out.with_extension("svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("validation accuracy"));

    // The engine loads the weights through EvalFile; after a mating move, the mated side's
    // position is rated near 0.
    let (pre_mate, mating) = samples
        .iter()
        .filter(|s| s.target == 1.0)
        .map(|s| s.position.unpack().unwrap())
        .find_map(|p| matedata::mating_moves(&p).first().map(|&m| (p.clone(), m)))
        .expect("a pre-mate position");
    let script = format!(
        "usi\nsetoption name EvalFile value {}\nisready\nposition sfen {} moves {}\neval\nquit\n",
        out.display(),
        pre_mate.to_sfen(),
        mating
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_engine"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("error"), "{stdout}");
    let eval_line = stdout
        .lines()
        .find(|l| l.starts_with("eval:"))
        .unwrap_or_else(|| panic!("no eval line in {stdout}"));
    let p: f32 = eval_line
        .split("win probability ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no probability in '{eval_line}'"));
    assert!(p < 0.1, "mated side rated {p}: {eval_line}");

    // A second run reuses the saved data set rather than building it again.
    let before = std::fs::metadata(&data).unwrap().modified().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_engine"))
        .args(["pretrain", "--positions", "6000", "--epochs", "1"])
        .arg("--data")
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::metadata(&data).unwrap().modified().unwrap(),
        before
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pretrain_rejects_a_corrupt_data_file() {
    let dir = temp_dir("pretrain-corrupt");
    let data = dir.join("mate.bin");
    std::fs::write(&data, b"not a data set").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_engine"))
        .args(["pretrain", "--positions", "100", "--epochs", "1"])
        .arg("--data")
        .arg(&data)
        .arg("--out")
        .arg(dir.join("net.bin"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("mate.bin"), "{stderr}");
    assert!(!dir.join("net.bin").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
