#!/bin/sh
# Calibrates the strength levels (Skill_Level, docs/levels.md): plays each calibrated level
# against the random mover, against the full engine at a fixed node budget, and against the
# next calibrated level, then fits one Elo scale to all the results (scripts/levels-elo.py).
#
#   scripts/calibrate-levels.sh [OUT]        # default OUT: out/levels
#
# Environment: ENGINE (default target/release/engine), LEVELS (the calibrated levels, default
# "0 3 6 9 12 15 17 18 19"), GAMES (a match, default 300), RANDOM_GAMES (against the random
# mover, default 200), NODES (the full engine's budget, default 20000). Fixed nodes, one game at a
# time and fixed seeds make the matches reproducible (and independent of the machine's load:
# the 10 s a move is never used up). A match already in OUT (its summary.json) is not replayed.
set -eu

ENGINE=${ENGINE:-target/release/engine}
# The hidden Skill_Seed draws a warning from the match runner for each engine started.
export RUST_LOG=${RUST_LOG:-error}
LEVELS=${LEVELS:-"0 3 6 9 12 15 17 18 19"}
GAMES=${GAMES:-300}
RANDOM_GAMES=${RANDOM_GAMES:-200}
NODES=${NODES:-20000}
OUT=${1:-out/levels}
OPENINGS=tests/data/openings-500.txt
mkdir -p "$OUT"

# The match flags of one side: a level (its Skill_Seed is the level + 1), `full` (the engine at
# full strength) or `random` (the random mover).
side() {
    case $1 in
    random) echo "--engine|self random --seed 1|--engine-name|random" ;;
    full) echo "--engine|self usi|--engine-limit|nodes=$NODES|--engine-name|full" ;;
    *) echo "--engine|self usi|--engine-option|Skill_Level=$1|--engine-option|Skill_Seed=$(($1 + 1))|--engine-limit|nodes=$NODES|--engine-name|L$1" ;;
    esac
}

# play A B GAMES: A against B, records in OUT/A-B.
play() {
    dir="$OUT/$1-$2"
    if [ -f "$dir/summary.json" ]; then
        return
    fi
    rm -rf "$dir"
    echo "== $1 against $2, $3 games" >&2
    old_ifs=$IFS
    IFS='|'
    # shellcheck disable=SC2046 # split on | on purpose: one word per flag or value
    set -- $(side "$1") $(side "$2") --games "$3"
    IFS=$old_ifs
    nice -n 10 "$ENGINE" match "$@" --openings "$OPENINGS" --movetime 10 --concurrency 1 \
        --quiet --out "$dir" | grep -E 'Games:|Elo difference' >&2
}

previous=
for level in $LEVELS; do
    play "$level" random "$RANDOM_GAMES"
    play "$level" full "$GAMES"
    if [ -n "$previous" ]; then
        play "$level" "$previous" "$GAMES"
    fi
    previous=$level
done
play full random "$RANDOM_GAMES"
python3 "$(dirname "$0")/levels-elo.py" "$OUT"
