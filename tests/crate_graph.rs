//! The crate graph of `docs/architecture.md`, as Cargo resolves it: the rules crate depends on
//! nothing, and the playing engine links none of the lab's crates (charts, progress bars, CSV,
//! JSON, SVG rendering) nor the lab itself (the root package `engine`). A program that only
//! plays thus builds without them. Asked of `cargo tree` (offline: everything is already
//! resolved by the build that runs this test).

use std::process::Command;

/// What the playing engine must not link: the lab (the root package) and the lab's crates.
const LAB: [&str; 6] = [
    "engine",
    "plotters",
    "indicatif",
    "csv",
    "serde_json",
    "resvg",
];

/// The crates a package links (its normal dependencies, transitively), itself first.
fn linked_crates(package: &str) -> Vec<String> {
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-e", "normal", "--prefix", "none"])
        .args(["--format", "{p}", "-p", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut names: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect();
    names.dedup();
    names
}

#[test]
fn the_rules_crate_depends_on_nothing() {
    assert_eq!(linked_crates("minishogi-rules"), ["minishogi-rules"]);
}

#[test]
fn the_playing_engine_links_none_of_the_lab() {
    let linked = linked_crates("minishogi-engine");
    assert!(linked.iter().any(|c| c == "minishogi-rules"), "{linked:?}");
    for lab in LAB {
        assert!(
            !linked.iter().any(|c| c == lab),
            "minishogi-engine links {lab}: {linked:?}"
        );
    }
}

#[test]
fn the_lab_sits_on_the_engine() {
    let linked = linked_crates("engine");
    for layer in ["minishogi-engine", "minishogi-rules"] {
        assert!(linked.iter().any(|c| c == layer), "{linked:?}");
    }
}
