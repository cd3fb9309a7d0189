"""`Store`: an on-disk graph and every algorithm and query on it. Results
come back as `Result`s (one value per vertex, numpy arrays)."""

from __future__ import annotations

import json
import os
import time
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

from . import _checks, _outcore
from ._updates import Updates
from .result import Edges, Result

Size = Union[int, str, None]
Vertex = Union[int, str]

__all__ = ["Store", "Result", "Size", "Vertex"]

# Options every algorithm takes besides its own (the engines'), and those
# of the queries.
_RUN_OPTIONS = ("memory", "engine", "io", "segment", "segments", "cache", "depth", "tmp_dir",
                "progress")
_QUERY_OPTIONS = ("memory", "io", "depth")


class Store(Updates):
    """An outcore store: a graph on disk, checked, read through a memory
    budget. Open one with `outcore.open(path)`; `import_edges`, `generate`
    and `from_networkx` build one.

    Every algorithm takes `memory` (the budget: bytes or text such as
    "1GiB"; default half of RAM), `engine` ("auto", "stream", "select" or
    "external"; auto picks the external engine when the vertex state does
    not fit the budget), `progress` (progress on stderr; default True) and
    the CLI's engine options (`io`, `segment`, `segments`, `cache`,
    `depth`, `tmp_dir`). The GIL is released while the engines run, and
    Ctrl-C cancels a run cleanly (KeyboardInterrupt, no file left behind).
    """

    def __init__(self, path: Union[str, os.PathLike], _nodes: Optional[Sequence] = None) -> None:
        self._raw = _outcore.RawStore(os.fspath(path))
        # from_networkx with nodes that are not integers: id i is _nodes[i].
        self._nodes = None
        if _nodes is not None:
            self._nodes = np.empty(len(_nodes), dtype=object)
            self._nodes[:] = list(_nodes)
            self._index = {v: i for i, v in enumerate(_nodes)}

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"<outcore.Store {self.path}: {self.num_vertices} vertices, {self.num_edges} edges, {kind}>"

    @property
    def path(self) -> str:
        """The store's directory."""
        return os.fspath(self._raw.path)

    @property
    def num_vertices(self) -> int:
        return self._raw.num_vertices

    @property
    def num_edges(self) -> int:
        """Stored edges (an undirected edge counts once)."""
        return self._raw.num_edges

    @property
    def directed(self) -> bool:
        return self._raw.directed

    @property
    def weighted(self) -> bool:
        return self._raw.weighted

    def info(self) -> dict:
        """What `outcore info --json` shows: counts, layouts, degrees, size."""
        return json.loads(self._raw.info_json())

    def verify(self) -> dict:
        """Recomputes every checksum and structural invariant; raises
        StoreError naming the broken file. Returns {"files", "bytes"} checked."""
        files, nbytes = self._raw.verify()
        return {"files": files, "bytes": nbytes}

    # --- ids -------------------------------------------------------------

    def _id_text(self, v: Vertex) -> str:
        if self._nodes is not None:
            if v not in self._index:
                from .errors import InputError

                raise InputError(f"vertex {v!r} is not in the graph")
            return str(self._index[v])
        if isinstance(v, (bool, float)):
            raise TypeError(f"a vertex id is an int or a str, not {type(v).__name__}")
        return str(int(v)) if isinstance(v, (int, np.integer)) else str(v)

    def _ids_out(self, ids):
        if self._nodes is not None:
            return self._nodes[np.asarray(ids, dtype=np.int64)]
        if isinstance(ids, np.ndarray):
            return ids
        return np.array(ids, dtype=object)

    def _texts_out(self, texts: list) -> np.ndarray:
        if self._nodes is not None:
            return self._nodes[np.array([int(t) for t in texts], dtype=np.int64)]
        if self._raw.string_ids:
            return np.array(texts, dtype=object)
        return np.array([int(t) for t in texts], dtype=np.uint64)

    # --- algorithms ------------------------------------------------------

    def _run(self, algorithm: str, **kw: Any) -> Result:
        # The method's own arguments and the engines' options, checked.
        _checks.known(algorithm, getattr(Store, algorithm), kw, _RUN_OPTIONS)
        kw = _checks.check(algorithm, kw)
        asked = dict(kw)
        picked = None
        if kw.get("source") is not None:
            s = kw["source"]
            if isinstance(s, str) and s == "max-degree":
                # Resolved here, so that the Result says which vertex it was.
                kw["source"] = self._raw.max_degree_vertex()
                picked = self._texts_out([kw["source"]])[0]
                picked = picked.item() if isinstance(picked, np.generic) else picked
            else:
                kw["source"] = self._id_text(s)
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        ids, values, stats, summary, seconds, iterations = self._raw.run(algorithm, **kw)
        # What was run, as `outcore run --stats` records it.
        stats = json.loads(stats)
        stats.update(command="run", outcore_version=_outcore.__version__, started_at=started,
                     store=self.path, parameters=dict(asked, algorithm=algorithm))
        if asked.get("source") is not None:
            stats["source"] = asked["source"] if picked is None else picked
        if picked is not None:
            summary = f"{summary}, from {picked!r} (highest degree)" if isinstance(
                picked, str) else f"{summary}, from {picked} (highest degree)"
        ids = self._ids_out(ids)
        if isinstance(values, list) or (algorithm in ("wcc", "cdlp") and self._nodes is not None):
            values = self._ids_out(values)
        return Result(algorithm, ids, values, stats, summary, seconds, iterations)

    def pagerank(self, iterations: int = 10, damping: float = 0.85, tol: Optional[float] = None,
                 weighted: bool = False, memory: Size = None, engine: str = "auto",
                 **options: Any) -> Result:
        """PageRank (LDBC Graphalytics; `weighted=True`: NetworkX's, the
        transition probability proportional to edge weight). Stops after
        `iterations`, or earlier once an iteration changes the ranks by less
        than `tol` (L1)."""
        return self._run("pagerank", iterations=iterations, damping=damping, tol=tol,
                         weighted=weighted, memory=memory, engine=engine, **options)

    def bfs(self, source: Vertex, memory: Size = None, engine: str = "auto", **options: Any) -> Result:
        """Hop depth from `source` (an original id, or "max-degree": the
        vertex of highest out-degree, the smallest id of several, which
        `stats["source"]` names) along out-edges; 2**63 - 1 for vertices
        not reached (missing values in `to_pandas()`)."""
        return self._run("bfs", source=source, memory=memory, engine=engine, **options)

    def wcc(self, memory: Size = None, engine: str = "auto", **options: Any) -> Result:
        """Weakly connected components: each vertex's label is the smallest
        original id of its component."""
        return self._run("wcc", memory=memory, engine=engine, **options)

    def sssp(self, source: Vertex, delta: Optional[float] = None, memory: Size = None,
             engine: str = "auto", **options: Any) -> Result:
        """Shortest-path distances from `source` (an original id, or
        "max-degree" as for `bfs`) along weighted out-edges (the store must
        be weighted; `bfs` counts hops); inf when unreachable (NaN in
        `to_pandas()`). `delta`: delta-stepping's bucket width (> 0)."""
        return self._run("sssp", source=source, delta=delta, memory=memory, engine=engine,
                         **options)

    def kcore(self, memory: Size = None, engine: str = "auto", **options: Any) -> Result:
        """Core numbers (direction and self-loops ignored, as
        `networkx.core_number` on the undirected simple graph)."""
        return self._run("kcore", memory=memory, engine=engine, **options)

    def cdlp(self, iterations: int = 10, memory: Size = None, **options: Any) -> Result:
        """Community detection by label propagation (LDBC Graphalytics,
        synchronous): each label is the original id of a vertex."""
        return self._run("cdlp", iterations=iterations, memory=memory, **options)

    def lcc(self, memory: Size = None, **options: Any) -> Result:
        """Local clustering coefficient (LDBC Graphalytics; undirected: as
        `networkx.clustering`)."""
        return self._run("lcc", memory=memory, **options)

    def triangles(self, memory: Size = None, **options: Any) -> Result:
        """Triangles each vertex is a corner of, in the simple undirected
        graph underneath (direction, duplicates and self-loops ignored), as
        `networkx.triangles`; int64. The summary gives the total."""
        return self._run("triangles", memory=memory, **options)

    def coloring(self, seed: int = 0, memory: Size = None, **options: Any) -> Result:
        """A proper colouring of the simple undirected graph underneath
        (speculative colouring with conflict repair in synchronous rounds,
        Gebremedhin-Manne / Boman et al.; conflicts go to the
        largest-log-degree-first priority, random within a class, fixed by
        `seed`; not NetworkX's sequential greedy_color); colours are int64
        from 0, at most max degree + 1 of them (the summary says how many)."""
        return self._run("coloring", seed=seed, memory=memory, **options)

    def mis(self, seed: int = 0, memory: Size = None, **options: Any) -> Result:
        """A maximal independent set of the simple undirected graph
        underneath (Luby; priorities fixed by `seed`): 1 for the vertices in
        the set, 0 for the others."""
        return self._run("mis", seed=seed, memory=memory, **options)

    def randomwalk(self, walks_per_vertex: int = 1, length: int = 10, seed: int = 0,
                   restart: float = 0.0, source: Optional[Vertex] = None,
                   walks: Optional[str] = None, memory: Size = None, **options: Any) -> Result:
        """Random walks along out-edges: `walks_per_vertex` walks of
        `length` steps from each vertex (from `source` only, when given).
        With `restart`, each step restarts with that probability (to
        `source`: personalised PageRank; else to a uniform random vertex:
        visits sample PageRank with damping 1 - restart). Values: visits per
        vertex (int64, starts included). `walks`: a file to write the walks
        to, one per line, original ids space-separated."""
        return self._run("randomwalk", walks_per_vertex=walks_per_vertex, length=length,
                         seed=seed, restart=restart, source=source,
                         walks=None if walks is None else os.fspath(walks),
                         memory=memory, **options)

    def betweenness(self, sources: Optional[Iterable[Vertex]] = None,
                    samples: Optional[int] = None, seed: int = 0, normalized: bool = False,
                    weighted: bool = False, memory: Size = None, engine: str = "auto",
                    **options: Any) -> Result:
        """Betweenness centrality (Brandes, endpoints excluded), as NetworkX
        computes and scales it: from every vertex (`betweenness_centrality`),
        from `samples` sources sampled by `seed` (its `k`), or from the given
        `sources` (`betweenness_centrality_subset` to all targets). Paths are
        counted in hops, or with `weighted=True` by total edge weight
        (Dijkstra order, NetworkX's `weight=`; on the external engine)."""
        options.update(normalized=normalized, weighted=weighted, memory=memory, engine=engine)
        if samples is not None and _checks.check_int("betweenness", "samples", samples, 1) > (
                n := self.num_vertices):
            raise ValueError(f"betweenness(): samples must be between 1 and the {n} vertices, "
                             f"got {samples}")
        if sources is not None:
            sources = list(sources)
            if not sources:
                raise ValueError("betweenness(): sources is empty; give at least one vertex, "
                                 "or None for every vertex")
        if sources is None:
            return self._run("betweenness", samples=samples, seed=seed, **options)
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("".join(self._id_text(v) + "\n" for v in sources))
        try:
            return self._run("betweenness", sources=f.name, samples=samples, seed=seed,
                             **options)
        finally:
            os.unlink(f.name)

    # --- queries ---------------------------------------------------------

    def _query(self, kind: str, options: dict, **kw: Any):
        _checks.known(kind, getattr(Store, kind), options, _QUERY_OPTIONS)
        kw = _checks.check(kind, dict(kw, **options))
        for key in ("vertices", "set_a", "set_b"):
            if kw.get(key) is not None:
                kw[key] = [self._id_text(v) for v in kw[key]]
        if kw.get("source") is not None:
            kw["source"] = self._id_text(kw["source"])
        first, second, _stats = self._raw.query(kind, **kw)
        if second is None:
            return self._texts_out(first)
        out = np.empty((len(first), 2), dtype=object if self._nodes is not None or self._raw.string_ids else np.uint64)
        if len(first):
            out[:, 0] = self._texts_out(first)
            out[:, 1] = self._texts_out(second)
        return out.view(Edges)

    def khop(self, source: Vertex, hops: int = 1, memory: Size = None, **options: Any) -> np.ndarray:
        """The vertices within `hops` out-edges of `source` (itself
        included), ascending."""
        return self._query("khop", options, source=source, hops=hops, memory=memory)

    def egonet(self, source: Vertex, hops: int = 1, memory: Size = None, **options: Any) -> np.ndarray:
        """The edges among the vertices within `hops` of `source`: an (m, 2)
        array of (source, target), sorted (undirected: smaller id first);
        `.to_pandas()` gives them as columns `source` and `target`."""
        return self._query("egonet", options, source=source, hops=hops, memory=memory)

    def induced(self, vertices: Iterable[Vertex], memory: Size = None, **options: Any) -> np.ndarray:
        """The edges among `vertices`, as `egonet`."""
        return self._query("induced", options, vertices=list(vertices), memory=memory)

    def cross(self, a: Iterable[Vertex], b: Iterable[Vertex], memory: Size = None,
              **options: Any) -> np.ndarray:
        """The edges from a vertex of `a` to one of `b`, as `egonet`."""
        return self._query("cross", options, set_a=list(a), set_b=list(b), memory=memory)
