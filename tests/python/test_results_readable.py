"""Results a person can read: unreachable depths and distances are missing
values in pandas (not 2**63 - 1 or inf), `to_numpy()` gives the values,
`source="max-degree"` records the vertex it chose, and `dir(outcore)` shows
the public API only."""

import networkx as nx
import numpy as np
import pytest

import outcore

UNREACHED = 2**63 - 1


@pytest.fixture(scope="module")
def graph_and_store(tmp_path_factory):
    # Two components and isolated vertices: much is unreachable from 0.
    g = nx.DiGraph()
    g.add_nodes_from(range(12))
    g.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 0.5), (0, 3, 4.0), (5, 6, 1.0), (6, 7, 1.0),
                               (7, 5, 3.0), (7, 8, 1.0), (7, 9, 1.0), (2, 0, 1.0)])
    s = outcore.from_networkx(g, tmp_path_factory.mktemp("r") / "g.oc", progress=False)
    return g, s


def test_unreachable_depths_are_missing_in_pandas(graph_and_store):
    g, s = graph_and_store
    pd = pytest.importorskip("pandas")
    r = s.bfs(0, progress=False)
    df = r.to_pandas()
    depth = nx.single_source_shortest_path_length(g, 0)
    assert str(df["value"].dtype) == "Int64"
    assert df["id"].tolist() == sorted(g)
    assert df["value"].isna().tolist() == [v not in depth for v in sorted(g)]
    assert df["value"].dropna().astype(int).tolist() == [depth[v] for v in sorted(depth)]
    assert int(df["value"].max()) == max(depth.values())
    assert df["value"].isna().sum() == len(g) - len(depth)
    assert isinstance(df, pd.DataFrame)


def test_unreachable_distances_are_nan_in_pandas(graph_and_store):
    g, s = graph_and_store
    r = s.sssp(0, progress=False)
    df = r.to_pandas()
    dist = nx.single_source_dijkstra_path_length(g, 0)
    assert df["value"].dtype == np.float64
    assert df["value"].isna().tolist() == [v not in dist for v in sorted(g)]
    assert not np.isinf(df["value"]).any()
    assert df["value"].dropna().tolist() == [dist[v] for v in sorted(dist)]


def test_results_without_sentinels_are_unchanged_in_pandas(graph_and_store):
    _, s = graph_and_store
    r = s.wcc(progress=False)
    df = r.to_pandas()
    assert df["value"].dtype == r.values.dtype and df["value"].tolist() == r.values.tolist()
    pr = s.pagerank(progress=False).to_pandas()
    assert pr["value"].dtype == np.float64 and not pr["value"].isna().any()


def test_to_numpy_gives_the_values(graph_and_store):
    _, s = graph_and_store
    b = s.bfs(0, progress=False)
    a = b.to_numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.int64
    assert np.array_equal(a, b.values)
    assert (a == UNREACHED).sum() == 12 - 4  # documented: 2**63 - 1 when unreachable
    d = s.sssp(0, progress=False).to_numpy()
    assert d.dtype == np.float64 and np.isinf(d).sum() == 8
    assert "2**63 - 1" in outcore.Result.to_numpy.__doc__ and "inf" in outcore.Result.to_numpy.__doc__


def test_top_leaves_out_the_unreached(graph_and_store):
    _, s = graph_and_store
    assert s.bfs(0, progress=False).top(3) == [(2, 2), (1, 1), (3, 1)]
    assert s.sssp(0, progress=False).top(2) == [(3, 4.0), (2, 2.5)]


def test_max_degree_source_is_recorded(graph_and_store):
    g, s = graph_and_store
    # The highest out-degree, the smallest id of those: 7 (out to 5, 8, 9).
    want = max(sorted(g), key=lambda v: g.out_degree(v))
    assert want == 7
    for method in ("bfs", "sssp"):
        r = getattr(s, method)("max-degree", progress=False)
        assert r.stats["source"] == want, method
        assert r.stats["parameters"]["source"] == "max-degree"
        assert r.to_dict() == getattr(s, method)(want, progress=False).to_dict()
        assert f"from {want}" in r.summary


def test_max_degree_source_maps_back_to_networkx_nodes(tmp_path):
    g = nx.Graph([("a", "b"), ("b", "c"), ("b", "d"), ("e", "f")])
    s = outcore.from_networkx(g, tmp_path / "g.oc", progress=False)
    r = s.bfs("max-degree", progress=False)
    assert r.stats["source"] == "b"
    assert r.to_dict()["b"] == 0


def test_dir_shows_the_public_api_only():
    names = dir(outcore)
    for private in ("np", "os", "Optional", "Any", "Union", "Iterable", "annotations",
                    "edge_arrays", "PathLike"):
        assert private not in names, private
    for public in outcore.__all__ + ["__version__", "errors"]:
        assert public in names, public
    assert all(hasattr(outcore, n) for n in names)
