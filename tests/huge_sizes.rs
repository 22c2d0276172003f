//! Sizes beyond the machine, asked on the command line: each is refused with a clear error
//! and a non-zero exit, never an abort (a failed allocation) or an out-of-memory kill.

use std::process::Command;

fn run(args: &[&str]) -> (std::process::ExitStatus, String) {
    let dir = std::env::temp_dir().join(format!("engine-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_engine"))
        .args(args)
        .current_dir(&dir)
        .output()
        .expect("engine runs");
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn absurd_sizes_are_errors_not_aborts() {
    for (args, expected) in [
        (
            &[
                "pretrain",
                "--positions",
                "99999999999999",
                "--out",
                "w.bin",
            ][..],
            "--positions 99999999999999 needs about",
        ),
        (
            &[
                "pretrain",
                "--arch",
                "100000000,100000",
                "--positions",
                "100",
                "--out",
                "w.bin",
            ][..],
            "--arch 100000000,100000 needs about",
        ),
        (
            &["selfplay", "--games", "1000000000", "--out", "s.bin"][..],
            "--games 1000000000 × --max-plies",
        ),
        (&["perft", "--depth", "4000000000"][..], "4000000000"),
    ] {
        let (status, stderr) = run(args);
        assert!(
            !status.success() && status.code().is_some(),
            "{args:?}: {status} {stderr}"
        );
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("memory allocation"), "{args:?}: {stderr}");
    }
}
