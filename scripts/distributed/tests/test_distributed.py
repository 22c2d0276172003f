"""The Ray driver and the Slurm array against single-machine `engine datagen`, on a real local Ray
cluster (a head and two worker nodes, 127.0.0.1 only): the same bytes, through killed engines
and killed workers; bad plans refused at once. Run by scripts/distributed/test.sh."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from local_cluster import LocalCluster  # noqa: E402

DIST = HERE.parent
ROOT = DIST.parent.parent
ENGINE = Path(os.environ.get("DATAGEN_ENGINE", ROOT / "target" / "release" / "engine"))
NODES = "500"


@pytest.fixture(scope="session")
def cluster() -> Iterator[LocalCluster]:
    assert ENGINE.is_file(), f"{ENGINE}: build it first (cargo build --release)"
    c = LocalCluster(nodes=3, cpus_per_node=1)
    yield c
    c.shutdown()


def shard_name(k: int, n: int) -> str:
    return f"shard-{k:05d}-of-{n:05d}.dgn"


def reference(tmp: Path, shards: int, seed: int, size: list[str], extra: list[str]) -> dict:
    """What single-machine `engine datagen --threads 2` writes for each shard of the plan."""
    out = tmp / "reference"
    for k in range(shards):
        subprocess.run(
            [str(ENGINE), "datagen", "--shard", str(k), "--shards", str(shards), "--seed",
             str(seed), *size, "--nodes", NODES, "--threads", "2", "--quiet", *extra, "--out",
             str(out)],
            check=True, capture_output=True,
        )
    return {shard_name(k, shards): (out / shard_name(k, shards)).read_bytes() for k in range(shards)}


def driver_cmd(cluster: LocalCluster, out: Path, shards: int, seed: int, size: list[str],
               extra: list[str], *more: str) -> list[str]:
    cmd = [sys.executable, str(DIST / "datagen.py"), "--engine", str(ENGINE), "--shards",
           str(shards), "--seed", str(seed), *size, "--nodes", NODES, "--out", str(out),
           "--address", cluster.address, "--progress-every", "1", *more]
    return cmd + (["--", *extra] if extra else [])


def run(cmd: list[str], timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def assert_gathered(out: Path, want: dict[str, bytes]) -> dict:
    """`out` holds exactly the reference shards, byte for byte, and a manifest that adds up."""
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([*want, "MANIFEST.json"]), names
    for name, data in want.items():
        got = (out / name).read_bytes()
        assert got == data, f"{name}: {len(got)} bytes gathered, {len(data)} made on one machine"
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert [s["file"] for s in manifest["shards"]] == sorted(want)
    assert manifest["positions"] == sum(s["positions"] for s in manifest["shards"]) > 0
    return manifest


def test_gathered_shards_are_byte_for_byte_single_machine_datagen(cluster, tmp_path):
    extra = ["--random-plies", "6", "--max-plies", "150"]
    want = reference(tmp_path, 4, 11, ["--games", "6"], extra)
    out = tmp_path / "out"
    cmd = driver_cmd(cluster, out, 4, 11, ["--games", "6"], extra,
                     "--work-dir", str(tmp_path / "work"))
    r = run(cmd)
    assert r.returncode == 0, r.stderr
    manifest = assert_gathered(out, want)
    assert manifest["games"] == 24 and manifest["settings"]["random_plies"] == 6
    assert "complete: 4 shards, 24 games" in r.stderr, r.stderr
    assert re.search(r"shards 4/4 done .* 0 failed \(0 retried\) · \d+ positions · \d+ "
                     r"positions/s", r.stderr), r.stderr
    # The tasks ran on more than one node of the cluster.
    nodes = set(re.findall(r"done on node (\w+)", r.stderr))
    assert len(nodes) >= 2, r.stderr

    # The same command again: nothing to run (no Ray at all), the same files, a manifest again.
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir() if p.suffix == ".dgn"}
    (out / "MANIFEST.json").unlink()
    r = run(cmd)
    assert r.returncode == 0, r.stderr
    assert "4 already in" in r.stderr and "0 to run" in r.stderr and "Ray:" not in r.stderr
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir() if p.suffix == ".dgn"} == before
    assert_gathered(out, want)

    # A plan by positions: each shard stops at the first game reaching them.
    want = reference(tmp_path / "p", 3, 12, ["--positions", "100"], [])
    out = tmp_path / "out-positions"
    r = run(driver_cmd(cluster, out, 3, 12, ["--positions", "100"], []))
    assert r.returncode == 0, r.stderr
    assert_gathered(out, want)


def engine_of(work: Path, shard: int) -> int | None:
    """The pid of the engine running `shard` of a plan in `work` (exact match on its command)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if len(cmd) > 4 and cmd[1:4] == ["datagen", "--shard", str(shard)] and \
                any(c.startswith(str(work)) for c in cmd):
            return int(entry.name)
    return None


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def kill_mid_shard(work: Path, shard: int, name: str, whole: int, kill_parent: bool,
                   report: dict, deadline: float) -> None:
    """Once the shard's file holds some games but not all, kill -9 its engine (or the Ray worker
    that started it); records the file's size at that moment."""
    while time.monotonic() < deadline:
        files = list(work.glob(f"minishogi-datagen/*/shards/{name}"))
        size = files[0].stat().st_size if files else 0
        pid = engine_of(work, shard)
        if pid and whole // 10 < size < whole // 2:
            victim = parent_of(pid) if kill_parent else pid
            os.kill(victim, signal.SIGKILL)
            report[shard] = (size, victim)
            return
        time.sleep(0.01)


