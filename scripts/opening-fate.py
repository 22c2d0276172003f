#!/usr/bin/env python3
"""How much the opening alone decides a match: rates each opening by a long search of a USI
engine, then scores every engine of played matches on the side the rating favours and on the
side it does not.

`tests/data/openings-500.txt` keeps openings that a depth-10 search rates within 150 cp of
even; a search of a few seconds rates most of them far from even. Where it does, a match
between engines of near strength is mostly decided by who plays the favoured side, and an
engine's score is bounded by how often it wins from the other one.

    scripts/opening-fate.py --movetime 4000 --last 100 --ratings out/openings-4s.tsv --jobs 2 \\
        out/fsf-diag/games.txt out/fsf-diag-21-100/games.txt
    scripts/opening-fate.py --engine /usr/games/fairy-stockfish --option UCI_Variant=minishogi \\
        --movetime 4000 --last 100 --ratings out/openings-fsf-4s.tsv --jobs 2

Ratings (index, depth-10 rating from the file's comment, the long search's score for the side
to move, its depth) are written to `--ratings` and read back from it when it already holds the
openings asked for, so several matches can be scored against one rating run. A game is matched
to its opening by the opening's moves at the start of the game's move list.
"""

import argparse
import concurrent.futures
import os
import subprocess
import tempfile

# The engine's centipawns are 600·ln(p/(1−p)) (docs/winrate.md): beyond 300, one side is
# already clearly ahead (about 62% to win). Another engine's scale needs its own threshold.
FAVOURED_CP = 300


def read_openings(path):
    openings = []
    for line in open(path, encoding="utf-8"):
        text, _, comment = line.partition("#")
        text = text.strip()
        if not text:
            continue
        words = text.split()
        moves = tuple(words[words.index("moves") + 1 :]) if "moves" in words else ()
        rating = comment.strip().split()[0] if comment.strip() else "?"
        openings.append((text, moves, rating))
    return openings


