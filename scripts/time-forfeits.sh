#!/usr/bin/env bash
# Time-forfeit check under tiny clocks (USI issue): the engine against the random mover and
# against itself, with Threads 1 / USI_Hash 1 and Threads 2 / USI_Hash 1024, at a 1 s + 0.1 s
# clock, 100 ms byoyomi and 0.5 s sudden death. Lateness tolerated: 10 ms.
# Usage: scripts/time-forfeits.sh [OUT_DIR] [GAMES_PER_MATCH]   (one summary line a match: games, score and how the games ended; a time forfeit shows there)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/time-forfeits}
games=${2:-16}
engine=${ENGINE:-target/release/engine}
[ -x "$engine" ] || cargo build --release
small=(--engine "self usi" --engine-option Threads=1 --engine-option USI_Hash=1 --engine-name t1h1)
big=(--engine "self usi" --engine-option Threads=2 --engine-option USI_Hash=1024 --engine-name t2h1024)
random=(--engine "self random" --engine-name random)
declare -A controls=([tc1+0.1]="--tc 1+0.1" [byoyomi0.1]="--movetime 0.1" [sd0.5]="--tc 0.5")
for name in tc1+0.1 byoyomi0.1 sd0.5; do
    read -r -a limit <<<"${controls[$name]}"
    for pairing in small-random big-random small-big; do
        case $pairing in
            small-random) engines=("${small[@]}" "${random[@]}"); n=$games ;;
            big-random) engines=("${big[@]}" "${random[@]}"); n=$games ;;
            small-big) engines=("${small[@]}" "${big[@]}"); n=$((games * 2)) ;;
        esac
        dir="$out/$name-$pairing"
        "$engine" match "${engines[@]}" "${limit[@]}" --time-margin 0.01 --games "$n" \
            --quiet --out "$dir" >"$dir.txt" 2>&1 || true
        echo "$name $pairing: $(grep -m1 '^Games:' "$dir.txt" || tail -1 "$dir.txt") | $(grep -m1 '^Endings:' "$dir.txt" || true)"
    done
done
