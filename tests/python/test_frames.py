"""DataFrames, Arrow data and numpy arrays into `outcore.import_edges`.

Every kind of input (pandas with integer, string and categorical ids,
Polars, a pyarrow Table, RecordBatchReader and Dataset of Parquet files,
numpy arrays in a dict or a tuple; weighted or not, directed or not)
builds, byte for byte, the store its edges build from a text file (every
file but the manifest's timings and input description); a stream the build
reads twice (ids past 2**32 seen late) too. Nulls name column and row, a
missing column lists the columns there are, and a query's edges come out
of `to_pandas()` as the edges.
"""

import json
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import outcore
from outcore.errors import InputError

pl = pytest.importorskip("polars")

MEMORY = "128MiB"


def store_files(path):
    """{relative path: bytes} of a store, the manifest's timings, checksum
    and input description left out."""
    out = {}
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, path)
            data = open(p, "rb").read()
            if rel == "manifest.json":
                m = json.loads(data)
                for k in ("seconds", "created_unix", "source", "format"):
                    m["build"].pop(k, None)
                m.pop("checksum", None)
                data = json.dumps(m, sort_keys=True).encode()
            out[rel] = data
    return out


def edges(n=3000, m=150_000, seed=7):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m).astype(np.int64)
    dst = rng.integers(0, n, m).astype(np.int64)
    return src, dst, rng.random(m).round(6)


def text_store(tmp_path, src, dst, w, weighted, directed):
    """The store of the edges written as text."""
    lines = (f"{s} {d} {x!r}\n" if weighted else f"{s} {d}\n" for s, d, x in zip(src, dst, w.tolist()))
    txt = tmp_path / "edges.txt"
    txt.write_text("".join(lines))
    g = outcore.import_edges(txt, tmp_path / "text.oc", weighted=weighted, directed=directed,
                             memory=MEMORY, progress=False)
    return store_files(g.path)


def frames(src, dst, w, tmp_path):
    """Every input kind holding the edges in columns src/dst/w."""
    df = pd.DataFrame({"src": src, "dst": dst, "w": w, "other": np.arange(len(src))})
    table = pa.table({"src": src, "dst": dst, "w": w})
    data = tmp_path / "dataset"
    data.mkdir()
    third = len(src) // 3
    for i in range(3):
        part = table.slice(i * third, third if i < 2 else len(src) - 2 * third)
        pq.write_table(part, data / f"part-{i}.parquet", row_group_size=20_000)
    return {
        "pandas": lambda: df,
        "polars": lambda: pl.from_pandas(df),
        "table": lambda: table,
        "reader": lambda: pa.RecordBatchReader.from_batches(table.schema, table.to_batches(30_000)),
        "dataset": lambda: pads.dataset(data, format="parquet"),
        "dict": lambda: {"src": src, "dst": dst, "w": w},
    }


@pytest.mark.parametrize("weighted,directed", [(True, True), (False, False)])
def test_each_input_kind_builds_the_store_of_its_text(tmp_path, weighted, directed):
    src, dst, w = edges()
    want = text_store(tmp_path, src, dst, w, weighted, directed)
    cols = dict(source="src", target="dst", weight="w" if weighted else None)
    for kind, make in frames(src, dst, w, tmp_path).items():
        g = outcore.import_edges(make(), tmp_path / f"{kind}.oc", directed=directed,
                                 memory=MEMORY, progress=False, **cols)
        assert g.weighted == weighted and g.directed == directed, kind
        assert store_files(g.path) == want, kind
    arrays = (src, dst, w) if weighted else (src, dst)
    g = outcore.import_edges(arrays, tmp_path / "tuple.oc", directed=directed, memory=MEMORY,
                             progress=False)
    assert store_files(g.path) == want
    # NetworkX's from_pandas_edgelist names: edge_attr as the weight.
    if weighted:
        df = pd.DataFrame({"source": src, "target": dst, "cost": w})
        g = outcore.import_edges(df, tmp_path / "nx.oc", edge_attr="cost", directed=directed,
                                 memory=MEMORY, progress=False)
        assert store_files(g.path) == want
    # Nothing left beside the stores (the spill of the stream is gone).
    assert not [p for p in os.listdir(tmp_path) if "outcore-stream" in p]


