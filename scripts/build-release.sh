#!/bin/sh
# Builds the playing engine, `minishogi-engine`, for this machine (Linux or macOS) as a release
# would ship it: none of the lab's crates, symbols stripped. Prints the binary's path. The
# release workflow (.github/workflows/release.yml) runs this script; scripts/build-windows.sh
# is its Windows counterpart.
#
#   scripts/build-release.sh                  # -> target/release/minishogi-engine
#
# Extra arguments go to cargo build (e.g. --features …).
set -eu
cd "$(dirname "$0")/.."
CARGO_PROFILE_RELEASE_STRIP=symbols cargo build --release --locked \
    -p minishogi-engine --bin minishogi-engine "$@" >&2
bin=target/release/minishogi-engine
test -f "$bin"
echo "$bin"
