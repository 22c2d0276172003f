#!/usr/bin/env bash
# Plays one real XBoard game of minishogi, the engine against itself (or SECOND), each through
# uci2wb speaking USI (`uci2wb -s`), under a virtual X server, and saves into OUT_DIR:
#
#   game.pgn       the game with its result (XBoard's saveGameFile)
#   result.txt     the result line, e.g. `0-1 {Xboard adjudication: Checkmate}`
#   xboard.png     a screenshot of the board, taken until the game ended
#   xboard.debug   XBoard's log of everything said to and by the engines
#
#   scripts/xboard-game.sh OUT_DIR [ENGINE] [TIME_CONTROL] [INCREMENT]
#   scripts/xboard-game.sh out/xboard target/release/minishogi-engine 0:10 0.1
#
# ENGINE defaults to target/release/minishogi-engine; the time control is XBoard's `-tc` (minutes:seconds
# a game, default 0:10) and `-inc` (seconds a move, default 0.1). SECOND (an environment
# variable) is another USI engine's command for gote, e.g. SECOND=/usr/games/fairy-stockfish.
#
# XBoard plays minishogi as shogi on a 5×5 board with 5 kinds in hand, which it calls
# 5x5+5_shogi (uci2wb sends `setoption name UCI_Variant value 5x5+5_shogi`). Its default shogi
# pieces list lance and knight before silver and gold, and only the first five kinds can be held
# in a 5-slot hand, so the piece table drops those two: P B R S G in hand. The engine's
# `info string variant minishogi … startpos …` reaches XBoard through uci2wb as `setup`, the start
# position. Needs the Debian packages xboard, uci2wb, xvfb and imagemagick.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 4 ]; then
    echo "usage: $0 OUT_DIR [ENGINE] [TIME_CONTROL] [INCREMENT]" >&2
    exit 2
fi
out=$1
engine=$(realpath "${2:-target/release/minishogi-engine}")
tc=${3:-0:10}
inc=${4:-0.1}
second=${SECOND:-$engine}
xboard=$(command -v xboard || echo /usr/games/xboard)
uci2wb=$(command -v uci2wb || echo /usr/games/uci2wb)
for tool in "$xboard" "$uci2wb" Xvfb import; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is not installed" >&2; exit 3; }
done
[ -x "$engine" ] || { echo "$0: no engine at $engine (cargo build --release)" >&2; exit 2; }
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out/game.pgn" "$out/result.txt" "$out/xboard.png" "$out/xboard.debug"

# A virtual X server on a free display; -displayfd tells which. The display must take a client
# before XBoard starts on it, so an unusable server is replaced, twice at most. -noreset: an X
# server resets when its last client leaves, and a client that connects during the reset is
# refused; without it, XBoard twice (in CI) met `cannot open display` right after the check's
# `import` had left.
display_file=$(mktemp)
xvfb=
xboard_pid=
cleanup() {
    [ -n "$xboard_pid" ] && kill "$xboard_pid" 2>/dev/null || true
    [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null || true
    rm -f "$display_file"
}
trap cleanup EXIT
start_xvfb() {
    : >"$display_file"
    Xvfb -displayfd 3 -screen 0 480x360x24 -nolisten tcp -noreset 3>"$display_file" 2>/dev/null &
    xvfb=$!
    for _ in $(seq 100); do
        [ -s "$display_file" ] && break
        sleep 0.1
    done
    if [ -s "$display_file" ]; then
        export DISPLAY=":$(cat "$display_file")"
        for _ in $(seq 50); do
            import -window root png:/dev/null 2>/dev/null && return 0
            sleep 0.1
        done
    fi
    kill "$xvfb" 2>/dev/null || true
    wait "$xvfb" 2>/dev/null || true
    xvfb=
    return 1
}
for _ in 1 2 3; do
    start_xvfb && break
done || { echo "$0: Xvfb did not start a usable display" >&2; exit 1; }

cd "$out"
"$xboard" \
    -variant shogi -boardWidth 5 -boardHeight 5 -holdingsSize 5 \
    -pieceToCharTable "P.BR.S...G.++++++Kp.br.s...g.++++++k" \
    -fcp "$uci2wb -s $engine" -fd "$out" \
    -scp "$uci2wb -s $second" -sd "$out" \
    -tc "$tc" -inc "$inc" -autoCallFlag true \
    -matchMode true -matchGames 1 -saveGameFile "$out/game.pgn" \
    -popupExitMessage false -saveSettingsOnExit false -settingsFile /dev/null \
    -debug -nameOfDebugFile "$out/xboard.debug" \
    >"$out/xboard.log" 2>&1 &
xboard_pid=$!

# Screenshots while the game goes on; the last one shows the board near the end.
while kill -0 "$xboard_pid" 2>/dev/null; do
    if import -window root "$out/xboard.tmp.png" 2>/dev/null; then
        mv "$out/xboard.tmp.png" "$out/xboard.png"
    fi
    sleep 1
done
wait "$xboard_pid" || true
xboard_pid=
rm -f "$out/xboard.tmp.png"

if [ ! -s "$out/game.pgn" ]; then
    # What XBoard said, less ALSA's complaints about the sound card a test machine lacks.
    echo "$0: XBoard saved no game; $out/xboard.log says:" >&2
    grep -v -E '^(ALSA lib|aplay:)' "$out/xboard.log" | tail -20 >&2 || true
    exit 1
fi
# The movetext ends with the result, after the termination comment.
result=$(grep -o '{[^}]*} *\(1-0\|0-1\|1/2-1/2\)' "$out/game.pgn" | tail -1 |
    sed 's/^\({.*}\) *\(.*\)$/\2 \1/')
if [ -z "$result" ]; then
    echo "$0: the game has no result:" >&2
    tail -5 "$out/game.pgn" >&2
    exit 1
fi
echo "$result" | tee "$out/result.txt"
