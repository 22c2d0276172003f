#!/usr/bin/env bash
# Tests of scripts/distributed/ on a real local Ray cluster (3 nodes on 127.0.0.1): the driver's
# shards byte for byte against single-machine `engine datagen`, killed engines and workers,
# bad plans, the Slurm array script and its gather step. Run by `cargo test` (tests/distributed.rs).
#
# The virtual environment is kept in target/distributed/venv and made again only when the
# requirements change. Needs python3 (3.10+) with venv, and the release engine (built here if
# missing).
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=target/distributed/venv
stamp=$(cat scripts/distributed/requirements*.txt | sha256sum | cut -d' ' -f1)
if [[ ! -x $venv/bin/python || "$(cat $venv/.requirements 2>/dev/null)" != "$stamp" ]]; then
    echo "== creating $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        -r scripts/distributed/requirements-test.txt
    echo "$stamp" > "$venv/.requirements"
fi
if [[ -z ${DATAGEN_ENGINE:-} ]]; then
    # Run by hand: build the engine. (Under `cargo test`, tests/distributed.rs names the
    # binary it built in DATAGEN_ENGINE.)
    cargo build --release --quiet
fi

echo "== pytest scripts/distributed/tests"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider scripts/distributed/tests "$@"
