#!/bin/sh
# Builds the engine as WebAssembly (crates/minishogi-web → minishogi_web.wasm) and prints the
# file's path; exit status 3 when there is no toolchain for the target. With rustup's
# wasm32-unknown-unknown target installed it uses that; otherwise Debian's rustc-web,
# cargo-web, rust-web-src and lld (apt-get install rustc-web cargo-web rust-web-src lld), which
# build the standard library for the target (-Zbuild-std, allowed by RUSTC_BOOTSTRAP=1).
# Panics abort (the target has no unwinding); the stack is 8 MiB (the search recurses on the
# worker's only thread); 128-bit SIMD, bulk memory and the like are on (every current browser
# and Node has them; the search runs 2.5x faster with them: docs/web.md, docs/perf.md).
set -eu
cd "$(dirname "$0")/.."
target=wasm32-unknown-unknown
export CARGO_PROFILE_RELEASE_PANIC=abort
export RUSTFLAGS="${RUSTFLAGS:-} -C link-arg=-zstack-size=8388608 -C target-feature=+simd128,+bulk-memory,+nontrapping-fptoint,+sign-ext"
# A target directory of its own (WASM_TARGET_DIR; CARGO_TARGET_DIR is left to native builds): a
# cargo test that builds the module runs beside the cargo that runs it, and the artefacts of
# two compilers (rustup's, Debian's) are kept apart.
out_dir=${WASM_TARGET_DIR:-target/wasm}
if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    CARGO_TARGET_DIR="$out_dir" cargo build --release --locked --target "$target" -p minishogi-web >&2
elif [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ]; then
    # Debian's toolchain: its own cargo and rustc. Its rustc (1.85) is older than the project's:
    # what has been stabilised since is turned on as the unstable feature it was then.
    out_dir=${WASM_TARGET_DIR:-target/wasm-debian}
    features='"-Zcrate-attr=feature(let_chains)", "-Zcrate-attr=feature(unsigned_is_multiple_of)"'
    set --
    for crate in minishogi-rules minishogi-records minishogi-engine minishogi-board minishogi-web; do
        set -- "$@" --config "profile.release.package.$crate.rustflags = [$features]"
    done
    # encoding_rs (KIF's Shift_JIS) asks for a newer rustc than 1.85 for the same reasons.
    set -- "$@" --config "profile.release.package.encoding_rs.rustflags = [$features, \"-Zcrate-attr=feature(slice_as_chunks)\"]"
    # Debian's rustc links wasm with lld's wasm-ld (package lld), not a rust-lld of its own.
    PATH=/usr/bin:$PATH RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$out_dir" \
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld \
        /usr/bin/cargo build --release --locked --target "$target" -p minishogi-web \
        --ignore-rust-version -Zprofile-rustflags "$@" \
        -Zbuild-std=std,panic_abort >&2
else
    echo "build-wasm: no wasm32 toolchain: rustup target add $target, or apt-get install rustc-web cargo-web rust-web-src lld" >&2
    exit 3
fi
wasm="$out_dir/$target/release/minishogi_web.wasm"
test -f "$wasm"
echo "$wasm"
