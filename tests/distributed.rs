//! The cluster scripts (`scripts/distributed/`) on a real local Ray cluster: their own test
//! script makes its virtual environment (PyPI), starts three Ray nodes on 127.0.0.1 and checks
//! the gathered shards byte for byte against `engine datagen`, killed engines and workers, bad
//! plans and the Slurm flow, with the engine this build made.

use std::process::Command;

#[test]
fn cluster_scripts_pass_their_tests_on_a_local_ray_cluster() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("bash")
        .arg(format!("{root}/scripts/distributed/test.sh"))
        .current_dir(root)
        .env("DATAGEN_ENGINE", env!("CARGO_BIN_EXE_engine"))
        .output()
        .expect("bash runs scripts/distributed/test.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "scripts/distributed/test.sh failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    // pytest's closing line: some tests passed, none failed.
    assert!(
        stdout.contains(" passed") && !stdout.contains(" failed"),
        "{stdout}"
    );
}
