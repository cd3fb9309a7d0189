"""Updates (`Store.update`, `add_edges`, `remove_edges`, `outcore update`)
against NetworkX: after an update the store answers as the NetworkX graph
does after `remove_edges_from` then `add_edges_from` (vertices that lose
their edges stay; absent removals are counted, not errors)."""

import json
import math
import os
import random
import subprocess
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import outcore  # noqa: E402 (from this tree: see conftest.py)
from outcore.errors import BudgetError, InputError

BIN = os.environ.get("OUTCORE_BIN", str(Path(__file__).resolve().parents[2] / "target/release/outcore"))


def graph(seed, directed, n=60, m=150):
    rng = random.Random(seed)
    ids = rng.sample(range(10 * n), n)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(ids)
    while g.number_of_edges() < m:
        g.add_edge(rng.choice(ids), rng.choice(ids), weight=rng.choice([0.5, 1.0, 2.0]))
    return g, ids, rng


def edits(g, ids, rng):
    """(adds, removes, absent): weighted additions (new edges, new vertices,
    reweighted held edges) and removals (held edges, some reversed, and
    absent ones)."""
    held = list(g.edges)
    adds = [(rng.choice(ids), 10_000 + rng.randrange(20), 4.0) for _ in range(10)]
    adds += [(u, v, 7.5) for u, v in rng.sample(held, 10)]
    adds += [(rng.choice(ids), rng.choice(ids), 3.0) for _ in range(10)]
    removes = [(v, u) if rng.random() < 0.5 and not g.is_directed() else (u, v)
               for u, v in rng.sample(held, 25)]
    absent = [(20_000 + i, ids[0]) for i in range(4)]
    return adds, removes + absent, len(absent)


def same_answers(s, g):
    assert (s.num_vertices, s.num_edges) == (g.number_of_nodes(), g.number_of_edges())
    pr = s.pagerank(iterations=100, tol=1e-12, weighted=True, progress=False)
    want = nx.pagerank(g, tol=1e-14, max_iter=1000, weight="weight")
    assert pr.to_dict() == pytest.approx(want, abs=1e-9)
    # The triangle listing (triangles, LCC) reads the delta too.
    simple = nx.Graph(g)
    simple.remove_edges_from(nx.selfloop_edges(simple))
    assert s.triangles(progress=False).to_dict() == nx.triangles(simple)
    if not g.is_directed():
        assert s.lcc(progress=False).to_dict() == pytest.approx(nx.clustering(simple), abs=1e-12)
    comps = nx.weakly_connected_components(g) if g.is_directed() else nx.connected_components(g)
    assert s.wcc(progress=False).to_dict() == {v: min(c) for c in comps for v in c}
    src = max(g, key=g.degree)
    dist = nx.single_source_dijkstra_path_length(g, src)
    assert s.sssp(src, progress=False).to_dict() == pytest.approx(
        {v: dist.get(v, math.inf) for v in g})


@pytest.mark.parametrize("directed", [True, False])
def test_update_with_arrays_matches_networkx(tmp_path, directed):
    g, ids, rng = graph(5 + directed, directed)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    adds, removes, absent = edits(g, ids, rng)
    counts = s.update(add=tuple(np.array(c) for c in zip(*adds)),
                      remove=tuple(np.array(c) for c in zip(*removes)), progress=False)
    g.remove_edges_from(removes)
    g.add_weighted_edges_from(adds)
    assert counts["removals_absent"] == absent
    assert counts["additions_read"] == len(adds)
    assert (counts["vertices"], counts["edges"]) == (g.number_of_nodes(), g.number_of_edges())
    same_answers(s, g)
    # One at a time, through add_edges/remove_edges (unweighted arrays
    # weigh 1.0), and a store opened again sees the same.
    s.add_edges(np.array([ids[1]]), np.array([ids[2]]), progress=False)
    s.remove_edges(np.array([ids[3], 99_999]), np.array([ids[4], 99_998]), progress=False)
    g.add_edge(ids[1], ids[2], weight=1.0)
    if g.has_edge(ids[3], ids[4]):
        g.remove_edge(ids[3], ids[4])
    same_answers(outcore.open(s.path), g)
    assert s.verify()["files"] > 0


