"""The Python API (`import outcore`) against NetworkX on random graphs, and
the Graphalytics examples through Python."""

import json
import math
import os
import random
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import outcore  # noqa: E402 (from this tree: see conftest.py)

GRAPHALYTICS = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "graphalytics"
UNREACHED = 2**63 - 1


def random_graph(seed, directed, n=80, m=200, big_ids=False, weighted=True):
    rng = random.Random(seed)
    ids = (list({rng.randrange(2**62, 2**64) for _ in range(n)}) if big_ids
           else rng.sample(range(10 * n), n))
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(ids)  # some stay isolated
    while g.number_of_edges() < m:
        u, v = rng.choice(ids), rng.choice(ids)
        if u != v:
            g.add_edge(u, v, weight=rng.choice([0.5, 1.0, 2.0, 3.25]) if weighted else 1.0)
    return g


def store_of(g, tmp_path, weighted=True, **kw):
    """The graph's store, built through an edge list file (import_edges)."""
    src = tmp_path / "g.txt"
    lines = [f"{u} {v} {d['weight']}\n" if weighted else f"{u} {v}\n"
             for u, v, d in g.edges(data=True)]
    # Isolated nodes are not in an edge list: from_networkx keeps them.
    src.write_text("".join(lines))
    return outcore.import_edges(src, tmp_path / "g.oc", directed=g.is_directed(),
                                weighted=weighted, progress=False, force=True, **kw)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("big_ids", [True, False])
def test_algorithms_match_networkx(tmp_path, directed, big_ids):
    g = random_graph(3 + directed + 2 * big_ids, directed, big_ids=big_ids)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    assert (s.num_vertices, s.num_edges, s.directed, s.weighted) == (
        g.number_of_nodes(), g.number_of_edges(), directed, True)
    nodes = sorted(g)

    pr = s.pagerank(iterations=100, tol=1e-12, progress=False)
    assert pr.ids.dtype == np.uint64 and pr.values.dtype == np.float64
    assert pr.ids.tolist() == nodes and pr.ids.shape == (len(nodes),)
    expect = nx.pagerank(g, weight=None, tol=1e-14, max_iter=1000)
    assert pr.to_dict() == pytest.approx(expect, abs=1e-9)
    wpr = s.pagerank(iterations=100, tol=1e-12, weighted=True, progress=False)
    assert wpr.to_dict() == pytest.approx(nx.pagerank(g, tol=1e-14, max_iter=1000), abs=1e-9)

    w = s.wcc(progress=False)
    assert w.values.dtype == np.int64 or w.values.dtype == np.uint64
    comps = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    assert w.to_dict() == {v: min(c) for c in comps for v in c}

    src = next(iter(g.edges))[0]
    b = s.bfs(src, progress=False)
    assert b.values.dtype == np.int64
    depth = nx.single_source_shortest_path_length(g, src)
    assert b.to_dict() == {v: depth.get(v, UNREACHED) for v in nodes}

    d = s.sssp(src, progress=False)
    dist = nx.single_source_dijkstra_path_length(g, src)
    assert d.to_dict() == pytest.approx({v: dist.get(v, math.inf) for v in nodes})

    h = nx.Graph(g)
    assert s.kcore(progress=False).to_dict() == nx.core_number(h)
    if not directed:
        assert s.lcc(progress=False).to_dict() == pytest.approx(nx.clustering(g))
    tri = s.triangles(progress=False)
    assert tri.values.dtype == np.int64
    assert tri.to_dict() == nx.triangles(nx.Graph(g))
    assert tri.summary == f"{sum(nx.triangles(nx.Graph(g)).values()) // 3} triangles"
    labels = s.cdlp(iterations=5, progress=False)
    assert set(labels.values.tolist()) <= set(nodes) and labels.iterations == 5

    # Queries, in original ids.
    within = nx.single_source_shortest_path_length(g, src, cutoff=2)
    assert s.khop(src, hops=2).tolist() == sorted(within)
    ego = s.egonet(src, hops=1)
    assert ego.dtype == np.uint64 and ego.ndim == 2 and ego.shape[1] == 2
    sub = g.subgraph(nx.single_source_shortest_path_length(g, src, cutoff=1))
    as_set = {tuple(e) for e in ego.tolist()}
    assert as_set == {e if directed else tuple(sorted(e)) for e in sub.edges}
    some = nodes[:30]
    assert {tuple(e) for e in s.induced(some).tolist()} == {
        e if directed else tuple(sorted(e)) for e in g.subgraph(some).edges}
    a, bset = nodes[:40], nodes[20:]
    want = {(u, v) for u, v in g.edges if u in a and v in bset}
    if not directed:
        want |= {(v, u) for u, v in g.edges if v in a and u in bset}
        want = {(u, v) for u, v in want if not (u in bset and v in a) or u <= v}
    assert {tuple(e) for e in s.cross(a, bset).tolist()} == want