def rate(engine, options, movetime, hash_mb, items):
    """Rates (index, position) items in one engine process; returns (index, kind, score, depth)."""
    proc = subprocess.Popen(
        engine.split(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )

    def send(command):
        proc.stdin.write(command + "\n")
        proc.stdin.flush()

    def wait(token):
        lines = []
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{engine} ended before '{token}'")
            lines.append(line)
            if line.startswith(token):
                return lines

    send("usi")
    wait("usiok")
    send(f"setoption name USI_Hash value {hash_mb}")
    send("setoption name USI_OwnBook value false")
    for option in options:
        name, _, value = option.partition("=")
        send(f"setoption name {name} value {value}")
    send("isready")
    wait("readyok")
    out = []
    for index, position in items:
        send("usinewgame")
        send("position " + position)
        send(f"go movetime {movetime}")
        # The last exact score (a bound is an aspiration window's, not the search's answer).
        infos = [
            line.split()
            for line in wait("bestmove")
            if " score " in line and "bound" not in line
        ]
        info = infos[-1]
        at = info.index("score")
        out.append((index, info[at + 1], int(info[at + 2]), int(info[info.index("depth") + 1])))
    send("quit")
    proc.wait()
    return out


def read_ratings(path):
    """A ratings TSV as {opening index: (kind, score, depth)}."""
    ratings = {}
    for line in open(path, encoding="utf-8"):
        if not line.startswith("#"):
            index, _, kind, score, depth = line.split()
            ratings[int(index)] = (kind, int(score), int(depth))
    return ratings


def load_or_rate(args, openings):
    ratings = read_ratings(args.ratings) if args.ratings and os.path.exists(args.ratings) else {}
    wanted = [i for i in range(args.first, args.last + 1) if i not in ratings]
    if wanted:
        chunks = [wanted[k :: args.jobs] for k in range(args.jobs)]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            runs = [
                pool.submit(
                    rate,
                    args.engine,
                    args.option,
                    args.movetime,
                    args.hash,
                    [(i, openings[i - 1][0]) for i in chunk],
                )
                for chunk in chunks
                if chunk
            ]
            for run in runs:
                for index, kind, score, depth in run.result():
                    ratings[index] = (kind, score, depth)
        if args.ratings:
            # Written whole, then renamed: a stopped run leaves the old file or the new one.
            folder = os.path.dirname(os.path.abspath(args.ratings))
            with tempfile.NamedTemporaryFile("w", dir=folder, delete=False) as tmp:
                tmp.write(
                    "# opening\tdepth-10 rating\tscore kind\tscore for the side to move\tdepth"
                    f"\t({args.engine}, {args.movetime} ms)\n"
                )
                for index in sorted(ratings):
                    kind, score, depth = ratings[index]
                    tmp.write(f"{index}\t{openings[index - 1][2]}\t{kind}\t{score}\t{depth}\n")
            os.replace(tmp.name, args.ratings)
    return ratings


def sente_score(kind, score):
    """A rating as centipawns for sente (the side to move in every opening of the file)."""
    if kind == "mate":
        return 100000 if score > 0 else -100000
    return score


def parse_game(line):
    """(sente, gote, sente won?, moves) of a games.txt line; None for a draw or an unknown."""
    head, _, rest = line.partition(";")
    words = head.split()
    sente, gote, result = words[1], words[3].rstrip(":"), words[4]
    if result not in ("1-0", "0-1"):
        return None
    moves = rest.split(" moves ", 1)[1].split() if " moves " in rest else []
    return sente, gote, result == "1-0", moves


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("matches", nargs="*", help="games.txt files of `engine match --out`")
    parser.add_argument("--engine", default="target/release/engine usi", help="USI command line")
    parser.add_argument(
        "--option", action="append", default=[], help="NAME=VALUE, a USI option of the engine"
    )
    parser.add_argument("--openings", default="tests/data/openings-500.txt")
    parser.add_argument("--first", type=int, default=1, help="first opening rated (1-based)")
    parser.add_argument("--last", type=int, default=100, help="last opening rated")
    parser.add_argument("--movetime", type=int, default=4000, help="milliseconds an opening")
    parser.add_argument("--hash", type=int, default=256, help="USI_Hash of the rating engine")
    parser.add_argument("--jobs", type=int, default=1, help="engine processes rating at once")
    parser.add_argument("--ratings", help="TSV of ratings, read if present and written back")
    parser.add_argument(
        "--favoured-cp", type=int, default=FAVOURED_CP, help="a side this far ahead is favoured"
    )
    parser.add_argument(
        "--compare", help="another ratings TSV: how often its side agrees with these ratings"
    )
    args = parser.parse_args()
    favoured = args.favoured_cp

    openings = read_openings(args.openings)
    ratings = load_or_rate(args, openings)
    rated = list(range(args.first, args.last + 1))
    scores = [sente_score(*ratings[i][:2]) for i in rated]
    depths = sorted(ratings[i][2] for i in rated)
    far = sum(abs(s) >= favoured for s in scores)
    print(
        f"Openings {args.first}-{args.last}: {args.movetime} ms each, median depth "
        f"{depths[len(depths) // 2]}; sente's score median {sorted(scores)[len(scores) // 2]} cp; "
        f"|score| >= {favoured} cp: {far} of {len(scores)} (sente favoured "
        f"{sum(s >= favoured for s in scores)}, gote {sum(s <= -favoured for s in scores)})"
    )

    if args.compare:
        other = read_ratings(args.compare)
        both = [i for i in rated if i in other]
        same = sum(
            (sente_score(*ratings[i][:2]) > 0) == (sente_score(*other[i][:2]) > 0) for i in both
        )
        print(f"Sides agreeing with {args.compare}: {same} of {len(both)}")

    by_moves = {openings[i - 1][1]: i for i in rated}
    lengths = sorted({len(m) for m in by_moves}, reverse=True)
    # engine -> [favoured wins, favoured games, other wins, other games, even wins, even games]
    table = {}
    unmatched = 0
    for path in args.matches:
        for line in open(path, encoding="utf-8"):
            game = parse_game(line)
            if game is None:
                continue
            sente, gote, sente_won, moves = game
            prefixes = (tuple(moves[:n]) for n in lengths)
            index = next((by_moves[p] for p in prefixes if p in by_moves), None)
            if index is None:
                unmatched += 1
                continue
            score = sente_score(*ratings[index][:2])
            for name, is_sente in ((sente, True), (gote, False)):
                won = sente_won == is_sente
                mine = score if is_sente else -score
                slot = 0 if mine >= favoured else 2 if mine <= -favoured else 4
                row = table.setdefault(name, [0] * 6)
                row[slot] += won
                row[slot + 1] += 1

    def part(wins, games):
        return f"{wins}/{games}" + (f" ({100 * wins / games:.1f}%)" if games else "")

    for name, row in table.items():
        print(
            f"{name}: favoured side {part(row[0], row[1])}, other side {part(row[2], row[3])}, "
            f"within {favoured} cp {part(row[4], row[5])}"
        )
    if unmatched:
        print(f"{unmatched} games matched no rated opening")


if __name__ == "__main__":
    main()
