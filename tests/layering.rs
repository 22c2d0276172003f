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
    // What differs on WebAssembly (clock, entropy, threads): beside the rules too.
    ("platform", &[]),
    ("eval", &["shogi"]),
    // The opening book's file format and move choice, and loading a book file.
    ("book", &["shogi", "fileio"]),
    ("nn", &["shogi", "eval", "fileio"]),
    // The search sees evaluators only through `eval`; it never names the network.
    ("search", &["shogi", "eval", "memory", "platform"]),
    // `engine bench` plays with `nn::engine_evaluator`, what the engine plays with.
    ("bench", &["shogi", "eval", "nn", "search", "platform"]),
    // The player seam: the trait over the search's types, naming neither implementation.
    ("player", &["shogi", "eval", "search"]),
    // Monte Carlo tree search: a player (it implements the seam's trait) over the search's
    // types, ordering and clock.
    (
        "mcts",
        &[
            "shogi", "eval", "search", "player", "memory", "fileio", "platform",
        ],
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
    // The USI client (engine processes, handshake, `info` lines, time controls): it names
    // nothing of the lab, so that matches, tools, the tuner and the GUI can all stand on it.
    ("usi_client", &[]),
    // The tuner plays matches (`matches`, engines by `usi_client`) over the players'
    // parameters (`search`, MCTS's too by name through `players`), and fits the classical
    // evaluator (`eval`) to datagen shards (`train`) by Texel's method.
    (
        "tune",
        &[
            "shogi",
            "fileio",
            "search",
            "players",
            "matches",
            "plot",
            "eval",
            "train",
            "usi_client",
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

/// The crate modules a source file's code names (`crate::<module>`; the code as [`code_of`]
/// reads it: no comments, strings or tests).
fn named_modules(path: &Path) -> BTreeSet<String> {
    let code = code_of(path);
    let mut names = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        names.insert(name);
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

// ---- Import circles: no source file names one that names it back ----
//
// The graph of which source file names which, per crate; any circle in it fails the test, named
// `a.rs -> b.rs -> a.rs`. `scripts/import-cycles.sh` runs this test and prints the circles (what
// to run while breaking one). The rules, kept simple:
//
// - A file names another when its code (`code_of`: comments and string literals left out; up to
//   the first `#[cfg(test)]` item; `tests.rs` files are tests as a whole) holds a
//   path `crate::a::b…`, `super::x…`, `self::x…` (in `use` trees too, braces expanded) or
//   `child::…` for a module the file declares. The path resolves to the file of the longest
//   module prefix it names, `a/b.rs` or `a/b/mod.rs`; what follows is an item of that file.
// - A name imported through a re-export (`crate::search::Limits`, re-exported by
//   `search/mod.rs` from `search/types.rs`) names the file the re-export points to
//   (`search/types.rs`), followed through further re-exports. `use super::*` names the
//   parent's file.
// - A module's root file (`lib.rs`, `mod.rs`, or `a.rs` beside `a/`) declaring `mod child;` or
//   re-exporting a descendant's items (`pub use child::X;`) does not import it: that is the
//   module's face. Any other use of a descendant does (a parent that calls into its child and a
//   child that names the parent's types are a circle).

use std::collections::BTreeMap;

/// The crates whose files are checked (`main.rs` names the library as `engine::`, not `crate::`).
const CRATE_SOURCES: &[&str] = &[
    "crates/minishogi-rules/src",
    "crates/minishogi-records/src",
    "crates/minishogi-engine/src",
    "crates/minishogi-board/src",
    "crates/minishogi-web/src",
    "src",
];

/// `text` without comments, and with string and char literals emptied.
fn strip_comments_and_strings(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let n = b.len();
    let starts = |i: usize, s: &str| s.chars().enumerate().all(|(k, c)| b.get(i + k) == Some(&c));
    let ident_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(n);
    let mut i = 0;
    while i < n {
        let c = b[i];
        if starts(i, "//") {
            while i < n && b[i] != '\n' {
                i += 1;
            }
        } else if starts(i, "/*") {
            let mut depth = 1;
            i += 2;
            while i < n && depth > 0 {
                if starts(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if starts(i, "*/") {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && b.get(i + 1) == Some(&'r')))
            && (i == 0 || !ident_char(b[i - 1]))
            && {
                let mut j = i + if c == 'b' { 2 } else { 1 };
                while b.get(j) == Some(&'#') {
                    j += 1;
                }
                b.get(j) == Some(&'"')
            }
        {
            // A raw string: r"…", r#"…"#, br"…".
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b[j] == '#' {
                hashes += 1;
                j += 1;
            }
            let end: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            j += 1;
            while j < n && !starts(j, &end) {
                j += 1;
            }
            out.push_str("\"\"");
            i = (j + end.chars().count()).min(n);
        } else if c == '"' {
            i += 1;
            while i < n && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' && b.get(i + 1) == Some(&'\\') {
            // A char literal with an escape: '\n', '\'', '\u{…}'.
            let mut j = i + 3;
            while j < n && b[j] != '\'' {
                j += 1;
            }
            out.push_str("' '");
            i = j + 1;
        } else if c == '\'' && b.get(i + 2) == Some(&'\'') {
            out.push_str("' '");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code of a source file that is not a test: comments and string literals left out, up
/// to the first `#[cfg(test)]` item (test modules sit at the end of a file); a
/// `#[cfg(test)] mod tests;` declaration is skipped, not an end. `tests.rs` files are tests as
/// a whole.
fn code_of(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let mut code = strip_comments_and_strings(&std::fs::read_to_string(path).unwrap());
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let at = from + found;
        let after = &code[at + "#[cfg(test)]".len()..];
        let declaration = after.trim_start().strip_prefix("mod ").and_then(|rest| {
            let rest = rest.trim_start();
            let name = rest.len()
                - rest
                    .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_')
                    .len();
            rest[name..].trim_start().starts_with(';').then_some(())
        });
        match declaration {
            Some(()) => {
                let end = at + after.find(';').unwrap() + "#[cfg(test)]".len() + 1;
                code.replace_range(at..end, "");
                from = at;
            }
            None => {
                code.truncate(at);
                break;
            }
        }
    }
    code
}

/// Identifiers, `::` and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push("0".to_string());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

fn is_ident(token: &str) -> bool {
    token.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// The paths of a `use` tree's tokens (after `use`, before `;`), braces expanded, `as` dropped:
/// `a::{b, c::{d, e}}` gives `a::b`, `a::c::d`, `a::c::e`.
fn expand_use_tree(tokens: &[String]) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        if t == "{" {
            // Split the group's top level on commas.
            let (mut depth, mut start, mut paths) = (0, i + 1, Vec::new());
            for j in i..tokens.len() {
                match tokens[j].as_str() {
                    "{" => depth += 1,
                    "}" => depth -= 1,
                    "," if depth == 1 => {
                        paths.extend(expand_use_tree(&tokens[start..j]));
                        start = j + 1;
                    }
                    _ => {}
                }
                if depth == 0 {
                    paths.extend(expand_use_tree(&tokens[start..j]));
                    break;
                }
            }
            return paths
                .into_iter()
                .map(|p| prefix.iter().cloned().chain(p).collect())
                .collect();
        } else if t == "as" {
            break;
        } else if t != "::" {
            prefix.push(t.to_string());
        }
        i += 1;
    }
    if prefix.is_empty() {
        vec![]
    } else {
        vec![prefix]
    }
}

/// One crate's files by module path (`["search", "threads"]` → `search/threads.rs`), and what
/// each file re-exports (`pub use`: the name → the absolute path it stands for).
struct CrateFiles {
    modules: BTreeMap<Vec<String>, String>,
    reexports: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

impl CrateFiles {
    fn new(src: &Path) -> CrateFiles {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        let mut modules = BTreeMap::new();
        for file in files {
            let rel = file
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel == "main.rs" {
                continue;
            }
            let mut parts: Vec<String> = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            modules.insert(parts, rel);
        }
        let mut files = CrateFiles {
            modules,
            reexports: BTreeMap::new(),
        };
        for (module, rel) in &files.modules {
            let tokens = tokens(&code_of(&src.join(rel)));
            let mut names = BTreeMap::new();
            for (i, _) in tokens.iter().enumerate().filter(|(_, t)| *t == "use") {
                if !is_public_use(&tokens, i) {
                    continue;
                }
                let end = (i..tokens.len())
                    .find(|&j| tokens[j] == ";")
                    .unwrap_or(tokens.len());
                for path in expand_use_tree(&tokens[i + 1..end]) {
                    if let Some(absolute) = files.absolute(module, &path) {
                        names.insert(path.last().unwrap().clone(), absolute);
                    }
                }
            }
            files.reexports.insert(rel.clone(), names);
        }
        files
    }

    /// The file an absolute path names: that of its longest module prefix, or, where the item
    /// after that prefix is a re-export, the file the re-export names (followed a few times).
    fn resolve(&self, path: &[String]) -> Option<&String> {
        let mut path = path.to_vec();
        for _ in 0..8 {
            let k = (0..=path.len())
                .rev()
                .find(|&k| self.modules.contains_key(&path[..k]))?;
            let file = &self.modules[&path[..k]];
            match path
                .get(k)
                .and_then(|item| self.reexports.get(file)?.get(item))
            {
                Some(target) if !target.starts_with(&path[..=k]) => {
                    path = target.iter().chain(&path[k + 1..]).cloned().collect();
                }
                _ => return Some(file),
            }
        }
        None
    }

    /// `path` as named in `module`, absolute; `None` outside the crate (std, other crates).
    fn absolute(&self, module: &[String], path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?;
        if first == "crate" {
            return Some(path[1..].to_vec());
        }
        if first == "super" || first == "self" {
            let mut base = module.to_vec();
            let mut rest = path;
            while let Some(head) = rest.first().filter(|h| *h == "super" || *h == "self") {
                if head == "super" {
                    base.pop();
                }
                rest = &rest[1..];
            }
            base.extend_from_slice(rest);
            return Some(base);
        }
        let mut child = module.to_vec();
        child.push(first.clone());
        self.modules
            .contains_key(&child)
            .then(|| module.iter().chain(path).cloned().collect())
    }

    /// Which files each file names (see the rules above).
    fn graph(&self, src: &Path) -> BTreeMap<String, BTreeSet<String>> {
        let mut graph = BTreeMap::new();
        for (module, rel) in &self.modules {
            let tokens = tokens(&code_of(&src.join(rel)));
            let mut named = BTreeSet::new();
            let mut add = |path: &[String], public: bool| {
                let Some(absolute) = self.absolute(module, path) else {
                    return;
                };
                let Some(target) = self.resolve(&absolute) else {
                    return;
                };
                let target_module = self.modules.iter().find(|(_, f)| *f == target).unwrap().0;
                let descendant =
                    target_module.len() > module.len() && target_module.starts_with(module);
                if target != rel && !(public && descendant) {
                    named.insert(target.clone());
                }
            };
            let mut i = 0;
            while i < tokens.len() {
                let t = tokens[i].as_str();
                if t == "use" {
                    let public = is_public_use(&tokens, i);
                    let end = (i..tokens.len())
                        .find(|&j| tokens[j] == ";")
                        .unwrap_or(tokens.len());
                    for path in expand_use_tree(&tokens[i + 1..end]) {
                        add(&path, public);
                    }
                    i = end;
                } else if is_ident(t)
                    && tokens.get(i + 1).is_some_and(|n| n == "::")
                    && (i == 0 || tokens[i - 1] != "::")
                {
                    let mut path = vec![t.to_string()];
                    let mut j = i + 1;
                    while tokens.get(j).is_some_and(|s| s == "::")
                        && tokens.get(j + 1).is_some_and(|s| is_ident(s))
                    {
                        path.push(tokens[j + 1].clone());
                        j += 2;
                    }
                    if path.len() > 1 {
                        add(&path, false);
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
            graph.insert(rel.clone(), named);
        }
        graph
    }
}

/// Whether the `use` at `tokens[i]` is a re-export: `pub use` or `pub(crate) use`.
fn is_public_use(tokens: &[String], i: usize) -> bool {
    i >= 1
        && (tokens[i - 1] == "pub"
            || (tokens[i - 1] == ")"
                && tokens[..i - 1]
                    .iter()
                    .rposition(|t| t == "(")
                    .is_some_and(|open| open >= 1 && tokens[open - 1] == "pub")))
}

/// Every elementary circle of `graph`, each from its smallest file.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in graph.keys() {
        let mut stack = vec![vec![start.clone()]];
        while let Some(path) = stack.pop() {
            let last = path.last().unwrap();
            for next in graph.get(last).into_iter().flatten() {
                if next == start {
                    found.push(path.iter().cloned().chain([start.clone()]).collect());
                } else if next > start && !path.contains(next) {
                    stack.push(path.iter().cloned().chain([next.clone()]).collect());
                }
            }
        }
    }
    found.sort();
    found
}

#[test]
fn no_source_file_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for src in CRATE_SOURCES {
        let dir = root.join(src);
        for circle in circles(&CrateFiles::new(&dir).graph(&dir)) {
            all.push(format!("{src}: {}", circle.join(" -> ")));
        }
    }
    assert!(all.is_empty(), "import circles:\n{}", all.join("\n"));
}

#[test]
fn the_circle_checker_sees_a_circle_and_reads_use_trees() {
    let tree: Vec<String> = tokens("super::{a, b::{c, d as e}, f}");
    assert_eq!(
        expand_use_tree(&tree),
        [
            ["super", "a"].as_slice(),
            &["super", "b", "c"],
            &["super", "b", "d"],
            &["super", "f"]
        ]
        .map(|p| p.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    );
    let code =
        strip_comments_and_strings("let s = \"crate::x\"; // crate::y\n/* crate::z */ crate::w");
    assert_eq!(code.matches("crate::").count(), 1, "{code}");
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a.rs", &["b.rs"][..]),
        ("b.rs", &["a.rs", "c.rs"]),
        ("c.rs", &[]),
    ]
    .into_iter()
    .map(|(f, to)| (f.to_string(), to.iter().map(|t| t.to_string()).collect()))
    .collect();
    assert_eq!(circles(&graph), [["a.rs", "b.rs", "a.rs"]]);
}

#[test]
fn the_circle_checker_follows_re_exports_past_test_declarations() {
    let src = std::env::temp_dir().join(format!("layering-{}", std::process::id()));
    std::fs::create_dir_all(&src).unwrap();
    for (file, text) in [
        // The root re-exports `a`'s item; its test declaration does not end its code.
        (
            "lib.rs",
            "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\npub use a::Thing;\nuse b::f;\n",
        ),
        ("a.rs", "pub struct Thing;\npub fn g() { crate::b::f() }\n"),
        // `crate::Thing` is `a.rs`'s, through the root's re-export.
        (
            "b.rs",
            "use crate::Thing;\npub fn f() {}\n#[cfg(test)]\nmod tests { use crate::a; }\n",
        ),
    ] {
        std::fs::write(src.join(file), text).unwrap();
    }
    let graph = CrateFiles::new(&src).graph(&src);
    std::fs::remove_dir_all(&src).unwrap();
    assert_eq!(graph["lib.rs"], BTreeSet::from(["b.rs".to_string()]));
    assert_eq!(circles(&graph), [["a.rs", "b.rs", "a.rs"]]);
}