def test_result_helpers(tmp_path):
    g = random_graph(11, False, n=30, m=60)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    r = s.pagerank(progress=False)
    top = r.top(3)
    assert len(top) == 3 and top[0][1] == r.values.max()
    assert [x for _, x in top] == sorted(r.values.tolist(), reverse=True)[:3]
    assert r.iterations == 10 and r.seconds >= 0 and r.stats["algorithm"] == "pagerank"
    assert "peak_rss_bytes" in r.stats and len(r) == 30
    assert r.stats["command"] == "run" and r.stats["parameters"]["iterations"] == 10
    pd = pytest.importorskip("pandas")
    df = r.to_pandas()
    assert list(df.columns) == ["id", "value"] and len(df) == 30
    assert isinstance(df, pd.DataFrame)
    info = s.info()
    assert info["vertices"] == 30 and info["edges"] == 60 and not info["directed"]
    assert s.verify()["files"] > 0


def test_import_options_and_string_ids(tmp_path):
    csv = tmp_path / "people.csv"
    csv.write_text('src;dst;w\n"ann lee";bob;2\nbob;cy;1\ncy;"ann lee";0.5\n')
    s = outcore.import_edges(csv, tmp_path / "p.oc", header=True, delimiter=";",
                             columns="src,dst,w", weighted=True, progress=False)
    assert s.weighted and s.info()["string_ids"]
    r = s.sssp("bob", progress=False)
    assert r.ids.tolist() == ["ann lee", "bob", "cy"]
    assert r.to_dict() == {"ann lee": 1.5, "bob": 0.0, "cy": 1.0}
    assert s.wcc(progress=False).to_dict() == {v: "ann lee" for v in ["ann lee", "bob", "cy"]}
    assert s.khop("bob", hops=1).tolist() == ["bob", "cy"]


def test_from_networkx_maps_any_nodes_back(tmp_path):
    g = nx.Graph([("a", (1, 2)), ((1, 2), 3.5), ("x", "y")])
    g.add_node(frozenset({1}))
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    assert s.num_vertices == 6
    w = s.wcc(progress=False).to_dict()
    assert w[(1, 2)] == w[3.5] == w["a"] and w["x"] == w["y"] and w[frozenset({1})] == frozenset({1})
    b = s.bfs("a", progress=False).to_dict()
    assert b == {"a": 0, (1, 2): 1, 3.5: 2, "x": UNREACHED, "y": UNREACHED, frozenset({1}): UNREACHED}
    assert sorted(map(str, s.khop((1, 2)).tolist())) == sorted(map(str, ["a", (1, 2), 3.5]))


def test_generate(tmp_path):
    s = outcore.generate("grid", tmp_path / "g.oc", rows=4, cols=5, weighted=True, progress=False)
    assert (s.num_vertices, s.num_edges, s.directed) == (20, 31, False)
    with pytest.raises(outcore.InputError, match="rmat"):
        outcore.generate("kron", tmp_path / "k.oc", scale=4, a=0.5, progress=False)


@pytest.mark.parametrize("name,directed", [("example-directed", True),
                                           ("example-undirected", False)])
