"""The shard plan of `engine datagen`, and the checks shared by the Ray driver (datagen.py) and
the Slurm gather step (gather.py). No Ray here: gathering a Slurm array's shards needs only
Python and the engine.

A plan is N shards: shard K is `engine datagen --shard K --shards N --seed S --games G` (or
`--positions P`) with the plan's node budget, network and other flags. The engine makes each
shard a pure function of (seed, shard, settings, network): byte for byte the same on any
machine, at any thread count, and continued to the same bytes after a kill. So shards can run
anywhere, be retried anywhere, and be checked at the end:

- every file is verified by `engine datagen --verify` (header, every game's checksum and index)
  and its header and counts are compared with the plan;
- shards land in the output folder atomically (temporary name, fsync, rename), already
  verified; MANIFEST.json is written (atomically) only once every shard is there. An output
  without MANIFEST.json is not complete, whatever shard files it holds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST = "MANIFEST.json"
SHARD_RE = re.compile(r"^shard-(\d{5})-of-(\d{5})\.dgn$")
# Flags the plan sets itself: passed through, they would break the shard contract.
OWNED_FLAGS = frozenset(
    "--shard --shards --seed --games --positions --nodes --eval-file --out --threads "
    "--quiet --verify --log-every".split()
)


class PlanError(Exception):
    """A plan that cannot run, or an output that does not match it; the message says why."""


def log(message: str) -> None:
    """Logs go to standard error, one line each, with the time."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Plan:
    engine: Path
    shards: int
    seed: int
    nodes: int
    games: int | None = None
    positions: int | None = None
    threads: int = 1
    network: Path | None = None
    extra: tuple[str, ...] = field(default_factory=tuple)

    def shard_name(self, shard: int) -> str:
        return f"shard-{shard:05d}-of-{self.shards:05d}.dgn"

    def datagen_command(
        self, shard: int, out: Path, engine: Path | None = None, network: Path | None = None
    ) -> list[str]:
        """The `engine datagen` command of one shard (engine and network may be node-local
        copies of the plan's files)."""
        size = ["--games", str(self.games)] if self.games else ["--positions", str(self.positions)]
        cmd = [str(engine or self.engine), "datagen", "--shard", str(shard)]
        cmd += ["--shards", str(self.shards), "--seed", str(self.seed), *size]
        cmd += ["--nodes", str(self.nodes), "--threads", str(self.threads), *self.extra]
        net = network or self.network
        if net is not None:
            cmd += ["--eval-file", str(net)]
        return cmd + ["--out", str(out)]

    def describe(self) -> dict[str, Any]:
        """The plan as recorded in MANIFEST.json."""
        return {
            "shards": self.shards,
            "seed": self.seed,
            "games": self.games,
            "positions": self.positions,
            "nodes": self.nodes,
            "extra": list(self.extra),
            "network": str(self.network) if self.network else None,
            "network_sha256": sha256_file(self.network) if self.network else None,
            "engine_sha256": sha256_file(self.engine),
        }


def add_plan_args(parser: argparse.ArgumentParser) -> None:
    """The plan's flags, the same for the Ray driver and the Slurm gather step."""
    p = parser.add_argument
    p("--engine", type=Path, required=True, help="the engine binary (target/release/engine)")
    p("--shards", type=int, required=True, help="N: shards of the plan (0 to N-1)")
    size = parser.add_mutually_exclusive_group(required=True)
    size.add_argument("--games", type=int, help="games in each shard")
    size.add_argument("--positions", type=int, help="positions in each shard (at least)")
    p("--seed", type=int, default=1, help="seed of the plan (default 1)")
    p("--nodes", type=int, default=5000, help="soft node budget a move (default 5000)")
    p("--network", type=Path, help="weights file to play with (default: the embedded one)")
    p("--out", type=Path, required=True, help="output folder of the gathered shards")


def split_extra(argv: list[str]) -> tuple[list[str], list[str]]:
    """Splits `ARGS -- DATAGEN FLAGS` (flags after `--` go to every `engine datagen`)."""
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1 :]
    return argv, []


