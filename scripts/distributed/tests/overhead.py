"""The cost of going through Ray: one plan made by single-process `engine datagen --threads C`
(shard after shard) and by the driver on a local Ray cluster of C one-CPU nodes (127.0.0.1),
positions a second each, and the check that both made the same bytes.

    target/distributed/venv/bin/python scripts/distributed/tests/overhead.py \\
        --shards 8 --games 150 --nodes 500 --cpus 2
"""

from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from local_cluster import LocalCluster  # noqa: E402

ROOT = HERE.parent.parent.parent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", type=Path, default=ROOT / "target" / "release" / "engine")
    p.add_argument("--shards", type=int, default=8)
    p.add_argument("--games", type=int, default=150)
    p.add_argument("--nodes", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cpus", type=int, default=2, help="engine threads / Ray nodes of 1 CPU")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="datagen-overhead-"))
    plan = ["--shards", str(a.shards), "--seed", str(a.seed), "--games", str(a.games),
            "--nodes", str(a.nodes)]

    cluster = LocalCluster(nodes=a.cpus, cpus_per_node=1)
    single, on_ray = [], []
    try:
        for r in range(a.repeat):  # alternated, so that other load on the machine hits both
            out = tmp / f"single-{r}"
            start = time.monotonic()
            for k in range(a.shards):
                subprocess.run([str(a.engine), "datagen", "--shard", str(k), *plan, "--threads",
                                str(a.cpus), "--quiet", "--out", str(out)],
                               check=True, capture_output=True)
            single.append(time.monotonic() - start)
            start = time.monotonic()
            log = subprocess.run([sys.executable, str(HERE.parent / "datagen.py"), "--engine",
                                  str(a.engine), *plan, "--out", str(tmp / f"ray-{r}"),
                                  "--address", cluster.address, "--work-dir", str(tmp / "work"),
                                  "--progress-every", "60"],
                                 check=True, stderr=subprocess.PIPE, text=True).stderr
            on_ray.append(time.monotonic() - start)
            print(f"round {r}: single {single[-1]:.1f} s, Ray {on_ray[-1]:.1f} s", flush=True)
            for line in log.splitlines():
                if "joined in" in line or "a shard cost" in line:
                    print("   ", line, flush=True)
    finally:
        cluster.shutdown()

    positions = json.loads((tmp / "ray-0" / "MANIFEST.json").read_text())["positions"]
    names = [f"shard-{k:05d}-of-{a.shards:05d}.dgn" for k in range(a.shards)]
    for r in range(a.repeat):
        for made in (tmp / f"single-{r}", tmp / f"ray-{r}"):
            _, differ, missing = filecmp.cmpfiles(tmp / "single-0", made, names, shallow=False)
            assert not differ and not missing, (made, differ, missing)
    s, o = statistics.median(single), statistics.median(on_ray)
    print(f"plan: {a.shards} shards x {a.games} games at --nodes {a.nodes}: {positions} positions, "
          f"the same bytes every run")
    print(f"single process --threads {a.cpus}: median {s:.1f} s, {positions / s:.0f} positions/s")
    print(f"Ray, {a.cpus} nodes x 1 CPU (driver start to manifest): median {o:.1f} s, "
          f"{positions / o:.0f} positions/s ({100 * (o / s - 1):+.1f}% time)")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