def test_an_update_too_big_for_the_delta_rewrites_the_store(tmp_path):
    """Batches beyond the budget: additions (a stream of arrays, read again
    from its spill) that the delta cannot hold at `memory` rewrite the
    store; with compact=False they are refused and the store kept."""
    s = outcore.import_edges((np.arange(100), np.arange(1, 101)), tmp_path / "g.oc",
                             directed=False, progress=False)
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 300_000, 2_000_000), rng.integers(0, 300_000, 2_000_000)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    with pytest.raises(BudgetError, match="without --no-compact"):
        s.add_edges(src, dst, memory=160 << 20, compact=False, progress=False)
    assert (s.num_edges, s.info()["delta"]) == (100, None)
    counts = s.add_edges(src, dst, memory=160 << 20, progress=False)
    assert (counts["delta"], counts["compacted"]) == (False, True)
    assert "rewrote the store" in counts["compaction"]
    pairs = np.concatenate([np.stack([np.minimum(src, dst), np.maximum(src, dst)], 1),
                            np.stack([np.arange(100), np.arange(1, 101)], 1)])
    want = len(np.unique(pairs, axis=0))
    assert counts["edges"] == want
    assert outcore.open(s.path).num_edges == want


@pytest.mark.parametrize("compact", [True, False])
def test_update_string_ids_from_frames(tmp_path, compact):
    frame = pd.DataFrame({"source": ["ann", "bob", "cy", "dee"], "target": ["bob", "cy", "dee", "ann"]})
    s = outcore.import_edges(frame, tmp_path / "g.oc", directed=False, progress=False)
    counts = s.update(add=pd.DataFrame({"source": ["eve", "ann"], "target": ["ann", "cy"]}),
                      remove=pd.DataFrame({"source": ["cy", "zed"], "target": ["bob", "ann"]}),
                      compact=compact, progress=False)
    assert (counts["removed"], counts["removals_absent"]) == (1, 1)
    assert (counts["delta"], counts["compacted"]) == (True, compact)
    assert (s.info()["delta"] is None) == compact
    g = nx.Graph([("ann", "bob"), ("cy", "dee"), ("dee", "ann"), ("eve", "ann"), ("ann", "cy")])
    assert s.wcc(progress=False).to_dict() == {v: "ann" for v in g}
    assert s.bfs("eve", progress=False).to_dict() == nx.single_source_shortest_path_length(g, "eve")