def test_killed_engine_and_killed_worker_are_retried_to_the_same_bytes(cluster, tmp_path):
    shards, games = 3, 250
    want = reference(tmp_path, shards, 21, ["--games", str(games)], [])
    work, out = tmp_path / "work", tmp_path / "out"
    cmd = driver_cmd(cluster, out, shards, 21, ["--games", str(games)], [],
                     "--work-dir", str(work))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed: dict[int, tuple[int, int]] = {}
    deadline = time.monotonic() + 120
    killers = [
        threading.Thread(target=kill_mid_shard, args=(
            work, k, shard_name(k, shards), len(want[shard_name(k, shards)]), k == 1, killed,
            deadline))
        for k in (0, 1)
    ]
    for t in killers:
        t.start()
    _, err = proc.communicate(timeout=240)
    for t in killers:
        t.join()
    # Both kills landed in the middle of their shard.
    assert sorted(killed) == [0, 1], f"kills: {killed}\n{err}"
    assert proc.returncode == 0, err
    assert_gathered(out, want)  # no truncated game, no duplicate: the very bytes
    assert "failed: shard 0" in err and "engine killed by signal 9" in err, err
    assert "(2 retried)" in err, err
    # Each retry continued its partial shard (the nodes here share the work folder).
    for k in (0, 1):
        assert re.search(rf"shard {k} done .*\(continued after \d+ games\)", err), err
    assert engine_of(work, 0) is None and engine_of(work, 1) is None, "no engine left behind"


def bad_plan(tmp_path: Path, *args: str) -> str:
    """Runs the driver on a plan that must fail before any Ray startup: the address given is
    one where no cluster listens, so reaching Ray at all would take far longer."""
    cmd = [sys.executable, str(DIST / "datagen.py"), "--address", "127.0.0.1:9", *args]
    start = time.monotonic()
    r = run(cmd, timeout=60)
    took = time.monotonic() - start
    assert r.returncode == 2, r.stderr
    assert took < 10, f"{took:.1f} s: {r.stderr}"
    return r.stderr


def test_a_staged_engine_is_executable_the_moment_it_has_its_name(tmp_path, monkeypatch):
    """Tasks on one node share the staged engine: one that finds the name must be able to run
    it, so the permissions are set before the rename, never after."""
    sys.path.insert(0, str(DIST))
    import datagen
    import plan as planlib

    modes_at_rename = []
    real_replace = os.replace

    def replace(src, dst):
        modes_at_rename.append((Path(dst).name, bool(os.stat(src).st_mode & 0o100)))
        real_replace(src, dst)

    monkeypatch.setattr(planlib.os, "replace", replace)
    engine = datagen._materialize(tmp_path, "engine", b"#!/bin/sh\necho staged\n", True)
    network = datagen._materialize(tmp_path, "network.bin", b"weights", False)
    assert modes_at_rename == [("engine", True), ("network.bin", False)], modes_at_rename
    assert subprocess.run([str(engine)], capture_output=True, text=True).stdout == "staged\n"
    # Staged once per content: a second task finds it and writes nothing.
    assert datagen._materialize(tmp_path, "engine", b"#!/bin/sh\necho staged\n", True) == engine
    assert len(modes_at_rename) == 2 and network.read_bytes() == b"weights"


