#!/usr/bin/env python3
"""Reply times of a USI engine over a whole game, as a GUI sees them: from writing `go` to
reading `bestmove`, with another engine thinking meanwhile (`go infinite`) as in a real game.

usage: scripts/usi-timing.py [--engine PATH] [--movetime MS] [--plies N] [--no-load]
                             [--option NAME=VALUE ...]
Prints the mean, the percentiles and the longest reply, and the mean over the moves that were
not cut short by a decided position (the search stops early at its maximum depth there).
"""
import argparse, statistics, subprocess, time

ap = argparse.ArgumentParser()
ap.add_argument("--engine", default="target/release/minishogi-engine")
ap.add_argument("--movetime", type=int, default=100)
ap.add_argument("--plies", type=int, default=200)
ap.add_argument("--no-load", action="store_true")
ap.add_argument("--option", action="append", default=[])
args = ap.parse_args()


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("usi"); self.until("usiok")

    def send(self, line):
        self.p.stdin.write(line + "\n"); self.p.stdin.flush()

    def until(self, prefix):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("engine closed its output")
            if line.startswith(prefix):
                return line.split()


load = None
if not args.no_load:
    load = Engine(args.engine)
    load.send("go infinite")
engine = Engine(args.engine)
for option in args.option:
    name, value = option.split("=", 1)
    engine.send(f"setoption name {name} value {value}")
engine.send("isready"); engine.until("readyok")
moves, times, full = [], [], []
for ply in range(args.plies):
    engine.send("position startpos moves " + " ".join(moves))
    sent = time.perf_counter()
    engine.send(f"go movetime {args.movetime}")
    depth = 0
    while True:
        words = engine.until("")
        if words and words[0] == "info" and "depth" in words and "currmove" not in words:
            depth = int(words[words.index("depth") + 1])
        if words and words[0] == "bestmove":
            break
    took = (time.perf_counter() - sent) * 1000
    if words[1] == "resign":
        break
    times.append(took)
    if depth < 100:
        full.append(took)
    moves.append(words[1])
engine.send("quit")
if load:
    load.send("stop"); load.send("quit")
ts = sorted(times)
pick = lambda q: ts[min(len(ts) - 1, int(q * len(ts)))]
print(f"movetime {args.movetime} ms, {len(ts)} replies: mean {statistics.mean(ts):.1f} "
      f"({100 * statistics.mean(ts) / args.movetime:.1f}%), median {pick(0.5):.1f}, "
      f"p90 {pick(0.9):.1f}, p99 {pick(0.99):.1f}, longest {ts[-1]:.1f} ms; "
      f"not cut short by a decided position: {len(full)} replies, mean "
      f"{statistics.mean(full) if full else 0:.1f} ms")
