#!/usr/bin/env python3
"""Print the file-level import circles of the workspace's crates, or "no import cycles".

The same rules as `tests/layering.rs`'s `no_source_file_imports_one_that_imports_it_back`
(the test holds the tree free of circles; this prints them while you break one):

- A file names another when its code (comments and strings left out, up to the first
  `#[cfg(test)]`; `tests.rs` files are tests as a whole) holds a path `crate::a::b…`,
  `super::x…`, `self::x…` (in `use` trees too, braces expanded) or `child::…` for a module
  the file declares. The path is resolved to the file of the longest module prefix it names:
  `a/b.rs` or `a/b/mod.rs`; what is left is an item of that file.
- A name imported through a module's re-export (`crate::search::Limits`) names the file that
  re-exports it (`search/mod.rs`): simple, and a module's face is part of the module.
- A module's root file (`lib.rs`, `mod.rs`, or `a.rs` beside `a/`) declaring `mod child;` or
  re-exporting a descendant's items (`pub use child::X;`) does not import it: that is the
  module's face. Any other use of a descendant does.
- `use super::*` names the parent's file.
- Known blind spot, shared with the layering check: a `#[cfg(test)] mod tests;` declared
  above a file's code hides the rest of that file.

Usage: scripts/import-cycles.py [workspace root]; exits 1 if there is a cycle.
"""

import os
import re
import sys

CRATES = ["crates/minishogi-rules/src", "crates/minishogi-engine/src", "src"]
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_comments_and_strings(text):
    """The code of `text` with comments removed and string and char literals emptied."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif (m := re.match(r'b?r(#*)"', text[i:])) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            out.append('""')
            i = n if j < 0 else j + len(end)
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            out.append('""')
            i += 1
        elif c == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", text[i:])):
            out.append("' '")
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def code_of(path):
    """The non-test code of a source file."""
    if os.path.basename(path) == "tests.rs":
        return ""
    with open(path, encoding="utf-8") as f:
        code = strip_comments_and_strings(f.read())
    m = re.search(r"#\[cfg\(test\)\]", code)
    return code[: m.start()] if m else code


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` → [["a","b"], ["a","c","d"], ["a","c","e"]] (aliases dropped)."""
    tree = re.sub(r"\s+", " ", tree).strip()

    def split_top(s):
        parts, depth, start = [], 0, 0
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        return [p.strip() for p in parts if p.strip()]

    def expand(s):
        s = s.strip()
        s = re.sub(r"\s+as\s+" + IDENT + r"$", "", s)
        brace = s.find("{")
        if brace < 0:
            return [[seg.strip() for seg in s.split("::") if seg.strip()]]
        prefix = [seg.strip() for seg in s[:brace].split("::") if seg.strip()]
        inner = s[brace + 1 : s.rfind("}")]
        return [prefix + rest for part in split_top(inner) for rest in expand(part)]

    return expand(tree)


class Crate:
    def __init__(self, src):
        self.src = src
        self.modules = {}  # module path (tuple) → file, relative to src
        for dirpath, _, files in os.walk(src):
            for name in files:
                if not name.endswith(".rs"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), src)
                if rel == "main.rs":
                    continue  # the binary names the library as `engine::`, not `crate::`
                parts = rel[:-3].split(os.sep)
                if parts[-1] in ("mod", "lib"):
                    parts = parts[:-1]
                self.modules[tuple(parts)] = rel

    def resolve(self, segments):
        """The file defining the longest module prefix of an absolute path."""
        for k in range(len(segments), -1, -1):
            if tuple(segments[:k]) in self.modules:
                return self.modules[tuple(segments[:k])]
        return None

    def module_of(self, rel):
        return next(m for m, f in self.modules.items() if f == rel)

    def is_root_of(self, rel, target):
        """Whether `target` is a descendant module of the module that `rel` is."""
        mine, theirs = self.module_of(rel), self.module_of(target)
        return len(theirs) > len(mine) and theirs[: len(mine)] == mine

    def absolute(self, module, path):
        """An absolute module path for `path` named in `module`, or None if outside the crate."""
        if not path:
            return None
        if path[0] == "crate":
            return list(path[1:])
        if path[0] in ("super", "self"):
            base = list(module)
            while path and path[0] in ("super", "self"):
                if path[0] == "super":
                    base = base[:-1]
                path = path[1:]
            return base + list(path)
        if tuple(module) + (path[0],) in self.modules:
            return list(module) + list(path)
        return None  # another crate (std, rand, minishogi_rules, …)

    def edges(self):
        graph = {}
        for module, rel in self.modules.items():
            code = code_of(os.path.join(self.src, rel))
            named = set()

            def add(path, public):
                absolute = self.absolute(module, path)
                if absolute is None:
                    return
                target = self.resolve(absolute)
                if target is None or target == rel:
                    return
                if public and self.is_root_of(rel, target):
                    return  # a re-export: the module's face
                named.add(target)

            for m in re.finditer(r"(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+([^;]*);", code):
                for path in expand_use_tree(m.group(2)):
                    add(path, m.group(1) is not None)
            rest = re.sub(r"\buse\s+[^;]*;", ";", code)
            for m in re.finditer(r"(?<![A-Za-z0-9_:])(" + IDENT + r")((?:\s*::\s*" + IDENT + r")+)", rest):
                head = m.group(1)
                path = [head] + [s.strip() for s in m.group(2).split("::") if s.strip()]
                if head in ("crate", "super", "self") or tuple(module) + (head,) in self.modules:
                    add(path, False)
            graph[rel] = sorted(named)
        return graph


def cycles(graph):
    """Every elementary cycle, each from its smallest file, in order."""
    found = []
    nodes = sorted(graph)
    for start in nodes:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, []):
                if nxt == start:
                    found.append(path + [start])
                elif nxt > start and nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return sorted(found)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    total = 0
    for src in CRATES:
        for cycle in cycles(Crate(os.path.join(root, src)).edges()):
            print(f"{src}: " + " -> ".join(cycle))
            total += 1
    if total == 0:
        print("no import cycles")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
