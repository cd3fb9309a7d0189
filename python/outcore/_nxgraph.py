"""`OutcoreGraph`: what the NetworkX backend converts a graph to. It keeps
the NetworkX graph and builds outcore stores of it when a function runs on
outcore's engines: one per edge attribute the functions weigh edges by (so
that `weight=None`, the default and `weight="cost"` each see what NetworkX
sees, however NetworkX's cache of converted graphs pairs calls and graphs)."""

from __future__ import annotations

import shutil
import tempfile
import weakref

import networkx as nx
import numpy as np

from . import _outcore
from ._edges import edge_arrays
from .store import Store

__all__ = ["OutcoreGraph", "memory"]


def memory():
    """The budget of `nx.config.backends.outcore.memory`, as bytes."""
    m = nx.config.backends.outcore.get("memory")
    return m if m is None or isinstance(m, int) else _outcore.parse_size(str(m))


def graph(G):
    """The NetworkX graph of `G` (itself, or the one it was converted from)."""
    return G.G if isinstance(G, OutcoreGraph) else G


def weights(G, weight):
    """The `weight` of each edge of `G` as NetworkX reads it (1 when missing;
    [] for weight=None)."""
    if weight is None:
        return []
    return [d.get(weight, 1) for _, _, d in graph(G).edges(data=True)]


class OutcoreGraph:
    """A NetworkX graph with the outcore stores built of it. The stores live
    in a temporary directory `outcore-nx-*` (under the backend's `tmp_dir`),
    removed when this object is garbage collected or at exit."""

    __networkx_backend__ = "outcore"

    def __init__(self, G, weight=None, default=1.0):
        self.G = G
        self.nodes = list(G)
        # Nodes that are ints in 0..2**64 are the store's ids; others are
        # numbered in G's order and mapped back.
        self.ints = all(type(v) is int and 0 <= v < 2**64 for v in self.nodes)
        self.index = None if self.ints else {v: i for i, v in enumerate(self.nodes)}
        # The attribute conversion asked for (NetworkX's edge_attrs); stores
        # are built when a function needs one, of the attribute it reads.
        self.weight, self.default = weight, default
        self._stores = {}
        self._uniform = {}
        self._tmp = None
        if self.nodes:
            cfg = nx.config.backends.outcore
            self._tmp = tempfile.mkdtemp(prefix="outcore-nx-", dir=cfg.get("tmp_dir"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._tmp, True)

    def is_directed(self):
        return self.G.is_directed()

    def is_multigraph(self):
        return self.G.is_multigraph()

    def __len__(self):
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, v):
        try:
            return v in self.G
        except TypeError:
            return False

    def node(self, i):
        """The node of store id `i`."""
        return i if self.ints else self.nodes[i]

    def id_text(self, v):
        """The store id of node `v`, as text."""
        return str(v if self.ints else self.index[v])

    def store(self, weight=None):
        """A store of the graph whose edge weights are the attribute
        `weight` (1 where an edge lacks it). For weight=None any store does
        (the functions that ignore weights run on it with weighted=False);
        an unweighted one is built when there is none yet."""
        if weight is None and self._stores:
            return next(iter(self._stores.values()))
        if weight not in self._stores:
            src, dst, w = edge_arrays(self.G, weight, 1.0, self.index)
            self._uniform[weight] = w is None or len(w) == 0 or bool(w[0] > 0 and (w == w[0]).all())
            path = f"{self._tmp}/g{len(self._stores)}.oc"
            verts = (np.fromiter(self.nodes, np.uint64, len(self.nodes)) if self.ints
                     else np.arange(len(self.nodes), dtype=np.uint64))
            _outcore.build_from_arrays(path, src, dst, w, verts, directed=self.G.is_directed(),
                                       memory=memory(), progress=False)
            self._stores[weight] = Store(path)
        return self._stores[weight]

    def uniform(self, weight):
        """True when every edge has the same positive `weight` (or there is
        no weight): weighted PageRank is the unweighted one then."""
        if weight is None:
            return True
        self.store(weight)
        return self._uniform[weight]

    def run(self, method, weight=None, **kw):
        """`method` of the store of `weight`'s weights."""
        kw.setdefault("progress", bool(nx.config.backends.outcore.get("progress", False)))
        kw.setdefault("memory", memory())
        return getattr(self.store(weight), method)(**kw)

    def values(self, result, cast=float):
        """{node: value} from a Result whose ids are node numbers."""
        ids = result.ids.tolist()
        keys = ids if self.ints else [self.nodes[i] for i in ids]
        return {k: cast(x) for k, x in zip(keys, result.values.tolist())}