def plan_from_args(args: argparse.Namespace, extra: list[str], threads: int = 1) -> Plan:
    return Plan(
        engine=args.engine,
        shards=args.shards,
        seed=args.seed,
        nodes=args.nodes,
        games=args.games,
        positions=args.positions,
        threads=threads,
        network=args.network,
        extra=tuple(extra),
    )


def check_plan(plan: Plan) -> None:
    """Fails at once, with a message naming what is wrong, on a plan that cannot run: checked
    here, before any cluster is asked for anything."""
    if plan.shards < 1:
        raise PlanError(f"--shards {plan.shards}: a plan needs at least 1 shard")
    if plan.shards > 99999:
        raise PlanError(f"--shards {plan.shards}: at most 99999 shards (file names have 5 digits)")
    size = plan.games if plan.games is not None else plan.positions
    if size is None or size < 1:
        raise PlanError("the shard size (--games or --positions) must be at least 1")
    if plan.nodes < 1:
        raise PlanError(f"--nodes {plan.nodes} must be at least 1")
    if plan.seed < 0:
        raise PlanError(f"--seed {plan.seed} cannot be negative")
    if plan.threads < 1:
        raise PlanError(f"--threads-per-task {plan.threads} must be at least 1")
    engine = plan.engine
    if not engine.exists():
        raise PlanError(f"--engine {engine}: no such file (build it: cargo build --release)")
    if not engine.is_file() or not os.access(engine, os.X_OK):
        raise PlanError(f"--engine {engine}: not an executable file")
    try:
        help_run = subprocess.run(
            [str(engine), "datagen", "--help"], capture_output=True, text=True, timeout=30
        )
    except OSError as e:
        raise PlanError(f"--engine {engine}: cannot run it here: {e}") from e
    if help_run.returncode != 0:
        raise PlanError(f"--engine {engine}: `datagen --help` failed: {help_run.stderr.strip()}")
    known = set(re.findall(r"--[a-z][a-z0-9-]*", help_run.stdout))
    if not {"--verify", "--log-every"} <= known:
        raise PlanError(f"--engine {engine}: too old (no `datagen --verify`); rebuild it")
    for word in plan.extra:
        flag = word.split("=", 1)[0]
        if not flag.startswith("--"):
            continue
        if flag in OWNED_FLAGS:
            raise PlanError(f"datagen flag {flag} after `--`: the plan sets it (use the driver's flag)")
        if flag not in known:
            raise PlanError(f"datagen flag {flag} after `--`: `engine datagen` has no such flag")
    if plan.network is not None:
        if not plan.network.is_file():
            raise PlanError(f"--network {plan.network}: no such file")
        try:
            plan.network.open("rb").close()
        except OSError as e:
            raise PlanError(f"--network {plan.network}: cannot read it: {e}") from e