@pytest.mark.parametrize("kind", ["str", "categorical", "polars", "numpy"])
def test_string_ids_build_the_store_of_their_text(tmp_path, kind):
    src, dst, w = edges(500, 20_000, 3)
    name = np.array([f"user-{i:x}" for i in range(500)], dtype=object)
    s, d = name[src], name[dst]
    (tmp_path / "e.txt").write_text("".join(f"{a} {b} {x!r}\n" for a, b, x in zip(s, d, w.tolist())))
    want = store_files(outcore.import_edges(tmp_path / "e.txt", tmp_path / "text.oc", weighted=True,
                                            directed=False, memory=MEMORY, progress=False).path)
    df = pd.DataFrame({"source": s, "target": d, "weight": w})
    data = {
        "str": df,
        "categorical": df.astype({"source": "category", "target": "category"}),
        "polars": pl.from_pandas(df),
        "numpy": (s.astype(str), d.astype(str), w),
    }[kind]
    g = outcore.import_edges(data, tmp_path / "f.oc", weighted=True, directed=False,
                             memory=MEMORY, progress=False)
    assert store_files(g.path) == want
    assert g.pagerank().to_dict() == outcore.open(tmp_path / "text.oc").pagerank().to_dict()


def test_a_stream_read_twice_replays_what_it_read(tmp_path):
    # Ids past 2**32 seen only in the last batch: the build reads the
    # first batches as 32-bit ids, then starts over with wider ones, the
    # stream's batches read so far coming back from the spill.
    src, dst, w = edges()
    src[-10:] += 2**40
    want = text_store(tmp_path, src, dst, w, True, True)
    reader = pa.RecordBatchReader.from_batches(
        pa.schema([("source", pa.int64()), ("target", pa.int64()), ("weight", pa.float64())]),
        pa.table({"source": src, "target": dst, "weight": w}).to_batches(40_000))
    g = outcore.import_edges(reader, tmp_path / "r.oc", weighted=True, memory=MEMORY,
                             progress=False)
    assert store_files(g.path) == want


def test_nulls_name_the_column_and_row(tmp_path):
    src, dst, _ = edges(100, 100_000, 1)
    df = pd.DataFrame({"source": pd.array(src, dtype="Int64"), "target": pd.array(dst, dtype="Int64")})
    df.loc[70_001, "target"] = pd.NA
    with pytest.raises(InputError, match=r"pandas DataFrame: row 70001 .*null vertex id in column `target`"):
        outcore.import_edges(df, tmp_path / "n.oc", memory=MEMORY, progress=False)
    names = pd.DataFrame({"source": ["a", None, "c"], "target": ["b", "c", "a"]})
    with pytest.raises(InputError, match=r"row 1 .*null vertex id in column `source`"):
        outcore.import_edges(names, tmp_path / "n.oc", memory=MEMORY, progress=False)
    neg = pl.DataFrame({"source": [1, 2, -3], "target": [2, 3, 1]})
    with pytest.raises(InputError, match=r"Polars DataFrame: row 2 .*negative vertex id -3 in column `source`"):
        outcore.import_edges(neg, tmp_path / "n.oc", memory=MEMORY, progress=False)
    # pandas keeps an integer column with a missing value as float64.
    nan = pd.DataFrame({"source": [1, 2, None], "target": [2, 3, 1]})
    with pytest.raises(InputError, match=r"column `source` \(Float64\) cannot hold .*nullable Int64 dtype"):
        outcore.import_edges(nan, tmp_path / "n.oc", memory=MEMORY, progress=False)
    assert not os.path.exists(tmp_path / "n.oc")
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]


def test_a_missing_column_lists_the_columns_there_are(tmp_path):
    df = pd.DataFrame({"a": [1, 2], "b": [2, 3]})
    with pytest.raises(InputError, match=r"no column `source`; its columns are: a \(int64\), b \(int64\)"):
        outcore.import_edges(df, tmp_path / "m.oc", progress=False)
    t = pa.table({"from": [1, 2], "to": [2, 3]})
    with pytest.raises(InputError, match=r"no column `w`; its columns are: from \(int64\), to \(int64\)"):
        outcore.import_edges(t, tmp_path / "m.oc", source="from", target="to", weight="w",
                             progress=False)
    with pytest.raises(InputError, match="applies to files"):
        outcore.import_edges(t, tmp_path / "m.oc", header=True, progress=False)
    with pytest.raises(InputError, match="one weight per edge"):
        outcore.import_edges(t, tmp_path / "m.oc", edge_attr=["a", "b"], progress=False)


def test_query_edges_to_pandas(tmp_path):
    src, dst, _ = edges(60, 300, 5)
    g = outcore.import_edges(pd.DataFrame({"source": src, "target": dst}), tmp_path / "q.oc",
                             directed=False, progress=False)
    want = {(min(s, d), max(s, d)) for s, d in zip(src.tolist(), dst.tolist())}
    for got in [g.induced(range(60)), g.egonet(int(src[0]), hops=60)]:
        df = got.to_pandas()
        assert list(df.columns) == ["source", "target"]
        assert set(zip(df["source"].tolist(), df["target"].tolist())) == want
        assert len(df) == len(want)
    some = sorted(set(src[:5].tolist()))
    df = g.induced(some).to_pandas()
    assert set(zip(df["source"], df["target"])) == {e for e in want if e[0] in some and e[1] in some}
