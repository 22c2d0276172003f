//! Files the engine reads and writes, end to end through the binary: outputs through symlinks,
//! special files refused (never opened, never a hang), a failed save under a file-size limit,
//! and two runs on one output.

#![cfg(unix)]

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-files-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

fn engine() -> Command {
    Command::new(env!("CARGO_BIN_EXE_engine"))
}

/// A tiny self-play run (well under a second): generation 10's network, no mate data.
fn selfplay(out: &Path) -> Command {
    let mut c = selfplay_mixing(out, "0");
    c.args(["--init", SEED_NET]);
    c
}

/// [`selfplay`] with this `--mate-share`, and no `--init` yet.
fn selfplay_mixing(out: &Path, mate_share: &str) -> Command {
    let mut c = engine();
    c.args([
        "selfplay",
        "--iterations",
        "1",
        "--games",
        "2",
        "--max-plies",
        "30",
        "--eval-games",
        "0",
        "--mate-share",
        mate_share,
        "--threads",
        "1",
    ])
    .arg("--out")
    .arg(out);
    c
}

/// A network of the seed's inputs, which self-play trains (the embedded one is piece-bucket).
const SEED_NET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/weights/gen10.bin");

/// Runs `cmd` to its end, or kills it and fails after `limit`: a hang is a failure, not a
/// stuck test suite.
fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// Self-play learns on the seed's inputs: a network of another set (the embedded one, since
/// generation 11) is refused with a message saying what to give, and nothing is written.
#[test]
fn selfplay_refuses_a_network_without_the_seed_inputs() {
    let dir = temp_dir("selfplay-set");
    let out = dir.join("s.bin");
    let mut cmd = engine();
    cmd.args(["selfplay", "--iterations", "1", "--games", "2", "--out"])
        .arg(&out);
    let o = output_within(&mut cmd, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("the embedded network has the piece-bucket set") && err.contains("--init"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn out_through_a_symlink_writes_the_target_and_keeps_the_link() {
    let dir = temp_dir("symlink");
    let target = dir.join("real.bin");
    std::fs::write(&target, b"old weights").unwrap();
    let link = dir.join("link.bin");
    std::os::unix::fs::symlink("real.bin", &link).unwrap();
    let o = output_within(&mut selfplay(&link), Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is still a link"
    );
    let net = engine::nn::load_from_path(&target).expect("the target holds the new weights");
    assert_eq!(net, engine::nn::load_from_path(&link).unwrap());
    assert!(temp_files(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn out_on_a_fifo_is_refused_and_the_fifo_untouched() {
    let dir = temp_dir("fifo-out");
    let fifo = dir.join("w.bin");
    mkfifo(&fifo);
    let o = output_within(&mut selfplay(&fifo), Duration::from_secs(20));
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("w.bin") && err.contains("FIFO"), "{err}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // A device is refused the same way (as root, /dev/null would otherwise be replaced).
    let o = output_within(
        &mut selfplay(Path::new("/dev/null")),
        Duration::from_secs(20),
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("character device"), "{}", stderr(&o));
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_save_over_the_file_size_limit_keeps_the_previous_weights_and_no_temp_file() {
    let dir = temp_dir("ulimit");
    let data = dir.join("mate.bin");
    let out = dir.join("w.bin");
    let pretrain = |seed: &str, limit_kib: Option<u32>| {
        let cmd = format!(
            "{}exec '{}' pretrain --positions 400 --epochs 1 --threads 1 --seed {seed} \
             --data '{}' --out '{}'",
            limit_kib.map_or(String::new(), |k| format!("ulimit -f {k}; ")),
            env!("CARGO_BIN_EXE_engine"),
            data.display(),
            out.display()
        );
        output_within(
            Command::new("bash").args(["-c", &cmd]),
            Duration::from_secs(60),
        )
    };
    let o = pretrain("1", None);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(&out).unwrap();
    assert!(
        before.len() > 64 * 1024,
        "weights larger than the limit below"
    );
    // Another seed would write other weights; 64 KiB is too small for them.
    let o = pretrain("2", Some(64));
    assert!(!o.status.success(), "the save must fail");
    let err = stderr(&o);
    assert!(err.contains("w.bin") && err.contains("too large"), "{err}");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "previous weights intact"
    );
    assert!(temp_files(&dir).is_empty(), "{:?}", temp_files(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn weights_and_data_that_are_fifos_or_folders_are_clear_errors_without_a_hang() {
    let dir = temp_dir("fifo-in");
    let fifo = dir.join("in.bin");
    mkfifo(&fifo);
    let out = dir.join("w.bin");
    for (flag, path, kind) in [
        ("--init", &fifo, "FIFO"),
        ("--init", &dir, "directory"),
        ("--mate-data", &fifo, "FIFO"),
    ] {
        let mut cmd = selfplay_mixing(&out, "0.3");
        cmd.arg(flag).arg(path);
        if flag != "--init" {
            cmd.args(["--init", SEED_NET]);
        }
        let o = output_within(&mut cmd, Duration::from_secs(20));
        assert!(!o.status.success(), "{flag} {}", path.display());
        let err = stderr(&o);
        assert!(
            err.contains(&*path.to_string_lossy()) && err.contains(kind),
            "{flag}: {err}"
        );
    }
    let mut cmd = engine();
    cmd.args(["pretrain", "--positions", "100"])
        .arg("--data")
        .arg(&fifo)
        .arg("--out")
        .arg(&out);
    let o = output_within(&mut cmd, Duration::from_secs(20));
    assert!(!o.status.success());
    assert!(stderr(&o).contains("FIFO"), "{}", stderr(&o));

    // EvalFile on a FIFO: an error, and readyok within 2 s.
    let mut child = engine()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let script = format!(
        "usi\nsetoption name EvalFile value {}\nisready\n",
        fifo.display()
    );
    use std::io::{BufRead, Write};
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    let start = Instant::now();
    let mut seen = Vec::new();
    loop {
        let left = Duration::from_secs(2).saturating_sub(start.elapsed());
        match rx.recv_timeout(left) {
            Ok(line) if line == "readyok" => break,
            Ok(line) => seen.push(line),
            Err(_) => {
                let _ = child.kill();
                panic!("no readyok within 2 s: {seen:?}");
            }
        }
    }
    assert!(
        seen.iter()
            .any(|l| l.contains("in.bin") && l.contains("FIFO")),
        "{seen:?}"
    );
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    let _ = child.wait();
    std::fs::remove_dir_all(&dir).unwrap();
}

fn spawn_long_selfplay(out: &Path) -> Child {
    engine()
        .args([
            "selfplay",
            "--iterations",
            "1000",
            "--games",
            "2",
            "--max-plies",
            "30",
            "--eval-games",
            "0",
            "--mate-share",
            "0",
            "--threads",
            "1",
            "--init",
            SEED_NET,
        ])
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn a_second_writer_of_the_same_output_is_refused_until_the_first_dies() {
    let dir = temp_dir("lock");
    let out = dir.join("w.bin");
    let mut first = spawn_long_selfplay(&out);
    // The lock file holds the holder's pid once the lock is taken.
    let lock = dir.join("w.lock");
    let start = Instant::now();
    while std::fs::read_to_string(&lock).ok().as_deref() != Some(&first.id().to_string()) {
        assert!(start.elapsed() < Duration::from_secs(20), "no lock taken");
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = output_within(&mut selfplay(&out), Duration::from_secs(20));
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("w.bin")
            && err.contains("another run")
            && err.contains(&first.id().to_string()),
        "{err}"
    );
    // Death releases the lock.
    first.kill().unwrap();
    first.wait().unwrap();
    let o = output_within(selfplay(&out).arg("--restart"), Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `engine weights` rewrites a version 1 (all `f32`) file compact: about half the bytes, read
/// back by the other commands, its report naming the encoding; a damaged input is an error
/// naming the file and what is wrong, and nothing is written.
#[test]
fn weights_rewritten_compact_load_and_a_damaged_file_is_named() {
    let dir = temp_dir("weights-compact");
    let compact = dir.join("compact.bin");
    let o = output_within(
        engine()
            .args(["weights", SEED_NET, "--output"])
            .arg(&compact),
        Duration::from_secs(60),
    );
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(report.contains("full encoding, 403752 bytes"), "{report}");
    assert!(report.contains("largest parameter change"), "{report}");
    let (full_len, compact_len) = (
        std::fs::metadata(SEED_NET).unwrap().len(),
        std::fs::metadata(&compact).unwrap().len(),
    );
    assert!(
        compact_len * 10 < full_len * 6,
        "{full_len} → {compact_len}"
    );

    let o = output_within(
        engine().arg("weights").arg(&compact),
        Duration::from_secs(60),
    );
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains(&format!("compact encoding, {compact_len} bytes")),
        "{report}"
    );
    let o = output_within(
        engine().args(["eval", "--weights"]).arg(&compact),
        Duration::from_secs(60),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("side to move"));

    let damaged = dir.join("damaged.bin");
    let bytes = std::fs::read(&compact).unwrap();
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).unwrap();
    let again = dir.join("again.bin");
    let o = output_within(
        engine()
            .arg("weights")
            .arg(&damaged)
            .arg("--output")
            .arg(&again),
        Duration::from_secs(60),
    );
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("damaged.bin") && err.contains("checksum"),
        "{err}"
    );
    assert!(!again.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
