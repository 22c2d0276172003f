//! Every relative link of `README.md` and `docs/**/*.md` points to a file or folder that exists,
//! and a `#anchor` into a Markdown file names one of its headings (as GitHub spells anchors).
//! Links out of the repository (`https:`, `mailto:` …) are not checked.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            out.push(path);
        }
    }
}

/// The text outside fenced code blocks, line by line (links in code are examples, not links).
fn prose_lines(text: &str) -> Vec<&str> {
    let mut in_fence = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence {
            lines.push(line);
        }
    }
    lines
}

/// The targets of inline links and images, `[text](target)` and `![alt](target "title")`,
/// outside inline code spans.
fn link_targets(line: &str) -> Vec<String> {
    let mut prose = String::new();
    for (i, part) in line.split('`').enumerate() {
        if i % 2 == 0 {
            prose.push_str(part);
        }
        prose.push(' ');
    }
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        if !target.is_empty() {
            targets.push(target.to_string());
        }
        rest = &rest[end..];
    }
    targets
}

/// GitHub's anchor for a heading: lowercase, letters, digits, `-` and `_` kept, spaces become
/// `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings, numbered as GitHub numbers repeated ones.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim());
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

#[test]
fn relative_links_in_the_docs_point_to_existing_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    markdown_files(&root.join("docs"), &mut files);
    let mut dead = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let dir = file.parent().unwrap();
        for line in prose_lines(&text) {
            for target in link_targets(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, anchor) = match target.split_once('#') {
                    Some((path, anchor)) => (path, Some(anchor)),
                    None => (target.as_str(), None),
                };
                let resolved = if path.is_empty() {
                    file.clone()
                } else {
                    dir.join(path)
                };
                let shown = file.strip_prefix(root).unwrap().display();
                if !resolved.exists() {
                    dead.push(format!("{shown}: ({target}): no such file"));
                    continue;
                }
                if let Some(anchor) = anchor
                    && resolved.extension().is_some_and(|ext| ext == "md")
                {
                    let target_text = fs::read_to_string(&resolved).unwrap();
                    if !anchors(&target_text).contains(anchor) {
                        dead.push(format!("{shown}: ({target}): no heading #{anchor}"));
                    }
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} relative links found: is the scan broken?"
    );
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug("Search: `engine bench`"), "search-engine-bench");
    assert_eq!(slug("Where to add …"), "where-to-add-");
    assert_eq!(
        slug("The equal-strength ladder up to Fairy-Stockfish's 1.8 s a move (2026-11-25, later)"),
        "the-equal-strength-ladder-up-to-fairy-stockfishs-18-s-a-move-2026-11-25-later"
    );
    assert_eq!(
        link_targets("see [a](x.md#y), `[b](no)` and ![c](img.png \"t\")"),
        ["x.md#y", "img.png"]
    );
}
