"""PageRank over K shards of a partitioned store on a local multi-node Ray
cluster (`ray.cluster_utils.Cluster`), against the single-machine run of
the store the partitions were made from (issue 54's first figures).

    PYTHONPATH=$PWD/target/python python3 benches/ray_pagerank.py \\
        STORE P1 P2 P4 --nodes 4 --iterations 10 --memory 4GiB --out DIR

P1, P2, ... are `outcore partition STORE --parts K` directories. Prints
one line per run and per superstep (seconds, messages and bytes exchanged)
and writes each run's stats JSON to DIR. The single-machine run is the
`outcore` binary (OUTCORE_BIN, default target/release/outcore)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("store")
    p.add_argument("partitions", nargs="+")
    p.add_argument("--nodes", type=int, default=4)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--memory", default="4GiB")
    p.add_argument("--object-store", type=int, default=512, help="MiB per node")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parents[1]
    binary = os.environ.get("OUTCORE_BIN", str(root / "target/release/outcore"))

    t = time.perf_counter()
    stats = out / "single.json"
    subprocess.run([binary, "--quiet", "run", "pagerank", a.store, "--iterations",
                    str(a.iterations), "--memory", a.memory, "--out", "/dev/null", "--stats",
                    str(stats)], check=True)
    wall = time.perf_counter() - t
    doc = json.loads(stats.read_text())
    its = [i.get("seconds", 0.0) for i in doc.get("iterations", [])]
    print(f"single machine: {wall:.2f} s wall, {doc.get('wall_seconds', float('nan')):.2f} s run, "
          f"supersteps {' '.join(f'{s:.3f}' for s in its)}")

    import ray
    from ray.cluster_utils import Cluster

    import outcore.ray

    node = {"num_cpus": 1, "object_store_memory": a.object_store * 2**20}
    c = Cluster(initialize_head=True, head_node_args=node)
    for _ in range(a.nodes - 1):
        c.add_node(**node)
    c.wait_for_nodes()
    pkg = str(Path(outcore.ray.__file__).resolve().parents[2])
    ray.init(address=c.address, runtime_env={"env_vars": {"PYTHONPATH": pkg}},
             log_to_driver=False)
    try:
        for d in a.partitions:
            ps = outcore.ray.open(d)
            t = time.perf_counter()
            r = ps.pagerank(iterations=a.iterations, memory=a.memory, progress=False)
            wall = time.perf_counter() - t
            steps = r.stats["supersteps"]
            (out / f"ray-p{ps.parts}.json").write_text(json.dumps(r.stats, indent=1))
            m = ps.manifest()
            cross = m["balance"]["cross_edges"]
            ghosts = sum(sum(s["ghosts"]) for s in m["shards"])
            print(f"K = {ps.parts}: {wall:.2f} s wall (actors started, opened, run, values "
                  f"gathered), supersteps {sum(s['seconds'] for s in steps):.2f} s, "
                  f"cross-shard edges {cross}, ghosts (remote vertices per shard) {ghosts}")
            for s in steps:
                per = " ".join(f"{x['scatter_seconds']:.3f}+{x['apply_seconds']:.3f}"
                               for x in s["actors"])
                print(f"  step {s['step']}: {s['seconds']:.3f} s, {s['messages']} messages, "
                      f"{s['bytes'] / 2**20:.2f} MiB; per actor scatter+apply s: {per}")
    finally:
        ray.shutdown()
        c.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
