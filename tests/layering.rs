//! The layering inside each crate of `docs/architecture.md` that Cargo cannot check, on the
//! sources: a module names only the modules below it (`crate::<module>` paths outside comments
//! and test modules). Between crates, Cargo enforces it (`tests/crate_graph.rs`): the rules
//! crate names nothing, the playing engine nothing of the lab.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The playing engine (`crates/minishogi-engine/src`): module → the modules of the crate it may
/// name besides itself (`shogi` is the rules crate, re-exported).
const ENGINE: &[(&str, &[&str])] = &[
    // Checked reads and atomic writes of files: a utility beside the rules.
    ("fileio", &[]),
    // What memory the system can give: beside the rules too.
    ("memory", &[]),
    ("eval", &["shogi"]),
    // The opening book's file format and move choice, and loading a book file.
    ("book", &["shogi", "fileio"]),
    ("nn", &["shogi", "eval", "fileio"]),
    // The search sees evaluators only through `eval`; it never names the network.
    ("search", &["shogi", "eval", "memory"]),
    // `engine bench` plays with `nn::engine_evaluator`, what the engine plays with.
    ("bench", &["shogi", "eval", "nn", "search"]),
    // The player seam: the trait over the search's types, naming neither implementation.
    ("player", &["shogi", "eval", "search"]),
    // Monte Carlo tree search: a player (it implements the seam's trait) over the search's
    // types, ordering and clock.
    (
        "mcts",
        &["shogi", "eval", "search", "player", "memory", "fileio"],
    ),
    // The factory of the players by name, above both (and alpha-beta's side of the seam).
    ("players", &["shogi", "eval", "search", "player", "mcts"]),
    // Seeded random positions for tests and benchmarks, over the rules' random play.
    ("testing", &["shogi"]),
];

/// The lab (the root package's `src/`): the few modules that stay low.
const LAB: &[(&str, &[&str])] = &[
    // Charts as SVG and the CSVs they are redrawn from: drawing only, of any report's data.
    ("plot", &[]),
    // Game records: formats over the rules.
    ("records", &["shogi"]),
    // The tuner plays matches (`matches`) over the players' parameters (`search`, MCTS's too
    // by name through `players`), and fits the classical evaluator (`eval`) to datagen shards
    // (`train`) by Texel's method.
    (
        "tune",
        &[
            "shogi", "fileio", "search", "players", "matches", "plot", "eval", "train",
        ],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crate modules a source file names, up to its first `#[cfg(test)]` (test modules sit at
/// the end of a file); `tests.rs` files are test code as a whole.
fn named_modules(path: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return names;
    }
    let text = std::fs::read_to_string(path).unwrap();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            names.insert(name);
        }
    }
    names
}

fn check_layers(src: &Path, layers: &[(&str, &[&str])]) {
    for (layer, allowed) in layers {
        let mut files = Vec::new();
        let dir = src.join(layer);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(src.join(format!("{layer}.rs")));
        }
        assert!(files.iter().all(|f| f.exists()), "no sources for {layer}");
        for file in files {
            for name in named_modules(&file) {
                assert!(
                    name == *layer || allowed.contains(&name.as_str()),
                    "{} names crate::{name}; {layer} may name only {allowed:?}",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn the_engine_modules_name_only_the_modules_below() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    check_layers(&root.join("crates/minishogi-engine/src"), ENGINE);
}

#[test]
fn the_low_lab_modules_name_only_the_modules_below() {
    check_layers(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), LAB);
}
