#!/usr/bin/env python3
"""Gathers the shards of a plan that ran outside Ray (a Slurm job array, or any scheduler
running `engine datagen --shard K --shards N` into a shared folder) into one output folder.

    python3 scripts/distributed/gather.py --engine target/release/engine --shards 64 \\
        --games 2000 --seed 1 --nodes 5000 --from /shared/gen1-work --out data/gen1 [-- FLAGS]

Give the plan exactly as the array ran it (flags after `--` as given to `engine datagen`). Every
shard in --from is verified (`engine datagen --verify`: header, each game's checksum) and
compared with the plan, then copied into --out atomically; MANIFEST.json is written last, once
all are there. A shard that is missing, unfinished (a killed or timed-out array task) or made by
another plan is listed with the array indices to submit again: a resubmitted task continues its
unfinished shard.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plan as planlib  # noqa: E402
from plan import PlanError, log  # noqa: E402


def main(argv: list[str]) -> int:
    ours, extra = planlib.split_extra(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    planlib.add_plan_args(parser)
    parser.add_argument("--from", dest="source", type=Path, required=True,
                        help="folder the array tasks wrote their shards into")
    args = parser.parse_args(ours)
    plan = planlib.plan_from_args(args, extra)
    try:
        planlib.check_plan(plan)
        if not args.source.is_dir():
            raise PlanError(f"--from {args.source}: no such folder")
        planlib.prepare_out(args.out)
        done = planlib.existing_shards(plan, args.out)
        planlib.remove_manifest(args.out)
    except PlanError as e:
        log(f"error: {e}")
        return 2
    redo: dict[int, str] = {}
    for k in range(plan.shards):
        if k in done:
            continue
        path = args.source / plan.shard_name(k)
        if not path.exists():
            redo[k] = "missing"
            continue
        try:
            done[k] = planlib.gather_shard(plan, k, args.out, path.read_bytes())
        except PlanError as e:
            redo[k] = str(e)
    if redo:
        for k, why in redo.items():
            log(f"shard {k}: {why}")
        indices = planlib.compact_ranges(sorted(redo))
        log(f"error: {len(redo)} of {plan.shards} shards are not finished; {len(done)} gathered "
            f"in {args.out}. Submit those again (they continue where they stopped): "
            f"sbatch --array={indices} … datagen.sbatch, then gather again")
        return 1
    manifest = planlib.write_manifest(plan, args.out, done)
    log(f"complete: {plan.shards} shards, {manifest['games']} games, "
        f"{manifest['positions']} positions in {args.out} ({planlib.MANIFEST} written)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
