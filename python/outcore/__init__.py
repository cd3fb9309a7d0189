"""outcore: graph analytics on graphs larger than memory, from an SSD,
inside a memory budget you set.

Build a store once, then run algorithms and queries on it::

    import outcore
    g = outcore.import_edges(["edges.csv"], "g.oc", directed=False, memory="2GiB")
    pr = g.pagerank(iterations=20)          # a Result: numpy ids and values
    pr.top(5)
    g.wcc().to_pandas()

`outcore.generate("kron", "k.oc", scale=20)` makes a synthetic graph, and
`outcore.from_networkx(G, "g.oc")` a store of a NetworkX graph. With
NetworkX installed, `nx.pagerank(G, backend="outcore")` runs NetworkX's
functions on outcore (see `outcore.nx`).

Errors raise the exceptions in `outcore.errors` (bad input, budget, corrupted
store) with the messages the `outcore` command line prints, its flags named
as the Python arguments that set them; an unknown keyword is a TypeError
that lists the valid ones, a number out of range a ValueError that gives
the range.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Union

import numpy as np

from . import _checks, _frames, _outcore
from .errors import (BudgetError, DiskFullError, InputError, OutcoreError, OutcoreIOError,
                     StoreError)
from ._edges import edge_arrays
from .result import Result
from .store import Size, Store, Vertex

__version__ = _outcore.__version__

__all__ = [
    "import_edges", "generate", "open", "from_networkx", "Store", "Result",
    "OutcoreError", "InputError", "BudgetError", "StoreError", "DiskFullError",
    "OutcoreIOError",
]

PathLike = Union[str, os.PathLike]

# The options of the builds beyond the arguments they name.
_IMPORT_OPTIONS = ("header", "columns", "delimiter", "ids", "tmp_dir", "order", "drop_self_loops",
                   "page_size", "group_tiles", "compress", "allow_empty")
_GENERATE_PARAMS = ("scale", "edge_factor", "a", "b", "c", "vertices", "edges", "rows", "cols",
                    "max_weight", "seed", "directed", "weighted", "tmp_dir", "order", "compress")


def __dir__() -> list:
    """The public API (what `__all__` lists, the version and the `errors`
    module), not the names the package imports for itself."""
    return sorted(__all__ + ["__version__", "errors", "__doc__", "__name__", "__file__",
                             "__path__", "__all__"])


def import_edges(paths: Any, store: PathLike, *,
                 format: Optional[str] = None, directed: bool = True, weighted: bool = False,
                 memory: Size = None, force: bool = False, progress: bool = True,
                 source: Optional[str] = None, target: Optional[str] = None,
                 weight: Optional[str] = None, edge_attr: Any = None,
                 **format_options: Any) -> Store:
    """Imports edge lists into a new store at `store` and opens it.

    Args:
        paths: one file or several (read one after the other; `.gz` is
            decompressed), or directories of Parquet files (a dataset).
            Or the edges themselves: a pandas or Polars DataFrame, a pyarrow
            Table, RecordBatchReader or Dataset (`pyarrow.dataset`), any
            object with `__arrow_c_stream__`, or numpy arrays: a dict of
            column name to array, or a tuple `(source, target)` or
            `(source, target, weight)` (columns named by `source`, `target`
            and `weight`). These are streamed to the build in batches of
            64Ki rows through the Arrow C stream interface (a pandas frame
            is converted to Arrow a batch at a time): no second copy of
            the input in memory. The stream is read once; the batches read
            are also written, their chosen columns only, to a temporary
            file beside the store, for builds that read their input twice.
            Ids: integer columns of any width, or strings (also
            categorical/dictionary); nulls and negative ids are errors
            naming the column and row.
        source, target: the id columns of a frame (NetworkX's
            `from_pandas_edgelist` names; default "source" and "target").
            With files, they (and `weight`) set `columns`.
        weight: the weight column; naming one makes the store weighted
            (`weighted=True` alone reads "weight" from a frame).
            `edge_attr` is taken as `weight` when it is one column name.
        format: "snap", "csv", "tsv", "mtx", "ldbc", "bin32", "bin64",
            "parquet" or "arrow" (default: Parquet and Arrow IPC by their
            first bytes, else from the extension, else snap).
        directed: keep edge direction (False: every edge is undirected).
        weighted: read a weight column.
        memory: the budget ("512MiB", "4GiB" or bytes; default half of RAM).
        force: replace an existing store.
        progress: progress and the build report on stderr.
        **format_options: the CLI's other import options: `header`
            (snap/csv/tsv first line is a header), `columns` ("SRC,DST[,W]"
            numbers or header names), `delimiter` (one character, or "tab"),
            `ids` ("auto", "int" or "string"), `allow_empty` (build a store
            without edges from an input that has none instead of refusing
            it), `tmp_dir`, `order` ("auto",
            "degree", "bfs", "original"), `drop_self_loops`, `page_size`,
            `group_tiles`, `compress` (True or "fast", the default: code
            the tiles in frames of gaps and the CSR in stream-vbyte;
            "small": the CSR in Huffman-coded bit lengths, 25-35% smaller,
            decoded more slowly; False: the plain layout, 4 bytes an edge;
            the same results either way).

    Raises:
        InputError: a line does not parse (the message names file and line),
            the input is not text (its format is named) or has no edges; a
            frame lacks a column (the message lists those it has).
        BudgetError: the budget is too small.
    """
    _checks.known("import_edges", import_edges, format_options, _IMPORT_OPTIONS)
    format_options = _checks.check("import_edges", dict(format_options, page_size=_checks.size(
        "import_edges", "page_size", format_options.get("page_size"))))
    if format_options.get("tmp_dir") is not None:
        format_options["tmp_dir"] = os.fspath(format_options["tmp_dir"])
    memory = _checks.size("import_edges", "memory", memory)
    if not _frames.is_paths(paths):
        for key in ("header", "columns", "delimiter"):
            if format_options.pop(key, None) not in (None, False):
                raise InputError(f"import_edges: `{key}` applies to files; name a frame's "
                                 "columns with source=, target= and weight=")
        if format is not None:
            raise InputError("import_edges: `format` applies to files, not to "
                             f"a {type(paths).__name__}")
        if isinstance(paths, (list, tuple)) and len(paths) == 3 and weight is None:
            weighted = True
        cols, weighted = _frames.columns(source, target, weight, edge_attr, weighted)
        reader, name, rows = _frames.reader(paths, cols)
        _outcore.import_stream(reader, os.fspath(store), name=name, columns=",".join(cols),
                               rows=rows, directed=directed, weighted=weighted, memory=memory,
                               force=force, progress=progress, **format_options)
        return Store(store)
    if source is not None or target is not None or weight is not None or edge_attr is not None:
        if source is None or target is None or format_options.get("columns") is not None:
            raise InputError("import_edges: with files, give both source= and target= (they "
                             "set columns=) or columns=, not both")
        cols, weighted = _frames.columns(source, target, weight, edge_attr, weighted)
        format_options["columns"] = ",".join(cols)
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    _outcore.import_edges(paths, os.fspath(store), format=format, directed=directed,
                          weighted=weighted, memory=memory, force=force, progress=progress,
                          **format_options)
    return Store(store)


def generate(kind: str, store: PathLike, *, memory: Size = None, force: bool = False,
             progress: bool = True, **params: Any) -> Store:
    """Generates a synthetic graph into a new store and opens it.

    Args:
        kind: "kron" (Graph500 Kronecker), "rmat", "er" (Erdős–Rényi G(n, m))
            or "grid".
        **params: `scale`, `edge_factor` (kron/rmat), `a`, `b`, `c` (rmat),
            `vertices`, `edges` (er), `rows`, `cols`, `max_weight` (grid),
            `seed`, `directed`, `weighted`, `tmp_dir`, `order`, `compress` — as
            `outcore generate`'s options. The same seed gives the same graph.
    """
    _checks.known("generate", generate, params, _GENERATE_PARAMS)
    if params.get("tmp_dir") is not None:
        params["tmp_dir"] = os.fspath(params["tmp_dir"])
    _outcore.generate(kind, os.fspath(store), memory=_checks.size("generate", "memory", memory),
                      force=force, progress=progress, **params)
    return Store(store)


def open(path: PathLike) -> Store:  # noqa: A001 (the natural name)
    """Opens an existing store (raises StoreError when it is not one)."""
    return Store(path)


def from_networkx(G, store: PathLike, memory: Size = None, *, weight: Optional[str] = "weight",
                  force: bool = False, progress: bool = True) -> Store:
    """Builds a store of a NetworkX graph (its edges streamed to the
    external build in arrays; isolated nodes kept).

    Nodes that are all non-negative integers below 2**64 are the store's ids.
    Other nodes are numbered in `G`'s node order, and the returned Store maps
    results back to them (a store reopened later gives the numbers).

    Args:
        weight: the edge attribute holding weights (missing: 1.0); None for
            an unweighted store. A graph with no such attribute gives an
            unweighted store.
    """
    memory = _checks.size("from_networkx", "memory", memory)
    if G.is_multigraph():
        raise InputError("from_networkx: multigraphs are not supported (outcore stores one "
                         "edge per vertex pair); convert with nx.Graph(G) or nx.DiGraph(G)")
    nodes = list(G.nodes)
    ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
               and 0 <= int(v) < 2**64 for v in nodes)
    index = None if ints else {v: i for i, v in enumerate(nodes)}
    weighted = weight is not None and any(weight in d for _, _, d in G.edges(data=True))
    src, dst, w = edge_arrays(G, weight if weighted else None, 1.0, index)
    verts = np.array(nodes if index is None else range(len(nodes)), dtype=np.uint64)
    _outcore.build_from_arrays(os.fspath(store), src, dst, w, verts, directed=G.is_directed(),
                               memory=memory, force=force, progress=progress)
    return Store(store, _nodes=None if index is None else nodes)
