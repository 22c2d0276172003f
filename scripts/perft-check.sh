#!/usr/bin/env bash
# Runs `minishogi-engine perft` (release build) on every position and depth of tests/data/perft.txt and
# compares the node counts with the reference. Usage:
#   scripts/perft-check.sh [MAX_NODES]    # skip cases above MAX_NODES (default 1000000000;
#                                         # the startpos depth-8 case has 2.2e9 nodes)
set -euo pipefail
cd "$(dirname "$0")/.."

max_nodes=${1:-1000000000}
cargo build --release --quiet -p minishogi-engine
engine=target/release/minishogi-engine

failures=0
checked=0
while IFS= read -r line; do
    [[ -z "${line// }" || "$line" == \#* ]] && continue
    IFS=';' read -ra fields <<< "$line"
    name=$(echo "${fields[0]}" | xargs)
    sfen=$(echo "${fields[1]}" | xargs)
    for field in "${fields[@]:2}"; do
        read -r depth expected <<< "$field"
        depth=${depth#D}
        if (( expected > max_nodes )); then
            printf '%-40s D%-2s %12s  skipped (over %s nodes)\n' "$name" "$depth" "$expected" "$max_nodes"
            continue
        fi
        output=$("$engine" perft --depth "$depth" --sfen "$sfen")
        nodes=$(awk '/^nodes:/ {print $2}' <<< "$output")
        nps=$(awk '/^nps:/ {printf "%.1f M/s", $2 / 1e6}' <<< "$output")
        checked=$((checked + 1))
        if [[ "$nodes" == "$expected" ]]; then
            printf '%-40s D%-2s %12s  ok   %s\n' "$name" "$depth" "$nodes" "$nps"
        else
            printf '%-40s D%-2s %12s  FAIL expected %s\n' "$name" "$depth" "$nodes" "$expected"
            failures=$((failures + 1))
        fi
    done
done < tests/data/perft.txt

echo "$checked cases checked, $failures failed"
(( failures == 0 ))
