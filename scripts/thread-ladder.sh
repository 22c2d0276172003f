#!/usr/bin/env bash
# Lazy SMP ladder for a many-core machine: nodes a second by thread count, then N threads against
# 1 at a fixed time a move, both colours over tests/data/openings-500.txt, default options else.
# Matches in one phase run side by side; keep the sum of their N × concurrency within the cores,
# since only the side to move thinks. A phase stops at its cap; the games played by then count
# (the progress lines and games.txt hold them).
# Usage: scripts/thread-ladder.sh OUT_DIR 'PHASE;PHASE…' [MOVETIME] [FIRST_OPENING]
#   PHASE: comma-separated THREADS:GAMES:CONCURRENCY[:CAP_SECONDS], e.g. '8:88:2:245;16:20:1'
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?OUT_DIR}
phases=${2:?PHASES}
movetime=${3:-0.1}
first=${4:-1}
engine=${ENGINE:-target/release/engine}
mkdir -p "$out"
openings="$out/openings.txt"
grep -v '^#' tests/data/openings-500.txt | sed -n "${first},\$p" >"$openings"

echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
for t in 1 2 4 8 16; do
    [ "$t" -le "$(nproc)" ] || continue
    line=$( (printf 'setoption name Threads value %d\nisready\nposition startpos\ngo movetime 2500\n' "$t"
        sleep 3.2; echo quit) | "$engine" usi 2>/dev/null | grep '^info .*nps' | tail -1)
    echo "threads $t: $(awk '{for (i = 1; i < NF; i++) if ($i == "depth" || $i == "nodes" || $i == "nps") printf "%s %s ", $i, $(i + 1)}' <<<"$line")"
done

IFS=';' read -r -a phase_list <<<"$phases"
for phase in "${phase_list[@]}"; do
    IFS=',' read -r -a specs <<<"$phase"
    for spec in "${specs[@]}"; do
        IFS=':' read -r threads games concurrency cap <<<"$spec"
        dir="$out/t${threads}v1"
        timeout "${cap:-3600}" "$engine" match --engine "$engine usi" --engine-option "Threads=$threads" \
            --engine-name "T$threads" --engine "$engine usi" --engine-name T1 \
            --openings "$openings" --games "$games" --concurrency "$concurrency" \
            --movetime "$movetime" --out "$dir" >"$dir.txt" 2>"$dir.log" &
    done
    wait
    for spec in "${specs[@]}"; do
        threads=${spec%%:*}
        dir="$out/t${threads}v1"
        echo "T$threads v T1: $(grep -m1 '^Games:' "$dir.txt" || tail -1 "$dir.log")"
        grep -m1 '^Elo' "$dir.txt" || true
        grep -m1 '^Pairs' "$dir.txt" || true
    done
done
