#!/bin/sh
# Cross-compiles the playing engine (`minishogi-engine`, none of the lab) for 64-bit Windows (most shogi GUIs run there) on Debian or Ubuntu:
# the mingw-w64 toolchain links for Rust's x86_64-pc-windows-gnu target. Prints the path of the
# .exe.
#
#   apt-get install gcc-mingw-w64-x86-64      # once (as root)
#   scripts/build-windows.sh                   # -> target/x86_64-pc-windows-gnu/release/minishogi-engine.exe
#
# Extra arguments go to cargo build (e.g. --features …).
set -eu
cd "$(dirname "$0")/.."
target=x86_64-pc-windows-gnu
if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    echo "build-windows: no x86_64-w64-mingw32-gcc; install it: apt-get install gcc-mingw-w64-x86-64" >&2
    exit 1
fi
if command -v rustup >/dev/null 2>&1; then
    rustup target add "$target" >&2
fi
CARGO_PROFILE_RELEASE_STRIP=symbols cargo build --release --locked --target "$target" \
    -p minishogi-engine --bin minishogi-engine "$@" >&2
exe="target/$target/release/minishogi-engine.exe"
test -f "$exe"
echo "$exe"
