#!/bin/sh
# Prints the file-level import circles of the workspace's crates ("a.rs -> b.rs -> a.rs"), or
# says there are none; exits non-zero if there is one. The checker is the test
# `no_source_file_imports_one_that_imports_it_back` in tests/layering.rs (its rules are written
# there); this runs it alone, to use while breaking a circle.
set -eu
cd "$(dirname "$0")/.."
if cargo test --quiet --test layering no_source_file_imports_one_that_imports_it_back \
    >/tmp/import-cycles.$$ 2>&1; then
    rm -f /tmp/import-cycles.$$
    echo "no import cycles"
else
    sed -n '/^import circles:/,/^stack backtrace:\|^note:/p' /tmp/import-cycles.$$ \
        | grep -v '^stack backtrace:\|^note:'
    rm -f /tmp/import-cycles.$$
    exit 1
fi
