"""Parquet in and out through the CLI, with pyarrow as the oracle.

Inputs written by pyarrow with its defaults (snappy, dictionary pages)
import to the graph the same edges give as text; a Parquet input larger
than the budget imports inside it. Results written with `--out X.parquet`
(or `--out-format parquet`) read back with pyarrow equal the text results:
columns `id` (uint64, or string for a store of string ids) and `value`
(float64, int64, or labels as original ids).
"""

import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

BIN = os.environ.get("OUTCORE_BIN", str(Path(__file__).resolve().parents[2] / "target/release/outcore"))


def outcore(*args, cwd=None):
    r = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r


def text_values(path):
    """`id value` lines as {id: value-text}."""
    out = {}
    for line in Path(path).read_text().splitlines():
        k, v = line.split(" ")
        out[k] = v
    return out


def edges(n, m, seed):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = (src + rng.integers(1, n, m)) % n
    return src, dst, rng.random(m)


def test_pyarrow_parquet_imports_as_its_text_does_and_results_read_back(tmp_path):
    src, dst, w = edges(3000, 40_000, 1)
    pq.write_table(pa.table({"from": src.astype(np.int64), "to": dst.astype(np.int64), "w": w}),
                   tmp_path / "e.parquet", row_group_size=7000)
    (tmp_path / "e.txt").write_text("".join(f"{s} {d} {float(x)!r}\n" for s, d, x in zip(src, dst, w)))
    for name in ["e.parquet", "e.txt"]:
        outcore("import", tmp_path / name, "--weighted", "--out", tmp_path / f"{name}.oc")
    for algo, extra, kind in [("pagerank", [], pa.float64()), ("bfs", ["--source", src[0]], pa.int64()),
                              ("wcc", [], pa.uint64()), ("sssp", ["--source", src[0]], pa.float64())]:
        outs = {}
        for name in ["e.parquet", "e.txt"]:
            store = tmp_path / f"{name}.oc"
            outcore("run", algo, store, *extra, "--out", tmp_path / f"{algo}-{name}.txt")
            outcore("run", algo, store, *extra, "--out", tmp_path / f"{algo}-{name}.parquet")
            outs[name] = tmp_path / f"{algo}-{name}"
        # The same graph: the same text results from either import.
        want = text_values(f"{outs['e.txt']}.txt")
        assert text_values(f"{outs['e.parquet']}.txt") == want, algo
        for name in outs:
            t = pq.read_table(f"{outs[name]}.parquet")
            assert t.schema.field("id").type == pa.uint64(), algo
            assert t.schema.field("value").type == kind, algo
            ids = t.column("id").to_pylist()
            assert ids == sorted(int(k) for k in want), algo
            for i, v in zip(ids, t.column("value").to_pylist()):
                shown = want[str(i)]
                if kind == pa.float64():
                    assert math.isclose(v, float(shown), rel_tol=1e-14) or (math.isinf(v) and "inf" in shown), (algo, i)
                else:
                    assert v == int(shown), (algo, i)


def test_string_ids_come_out_as_strings(tmp_path):
    src, dst, _ = edges(500, 4000, 2)
    names = lambda a: [f"user-{x:x}" for x in a]
    pq.write_table(pa.table({"a": pa.array(names(src)).dictionary_encode(), "b": names(dst)}),
                   tmp_path / "s.parquet")
    outcore("import", tmp_path / "s.parquet", "--out", tmp_path / "s.oc")
    outcore("run", "wcc", tmp_path / "s.oc", "--out", tmp_path / "w.txt")
    # --out-format says it whatever the name.
    outcore("run", "wcc", tmp_path / "s.oc", "--out-format", "parquet", "--out", tmp_path / "w.out")
    t = pq.read_table(tmp_path / "w.out")
    assert t.schema.field("id").type == pa.string()
    assert t.schema.field("value").type == pa.string()
    want = text_values(tmp_path / "w.txt")
    assert dict(zip(t.column("id").to_pylist(), t.column("value").to_pylist())) == want
    assert t.column("id").to_pylist() == list(want)


def peak_rss_mib(err):
    return float(err.split("peak RSS ")[1].split(" MiB")[0])


