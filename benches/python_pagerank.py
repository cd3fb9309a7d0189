"""PageRank from Python (issue 11, item 5): on a Kronecker graph,
`nx.pagerank(G)` against `nx.pagerank(G, backend="outcore")` (conversion
and run timed apart) and `Store.pagerank` on an existing store, all to
NetworkX's stopping rule (L1 change < n * tol, tol = 1e-6), in one run.

    pip install . && python3 benches/python_pagerank.py            # scale 20
    SCALE=16 python3 benches/python_pagerank.py                     # quick

Prints one line per contender (seconds, speedup over NetworkX, largest
difference from NetworkX's ranks) to stdout; progress to stderr.
"""

import os
import subprocess
import sys
import tempfile
import time

import networkx as nx
import numpy as np

import outcore
from outcore.nx import BackendInterface

SCALE = int(os.environ.get("SCALE", "20"))
MEMORY = os.environ.get("MEMORY", "1GiB")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "outcore")


def note(msg):
    print(msg, file=sys.stderr, flush=True)


def main():
    tmp = tempfile.mkdtemp(prefix="outcore-bench-py-", dir=os.environ.get("BENCH_DIR"))
    edges = os.path.join(tmp, "k.bin32")
    if not os.path.exists(BIN):
        subprocess.run(["cargo", "build", "--release", "-p", "outcore-cli"], cwd=ROOT, check=True)
    subprocess.run([BIN, "-q", "generate", "kron", "--scale", str(SCALE), "--edges", edges,
                    "--edge-format", "bin32"], check=True)
    pairs = np.fromfile(edges, dtype=np.uint32).reshape(-1, 2)
    note(f"kron scale {SCALE}: {len(pairs)} edge samples; building the NetworkX graph")
    t = time.perf_counter()
    G = nx.Graph()
    G.add_edges_from(pairs.tolist())
    del pairs
    build_nx = time.perf_counter() - t
    n, m = G.number_of_nodes(), G.number_of_edges()
    note(f"NetworkX graph: {n} nodes, {m} edges in {build_nx:.1f}s; nx.pagerank")

    t = time.perf_counter()
    want = nx.pagerank(G)
    t_nx = time.perf_counter() - t

    nx.config.backends.outcore.memory = MEMORY
    nx.config.backends.outcore.tmp_dir = tmp
    note("converting to an outcore store")
    t = time.perf_counter()
    og = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1}, name="pagerank")
    t_conv = time.perf_counter() - t
    note("nx.pagerank(G, backend='outcore') on the converted graph")
    t = time.perf_counter()
    got = nx.pagerank(og, backend="outcore")
    t_run = time.perf_counter() - t

    note("Store.pagerank on an existing store (unweighted, LDBC)")
    store = outcore.open(og.store.path)
    t = time.perf_counter()
    r = store.pagerank(iterations=100, tol=n * 1e-6, memory=MEMORY, progress=False)
    t_store = time.perf_counter() - t
    by_node = {og.node(i): x for i, x in zip(r.ids.tolist(), r.values.tolist())}

    def diff(ranks):
        return max(abs(ranks[v] - want[v]) for v in want)

    print(f"kron scale {SCALE}: {n} nodes, {m} edges; memory {MEMORY}")
    print(f"nx.pagerank(G)                        {t_nx:8.2f} s  1.00x  (graph built in {build_nx:.1f} s)")
    print(f"backend='outcore': convert            {t_conv:8.2f} s")
    print(f"backend='outcore': run                {t_run:8.2f} s  {t_nx / t_run:5.2f}x  "
          f"max |diff| {diff(got):.1e}")
    print(f"backend='outcore': convert + run      {t_conv + t_run:8.2f} s  "
          f"{t_nx / (t_conv + t_run):5.2f}x")
    print(f"Store.pagerank (existing store)       {t_store:8.2f} s  {t_nx / t_store:5.2f}x  "
          f"max |diff| {diff(by_node):.1e}  ({r.iterations} iterations, engine {r.stats['engine']})")
    del og
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
