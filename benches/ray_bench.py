"""The programs over K shards of a partitioned store on a local multi-node
Ray cluster (`ray.cluster_utils.Cluster`), beside the single-machine run of
the store the partitions were made from (issue 54, item 5).

    PYTHONPATH=$PWD/target/python python3 benches/ray_bench.py \\
        STORE P1 P2 P4 --nodes 4 --memory 1GiB --out DIR \\
        [--algorithms pagerank,bfs,wcc,cdlp,kcore,sssp] [--iterations 10]

P1, P2, ... are `outcore partition STORE --parts K` directories. Every run
has the same per-worker budget (`--memory`: each shard's, and the single
machine's). For each (K, algorithm) it prints one line, and one line per
superstep with `--steps`:

- wall seconds (actors' open, the supersteps, gathering the values) and
  the supersteps' own seconds (sum, and the slowest);
- messages and bytes exchanged between shards, against the cross-shard
  edges (what an uncombined exchange would send) and the ghosts (remote
  vertices per shard: the bound for a combining program's messages per
  superstep, one per (shard, remote vertex));
- each worker's peak RSS above its RSS before its first run, against
  the budget + 64 MiB;
- the partition's balance (max/mean edges per shard).

Results are checked against the single-machine run (PageRank to 1e-9 in
max abs difference, the others exactly); a mismatch is an error. Each
run's stats JSON goes to DIR."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

MIB = 2**20


def _size(text: str) -> int:
    units = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
    for u, m in units.items():
        if text.endswith(u):
            return int(float(text[: -len(u)]) * m)
    return int(text)


def _kwargs(alg: str, a, source) -> dict:
    kw: dict = {"memory": a.memory}
    if alg in ("pagerank", "cdlp"):
        kw["iterations"] = a.iterations
    if alg in ("bfs", "sssp"):
        kw["source"] = source
    return kw


def _same(alg: str, one, many) -> str:
    """Empty when the distributed values equal the single machine's, else
    what differs."""
    if not np.array_equal(np.asarray(one.ids), np.asarray(many.ids)):
        return "ids differ"
    x, y = np.asarray(one.values), np.asarray(many.values)
    if alg == "pagerank":
        d = float(np.max(np.abs(x - y))) if len(x) else 0.0
        return "" if d <= 1e-9 else f"max abs difference {d:.3g}"
    eq = (x == y) | (np.isinf(x) & np.isinf(y)) if x.dtype.kind == "f" else x == y
    return "" if bool(np.all(eq)) else f"{int(np.sum(~eq))} values differ"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("store")
    p.add_argument("partitions", nargs="+")
    p.add_argument("--nodes", type=int, default=4)
    p.add_argument("--algorithms", default="pagerank,bfs,wcc,cdlp,kcore")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--memory", default="1GiB", help="each worker's budget")
    p.add_argument("--object-store", type=int, default=1024, help="MiB per node")
    p.add_argument("--steps", action="store_true", help="a line per superstep too")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    algs = [x for x in a.algorithms.split(",") if x]
    budget = _size(a.memory)

    import outcore

    single = outcore.open(a.store)
    if "sssp" in algs and not single.info()["weighted"]:
        print("sssp left out: the store is not weighted", file=sys.stderr)
        algs.remove("sssp")
    one = {}
    source = None
    for alg in algs:
        kw = _kwargs(alg, a, "max-degree" if alg in ("bfs", "sssp") else None)
        t = time.perf_counter()
        one[alg] = getattr(single, alg)(**kw, progress=False)
        wall = time.perf_counter() - t
        if alg in ("bfs", "sssp"):
            source = one[alg].stats["source"]
        (out / f"single-{alg}.json").write_text(json.dumps(one[alg].stats, indent=1))
        print(f"single machine {alg}: {wall:.2f} s wall, {one[alg].seconds:.2f} s run", flush=True)

    import ray
    from ray.cluster_utils import Cluster

    import outcore.ray

    node = {"num_cpus": 1, "object_store_memory": a.object_store * MIB}
    c = Cluster(initialize_head=True, head_node_args=node)
    for _ in range(a.nodes - 1):
        c.add_node(**node)
    c.wait_for_nodes()
    pkg = str(Path(outcore.ray.__file__).resolve().parents[2])
    ray.init(address=c.address, runtime_env={"env_vars": {"PYTHONPATH": pkg}},
             log_to_driver=False)
    bad = 0
    try:
        for d in a.partitions:
            with outcore.ray.open(d) as ps:
                m = ps.manifest()
            bal = m["balance"]
            cross = bal["cross_edges"]
            ghosts = sum(sum(s["ghosts"]) for s in m["shards"])
            print(f"K = {m['parts']}: balance max/mean edges {bal['max_over_mean']:.3f}, "
                  f"cross-shard edges {cross}, ghosts {ghosts}", flush=True)
            for alg in algs:
                # Fresh actors per run: their peak RSS is this run's.
                with outcore.ray.open(d) as ps:
                    kw = _kwargs(alg, a, source)
                    t = time.perf_counter()
                    try:
                        r = getattr(ps, alg)(**kw, progress=False)
                    except outcore.BudgetError as e:
                        print(f"  {alg}: does not run: {e}", flush=True)
                        continue
                    wall = time.perf_counter() - t
                (out / f"ray-p{m['parts']}-{alg}.json").write_text(json.dumps(r.stats, indent=1))
                steps = r.stats["supersteps"]
                msgs = sum(s["messages"] for s in steps)
                nbytes = sum(s["bytes"] for s in steps)
                top = max((s["messages"] for s in steps), default=0)
                rss = [(x["peak_rss_bytes"] - x.get("start_rss_bytes", 0))
                       for s in steps for x in s["actors"]]
                charged = [(x.get("state_bytes", 0), x.get("budget_peak_bytes", 0))
                           for s in steps for x in s["actors"]]
                diff = _same(alg, one[alg], r)
                bad += bool(diff)
                print(f"  {alg}: {wall:.2f} s wall, {len(steps)} supersteps "
                      f"{sum(s['seconds'] for s in steps):.2f} s (slowest "
                      f"{max((s['seconds'] for s in steps), default=0):.3f} s); "
                      f"{msgs} messages {nbytes / MIB:.1f} MiB, most in a superstep {top} "
                      f"({top / max(ghosts, 1):.2f} of the ghosts, {top / max(cross, 1):.3f} "
                      f"of the cross edges); peak RSS growth {max(rss, default=0) / MIB:.0f} "
                      f"MiB (budget + 64 MiB = {(budget + 64 * MIB) / MIB:.0f}); charged at "
                      f"most {max((c[1] for c in charged), default=0) / MIB:.1f} MiB, state "
                      f"{max((c[0] for c in charged), default=0) / MIB:.1f} MiB (max over the "
                      f"actors); "
                      f"{'SAME as' if not diff else 'DIFFERS from (' + diff + ')'} the "
                      f"single machine", flush=True)
                if a.steps:
                    for s in steps:
                        per = " ".join(f"{x['scatter_seconds']:.3f}+{x['apply_seconds']:.3f}"
                                       for x in s["actors"])
                        print(f"    step {s['step']}: {s['seconds']:.3f} s, {s['messages']} "
                              f"messages, {s['bytes'] / MIB:.2f} MiB; per actor "
                              f"scatter+apply s: {per}")
    finally:
        ray.shutdown()
        c.shutdown()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