def test_a_parquet_file_larger_than_the_budget_imports_inside_it(tmp_path):
    # 9 M random edges on 2^62 ids: 144 MB of incompressible columns, in
    # row groups of 1 Mi rows, against a budget of 128 MiB.
    m = 9_000_000
    rng = np.random.default_rng(3)
    src = rng.integers(0, 1 << 62, m, dtype=np.uint64)
    dst = rng.integers(0, 1 << 62, m, dtype=np.uint64)
    f = tmp_path / "big.parquet"
    pq.write_table(pa.table({"s": src, "t": dst}), f, compression="zstd", use_dictionary=False)
    assert f.stat().st_size > 128 << 20
    r = outcore("import", f, "--memory", "128MiB", "--out", tmp_path / "big.oc")
    assert f"from {m} input edges" in r.stderr, r.stderr
    mib = peak_rss_mib(r.stderr)
    assert 0 < mib <= 128 + 64, r.stderr


def test_duckdb_reads_the_results_and_answers_as_the_text_does(tmp_path):
    # The issue's own query: DuckDB reads `--out pr.parquet` directly, and
    # its top ten are the text result's top ten.
    duckdb = pytest.importorskip("duckdb")
    src, dst, _ = edges(2000, 30_000, 4)
    (tmp_path / "e.txt").write_text("".join(f"{s} {d}\n" for s, d in zip(src, dst)))
    outcore("import", tmp_path / "e.txt", "--out", tmp_path / "e.oc")
    outcore("run", "pagerank", tmp_path / "e.oc", "--out", tmp_path / "pr.txt")
    outcore("run", "pagerank", tmp_path / "e.oc", "--out", tmp_path / "pr.parquet")
    rows = duckdb.sql(f"SELECT * FROM '{tmp_path / 'pr.parquet'}' ORDER BY value DESC, id LIMIT 10").fetchall()
    want = sorted(((int(k), float(v)) for k, v in text_values(tmp_path / "pr.txt").items()),
                  key=lambda kv: (-kv[1], kv[0]))[:10]
    assert [r[0] for r in rows] == [k for k, _ in want]
    for (_, got), (_, exp) in zip(rows, want):
        assert math.isclose(got, exp, rel_tol=1e-14)
    # Types DuckDB sees: UBIGINT ids, DOUBLE values.
    types = dict(duckdb.sql(f"DESCRIBE SELECT * FROM '{tmp_path / 'pr.parquet'}'").fetchall()[i][:2] for i in range(2))
    assert types == {"id": "UBIGINT", "value": "DOUBLE"}


@pytest.mark.parametrize("strings", [False, True])
def test_query_answers_read_back_equal_the_text_answers(tmp_path, strings):
    src, dst, _ = edges(400, 3000, 3)
    name = (lambda x: f"v{x}") if strings else str
    (tmp_path / "e.txt").write_text("".join(f"{name(s)} {name(d)}\n" for s, d in zip(src, dst)))
    (tmp_path / "set.txt").write_text("".join(f"{name(v)}\n" for v in range(0, 400, 3)))
    outcore("import", tmp_path / "e.txt", "--out", tmp_path / "g.oc")
    kind = pa.string() if strings else pa.uint64()
    first = name(src[0])
    for q, extra, cols in [("khop", ["--source", first, "--hops", 2], ["id"]),
                           ("egonet", ["--source", first], ["source", "target"]),
                           ("induced", ["--vertices", tmp_path / "set.txt"], ["source", "target"]),
                           ("cross", ["--set-a", tmp_path / "set.txt", "--set-b", tmp_path / "set.txt"],
                            ["source", "target"])]:
        outcore("query", q, tmp_path / "g.oc", *extra, "--out", tmp_path / f"{q}.txt")
        outcore("query", q, tmp_path / "g.oc", *extra, "--out", tmp_path / f"{q}.parquet")
        outcore("query", q, tmp_path / "g.oc", *extra, "--out", tmp_path / f"{q}.pq",
                "--out-format", "parquet")
        want = [line.split(" ") for line in (tmp_path / f"{q}.txt").read_text().splitlines()]
        assert want, q
        for path in [f"{q}.parquet", f"{q}.pq"]:
            t = pq.read_table(tmp_path / path)
            assert t.schema.names == cols, q
            assert all(t.schema.field(c).type == kind for c in cols), q
            got = [[str(x) for x in row] for row in zip(*(t.column(c).to_pylist() for c in cols))]
            assert got == want, q


