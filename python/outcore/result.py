"""`Result`: one value per vertex of a run, as numpy arrays."""

from __future__ import annotations

from typing import Optional

import numpy as np

from ._checks import check_int

__all__ = ["Result", "Edges", "UNREACHED"]

#: The depth `bfs` gives a vertex it did not reach (i64::MAX).
UNREACHED = 2**63 - 1


def _unreached(algorithm: str, values: np.ndarray) -> Optional[np.ndarray]:
    """Where `values` hold the algorithm's mark for "not reached" (None when
    it has none): bfs depths of 2**63 - 1, sssp distances of inf."""
    if algorithm == "bfs" and values.dtype == np.int64:
        return values == UNREACHED
    if algorithm == "sssp" and values.dtype == np.float64:
        return np.isinf(values)
    return None


def _fmt(v) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


class Edges(np.ndarray):
    """The edges a query (`egonet`, `induced`, `cross`) gives: an (m, 2)
    numpy array of (source, target) rows, original ids (uint64, or objects
    for string ids or NetworkX nodes), with `to_pandas()`."""

    def to_pandas(self):
        """A pandas DataFrame with columns `source` and `target`, one row
        per edge, in the array's order."""
        import pandas as pd

        a = np.asarray(self).reshape(-1, 2)
        return pd.DataFrame({"source": a[:, 0], "target": a[:, 1]})