def test_bad_plans_fail_at_once_with_a_reason(tmp_path):
    base = ["--engine", str(ENGINE), "--shards", "2", "--games", "2", "--out", str(tmp_path / "o")]

    def with_(**changes: str) -> list[str]:
        args = list(base)
        for flag, value in changes.items():
            args[args.index(f"--{flag}") + 1] = value
        return args

    assert "no such file" in bad_plan(tmp_path, *with_(engine=str(tmp_path / "nope")))
    (tmp_path / "text").write_text("not a program")
    assert "not an executable" in bad_plan(tmp_path, *with_(engine=str(tmp_path / "text")))
    assert "at least 1 shard" in bad_plan(tmp_path, *with_(shards="0"))
    assert "at least 1" in bad_plan(tmp_path, *with_(games="0"))
    # Unwritable output: a path through a file; an output that is a file.
    e = bad_plan(tmp_path, *with_(out=str(tmp_path / "text" / "out")))
    assert "cannot write there" in e, e
    assert "not a folder" in bad_plan(tmp_path, *with_(out=str(tmp_path / "text")))
    assert "no such flag" in bad_plan(tmp_path, *base, "--", "--no-such-flag", "3")
    assert "the plan sets it" in bad_plan(tmp_path, *base, "--", "--seed", "3")
    e = bad_plan(tmp_path, *base, "--network", str(tmp_path / "missing.bin"))
    assert "--network" in e and "missing.bin" in e, e

    # A Python without Ray (-S: no site-packages).
    r = run([sys.executable, "-S", str(DIST / "datagen.py"), *base], timeout=60)
    assert r.returncode == 2 and "Ray is not installed" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()

    # An output folder holding another plan's shards.
    out = tmp_path / "other"
    out.mkdir()
    ref = reference(tmp_path, 2, 5, ["--games", "1"], [])
    for name, data in ref.items():
        (out / name).write_bytes(data)
    e = bad_plan(tmp_path, *with_(out=str(out), shards="3"))
    assert "from a plan of 2 shards" in e, e
    e = bad_plan(tmp_path, *with_(out=str(out), games="1"), "--seed", "6")
    assert "seed is 5, the plan says 6" in e, e
    # Nothing was created or removed along the way.
    assert sorted(p.name for p in out.iterdir()) == sorted(ref)


def sbatch_task(k: int, env: dict[str, str]) -> subprocess.CompletedProcess:
    """One task of the Slurm array, as Slurm starts it (the #SBATCH lines are comments to bash)."""
    return subprocess.run(["bash", str(DIST / "datagen.sbatch")], capture_output=True, text=True,
                          env=dict(os.environ, **env, SLURM_ARRAY_TASK_ID=str(k)), timeout=120)


def test_slurm_array_tasks_and_gather_make_the_same_shards(tmp_path):
    shards = 3
    want = reference(tmp_path, shards, 31, ["--games", "5"], ["--random-plies", "4"])
    work, out = tmp_path / "work", tmp_path / "out"
    env = {"ENGINE": str(ENGINE), "WORK": str(work), "SHARDS": str(shards), "SEED": "31",
           "GAMES": "5", "NODES": NODES, "DATAGEN_FLAGS": "--random-plies 4 --quiet"}
    gather = [sys.executable, str(DIST / "gather.py"), "--engine", str(ENGINE), "--shards",
              str(shards), "--seed", "31", "--games", "5", "--nodes", NODES, "--from", str(work),
              "--out", str(out), "--", "--random-plies", "4"]
    r = sbatch_task(shards, env)
    assert r.returncode == 2 and "outside 0-2" in r.stderr, r.stderr
    # Tasks 0 and 2 finish, task 1 is killed after 2 of its 5 games (a shorter run stands in).
    for k in (0, 2):
        assert sbatch_task(k, env).returncode == 0
    assert sbatch_task(1, dict(env, GAMES="2")).returncode == 0
    r = run(gather)
    assert r.returncode == 1, r.stderr
    assert "shard 1:" in r.stderr and "2 games, the plan says 5" in r.stderr, r.stderr
    assert "sbatch --array=1 " in r.stderr, r.stderr
    assert not (out / "MANIFEST.json").exists()
    # Task 1 submitted again continues its shard; the gather completes.
    assert sbatch_task(1, env).returncode == 0
    r = run(gather)
    assert r.returncode == 0, r.stderr
    assert_gathered(out, want)


