"""`outcore run pagerank --weighted` against networkx.pagerank on random
weighted digraphs and graphs (self-loops, dangling vertices, zero weights),
to 1e-9; and the default (unweighted, LDBC) PageRank against
networkx.pagerank(weight=None)."""

import os
import random
import subprocess
from pathlib import Path

import networkx as nx
import pytest

BIN = os.environ.get("OUTCORE_BIN", str(Path(__file__).resolve().parents[2] / "target/release/outcore"))


def outcore(*args):
    r = subprocess.run([BIN, "--quiet", *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def graph(seed, directed):
    rng = random.Random(seed)
    n = rng.randrange(2, 200)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    for _ in range(rng.randrange(1, 4 * n)):
        u, v = rng.randrange(n), rng.randrange(n)
        w = rng.choice([0.0, 0.5, 1.0, 2.5, rng.random() * 10])
        g.add_edge(u, v, weight=w)
    return g


def ranks(tmp, g, weighted, memory="64MiB"):
    src = tmp / "g.txt"
    # Every vertex appears (isolated ones as self-loop-free lines are not
    # possible in an edge list, so the graphs keep them through --vertices).
    src.write_text("".join(f"{u} {v} {d['weight']!r}\n" for u, v, d in g.edges(data=True)))
    store = tmp / "g.oc"
    outcore("import", src, "--weighted", "--out", store, "--force",
            "--directed" if g.is_directed() else "--undirected")
    out = tmp / "pr.txt"
    args = ["run", "pagerank", store, "--iterations", "1000", "--tol", "1e-15", "--out", out,
            "--memory", memory]
    if weighted:
        args.append("--weighted")
    outcore(*args)
    return {int(a): float(b) for a, b in (l.split() for l in out.read_text().splitlines())}


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("directed", [True, False])
def test_weighted_pagerank_matches_networkx(tmp_path, seed, directed):
    g = graph(seed, directed)
    g.remove_nodes_from([v for v in list(g) if g.degree(v) == 0])
    got = ranks(tmp_path, g, weighted=True)
    want = nx.pagerank(g, alpha=0.85, weight="weight", tol=1e-15, max_iter=10000)
    assert set(got) == set(want)
    for v in want:
        assert abs(got[v] - want[v]) <= 1e-9, (v, got[v], want[v])


def test_weighted_needs_a_weighted_store(tmp_path):
    src = tmp_path / "g.txt"
    src.write_text("1 2\n2 3\n")
    store = tmp_path / "g.oc"
    outcore("import", src, "--out", store)
    r = subprocess.run([BIN, "run", "pagerank", str(store), "--weighted"], capture_output=True, text=True)
    assert r.returncode == 1 and "--weighted" in r.stderr
