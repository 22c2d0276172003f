//! The WebAssembly engine as a web page or a Node program meets it: the module built
//! (`web/tools/build.mjs`, over `scripts/build-wasm.sh`) and the worker's tests run under Node's
//! test runner (`node --test` in `web/`: USI conformance through the worker, the same bench
//! signature and the same moves as the native engine). Where Node or a wasm32 toolchain is
//! missing, it says so and passes (`.ci/run` installs both).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The native playing binary beside this test's, when the build made it: the Node tests
/// compare the wasm engine's searches with it.
fn native_engine() -> Option<PathBuf> {
    let deps = std::env::current_exe().ok()?.parent()?.to_path_buf();
    let name = format!("minishogi-engine{}", std::env::consts::EXE_SUFFIX);
    [deps.join(&name), deps.parent()?.join(&name)]
        .into_iter()
        .find(|p| p.is_file())
}

#[test]
fn the_wasm_engine_passes_the_node_tests() {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("skipped: no node (apt-get install nodejs)");
        return;
    }
    let build = Command::new("node")
        .arg("tools/build.mjs")
        .current_dir(&web)
        .output()
        .expect("node runs");
    if build.status.code() == Some(3) {
        eprintln!(
            "skipped: no wasm32 toolchain ({})",
            String::from_utf8_lossy(&build.stderr).trim()
        );
        return;
    }
    assert!(
        build.status.success(),
        "building the module failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let mut tests = Command::new("node");
    tests.arg("--test").current_dir(&web);
    match native_engine() {
        Some(native) => {
            tests.env("NATIVE_ENGINE", native);
        }
        None => eprintln!("no native minishogi-engine beside the tests: its comparisons skip"),
    }
    let run = tests.output().expect("node runs");
    let report = String::from_utf8_lossy(&run.stdout);
    eprintln!("{report}");
    assert!(
        run.status.success(),
        "node --test failed:\n{report}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The runner's summary: tests ran, none failed.
    assert!(report.contains("# fail 0"), "{report}");
    assert!(!report.contains("# pass 0\n"), "{report}");
}