def test_graphalytics_examples(tmp_path, name, directed):
    if not GRAPHALYTICS.is_dir():
        pytest.skip("../shared/data/graphalytics is missing")
    props = {}
    for line in (GRAPHALYTICS / f"{name}.properties").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            props[k.strip().replace(f"graph.{name}.", "")] = v.strip()
    s = outcore.import_edges([GRAPHALYTICS / f"{name}.v", GRAPHALYTICS / f"{name}.e"],
                             tmp_path / "g.oc", format="ldbc", directed=directed,
                             weighted=True, progress=False)

    def expected(alg):
        out = {}
        for line in (GRAPHALYTICS / f"{name}-{alg}").read_text().split("\n"):
            if line:
                v, x = line.split()
                out[int(v)] = float(x)
        return out

    runs = {
        "BFS": s.bfs(int(props["bfs.source-vertex"]), progress=False),
        "WCC": s.wcc(progress=False),
        "CDLP": s.cdlp(iterations=int(props["cdlp.max-iterations"]), progress=False),
        "PR": s.pagerank(iterations=int(props["pr.num-iterations"]),
                         damping=float(props["pr.damping-factor"]), progress=False),
        "SSSP": s.sssp(int(props["sssp.source-vertex"]), progress=False),
        "LCC": s.lcc(progress=False),
    }
    for alg, r in runs.items():
        want = expected(alg)
        assert r.to_dict() == pytest.approx(want, rel=1e-4), alg


def test_errors_are_python_exceptions(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\n3 x\n")
    with pytest.raises(outcore.InputError, match=r"bad\.txt.*2") as e:
        outcore.import_edges(bad, tmp_path / "b.oc", progress=False)
    assert isinstance(e.value, ValueError)
    assert not (tmp_path / "b.oc").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.txt"]
    with pytest.raises(outcore.StoreError, match="no such store"):
        outcore.open(tmp_path / "nothing.oc")
    g = random_graph(5, True, n=50, m=100)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    with pytest.raises(outcore.BudgetError, match="raise memory="):
        s.pagerank(memory="1KiB", progress=False)
    with pytest.raises(outcore.InputError, match="not in the graph"):
        s.bfs(10**15, progress=False)
    with pytest.raises(outcore.InputError, match="unknown engine"):
        s.wcc(engine="warp", progress=False)
    # A corrupted store is detected, never read into a wrong result.
    victim = next(p for p in Path(s.path).rglob("*") if p.is_file() and p.stat().st_size > 64
                  and p.name != "manifest.json")
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0x10
    victim.write_bytes(bytes(data))
    with pytest.raises(outcore.StoreError):
        outcore.open(s.path).verify()


def test_memory_as_text_and_engines(tmp_path):
    g = random_graph(9, False, n=60, m=150)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    base = s.pagerank(progress=False).values
    for engine in ["stream", "select", "external"]:
        r = s.pagerank(engine=engine, memory="64MiB", progress=False)
        assert r.stats["engine"].startswith(engine) or engine in r.stats["engine"]
        np.testing.assert_allclose(r.values, base, atol=1e-12)


@pytest.mark.parametrize("directed", [True, False])
def test_bfs_order_through_the_api(tmp_path, directed):
    """order="bfs" (Cuthill-McKee) reaches the build; results stay NetworkX's."""
    g = random_graph(11 + directed, directed)
    g.remove_nodes_from(list(nx.isolates(g)))  # not in an edge list
    s = store_of(g, tmp_path, weighted=False, order="bfs", compress=True)
    manifest = json.loads((tmp_path / "g.oc" / "manifest.json").read_text())
    assert manifest["vertex_order"] == "bfs"
    comps = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    assert s.wcc(progress=False).to_dict() == {v: min(c) for c in comps for v in c}
    src = next(iter(g.edges))[0]
    depth = nx.single_source_shortest_path_length(g, src)
    assert s.bfs(src, progress=False).to_dict() == {v: depth.get(v, UNREACHED) for v in g}
    pr = s.pagerank(iterations=100, tol=1e-12, progress=False)
    assert pr.to_dict() == pytest.approx(nx.pagerank(g, weight=None, tol=1e-14, max_iter=1000), abs=1e-9)
