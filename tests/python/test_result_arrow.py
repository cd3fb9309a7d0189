"""Results as Arrow, Parquet and Polars: `Result.to_arrow()` has the columns
`outcore run --out X.parquet` writes (`id`, `value`), shares the numeric
arrays' memory, gives unreached vertices as nulls; `to_parquet` reads back
equal; `to_polars` equals `to_pandas`. NetworkX is the oracle for depths and
distances."""

from html import escape

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import outcore


@pytest.fixture(scope="module")
def graph_and_store(tmp_path_factory):
    g = nx.DiGraph()
    g.add_nodes_from(range(10))
    g.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 0.5), (0, 3, 4.0), (5, 6, 1.0), (6, 7, 1.0),
                               (7, 5, 3.0), (2, 0, 1.0)])
    s = outcore.from_networkx(g, tmp_path_factory.mktemp("a") / "g.oc", progress=False)
    return g, s


def test_arrow_columns_share_memory_with_the_values(graph_and_store):
    g, s = graph_and_store
    r = s.pagerank(progress=False)
    t = r.to_arrow()
    assert t.column_names == ["id", "value"]
    assert t.schema.field("id").type == pa.uint64() and t.schema.field("value").type == pa.float64()
    assert t.column("id").to_pylist() == sorted(g)
    assert t.column("value").to_pylist() == r.values.tolist()
    assert r.values.sum() == pytest.approx(1.0)
    # No copy of the values: Arrow's buffer is the numpy array's.
    buf = t.column("value").chunk(0).buffers()[1]
    assert buf.address == r.values.ctypes.data


def test_unreached_vertices_are_nulls(graph_and_store):
    g, s = graph_and_store
    depth = nx.single_source_shortest_path_length(g, 0)
    t = s.bfs(0, progress=False).to_arrow()
    assert t.schema.field("value").type == pa.int64()
    assert t.column("value").to_pylist() == [depth.get(v) for v in sorted(g)]
    dist = nx.single_source_dijkstra_path_length(g, 0)
    t = s.sssp(0, progress=False).to_arrow()
    assert t.column("value").to_pylist() == [dist.get(v) for v in sorted(g)]


def test_parquet_reads_back_equal(graph_and_store, tmp_path):
    _, s = graph_and_store
    r = s.wcc(progress=False)
    r.to_parquet(tmp_path / "wcc.parquet")
    back = pq.read_table(tmp_path / "wcc.parquet")
    assert back.equals(r.to_arrow())
    assert back.column("value").to_pylist() == r.values.tolist()


def test_string_ids_are_strings(tmp_path):
    g = nx.Graph([("a", "b"), ("b", "c"), ("x", "y")])
    s = outcore.from_networkx(g, tmp_path / "s.oc", progress=False)
    t = s.wcc(progress=False).to_arrow()
    assert t.schema.field("id").type == pa.string()
    assert t.column("id").to_pylist() == s.wcc(progress=False).ids.tolist()


def test_polars_equals_pandas(graph_and_store):
    pl = pytest.importorskip("polars")
    _, s = graph_and_store
    r = s.bfs(0, progress=False)
    df = r.to_polars()
    assert isinstance(df, pl.DataFrame) and df.columns == ["id", "value"]
    pd_df = r.to_pandas()
    assert df["id"].to_list() == pd_df["id"].tolist()
    pd = pytest.importorskip("pandas")
    assert df["value"].to_list() == [None if pd.isna(v) else v for v in pd_df["value"].tolist()]


def test_jupyter_shows_the_summary_and_the_top_ten_escaped(tmp_path):
    g = nx.Graph([("<b>", "x"), ("x", "y"), ("y", "<b>"), ("y", "z")])
    s = outcore.from_networkx(g, tmp_path / "h.oc", progress=False)
    r = s.pagerank(progress=False)
    html = r._repr_html_()
    assert r.summary in html and "<table>" in html
    assert "&lt;b&gt;" in html and "<b><" not in html.replace("<b>outcore", "")
    cells = [f"<tr><td>{escape(str(i))}</td>" for i, _ in r.top(10)]
    at = [html.index(c) for c in cells]
    assert len(cells) == 4 and at == sorted(at), "every vertex, largest first"
