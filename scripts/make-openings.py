#!/usr/bin/env python3
"""Builds an openings file of many balanced positions for A/B matches.

With fixed nodes, one thread and a fresh hash every game, two engines play the same game every
time they meet in the same opening: the 27 built-in openings give at most 54 different games,
however many are played. This draws `--count` distinct positions `--plies` random legal moves
from the start, keeps those the engine rates within `--max-cp` of even after `go depth D`, and
writes them as `startpos moves …` lines (the format of `engine match --openings`).

    scripts/make-openings.py --engine target/release/engine --count 500 --out tests/data/openings-500.txt
"""

import argparse
import random
import subprocess
import sys


class Engine:
    def __init__(self, path: str):
        self.proc = subprocess.Popen(
            [path, "usi"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("usi")
        self.wait("usiok")
        self.send("isready")
        self.wait("readyok")

    def send(self, line: str) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(line + "\n")

    def wait(self, prefix: str) -> list[str]:
        assert self.proc.stdout
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit(f"engine ended while waiting for {prefix!r}")
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def legal_moves(self, moves: list[str]) -> list[str]:
        self.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
        self.send("d")
        for line in self.wait("legal moves"):
            if line.startswith("legal moves"):
                return line.split(":", 1)[1].split()
        return []

    def score(self, moves: list[str], depth: int) -> int | None:
        """The search's score for the side to move, in cp; None for a mate score."""
        self.send("usinewgame")
        self.send("position startpos moves " + " ".join(moves))
        self.send(f"go depth {depth}")
        score = None
        for line in self.wait("bestmove"):
            words = line.split()
            if words[:1] == ["info"] and "score" in words:
                kind, value = words[words.index("score") + 1 : words.index("score") + 3]
                score = int(value) if kind == "cp" else None
        return score

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="target/release/engine")
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--plies", type=int, default=4, help="random plies from the start")
    parser.add_argument("--depth", type=int, default=10, help="search depth of the balance check")
    parser.add_argument("--max-cp", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    engine = Engine(args.engine)
    seen: set[str] = set()
    kept: list[str] = []
    tried = 0
    while len(kept) < args.count:
        tried += 1
        if tried > 200 * args.count:
            sys.exit(f"only {len(kept)} balanced positions in {tried} tries")
        moves: list[str] = []
        for _ in range(args.plies):
            legal = engine.legal_moves(moves)
            if not legal:
                break
            moves.append(rng.choice(sorted(legal)))
        line = " ".join(moves)
        if len(moves) < args.plies or line in seen:
            continue
        seen.add(line)
        score = engine.score(moves, args.depth)
        if score is not None and abs(score) <= args.max_cp:
            kept.append(f"startpos moves {line}  # {score:+d}")
    engine.close()
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(
            f"# {len(kept)} openings: {args.plies} random plies from the start (seed {args.seed}),"
            f" kept when `go depth {args.depth}` rates them within {args.max_cp} cp of even\n"
            f"# (of {tried} drawn); made by scripts/make-openings.py. The number is that rating"
            " for the side to move.\n"
        )
        f.write("\n".join(kept) + "\n")
    import os

    os.replace(tmp, args.out)
    print(f"{len(kept)} openings of {tried} drawn → {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
