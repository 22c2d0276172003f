//! The crate graph of `docs/architecture.md`, as Cargo resolves it. Each workspace crate's
//! direct normal dependencies are on an allow-list (asked of `cargo metadata`): the rules
//! depend on nothing, the playing engine on what a program that plays needs, and a new
//! dependency is a decision made here, not by accident. Transitively (asked of `cargo tree`),
//! the playing engine links none of the lab's crates (charts, progress bars, CSV, JSON, SVG
//! rendering, the web server, browsers, benchmarks) nor the lab itself (the root package
//! `engine`). A program that only plays thus builds without them. Offline: everything is
//! already resolved by the build that runs this test.

use std::process::Command;

/// Each crate's allowed direct normal dependencies; `None`: the lab, which may take anything.
/// An allowed name that is absent is fine (a dependency about to be added, or dropped).
const ALLOWED: [(&str, Option<&[&str]>); 6] = [
    ("minishogi-rules", Some(&[])),
    // Game records: the rules and the text encodings of KIF.
    (
        "minishogi-records",
        Some(&["minishogi-rules", "encoding_rs"]),
    ),
    (
        "minishogi-engine",
        Some(&[
            "minishogi-rules",
            "bincode",
            "clap",
            // For the engine's own binary's logging.
            "env_logger",
            // On WebAssembly only: the host's randomness (`platform.rs`).
            "getrandom",
            "libc",
            "log",
            "ndarray",
            "nom",
            "rand",
            "rayon",
            "serde",
        ]),
    ),
    // The board's session core: the game, records and the engine's numbers; no I/O, no JSON.
    (
        "minishogi-board",
        Some(&[
            "minishogi-engine",
            "minishogi-records",
            "minishogi-rules",
            "log",
            "serde",
        ]),
    ),
    // The engine as a WebAssembly module, with the board's core for the static page; the
    // page's calls and events cross as JSON.
    (
        "minishogi-web",
        Some(&["minishogi-engine", "minishogi-board", "serde", "serde_json"]),
    ),
    ("engine", None),
];

/// What the playing engine must not link: the lab (the root package) and the lab's crates.
const LAB: [&str; 14] = [
    "engine",
    "plotters",
    "indicatif",
    "csv",
    "serde_json",
    "resvg",
    "axum",
    "tokio",
    "tokio-stream",
    "webbrowser",
    "hyper",
    "fantoccini",
    "ureq",
    "criterion",
];

fn cargo(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Each workspace crate with its direct normal dependencies (package names), from
/// `cargo metadata`.
fn direct_dependencies() -> Vec<(String, Vec<String>)> {
    let text = cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--offline",
        "--no-deps",
    ]);
    let metadata: serde_json::Value = serde_json::from_str(&text).expect("cargo metadata is JSON");
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .expect("workspace_members")
        .iter()
        .filter_map(|id| id.as_str())
        .collect();
    metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter(|package| members.contains(&package["id"].as_str().unwrap_or("")))
        .map(|package| {
            let name = package["name"].as_str().expect("name").to_string();
            let dependencies = package["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                // `kind` is null for normal dependencies, "dev" or "build" for the others.
                .filter(|dependency| dependency["kind"].is_null())
                .map(|dependency| dependency["name"].as_str().expect("name").to_string())
                .collect();
            (name, dependencies)
        })
        .collect()
}

/// The crates a package links (its normal dependencies, transitively), itself first.
fn linked_crates(package: &str) -> Vec<String> {
    let text = cargo(&[
        "tree",
        "--offline",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--format",
        "{p}",
        "-p",
        package,
    ]);
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect();
    names.dedup();
    names
}

#[test]
fn each_crate_depends_only_on_its_allow_list() {
    let crates = direct_dependencies();
    let names: Vec<&str> = crates.iter().map(|(name, _)| name.as_str()).collect();
    for (name, _) in ALLOWED {
        assert!(
            names.contains(&name),
            "no workspace crate {name}: {names:?}"
        );
    }
    for (name, dependencies) in &crates {
        let allowed = ALLOWED
            .iter()
            .find(|(crate_name, _)| crate_name == name)
            .unwrap_or_else(|| panic!("workspace crate {name} has no allow-list here"))
            .1;
        let Some(allowed) = allowed else { continue };
        for dependency in dependencies {
            assert!(
                allowed.contains(&dependency.as_str()),
                "{name} depends on {dependency}, which is not on its allow-list \
                 (tests/crate_graph.rs, docs/architecture.md)"
            );
        }
    }
}

#[test]
fn the_rules_crate_depends_on_nothing() {
    assert_eq!(linked_crates("minishogi-rules"), ["minishogi-rules"]);
}

#[test]
fn the_playing_engine_links_none_of_the_lab() {
    // The board's core and the WebAssembly module too: the module is the playing engine and
    // the board with a face for their host, where the page's calls cross as JSON.
    for package in ["minishogi-engine", "minishogi-board", "minishogi-web"] {
        let linked = linked_crates(package);
        assert!(linked.iter().any(|c| c == "minishogi-rules"), "{linked:?}");
        let allowed_json = package == "minishogi-web";
        for lab in LAB
            .into_iter()
            .filter(|&c| !(allowed_json && c == "serde_json"))
        {
            assert!(
                !linked.iter().any(|c| c == lab),
                "{package} links {lab}: {linked:?}"
            );
        }
    }
}

#[test]
fn the_lab_sits_on_the_engine() {
    let (_, direct) = direct_dependencies()
        .into_iter()
        .find(|(name, _)| name == "engine")
        .expect("the root package");
    assert!(direct.iter().any(|d| d == "minishogi-engine"), "{direct:?}");
    let linked = linked_crates("engine");
    for layer in ["minishogi-engine", "minishogi-rules"] {
        assert!(linked.iter().any(|c| c == layer), "{linked:?}");
    }
}
