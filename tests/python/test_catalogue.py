"""Colouring, maximal independent set and random walks through Python,
checked by NetworkX: a colouring is proper, within max degree + 1 colours
and the same at any budget (not `greedy_color`'s: a parallel speculative
colouring, its own count); a set is
independent and maximal (`networkx.maximal_independent_set` through the
backend too); every step of a walk follows an edge, and the same seed gives
the same walks at any budget. Betweenness, hop counts and weighted, against
NetworkX's own."""

import random

import networkx as nx
import numpy as np
import pytest

import outcore


def random_graph(seed, directed, n=120, m=400):
    rng = random.Random(seed)
    ids = rng.sample(range(10 * n), n)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(ids)
    while g.number_of_edges() < m:
        u, v = rng.choice(ids), rng.choice(ids)
        if u != v:
            g.add_edge(u, v)
    return g


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", [1, 2])
def test_coloring_and_mis(tmp_path, directed, seed):
    g = random_graph(seed, directed)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    h = nx.Graph(g)
    c = s.coloring(seed=seed, progress=False)
    assert c.values.dtype == np.int64
    colors = c.to_dict()
    assert set(colors) == set(g)
    assert all(colors[u] != colors[v] for u, v in h.edges)
    k = max(colors.values()) + 1
    assert k <= max(d for _, d in h.degree) + 1
    assert c.summary.startswith(f"{k} colours")
    assert s.coloring(seed=seed, memory="16MiB", progress=False).to_dict() == colors

    m = s.mis(seed=seed, progress=False)
    inside = {v for v, x in m.to_dict().items() if x}
    assert set(m.values.tolist()) <= {0, 1}
    assert h.subgraph(inside).number_of_edges() == 0
    assert all(inside & set(h[v]) for v in set(h) - inside)


def test_maximal_independent_set_through_the_backend():
    g = nx.gnm_random_graph(300, 900, seed=4)
    s = set(nx.maximal_independent_set(g, backend="outcore"))
    assert g.subgraph(s).number_of_edges() == 0
    assert all(s & set(g[v]) for v in set(g) - s)


def test_random_walks_follow_edges(tmp_path):
    g = random_graph(7, True, n=60, m=300)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    out = tmp_path / "walks.txt"
    r = s.randomwalk(walks_per_vertex=3, length=8, seed=5, walks=out, progress=False)
    walks = [list(map(int, line.split())) for line in out.read_text().splitlines()]
    assert len(walks) == 3 * len(g)
    starts = sorted(v for v in g for _ in range(3))
    assert [w[0] for w in walks] == starts  # in walk-id order: by start
    for w in walks:
        assert len(w) == 9 or g.out_degree(w[-1]) == 0
        assert all(g.has_edge(a, b) for a, b in zip(w, w[1:]))
    visits = r.to_dict()
    counted = {v: 0 for v in g}
    for w in walks:
        for v in w:
            counted[v] += 1
    assert visits == counted
    again = tmp_path / "again.txt"
    s.randomwalk(walks_per_vertex=3, length=8, seed=5, walks=again, memory="16MiB",
                 progress=False)
    assert again.read_text() == out.read_text()
    # With restarts to a source, every walk starts there.
    src = next(iter(g))
    s.randomwalk(walks_per_vertex=20, length=5, seed=1, restart=0.3, source=src, walks=again,
                 progress=False)
    assert all(line.split()[0] == str(src) for line in again.read_text().splitlines())


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
def test_betweenness_matches_networkx(tmp_path, directed, normalized):
    g = random_graph(11 + directed, directed, n=70, m=200)
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    b = s.betweenness(normalized=normalized, progress=False)
    assert b.values.dtype == np.float64
    assert b.to_dict() == pytest.approx(nx.betweenness_centrality(g, normalized=normalized),
                                        rel=1e-9, abs=1e-12)
    src = sorted(g)[::7]
    sub = s.betweenness(sources=src, normalized=normalized, memory="8MiB", progress=False)
    want = nx.betweenness_centrality_subset(g, src, list(g), normalized=normalized)
    assert sub.to_dict() == pytest.approx(want, rel=1e-9, abs=1e-12)
    # Sampled sources: deterministic for a seed, at any budget and engine.
    a = s.betweenness(samples=8, seed=3, progress=False).to_dict()
    assert s.betweenness(samples=8, seed=3, engine="external", progress=False).to_dict() == \
        pytest.approx(a, rel=1e-12)


@pytest.mark.parametrize("directed", [False, True])
def test_weighted_betweenness_matches_networkx(tmp_path, directed):
    # Weights whose sums tie often, and 0.1 + 0.2 != 0.3 as f64 compares.
    g = random_graph(21 + directed, directed, n=60, m=180)
    rng = random.Random(5)
    for u, v in g.edges:
        g[u][v]["weight"] = rng.choice([1, 2, 3, 0.5, 0.1, 0.2, 0.3])
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    want = nx.betweenness_centrality(g, weight="weight")
    got = s.betweenness(weighted=True, normalized=True, memory="8MiB", progress=False)
    assert got.to_dict() == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert got.to_dict() != pytest.approx(nx.betweenness_centrality(g), rel=1e-9, abs=1e-12)
    # Through the backend, subset and all.
    assert nx.betweenness_centrality(g, weight="weight", backend="outcore") == \
        pytest.approx(want, rel=1e-9, abs=1e-12)
    src = sorted(g)[::5]
    assert nx.betweenness_centrality_subset(g, src, list(g), weight="weight", backend="outcore") == \
        pytest.approx(nx.betweenness_centrality_subset(g, src, list(g), weight="weight"),
                      rel=1e-9, abs=1e-12)
