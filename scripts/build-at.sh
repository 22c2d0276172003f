#!/usr/bin/env bash
# Builds the engine as of COMMIT into DIR (a git worktree of that commit, detached), with
# `cargo build --release`, and prints the binary's path: the opponent for `engine scale`, e.g.
#
#   scripts/build-at.sh a3ab57a ../engine-a3ab57a
#   engine scale --engine "self usi" --engine "../engine-a3ab57a/target/release/engine usi" ...
#
# DIR is reused if it already holds a worktree of the same commit (the build is incremental).
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 COMMIT DIR" >&2
    exit 2
fi
commit=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "$0: no commit '$1'" >&2; exit 2; }
dir=$2
if [ -e "$dir" ]; then
    have=$(git -C "$dir" rev-parse HEAD 2>/dev/null || true)
    if [ "$have" != "$commit" ]; then
        echo "$0: $dir exists and is not a worktree at $commit; remove it or pick another DIR" >&2
        exit 1
    fi
else
    git worktree add --detach "$dir" "$commit" >&2
fi
(cd "$dir" && cargo build --release >&2)
echo "$(cd "$dir" && pwd)/target/release/engine"
