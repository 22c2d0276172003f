//! The layering of `docs/architecture.md`, checked on the sources: each lower layer names only
//! the layers below it (`crate::<module>` paths outside comments and test modules). The `shogi`
//! rules core names nothing else of the crate.

use std::collections::BTreeSet;
use std::path::Path;

/// Layer → the modules of the crate it may name (besides itself).
const ALLOWED: &[(&str, &[&str])] = &[
    ("shogi", &[]),
    // Checked reads and atomic writes of files: a utility beside the rules core.
    ("fileio", &[]),
    // What memory the system can give: beside the rules core too.
    ("memory", &[]),
    // Charts as SVG and the CSVs they are redrawn from: drawing only, of any report's data.
    ("plot", &[]),
    // Game records: formats over the rules core.
    ("records", &["shogi"]),
    // The opening book's file format and move choice: over the rules core alone (the rest of
    // `book/`, `engine book`, is of the lab layer).
    ("book/format", &["shogi"]),
    ("book/choice", &["shogi"]),
    ("eval", &["shogi"]),
    ("nn", &["shogi", "eval", "fileio"]),
    // `search::bench` plays with `nn::engine_evaluator`, what the engine plays with.
    ("search", &["shogi", "eval", "nn", "memory"]),
    // The player seam: the trait over the search's types and the factory of its implementations.
    ("player", &["shogi", "eval", "search"]),
    // The tuner plays matches (`matches`) over the search's parameters (`search`), and fits
    // the classical evaluator (`eval`) to datagen shards (`train`) by Texel's method.
    (
        "tune",
        &[
            "shogi", "fileio", "search", "matches", "plot", "eval", "train",
        ],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
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

#[test]
fn lower_layers_name_only_the_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (layer, allowed) in ALLOWED {
        let mut files = Vec::new();
        let dir = src.join(layer);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(src.join(format!("{layer}.rs")));
        }
        assert!(!files.is_empty(), "no sources for {layer}");
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