def test_local_mode_needs_no_cluster(tmp_path):
    """`--local CPUS`, as docs/distributed.md's first example: a Ray of the driver's own, on 127.0.0.1."""
    want = reference(tmp_path, 2, 41, ["--games", "3"], [])
    out = tmp_path / "out"
    ray_tmp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: socket paths in it
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    r = subprocess.run(
        [sys.executable, str(DIST / "datagen.py"), "--engine", str(ENGINE), "--shards", "2",
         "--seed", "41", "--games", "3", "--nodes", NODES, "--out", str(out), "--local", "1"],
        capture_output=True, text=True, timeout=120, env=dict(env, RAY_TMPDIR=str(ray_tmp)))
    assert r.returncode == 0, r.stderr
    assert "Ray: 1 nodes, 1 CPUs" in r.stderr, r.stderr
    assert_gathered(out, want)
    # Its Ray is gone with it.
    deadline = time.monotonic() + 20
    while (left := ray_processes(ray_tmp)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, left
    shutil.rmtree(ray_tmp)


def ray_processes(ray_tmp: Path) -> list[str]:
    return [p.name for p in Path("/proc").iterdir()
            if p.name.isdigit() and str(ray_tmp).encode() in _cmdline(p)]


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


def test_generation_loop_self_play_training_gating(cluster, tmp_path):
    """loop.py, two tiny generations: self-play on the cluster with the best network so far,
    training from it, a gate; the record adds up, and a second run has nothing left to do."""
    out = tmp_path / "loop"
    cmd = [sys.executable, str(DIST / "loop.py"), "--engine", str(ENGINE), "--out", str(out),
           "--generations", "2", "--shards", "2", "--games", "4", "--nodes", "300",
           "--address", cluster.address, "--train-flags", "--epochs 1 --threads 1",
           "--match-games", "2", "--match-limit", "depth=1", "--match-flags", "--concurrency 2"]
    r = run(cmd)
    assert r.returncode == 0, r.stderr
    state = json.loads((out / "generations.json").read_text())
    gens = state["generations"]
    assert [g["generation"] for g in gens] == [1, 2], state
    assert gens[0]["played_by"] == "embedded"
    best_after_1 = gens[0]["network"] if gens[0]["accepted"] else "embedded"
    assert gens[1]["played_by"] == best_after_1, state
    # Generation 2's shards were played by that network: its checksum is in their headers.
    manifests = [json.loads((out / f"gen-{g}" / "data" / "MANIFEST.json").read_text())
                 for g in (1, 2)]
    same_net = manifests[0]["network_checksum"] == manifests[1]["network_checksum"]
    assert same_net == (best_after_1 == "embedded"), (state, manifests)
    for g, manifest in zip(gens, manifests):
        assert g["positions"] == manifest["positions"] > 0
        assert g["match"]["games"] == 2 and isinstance(g["val_loss"], float)
        assert g["accepted"] == (g["match"]["score"] > 0.5) and g["sprt"] is None
        assert Path(g["network"]).is_file()
    last = gens[-1]["network"] if gens[-1]["accepted"] else best_after_1
    assert state["best"] == (None if last == "embedded" else last)

    r = run(cmd)
    assert r.returncode == 0, r.stderr
    assert "self-play" not in r.stderr and "2 generations in" in r.stderr, r.stderr