class Result:
    """One value per vertex, in ascending original id.

    Attributes:
        ids: original ids (numpy uint64; a numpy object array of str for a
            store of string ids, or of the nodes of a graph converted with
            `from_networkx`).
        values: numpy float64 for ranks, distances (inf when unreachable)
            and clustering coefficients; int64 for depths (2**63 - 1 when
            unreachable), core numbers and labels (a label is the original
            id of a vertex: the smallest of a WCC component).
        stats: the run's statistics, the dict `outcore run --stats` writes;
            `stats["source"]` is the source vertex of bfs, sssp and
            randomwalk (the one picked, for `source="max-degree"`).
        seconds: wall time of the run (without gathering the arrays).
        iterations: iterations done (pagerank, cdlp), else None.
        summary: the one line the CLI prints.
    """

    def __init__(self, algorithm: str, ids: np.ndarray, values: np.ndarray,
                 stats: dict, summary: str, seconds: float,
                 iterations: Optional[int]) -> None:
        self.algorithm = algorithm
        self.ids = ids
        self.values = values
        self.stats = stats
        self.summary = summary
        self.seconds = seconds
        self.iterations = iterations

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return (f"<outcore.Result {self.algorithm}: {len(self)} vertices, "
                f"{self.summary}, {self.seconds:.3f}s>")

    def _repr_html_(self) -> str:
        """Jupyter's view: the summary line, the run's figures and the top
        ten vertices as a table (escaped: string ids are user data)."""
        from html import escape

        seconds = f"{self.seconds:.3f} s"
        rows = "".join(f"<tr><td>{escape(str(i))}</td><td>{escape(_fmt(v))}</td></tr>"
                       for i, v in self.top(10))
        mem = self.stats.get("peak_rss_bytes") if isinstance(self.stats, dict) else None
        extra = f", peak RSS {mem / 2**20:.1f} MiB" if isinstance(mem, (int, float)) else ""
        return (f"<div class='outcore-result'><b>outcore {escape(self.algorithm)}</b>: "
                f"{len(self):,} vertices, {escape(self.summary)} ({seconds}{extra})"
                f"<table><thead><tr><th>id</th><th>value</th></tr></thead>"
                f"<tbody>{rows}</tbody></table>"
                f"<small>top {min(10, len(self))} by value; all values: to_pandas(), "
                f"to_arrow(), to_parquet(path); charts: report(path)</small></div>")

    @property
    def unreached(self) -> np.ndarray:
        """A bool array: True for the vertices a bfs or sssp did not reach
        (all False for the other algorithms)."""
        mask = _unreached(self.algorithm, self.values)
        return np.zeros(len(self.values), dtype=bool) if mask is None else mask

    def to_numpy(self) -> np.ndarray:
        """The values, a numpy array in the order of `ids` (not a copy).
        Vertices not reached keep the engines' marks: 2**63 - 1 in bfs's
        int64 depths, inf in sssp's float64 distances (`unreached` is the
        mask of them; `to_pandas()` shows them as missing values)."""
        return self.values

    def to_dict(self) -> dict:
        """{original id: value} with Python scalars (unreached vertices
        keep their marks, as in `to_numpy()`)."""
        return dict(zip(self.ids.tolist(), self.values.tolist()))

    def to_pandas(self):
        """A pandas DataFrame with columns `id` and `value`. Vertices not
        reached are missing values: `<NA>` in bfs's depths (a nullable
        "Int64" column), NaN in sssp's distances."""
        import pandas as pd

        values = self.values
        mask = _unreached(self.algorithm, values)
        if mask is not None and values.dtype == np.int64:
            values = pd.arrays.IntegerArray(values, mask)
        elif mask is not None:
            values = np.where(mask, np.nan, values)
        return pd.DataFrame({"id": self.ids, "value": values})

    def to_arrow(self):
        """A pyarrow Table with columns `id` (uint64, or string) and `value`,
        the columns `outcore run --out X.parquet` writes. Numeric columns
        share the numpy arrays' memory (which share the Rust buffers');
        vertices not reached are nulls, as in `to_pandas()`."""
        import pyarrow as pa

        ids = self.ids
        ids = pa.array(ids) if ids.dtype != object else pa.array(ids.tolist())
        mask = _unreached(self.algorithm, self.values)
        values = pa.array(self.values, mask=mask) if mask is not None and mask.any() \
            else pa.array(self.values)
        return pa.table({"id": ids, "value": values})

    def to_parquet(self, path, compression: str = "zstd") -> None:
        """Writes `to_arrow()` to the Parquet file `path` (as `outcore run
        --out X.parquet` does), for DuckDB, Polars, Spark or pandas."""
        import pyarrow.parquet as pq

        pq.write_table(self.to_arrow(), path, compression=compression)

    def to_polars(self):
        """A Polars DataFrame with columns `id` and `value` (from
        `to_arrow()`, without a copy); needs `pip install polars`."""
        try:
            import polars as pl
        except ImportError:
            raise ImportError("Result.to_polars() needs Polars: pip install polars") from None
        return pl.from_arrow(self.to_arrow())

    def report(self, path, *others: "Result") -> None:
        """Writes the HTML report `outcore run --report` writes: one
        self-contained page of charts (time per iteration, bytes read
        against the disk, engines, active vertices, memory, the result's
        distribution and top 20). Results in `others` are drawn side by
        side with this one, on shared scales (e.g. two budgets)."""
        import json
        import os

        from . import _outcore

        docs = []
        for i, r in enumerate((self,) + others):
            if not isinstance(r, Result):
                raise TypeError(f"Result.report: expected Results to compare, got {type(r).__name__}")
            budget = r.stats.get("memory_budget") if isinstance(r.stats, dict) else None
            name = f"{i + 1}. {r.algorithm}" + (
                f", budget {budget / 2**20:.0f} MiB" if isinstance(budget, (int, float)) else "")
            stats = dict(r.stats)
            res = stats.get("result")
            if isinstance(res, dict) and res.get("top") and res.get("shape") != "groups":
                # The ids as this Result holds them (a graph from NetworkX
                # names its nodes here, not in the store).
                top = [[str(i), _fmt(v)] for i, v in r.top(len(res["top"]))]
                stats["result"] = dict(res, top=top)
            docs.append((name, json.dumps(stats)))
        page = _outcore.report_html(docs)
        path = os.fspath(path)
        tmp = f"{path}.tmp{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(page)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    def top(self, k: int = 10) -> list:
        """The `k` vertices of largest value as (id, value) pairs, largest
        first (ties by ascending id); unreached vertices are left out."""
        k = check_int("top", "k", k, 0)
        keep = np.flatnonzero(~self.unreached)
        values = self.values[keep]
        order = keep[np.lexsort((keep, -values.astype(np.float64)))]
        return [(self.ids[i].item() if hasattr(self.ids[i], "item") else self.ids[i],
                 self.values[i].item()) for i in order[:k]]
