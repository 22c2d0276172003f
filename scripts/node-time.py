#!/usr/bin/env python3
"""Times `go nodes N` of USI engines over the positions of played games, the engines taking
turns on each position, and prints each one's milliseconds a move and nodes a second.

`engine bench` searches a fixed set of positions to depth 9; how fast a network is in the
positions of real games (kings on the move, pieces in hand, late middle games) can differ, so
this replays games from an `engine match --out` folder's `games.txt`: every third ply of the
first GAMES games.

    scripts/node-time.py --nodes 20000 --games 3 --matches out/t100-kb12/games.txt \\
        'gen10=target/release/engine usi' 'kb12=target/release/engine usi;EvalFile=kb12.bin'

An engine is `name=command`, optionally followed by `;Option=value` settings.
"""

import argparse
import re
import subprocess
import time


class Engine:
    def __init__(self, spec: str):
        self.name, rest = spec.split("=", 1)
        command, *options = rest.split(";")
        self.proc = subprocess.Popen(
            command.split(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("usi")
        self.wait("usiok")
        for option in options:
            name, value = option.split("=", 1)
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.wait("readyok")
        self.seconds = 0.0
        self.moves = 0
        self.nodes = 0
        self.last_nodes = 0

    def send(self, line: str) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, prefix: str) -> str:
        assert self.proc.stdout
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"{self.name}: the engine closed its output")
            if line.startswith("info") and " nodes " in line:
                self.last_nodes = int(re.search(r" nodes (\d+)", line).group(1))
            if line.startswith(prefix):
                return line

    def search(self, position: str, nodes: int) -> None:
        self.send(position)
        self.send("isready")
        self.wait("readyok")
        start = time.perf_counter()
        self.send(f"go nodes {nodes}")
        self.wait("bestmove")
        self.seconds += time.perf_counter() - start
        self.moves += 1
        self.nodes += self.last_nodes

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=10)


def positions(games_txt: str, games: int):
    """`position …` commands for every third ply of the first `games` games."""
    lines = [line for line in open(games_txt) if "; position " in line][:games]
    for line in lines:
        command = line.split("; ", 1)[1].strip()
        head, moves = command.split(" moves ", 1) if " moves " in command else (command, "")
        moves = moves.split()
        for ply in range(0, len(moves), 3):
            yield f"{head} moves {' '.join(moves[:ply])}" if ply else head


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--matches", required=True, help="an `engine match --out` games.txt")
    parser.add_argument("engines", nargs="+", help="name=command[;Option=value…]")
    args = parser.parse_args()
    engines = [Engine(spec) for spec in args.engines]
    for position in positions(args.matches, args.games):
        for engine in engines:
            engine.search(position, args.nodes)
    base = None
    for engine in engines:
        ms = 1000 * engine.seconds / engine.moves
        base = base or ms
        print(
            f"{engine.name}: {engine.moves} moves, {ms:.2f} ms a move ({base / ms:.3f}× the "
            f"first), {engine.nodes / engine.seconds:,.0f} nodes/s"
        )
        engine.close()


if __name__ == "__main__":
    main()
