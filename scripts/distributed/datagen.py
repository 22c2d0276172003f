#!/usr/bin/env python3
"""Runs an `engine datagen` plan on a Ray cluster: one Ray task per shard, gathered into one
folder.

    python scripts/distributed/datagen.py --engine target/release/engine --shards 64 \\
        --games 2000 --seed 1 --nodes 5000 --out data/gen1 [-- --hard-nodes 50000 ...]

Flags after `--` go to every `engine datagen` (see `engine datagen --help`).

How a shard runs: the driver puts the engine binary (and the network) in Ray's object store;
the task copies them into a node-local work folder (`--work-dir`, default the node's temporary
folder) and runs `engine datagen --shard K --shards N …` there. The finished shard is verified
on the node, its bytes are returned to the driver through the object store, and the driver
writes it into `--out` atomically after verifying it again against the plan. No shared file
system is needed.

When something dies: an engine killed by a signal (OOM killer, kill -9) fails the task, which
Ray runs again (`--max-retries`); on the same node the engine continues the partial shard,
elsewhere it starts it over: either way the bytes are the same. A worker or node that dies is
retried by Ray the same way (the engine dies with its worker). An engine that exits with an
error (a bad flag, a full disk) is not retried: the run stops, keeping the shards gathered so
far, and the same command run again does only the missing ones. MANIFEST.json in `--out` is
written last: without it the output is not complete.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import hashlib
import importlib.util
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import plan as planlib  # noqa: E402
from plan import Plan, PlanError, log  # noqa: E402

PROGRESS_RE = re.compile(r"datagen: (\d+) games, (\d+) positions")
CONTINUED_RE = re.compile(r"continuing after (\d+) games")


class EngineKilled(Exception):
    """The engine died by a signal: worth running again (it continues the shard)."""


class EngineFailed(Exception):
    """The engine exited with an error: running it again would fail the same way."""


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, Plan]:
    ours, extra = planlib.split_extra(argv)
    parser = argparse.ArgumentParser(
        description="Run an `engine datagen` shard plan on a Ray cluster and gather the shards.",
        epilog="Flags after `--` are passed to every `engine datagen`.",
    )
    planlib.add_plan_args(parser)
    p = parser.add_argument
    p("--threads-per-task", type=int, default=1, help="engine --threads and Ray CPUs a task")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--address", help="Ray cluster to join (default: RAY_ADDRESS, else a "
                       "cluster `ray start`ed on this machine, else a new local Ray)")
    where.add_argument("--local", type=int, metavar="CPUS", help="no cluster: a Ray of its own "
                       "on this machine with this many CPUs, on 127.0.0.1 only, gone at the end")
    p("--work-dir", help="node-local folder for running shards (default: the node's temp dir)")
    p("--max-retries", type=int, default=3, help="runs again of a shard whose engine or node "
      "died (default 3)")
    p("--progress-every", type=float, default=5.0, help="seconds between progress lines")
    args = parser.parse_args(ours)
    if args.max_retries < 0:
        parser.error("--max-retries cannot be negative")
    if args.local is not None and args.local < 1:
        parser.error("--local needs at least 1 CPU")
    return args, planlib.plan_from_args(args, extra, threads=args.threads_per_task)


def plan_id(plan: Plan, engine_sha: str, network_sha: str | None) -> str:
    """Names the plan's node-local work folder: a partial shard is continued only by the same
    engine binary, network and settings."""
    key = repr((engine_sha, network_sha, plan.datagen_command(0, Path("."), Path("e"))[3:]))
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _die_with_parent() -> None:
    """In the engine's process before exec: die when the Ray worker that started it dies, so a
    killed worker leaves no engine holding the shard."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _materialize(folder: Path, name: str, data: bytes, executable: bool) -> Path:
    """A node-local copy of the engine or network, written once (atomically, with its final
    permissions) per content. Tasks on one node may race here; each sees the file whole and
    executable or not at all."""
    path = folder / hashlib.sha256(data).hexdigest()[:16] / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        planlib.write_atomic(path, data, executable)
    return path


