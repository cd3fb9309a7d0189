"""Every function the NetworkX backend dispatches gives plain NetworkX's
answer on a weighted graph, whatever `weight` names: None, the default, or
another attribute ("cost"); on a fresh graph and on one whose converted
store NetworkX has cached from an earlier call with another `weight`.
Sampled betweenness (`k`, `seed`) uses NetworkX's sources; arguments outcore
cannot run itself (personalization, weighted clustering, a seeded MIS) still
give NetworkX's answer with `backend="outcore"`."""

import random

import networkx as nx
import pytest

import outcore  # noqa: F401 (the backend's entry point is outcore.nx)
from outcore import nx as backend

nx.config.warnings_to_ignore.add("cache")

BC = dict(rel=1e-9, abs=1e-12)  # test_catalogue.py's betweenness tolerance
PR = dict(abs=1e-6)  # test_cancel_and_backend.py's pagerank tolerance


def weighted_graph(directed, seed=7, n=200, m=800):
    """A seeded random graph whose edges carry a float `weight` and an
    integer `cost` (so that `weight`, `cost` and hops all rank differently)."""
    rng = random.Random(seed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    while g.number_of_edges() < m:
        u, v = rng.randrange(n), rng.randrange(n)
        if u != v:
            g.add_edge(u, v, weight=rng.uniform(0.1, 10.0), cost=rng.randint(1, 20))
    return g


DEFAULT = object()  # call without `weight`: the function's own default


def call(f, g, *args, weight=DEFAULT, **kw):
    if weight is not DEFAULT:
        kw["weight"] = weight
    return f(g, *args, **kw)


def both(f, g, *args, **kw):
    """(the backend's answer, NetworkX's), the backend run twice: on `g`
    itself (NetworkX's cache of converted graphs, filled by earlier calls
    with other weights) and on a fresh copy; both must agree."""
    want = call(f, g, *args, **kw)
    cached = call(f, g, *args, backend="outcore", **kw)
    fresh = call(f, g.copy(), *args, backend="outcore", **kw)
    return cached, fresh, want


WEIGHTS = [DEFAULT, None, "weight", "cost"]


@pytest.mark.parametrize("directed", [False, True])
def test_every_function_honours_weight_as_networkx(directed):
    g = weighted_graph(directed)
    src = 0
    for w in WEIGHTS:
        cached, fresh, want = both(nx.pagerank, g, weight=w)
        assert cached == pytest.approx(want, **PR) and fresh == pytest.approx(want, **PR), w
        cached, fresh, want = both(nx.single_source_dijkstra_path_length, g, src, weight=w)
        assert cached == pytest.approx(want, rel=1e-12) and fresh == pytest.approx(want, rel=1e-12), w
        assert [type(x) for x in cached.values()] == [type(x) for x in want.values()], w
        cached, fresh, want = both(nx.betweenness_centrality, g, weight=w)
        assert cached == pytest.approx(want, **BC) and fresh == pytest.approx(want, **BC), w
        subset = sorted(g)[::9]
        cached, fresh, want = both(nx.betweenness_centrality_subset, g, subset, list(g), weight=w)
        assert cached == pytest.approx(want, **BC) and fresh == pytest.approx(want, **BC), w
        cached, fresh, want = both(nx.single_source_shortest_path_length, g, src)
        assert cached == want and fresh == want
        if directed:
            for f in (nx.weakly_connected_components, nx.number_weakly_connected_components):
                cached, fresh, want = both(f, g)
                if f is nx.weakly_connected_components:
                    cached, fresh, want = (sorted(map(sorted, x)) for x in (cached, fresh, want))
                assert cached == want and fresh == want, f
        else:
            for f in (nx.connected_components, nx.number_connected_components):
                cached, fresh, want = both(f, g)
                if f is nx.connected_components:
                    cached, fresh, want = (sorted(map(sorted, x)) for x in (cached, fresh, want))
                assert cached == want and fresh == want, f
            for f in (nx.core_number, nx.triangles):
                cached, fresh, want = both(f, g)
                assert cached == want and fresh == want, f
            cached, fresh, want = both(nx.clustering, g, weight=w)
            assert cached == pytest.approx(want, rel=1e-12) and fresh == pytest.approx(want, rel=1e-12), w
            mis = set(nx.maximal_independent_set(g, backend="outcore"))
            assert g.subgraph(mis).number_of_edges() == 0
            assert all(mis & set(g[v]) for v in set(g) - mis)


@pytest.mark.parametrize("directed", [False, True])
def test_weight_none_is_hops_and_runs_on_outcore(directed):
    """weight=None ranks by hops even where every edge has a `weight`
    (the reported case: pagerank up to 30% off), and it runs on outcore's
    engines, not on NetworkX's code."""
    g = weighted_graph(directed, seed=3)
    for name in ("pagerank", "single_source_dijkstra_path_length", "betweenness_centrality",
                 "betweenness_centrality_subset"):
        args = {"pagerank": (g,), "single_source_dijkstra_path_length": (g, 0),
                "betweenness_centrality": (g,),
                "betweenness_centrality_subset": (g, [0, 1, 2], list(g))}[name]
        for w in (None, "weight", "cost"):
            assert backend.native(name, args, {"weight": w}) is True, (name, w)
    got = nx.pagerank(g, weight=None, backend="outcore")
    want = nx.pagerank(g, weight=None)
    worst = max(abs(got[v] - want[v]) / want[v] for v in g)
    assert worst < 1e-3, worst


def test_backend_priority_dispatch_honours_weight():
    g = weighted_graph(True, seed=5, n=120, m=500)
    was = list(nx.config.backend_priority.algos)
    nx.config.backend_priority.algos = ["outcore"]
    try:
        for w in (None, "weight", "cost"):
            assert nx.pagerank(g, weight=w) == pytest.approx(
                nx.pagerank(g, weight=w, backend="networkx"), **PR), w
            assert nx.single_source_dijkstra_path_length(g, 0, weight=w) == pytest.approx(
                nx.single_source_dijkstra_path_length(g, 0, weight=w, backend="networkx")), w
    finally:
        nx.config.backend_priority.algos = was


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("weight", [None, "cost"])
def test_sampled_betweenness_uses_networkx_sources(directed, normalized, weight):
    """k and seed: NetworkX samples `random.Random(seed).sample(list(G), k)`
    (its py_random_state); the backend runs outcore from those very sources
    and scales as NetworkX does, so the answer is NetworkX's."""
    g = weighted_graph(directed, seed=11, n=150, m=600)
    for k, seed in [(20, 3), (1, 4), (149, 0), (150, 2)]:
        kw = dict(k=k, seed=seed, normalized=normalized, weight=weight)
        if k != len(g):
            assert backend.native("betweenness_centrality", (g,), kw) is True
        got = nx.betweenness_centrality(g, backend="outcore", **kw)
        want = nx.betweenness_centrality(g, **kw)
        assert got == pytest.approx(want, nan_ok=True, **BC), (k, seed)
    # A random.Random passed as seed is drawn from as NetworkX draws from it.
    got = nx.betweenness_centrality(g, k=30, seed=random.Random(9), backend="outcore")
    assert got == pytest.approx(nx.betweenness_centrality(g, k=30, seed=random.Random(9)), **BC)


def test_what_outcore_cannot_run_still_gives_networkx_answer():
    g = weighted_graph(False, seed=2, n=100, m=300)
    pers = {v: (v % 7) + 1 for v in g}
    assert nx.pagerank(g, personalization=pers, backend="outcore") == pytest.approx(
        nx.pagerank(g, personalization=pers), **PR)
    assert nx.clustering(g, weight="cost", backend="outcore") == pytest.approx(
        nx.clustering(g, weight="cost"))
    assert nx.maximal_independent_set(g, seed=3, backend="outcore") == \
        nx.maximal_independent_set(g, seed=3)
    assert nx.betweenness_centrality(g, endpoints=True, backend="outcore") == pytest.approx(
        nx.betweenness_centrality(g, endpoints=True), **BC)
    d = nx.DiGraph(g)
    assert nx.core_number(d, backend="outcore") == nx.core_number(d)
    m = nx.MultiGraph(g)
    assert nx.pagerank(m, backend="outcore") == pytest.approx(nx.pagerank(m), **PR)
    for name, args, kw in [("pagerank", (g,), {"personalization": pers}),
                           ("clustering", (g,), {"weight": "cost"}),
                           ("core_number", (d,), {})]:
        assert isinstance(backend.native(name, args, kw), str), name