@pytest.mark.parametrize("strings", [False, True])
def test_kcore_out_parquet_reads_back_as_the_text_set(tmp_path, strings):
    src, dst, _ = edges(300, 3000, 4)
    name = (lambda x: f"v{x}") if strings else str
    (tmp_path / "e.txt").write_text("".join(f"{name(s)} {name(d)}\n" for s, d in zip(src, dst)))
    outcore("import", tmp_path / "e.txt", "--undirected", "--out", tmp_path / "g.oc")
    for out in ["core.txt", "core.parquet"]:
        outcore("run", "kcore", tmp_path / "g.oc", "--k", 12, "--kcore-out", tmp_path / out, "-q")
    want = (tmp_path / "core.txt").read_text().splitlines()
    assert 0 < len(want) < 300
    t = pq.read_table(tmp_path / "core.parquet")
    assert t.schema.names == ["id"]
    assert t.schema.field("id").type == (pa.string() if strings else pa.uint64())
    assert [str(x) for x in t.column("id").to_pylist()] == want


@pytest.mark.parametrize("strings", [False, True])
def test_export_parquet_reads_back_as_the_text_export_and_reimports(tmp_path, strings):
    # Integer ids, weighted, directed; string ids, unweighted.
    src, dst, w = edges(700, 6000, 5)
    name = (lambda x: f"v{x}") if strings else str
    weight = (lambda x: "") if strings else (lambda x: f" {float(x)!r}")
    (tmp_path / "e.txt").write_text("".join(f"{name(s)} {name(d)}{weight(x)}\n" for s, d, x in zip(src, dst, w)))
    flags = [] if strings else ["--weighted"]
    outcore("import", tmp_path / "e.txt", *flags, "--out", tmp_path / "g.oc")
    outcore("export", tmp_path / "g.oc", "--out", tmp_path / "x.txt")
    outcore("export", tmp_path / "g.oc", "--out", tmp_path / "x.parquet")
    outcore("export", tmp_path / "g.oc", "--out-format", "parquet", "--out", tmp_path / "x.pq")
    want = [line.split(" ") for line in (tmp_path / "x.txt").read_text().splitlines()]
    assert want
    cols = ["source", "target"] + ([] if strings else ["weight"])
    kind = pa.string() if strings else pa.uint64()
    for path in ["x.parquet", "x.pq"]:
        t = pq.read_table(tmp_path / path)
        assert t.schema.names == cols
        assert [t.schema.field(c).type for c in cols] == [kind, kind] + ([] if strings else [pa.float64()])
        got = list(zip(*(t.column(c).to_pylist() for c in cols)))
        assert len(got) == len(want)
        for g, x in zip(got, want):
            assert [str(g[0]), str(g[1])] == x[:2]
            if not strings:
                assert g[2] == float(x[2])
    # The Parquet export imports back to the store that exports the same text.
    outcore("import", tmp_path / "x.parquet", *flags, "--out", tmp_path / "h.oc")
    outcore("export", tmp_path / "h.oc", "--out", tmp_path / "y.txt")
    assert (tmp_path / "y.txt").read_text() == (tmp_path / "x.txt").read_text()


def test_export_parquet_to_stdout_reads_back_as_the_file(tmp_path):
    # The Parquet writer needs only a stream, not a seekable file.
    (tmp_path / "e.txt").write_text("1 2 0.5\n2 3 1.5\n3 1 2\n")
    outcore("import", tmp_path / "e.txt", "--weighted", "--out", tmp_path / "g.oc")
    outcore("export", tmp_path / "g.oc", "--out", tmp_path / "x.parquet")
    r = subprocess.run([BIN, "export", tmp_path / "g.oc", "--out", "-", "--out-format", "parquet"],
                       capture_output=True)
    assert r.returncode == 0, r.stderr
    got = pq.read_table(pa.BufferReader(r.stdout))
    assert got.equals(pq.read_table(tmp_path / "x.parquet"))
    assert got.column("weight").to_pylist() == [0.5, 1.5, 2.0]
