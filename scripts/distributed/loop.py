#!/usr/bin/env python3
"""The generation loop: self-play on the Ray cluster, training, gating, again.

    python scripts/distributed/loop.py --engine target/release/engine --out runs/loop1 \\
        --generations 5 --shards 64 --games 500 --nodes 5000 --address HEAD_IP:6379 \\
        --train-flags "--epochs 4" --match-games 400 --match-flags "--movetime 0.1 --concurrency 16"

Generation g (in OUT/gen-g/):
1. data/: `datagen.py` on the cluster, seed `--seed + g`, played by the best network so far
   (the embedded one at first);
2. net.bin: `engine train --data data --init BEST` on this machine;
3. match/: `engine match` of the new network against the best on this machine; the new network
   becomes the best when it scores more than `--gate-score` (default 0.5), or, given
   `--sprt …` in --match-flags, when the SPRT accepts H1.

OUT/generations.json (written atomically after each generation) lists every generation: its
positions, training loss, match score and whether it was accepted, and names the best network.
The same command run again continues: finished generations are skipped, and a generation
stopped halfway continues its steps (the driver skips gathered shards, training resumes from
its checkpoint; the match is played again).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plan as planlib  # noqa: E402
from plan import PlanError, log  # noqa: E402

HERE = Path(__file__).resolve().parent


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a = p.add_argument
    a("--engine", type=Path, required=True)
    a("--out", type=Path, required=True, help="folder of the run (one gen-N folder a generation)")
    a("--generations", type=int, required=True, help="generations to reach")
    a("--shards", type=int, required=True)
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--games", type=int)
    size.add_argument("--positions", type=int)
    a("--nodes", type=int, default=5000)
    a("--seed", type=int, default=1, help="generation g plays with seed SEED + g")
    a("--datagen-flags", default="", help="flags for every engine datagen (one string)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--address", help="Ray cluster (as datagen.py)")
    where.add_argument("--local", type=int, metavar="CPUS", help="a Ray of its own (as datagen.py)")
    a("--threads-per-task", type=int, default=1)
    a("--train-flags", default="", help="flags for engine train (one string)")
    a("--match-games", type=int, default=200)
    a("--match-limit", help="engine-limit of both engines in the gate, e.g. nodes=5000")
    a("--match-flags", default="--movetime 0.1", help="flags for engine match (one string)")
    a("--gate-score", type=float, default=0.5, help="accept a network scoring above this")
    args = p.parse_args(argv)
    if args.generations < 1:
        p.error("--generations must be at least 1")
    return args


def run(cmd: list[str], what: str) -> None:
    log(f"{what}: {shlex.join(cmd)}")
    # Their reports go to standard error too: standard output stays empty.
    if subprocess.run(cmd, stdout=sys.stderr).returncode != 0:
        raise PlanError(f"{what} failed (command above)")


def generation(args: argparse.Namespace, g: int, best: Path | None) -> dict[str, Any]:
    gen = args.out / f"gen-{g}"
    gen.mkdir(parents=True, exist_ok=True)
    engine = str(args.engine)
    start = time.monotonic()

    data = gen / "data"
    cmd = [sys.executable, str(HERE / "datagen.py"), "--engine", engine, "--out", str(data),
           "--shards", str(args.shards), "--seed", str(args.seed + g), "--nodes", str(args.nodes),
           "--threads-per-task", str(args.threads_per_task)]
    cmd += ["--games", str(args.games)] if args.games else ["--positions", str(args.positions)]
    cmd += ["--network", str(best)] if best else []
    cmd += ["--address", args.address] if args.address else []
    cmd += ["--local", str(args.local)] if args.local else []
    extra = shlex.split(args.datagen_flags)
    run(cmd + (["--", *extra] if extra else []), f"generation {g}: self-play")
    manifest = json.loads((data / planlib.MANIFEST).read_text())
    datagen_s = time.monotonic() - start

    net = gen / "net.bin"
    cmd = [engine, "train", "--data", str(data), "--out", str(net)]
    cmd += ["--init", str(best)] if best else []
    run(cmd + shlex.split(args.train_flags), f"generation {g}: training")
    train_s = time.monotonic() - start - datagen_s

    match = gen / "match"
    limit = ["--engine-limit", args.match_limit] if args.match_limit else []
    cmd = [engine, "match", "--engine", f"{shlex.quote(engine)} usi", "--engine-option",
           f"EvalFile={net}", "--engine-name", f"gen-{g}", *limit,
           "--engine", f"{shlex.quote(engine)} usi", "--engine-name", "best", *limit]
    cmd += ["--engine-option", f"EvalFile={best}"] if best else []
    cmd += ["--games", str(args.match_games), "--quiet", "--out", str(match)]
    run(cmd + shlex.split(args.match_flags), f"generation {g}: gating")
    result = json.loads((match / "summary.json").read_text())
    score = result["points"] / max(result["games"], 1)
    # With `--sprt` in --match-flags its decision gates; otherwise the score does.
    sprt = (result.get("sprt") or {}).get("decision")
    accepted = sprt == "H1" if sprt else score > args.gate_score
    return {
        "generation": g,
        "positions": manifest["positions"],
        "games": manifest["games"],
        "played_by": str(best) if best else "embedded",
        "network": str(net),
        "val_loss": last_validation_loss(net.with_suffix(".csv")),
        "match": {"games": result["games"], "wins": result["wins"], "losses": result["losses"],
                  "draws": result["draws"], "score": round(score, 4)},
        "sprt": sprt,
        "accepted": accepted,
        "seconds": {"self_play": round(datagen_s, 1), "training": round(train_s, 1),
                    "gating": round(time.monotonic() - start - datagen_s - train_s, 1)},
    }


def last_validation_loss(csv: Path) -> float | None:
    """The last epoch's validation loss from `engine train`'s CSV (a `val…` column)."""
    try:
        lines = csv.read_text().splitlines()
        header, last = lines[0].split(","), lines[-1].split(",")
        column = next(i for i, name in enumerate(header) if name.startswith("val"))
        return float(last[column])
    except (OSError, IndexError, StopIteration, ValueError):
        return None


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    record = args.out / "generations.json"
    state = json.loads(record.read_text()) if record.exists() else {"best": None, "generations": []}
    for g in range(len(state["generations"]) + 1, args.generations + 1):
        best = Path(state["best"]) if state["best"] else None
        try:
            summary = generation(args, g, best)
        except PlanError as e:
            log(f"error: {e}; run the same command again to continue generation {g}")
            return 1
        state["generations"].append(summary)
        if summary["accepted"]:
            state["best"] = summary["network"]
        planlib.write_atomic(record, (json.dumps(state, indent=1) + "\n").encode())
        m = summary["match"]
        log(f"generation {g}: {summary['positions']} positions, validation loss "
            f"{summary['val_loss']}, gate {m['wins']}-{m['losses']}-{m['draws']} "
            f"(score {m['score']:.3f}): {'accepted' if summary['accepted'] else 'rejected'}; "
            f"{summary['seconds']}")
    log(f"{args.generations} generations in {args.out}; best network: {state['best'] or 'embedded'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