def run_shard(
    plan: Plan,
    shard: int,
    work_dir: str | None,
    pid: str,
    engine_bytes: bytes,
    network_bytes: bytes | None,
    board: Any,
) -> dict[str, Any]:
    """A Ray task: runs (or continues) one shard on this node and returns its bytes."""
    import ray

    entered = time.monotonic()
    root = Path(work_dir or tempfile.gettempdir()) / "minishogi-datagen" / pid
    bin_dir, shard_dir = root / "bin", root / "shards"
    shard_dir.mkdir(parents=True, exist_ok=True)
    engine = _materialize(bin_dir, "engine", engine_bytes, executable=True)
    network = _materialize(bin_dir, "network.bin", network_bytes, False) if network_bytes else None
    node = ray.get_runtime_context().get_node_id()[:8]
    board.started.remote(shard, node)
    cmd = plan.datagen_command(shard, shard_dir, engine, network) + ["--log-every", "2"]
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        env=dict(os.environ, RUST_LOG="info"),  # says whether it continues a partial shard
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_die_with_parent,
    )
    tail: collections.deque[str] = collections.deque(maxlen=8)
    continued = 0
    assert proc.stderr is not None
    for line in proc.stderr:
        tail.append(line.rstrip())
        if m := PROGRESS_RE.search(line):
            board.progress.remote(shard, int(m[1]), int(m[2]))
        elif m := CONTINUED_RE.search(line):
            continued = int(m[1])
    code = proc.wait()
    engine_seconds = time.monotonic() - start
    if code != 0:
        why = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        message = f"shard {shard} on node {node}: engine {why}: {' | '.join(tail)}"
        board.failed.remote(shard, message)
        raise (EngineKilled if code < 0 else EngineFailed)(message)
    path = shard_dir / plan.shard_name(shard)
    summary = planlib.check_shard(plan, shard, path, engine)
    data = path.read_bytes()
    path.unlink()
    path.with_suffix(".lock").unlink(missing_ok=True)
    return {
        "shard": shard,
        "data": data,
        "node": node,
        "engine_seconds": engine_seconds,
        # The task's own time around the engine: copies, verification, reading the shard.
        "around_seconds": time.monotonic() - entered - engine_seconds,
        "continued": continued,
        "summary": summary,
    }


class Board:
    """A Ray actor the tasks report to: which shards run, their progress, their failures."""

    def __init__(self) -> None:
        self.attempts: dict[int, int] = collections.Counter()
        self.running: set[int] = set()
        self.positions: dict[int, int] = {}
        self.failures: list[str] = []

    def started(self, shard: int, node: str) -> None:
        self.attempts[shard] += 1
        self.running.add(shard)
        self.positions.setdefault(shard, 0)

    def progress(self, shard: int, games: int, positions: int) -> None:
        if shard in self.running:  # not a late report of a shard already finished
            self.positions[shard] = positions

    def failed(self, shard: int, message: str) -> None:
        self.running.discard(shard)
        self.failures.append(message)

    def finished(self, shard: int) -> None:
        self.running.discard(shard)
        self.positions.pop(shard, None)

    def snapshot(self) -> dict[str, Any]:
        return {
            "attempts": dict(self.attempts),
            "running": sorted(self.running),
            "positions": sum(self.positions.values()),
            "failures": list(self.failures),
        }


class Progress:
    """Progress lines on standard error: shards done / running / waiting / failed, and the
    positions a second across the cluster (finished shards and those running)."""

    def __init__(self, plan: Plan, every: float, skipped: int) -> None:
        self.plan, self.every, self.skipped = plan, every, skipped
        self.start = self.last = time.monotonic()
        self.done_positions = 0
        self.failures_shown = 0
        self.gather_seconds: list[float] = []
        self.around_seconds: list[float] = []

    def overhead(self) -> str:
        """The cost of the distribution a shard, apart from waiting for a CPU."""
        if not self.gather_seconds:
            return ""
        around = statistics.median(self.around_seconds)
        gather = statistics.median(self.gather_seconds)
        return (f"a shard cost {around * 1000:.0f} ms on its node besides the engine, and "
                f"{gather * 1000:.0f} ms to gather (medians)")

    def line(self, done: int, failed: int, snap: dict[str, Any], force: bool = False) -> None:
        now = time.monotonic()
        for message in snap["failures"][self.failures_shown :]:
            log(f"failed: {message}")
        self.failures_shown = len(snap["failures"])
        if not force and now - self.last < self.every:
            return
        self.last = now
        positions = self.done_positions + snap["positions"]
        rate = positions / max(now - self.start, 1e-9)
        running = len(snap["running"])
        waiting = self.plan.shards - done - running - failed
        retried = sum(n - 1 for n in snap["attempts"].values())
        log(
            f"shards {done}/{self.plan.shards} done ({self.skipped} from before), {running} "
            f"running, {max(waiting, 0)} waiting, {failed} failed ({retried} retried) · "
            f"{positions} positions · {rate:.0f} positions/s"
        )