def prepare_out(out: Path) -> None:
    """Makes the output folder and checks it is writable (a file made and removed in it)."""
    if out.exists() and not out.is_dir():
        raise PlanError(f"--out {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as e:
        raise PlanError(f"--out {out}: cannot write there: {e}") from e


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temp_beside(path: Path, executable: bool = False) -> tuple[int, str]:
    """A temporary file in `path`'s folder, with the permissions a new file gets there (and
    execute permission when asked, set before the rename: once the name exists, another task
    may run it)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0o22)
    os.umask(umask)
    os.fchmod(fd, (0o777 if executable else 0o666) & ~umask)
    return fd, tmp


def write_atomic(path: Path, data: bytes, executable: bool = False) -> None:
    """Writes `path` whole or not at all: a temporary file beside it, fsynced, renamed."""
    fd, tmp = _temp_beside(path, executable)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify_shard(engine: Path, path: Path) -> dict[str, Any]:
    """`engine datagen --verify`: the header and every game's checksum and index; the file's
    summary (games, positions, header). Raises PlanError, with the engine's reason, if the file
    is not a whole shard."""
    run = subprocess.run(
        [str(engine), "datagen", "--verify", str(path)], capture_output=True, text=True
    )
    if run.returncode != 0:
        raise PlanError(f"{path}: verification failed: {run.stderr.strip()}")
    return json.loads(run.stdout)


def summary_problems(plan: Plan, shard: int, summary: dict[str, Any]) -> list[str]:
    """How a verified shard's header and counts differ from what the plan asks of shard `shard`."""
    header = summary["header"]
    problems = []
    for name, want in [("shard", shard), ("shards", plan.shards), ("seed", plan.seed)]:
        if header[name] != want:
            problems.append(f"{name} is {header[name]}, the plan says {want}")
    if header["settings"]["soft_nodes"] != plan.nodes:
        problems.append(f"nodes is {header['settings']['soft_nodes']}, the plan says {plan.nodes}")
    games, positions, last = summary["games"], summary["positions"], summary["last_game_positions"]
    if plan.games is not None and games != plan.games:
        problems.append(f"{games} games, the plan says {plan.games}")
    if plan.positions is not None and not positions - last < plan.positions <= positions:
        problems.append(
            f"{positions} positions ({last} in the last game) is not the first game count that "
            f"reaches {plan.positions}"
        )
    return problems


def check_shard(plan: Plan, shard: int, path: Path, engine: Path | None = None) -> dict[str, Any]:
    """Verifies the file and compares it with the plan; its summary, or PlanError."""
    summary = verify_shard(engine or plan.engine, path)
    problems = summary_problems(plan, shard, summary)
    if problems:
        raise PlanError(f"{path} is not shard {shard} of this plan: {'; '.join(problems)}")
    return summary


def existing_shards(plan: Plan, out: Path) -> dict[int, dict[str, Any]]:
    """Shards of this plan already gathered in `out` (by an earlier run), verified. A shard file
    of another plan there is an error: one output folder holds one plan."""
    done = {}
    for path in sorted(out.iterdir()):
        m = SHARD_RE.match(path.name)
        if not m:
            continue
        shard, shards = int(m[1]), int(m[2])
        if shards != plan.shards or shard >= shards:
            raise PlanError(
                f"--out {out} holds {path.name}, from a plan of {shards} shards, not "
                f"{plan.shards}; give another --out"
            )
        done[shard] = check_shard(plan, shard, path)
    return done


def gather_shard(plan: Plan, shard: int, out: Path, data: bytes) -> dict[str, Any]:
    """Puts a finished shard's bytes into `out` under its name: written to a temporary file,
    verified and compared with the plan there, then renamed. A bad shard never gets its name."""
    final = out / plan.shard_name(shard)
    fd, tmp_name = _temp_beside(final)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        summary = check_shard(plan, shard, tmp)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(out)
    summary["file"] = str(final)
    return summary


def remove_manifest(out: Path) -> None:
    """An output being (re)gathered must not look complete: its old manifest goes first."""
    manifest = out / MANIFEST
    if manifest.exists():
        manifest.unlink()
        fsync_dir(out)


def write_manifest(plan: Plan, out: Path, summaries: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Checks that every shard is there and all were played alike (one network, one set of
    settings), then writes MANIFEST.json atomically: the mark of a complete output."""
    missing = [k for k in range(plan.shards) if k not in summaries]
    if missing:
        raise PlanError(f"shards missing: {compact_ranges(missing)}")
    headers = [dict(summaries[k]["header"], shard=0) for k in range(plan.shards)]
    if any(h != headers[0] for h in headers):
        raise PlanError("the shards were not all made with the same settings and network")
    files = []
    for k in range(plan.shards):
        path = out / plan.shard_name(k)
        s = summaries[k]
        files.append(
            {
                "file": path.name,
                "games": s["games"],
                "positions": s["positions"],
                "bytes": s["bytes"],
                "sha256": sha256_file(path),
            }
        )
    manifest = {
        "plan": plan.describe(),
        "settings": summaries[0]["header"]["settings"],
        "network_checksum": summaries[0]["header"]["network_checksum"],
        "games": sum(f["games"] for f in files),
        "positions": sum(f["positions"] for f in files),
        "shards": files,
    }
    write_atomic(out / MANIFEST, (json.dumps(manifest, indent=1) + "\n").encode())
    return manifest


def compact_ranges(numbers: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> "0-2,5,7-8" (as `sbatch --array` takes it)."""
    parts, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ",".join(parts)
