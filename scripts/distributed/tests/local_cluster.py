"""A real Ray cluster on this machine, on 127.0.0.1 only: a head and worker nodes (each its own
raylet, object store and worker processes), for the tests and for measuring.

Ray resolves 127.0.0.1 given to `ray start --node-ip-address` to the machine's outward address,
and `ray start` refuses extra nodes on a single-machine setup; `ray.cluster_utils.Cluster` with
RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 keeps every node, and every driver started with this
environment, on the loopback address. RAY_TMPDIR keeps the session files (and the address file
`ray.init()` reads) out of the shared /tmp/ray.

    python scripts/distributed/tests/local_cluster.py --nodes 3   # prints the address, runs until ^C
"""

from __future__ import annotations

import os
import shutil
import tempfile


def loopback_env(tmp: str) -> dict[str, str]:
    """The environment for this process and every Ray process and driver of the cluster."""
    return {
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # node addresses are 127.0.0.1
        "RAY_USAGE_STATS_ENABLED": "0",  # no usage report sent anywhere
        "RAY_TMPDIR": tmp,
    }


class LocalCluster:
    def __init__(self, nodes: int, cpus_per_node: int = 1, tmp: str | None = None) -> None:
        # Short: Ray's socket paths under it must stay within 107 bytes.
        self.tmp = tmp or tempfile.mkdtemp(prefix="ray-", dir="/tmp")
        os.environ.update(loopback_env(self.tmp))
        os.environ.pop("RAY_ADDRESS", None)
        from ray.cluster_utils import Cluster

        common = {
            "node_ip_address": "127.0.0.1",
            "num_cpus": cpus_per_node,
            "object_store_memory": 80 * 1024 * 1024,
        }
        self.cluster = Cluster(
            initialize_head=True,
            head_node_args=dict(common, include_dashboard=False),
        )
        for _ in range(nodes - 1):
            self.cluster.add_node(**common)
        self.address: str = self.cluster.address

    def shutdown(self) -> None:
        self.cluster.shutdown()
        shutil.rmtree(self.tmp, ignore_errors=True)


if __name__ == "__main__":
    import argparse
    import signal

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--cpus-per-node", type=int, default=1)
    args = parser.parse_args()
    cluster = LocalCluster(args.nodes, args.cpus_per_node)
    env = " ".join(f"{k}={v}" for k, v in loopback_env(cluster.tmp).items())
    print(f"address {cluster.address}; drivers need: {env}", flush=True)
    # Stops on ^C or a plain kill (SIGINT is ignored by processes started in the background).
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        cluster.shutdown()