def main(argv: list[str]) -> int:
    try:
        args, plan = parse_args(argv)
        planlib.check_plan(plan)
        if importlib.util.find_spec("ray") is None:
            raise PlanError(f"Ray is not installed for {sys.executable}: pip install -r "
                            f"{Path(__file__).parent / 'requirements.txt'}")
        planlib.prepare_out(args.out)
        done = planlib.existing_shards(plan, args.out)
        planlib.remove_manifest(args.out)
    except PlanError as e:
        log(f"error: {e}")
        return 2
    todo = [k for k in range(plan.shards) if k not in done]
    log(
        f"plan: {plan.shards} shards of {plan.games or plan.positions} "
        f"{'games' if plan.games else 'positions'}, seed {plan.seed}, --nodes {plan.nodes}; "
        f"{len(done)} already in {args.out}, {len(todo)} to run"
    )
    if todo:
        try:
            done.update(run_on_ray(args, plan, todo))
        except PlanError as e:
            log(f"error: {e}")
            log(f"the shards gathered so far stay in {args.out}: run the same command again "
                "to do the rest")
            return 1
    manifest = planlib.write_manifest(plan, args.out, done)
    log(
        f"complete: {plan.shards} shards, {manifest['games']} games, "
        f"{manifest['positions']} positions in {args.out} ({planlib.MANIFEST} written)"
    )
    return 0


def run_on_ray(args: argparse.Namespace, plan: Plan, todo: list[int]) -> dict[int, dict[str, Any]]:
    # A Ray this driver starts reports no usage statistics anywhere.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if args.local:
        # Read when Ray is imported: the node's address is 127.0.0.1, not the machine's.
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    import ray
    import ray.cloudpickle

    # The tasks need plan.py's code on nodes that do not have this folder.
    ray.cloudpickle.register_pickle_by_value(planlib)
    engine_bytes = plan.engine.read_bytes()
    network_bytes = plan.network.read_bytes() if plan.network else None
    pid = plan_id(
        plan,
        hashlib.sha256(engine_bytes).hexdigest(),
        hashlib.sha256(network_bytes).hexdigest() if network_bytes else None,
    )
    start = time.monotonic()
    if args.local:
        ray.init(address="local", num_cpus=args.local, include_dashboard=False,
                 logging_level="WARNING", log_to_driver=False)
    else:
        ray.init(address=args.address, logging_level="WARNING", log_to_driver=False)
    try:
        cpus = ray.cluster_resources().get("CPU", 0)
        log(f"Ray: {len(ray.nodes())} nodes, {cpus:.0f} CPUs (joined in "
            f"{time.monotonic() - start:.1f} s); work folder on each node: "
            f"{args.work_dir or '$TMPDIR'}/minishogi-datagen/{pid}")
        if cpus < plan.threads:
            raise PlanError(f"--threads-per-task {plan.threads}: the cluster has {cpus:.0f} CPUs")
        board = ray.remote(num_cpus=0)(Board).remote()
        task = ray.remote(run_shard).options(
            num_cpus=plan.threads,
            max_retries=args.max_retries,
            retry_exceptions=[EngineKilled],
        )
        engine_ref = ray.put(engine_bytes)
        network_ref = ray.put(network_bytes)
        pending = {
            task.remote(plan, k, args.work_dir, pid, engine_ref, network_ref, board): k
            for k in todo
        }
        return gather(args, plan, pending, board, len(todo))
    finally:
        ray.shutdown()


def gather(
    args: argparse.Namespace, plan: Plan, pending: dict[Any, int], board: Any, todo: int
) -> dict[int, dict[str, Any]]:
    """Writes each shard into --out as its task finishes; stops at the first shard that fails
    for good (its retries spent, or an engine error), cancelling the others."""
    import ray

    gathered: dict[int, dict[str, Any]] = {}
    progress = Progress(plan, args.progress_every, plan.shards - todo)
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=min(args.progress_every, 1.0))
        for ref in ready:
            shard = pending.pop(ref)
            try:
                result = ray.get(ref)
            except Exception as e:  # the task's own error, or Ray's for a lost worker or node
                for other in pending:
                    ray.cancel(other, force=True)
                done = plan.shards - todo + len(gathered)
                progress.line(done, 1, ray.get(board.snapshot.remote()), force=True)
                raise PlanError(f"shard {shard} failed for good: {first_line(e)}") from e
            board.finished.remote(shard)
            gather_start = time.monotonic()
            summary = planlib.gather_shard(plan, shard, args.out, result["data"])
            progress.gather_seconds.append(time.monotonic() - gather_start)
            progress.around_seconds.append(result["around_seconds"])
            gathered[shard] = summary
            progress.done_positions += summary["positions"]
            resumed = result["continued"]
            log(
                f"shard {shard} done on node {result['node']}: {summary['games']} games, "
                f"{summary['positions']} positions, engine {result['engine_seconds']:.1f} s"
                + (f" (continued after {resumed} games)" if resumed else "")
            )
        done = plan.shards - todo + len(gathered)
        progress.line(done, 0, ray.get(board.snapshot.remote()), force=not pending)
    log(progress.overhead())
    return gathered


def first_line(e: BaseException) -> str:
    cause = getattr(e, "cause", None) or e
    text = str(cause).strip()
    return text.splitlines()[-1] if text else type(cause).__name__


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