@pytest.mark.parametrize("directed", [True, False])
def test_updates_land_in_the_delta_and_answer_as_networkx(tmp_path, directed):
    """The policy from Python: updates stay in the delta below `compact_at`
    (or with `compact=False`), a store opened with a delta answers as the
    updated NetworkX graph, an update past the fraction compacts, and
    `compact()` merges what is left."""
    g, ids, rng = graph(21 + directed, directed, n=80, m=400)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    adds, removes, absent = edits(g, ids, rng)
    # Arrays, weighted, kept whatever the size.
    c = s.add_edges(*(np.array(x) for x in zip(*adds)), compact=False, progress=False)
    g.add_weighted_edges_from(adds)
    assert (c["delta"], c["compacted"], c["generation"]) == (True, False, 1)
    assert c["delta_fraction"] == pytest.approx(s.info()["delta"]["fraction"])
    same_answers(outcore.open(s.path), g)
    # A path, under a threshold the delta stays below.
    rm = tmp_path / "rm.txt"
    rm.write_text("".join(f"{u} {v}\n" for u, v in removes))
    c = s.remove_edges(rm, compact_at=0.9, progress=False)
    g.remove_edges_from(removes)
    assert (c["delta"], c["compacted"], c["removals_absent"]) == (True, False, absent)
    info = s.info()["delta"]
    assert (info["generation"], info["compaction_due"]) == (2, info["fraction"] >= 0.1)
    same_answers(s, g)
    assert s.verify()["files"] > 0
    assert s.compact(progress=False) is True
    assert s.info()["delta"] is None
    same_answers(s, g)
    assert s.compact(progress=False) is False
    # The default fraction: one edge stays in the delta, a batch past a
    # tenth of the base compacts.
    c = s.add_edges(np.array([ids[0]]), np.array([ids[1]]), np.array([2.5]), progress=False)
    g.add_edge(ids[0], ids[1], weight=2.5)
    assert (c["delta"], c["compacted"]) == (True, False)
    held = list(g.edges)[: g.number_of_edges() // 8]
    c = s.remove_edges(*(np.array(x) for x in zip(*held)), progress=False)
    g.remove_edges_from(held)
    assert (c["delta"], c["compacted"]) == (True, True), c
    assert s.info()["delta"] is None
    same_answers(s, g)
    with pytest.raises(InputError, match="compact-at"):
        s.add_edges(np.array([ids[0]]), np.array([ids[1]]), compact_at=-1.0, progress=False)


def test_ids_of_the_other_kind_are_refused(tmp_path):
    s = outcore.import_edges((np.array([1, 2]), np.array([2, 3])), tmp_path / "g.oc", progress=False)
    with pytest.raises(InputError, match="this store's vertex ids are integers"):
        s.add_edges(np.array(["a"]), np.array(["b"]), progress=False)
    assert s.num_vertices == 3


def test_cli_update_equals_an_import_of_the_updated_list(tmp_path):
    g, ids, rng = graph(11, False)
    g.remove_nodes_from(list(nx.isolates(g)))
    base = tmp_path / "base.txt"
    base.write_text("".join(f"{u} {v} {d['weight']}\n" for u, v, d in g.edges(data=True)))
    store = tmp_path / "g.oc"
    run = lambda *a, **kw: subprocess.run([BIN, *map(str, a)], capture_output=True, text=True, **kw)
    assert run("import", base, "--undirected", "--weighted", "--out", store).returncode == 0
    adds, removes, absent = edits(g, ids, rng)
    # One vertex loses every edge (and gets none added).
    lone = min((v for v in g if v not in {x for e in adds for x in e[:2]}), key=g.degree)
    removes += list(g.edges(lone))
    (tmp_path / "rm.txt").write_text("".join(f"{u} {v}\n" for u, v in removes))
    stats = tmp_path / "stats.json"
    r = run("update", store, "--remove", tmp_path / "rm.txt", "--add", "-", "--stats", stats,
            input="".join(f"{u} {v} {w}\n" for u, v, w in adds))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and "absent" in r.stderr
    j = json.loads(stats.read_text())
    assert (j["command"], j["removals_absent"]) == ("update", absent)
    g.remove_edges_from(removes)
    g.add_weighted_edges_from(adds)
    # Vertices that lost every edge stay in the store, not in an edge list.
    kept = list(nx.isolates(g))
    want = tmp_path / "want.txt"
    want.write_text("".join(f"{u} {v} {d['weight']}\n" for u, v, d in g.edges(data=True)))
    assert run("import", want, "--undirected", "--weighted", "--out", tmp_path / "w.oc").returncode == 0
    ex = lambda p: sorted(run("export", p, "--out", "-").stdout.splitlines())
    assert ex(store) == ex(tmp_path / "w.oc")
    info = json.loads(run("info", store, "--json").stdout)
    assert kept and info["vertices"] == g.number_of_nodes()
    # A bad line in an added list: a clear error, and the store unchanged.
    (tmp_path / "bad.txt").write_text("1 2 1.0\nthree 4 1.0\n")
    before = ex(store)
    r = run("update", store, "--add", tmp_path / "bad.txt")
    assert r.returncode != 0 and "bad.txt:2" in r.stderr and "store's vertex ids are integers" in r.stderr, r.stderr
    assert ex(store) == before
    assert run("verify", store).returncode == 0
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]
