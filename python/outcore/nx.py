"""The NetworkX backend: `nx.pagerank(G, backend="outcore")`.

NetworkX (3.4+) dispatches its functions to installed backends. With
`backend="outcore"` (or `nx.config.backend_priority = ["outcore"]`), a
NetworkX graph is converted to a temporary outcore store, the function runs
on outcore's engines inside the configured memory budget, and the result
comes back as exactly what NetworkX returns (same types, same nodes: nodes
of any hashable type are numbered for the store and mapped back).

Configuration, `nx.config.backends.outcore`:
    memory: the budget ("2GiB" or bytes; default None = half of RAM).
    tmp_dir: where converted stores live (default: the system temporary
        directory, e.g. /tmp). Each is a directory `outcore-nx-*` removed
        when the converted graph is garbage collected, or at exit.

Arguments the backend cannot honour (personalization, callable weights,
multigraphs, self-loops where the semantics differ, directed graphs for
core_number and clustering) are declined through `can_run`, so NetworkX
runs its own implementation instead (with `nx.config.fallback_to_nx`).
"""

from __future__ import annotations

import inspect
import random
import re
import shutil
import tempfile
import weakref

import networkx as nx
import numpy as np

from . import _outcore
from ._edges import edge_arrays
from .store import Store

__all__ = ["BackendInterface", "OutcoreGraph", "get_info"]

_UNREACHED = 2**63 - 1


class OutcoreGraph:
    """A NetworkX graph converted to a temporary outcore store."""

    __networkx_backend__ = "outcore"

    def __init__(self, G, weight=None, default=1.0, uniform_is_unweighted=False):
        self.G = G
        self.nodes = list(G)
        # Nodes that are ints in 0..2**64 are the store's ids; others are
        # numbered in G's order and mapped back.
        self.ints = all(type(v) is int and 0 <= v < 2**64 for v in self.nodes)
        self.index = None if self.ints else {v: i for i, v in enumerate(self.nodes)}
        self.weighted = weight is not None
        self.min_weight = None
        self.store = None
        if not self.nodes:
            return
        cfg = nx.config.backends.outcore
        tmp = tempfile.mkdtemp(prefix="outcore-nx-", dir=cfg.get("tmp_dir"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, tmp, True)
        src, dst, w = edge_arrays(G, weight, default, self.index)
        if w is not None and len(w):
            self.min_weight = float(w.min())
        if uniform_is_unweighted and w is not None and (len(w) == 0 or (w[0] > 0 and (w == w[0]).all())):
            # Equal weights rank as no weights (PageRank): the fast engines.
            w, self.weighted = None, False
        path = f"{tmp}/g.oc"
        verts = (np.fromiter(self.nodes, np.uint64, len(self.nodes)) if self.ints
                 else np.arange(len(self.nodes), dtype=np.uint64))
        _outcore.build_from_arrays(path, src, dst, w, verts, directed=G.is_directed(),
                                   memory=_memory(), progress=False)
        self.store = Store(path)

    def is_directed(self):
        return self.G.is_directed()

    def is_multigraph(self):
        return False

    def __len__(self):
        return len(self.nodes)

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

    def run(self, method, **kw):
        kw.setdefault("progress", bool(nx.config.backends.outcore.get("progress", False)))
        kw.setdefault("memory", _memory())
        return getattr(self.store, method)(**kw)

    def values(self, result, cast=float):
        """{node: value} from a Result whose ids are node numbers."""
        ids = result.ids.tolist()
        keys = ids if self.ints else [self.nodes[i] for i in ids]
        return {k: cast(x) for k, x in zip(keys, result.values.tolist())}


def _memory():
    m = nx.config.backends.outcore.get("memory")
    return m if m is None or isinstance(m, int) else _outcore.parse_size(str(m))


def _graph(G):
    return G.G if isinstance(G, OutcoreGraph) else G


def _weights(G, weight):
    if weight is None:
        return []
    return [d.get(weight, 1) for _, _, d in _graph(G).edges(data=True)]


# --- the functions -------------------------------------------------------


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None, *, backend=None, **backend_kwargs):
    n = len(G)
    if n == 0:
        return {}
    # NetworkX stops once the L1 change is below n * tol, after at most max_iter.
    r = G.run("pagerank", iterations=max_iter, damping=alpha, tol=n * tol,
              weighted=G.weighted)
    change = re.search(r"last L1 change ([-+0-9.e]+|inf|NaN)", r.summary)
    converged = r.iterations > 0 and change is not None and float(change.group(1)) < n * tol
    if r.iterations >= max_iter and not converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return G.values(r)


def _components(G):
    if len(G) == 0:
        return []
    r = G.run("wcc")
    groups = {}
    for i, label in zip(r.ids.tolist(), r.values.tolist()):
        groups.setdefault(label, set()).add(G.node(i))
    return list(groups.values())


def connected_components(G, *, backend=None, **backend_kwargs):
    yield from _components(G)


def number_connected_components(G, *, backend=None, **backend_kwargs):
    return len(_components(G))


def weakly_connected_components(G, *, backend=None, **backend_kwargs):
    yield from _components(G)


def number_weakly_connected_components(G, *, backend=None, **backend_kwargs):
    return len(_components(G))


def _from_source(G, source, method, cutoff, cast):
    r = G.run(method, source=G.id_text(source))
    found = [(x, i) for i, x in zip(r.ids.tolist(), r.values.tolist())
             if x != _UNREACHED and x != float("inf") and (cutoff is None or x <= cutoff)]
    found.sort()
    return {G.node(i): cast(x) for x, i in found}


def single_source_shortest_path_length(G, source, cutoff=None, *, backend=None,
                                       **backend_kwargs):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if cutoff is None:
        cutoff = float("inf")
    return _from_source(G, source, "bfs", cutoff, int)


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight", *,
                                       backend=None, **backend_kwargs):
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    ints = all(isinstance(w, int) for w in _weights(G, weight))
    return _from_source(G, source, "sssp", cutoff, int if ints else float)


def core_number(G, *, backend=None, **backend_kwargs):
    if len(G) == 0:
        return {}
    return G.values(G.run("kcore"), int)


def _lcc(G):
    return G.values(G.run("lcc")) if len(G) else {}


def _pick(values, G, nodes):
    if nodes in G:
        return values[nodes]
    if nodes is None:
        return values
    return {v: values[v] for v in nodes}


def clustering(G, nodes=None, weight=None, *, backend=None, **backend_kwargs):
    c = {v: (x if x else 0) for v, x in _lcc(G).items()}
    return _pick(c, G, nodes)


def triangles(G, nodes=None, *, backend=None, **backend_kwargs):
    t = G.values(G.run("triangles"), int) if len(G) else {}
    return _pick(t, G, nodes)


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None, *, backend=None, **backend_kwargs):
    if len(G) == 0:
        return {}
    return G.values(G.run("betweenness", normalized=normalized,
                          weighted=weight is not None and G.weighted))


def betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None, *,
                                  backend=None, **backend_kwargs):
    if len(G) == 0:
        return {}
    return G.values(G.run("betweenness", sources=[G.id_text(v) for v in sources],
                          normalized=normalized, weighted=weight is not None and G.weighted))


def maximal_independent_set(G, nodes=None, seed=None, *, backend=None, **backend_kwargs):
    # Luby's algorithm with priorities drawn once (outcore's seed 0): a
    # maximal independent set, as NetworkX's is for seed=None.
    if len(G) == 0:
        return []
    return [v for v, x in G.values(G.run("mis"), int).items() if x]


# --- what runs where -----------------------------------------------------


def _undirected(G, a):
    return not G.is_directed() or "directed graphs: outcore's semantics differ"


def _no_self_loops(G, a):
    return nx.number_of_selfloops(G) == 0 or "self-loops: outcore's semantics differ"


def _both(*checks):
    def check(G, a):
        for c in checks:
            ok = c(G, a)
            if ok is not True:
                return ok
        return True
    return check


def _weights_ok(G, a, ok, what):
    w = a.get("weight")
    if callable(w):
        return "weight functions are not supported"
    converted = a.get("G")
    if isinstance(converted, OutcoreGraph):
        # Checked once, when it was converted.
        good = converted.min_weight is None or ok(converted.min_weight)
    else:
        good = all(isinstance(x, (int, float)) and not isinstance(x, bool) and ok(x)
                   for x in _weights(G, w))
    return good or f"weights must be {what} numbers"


def _positive_weights(G, a):
    return _weights_ok(G, a, lambda x: x > 0, "positive")


def _nonneg_weights(G, a):
    return _weights_ok(G, a, lambda x: x >= 0, "non-negative")


def _pagerank_args(G, a):
    if any(a.get(k) is not None for k in ("personalization", "nstart", "dangling")):
        return "personalization, nstart and dangling are not supported"
    return _positive_weights(G, a)


def _int_cutoff(G, a):
    c = a.get("cutoff")
    return c is None or isinstance(c, (int, float)) or "cutoff must be a number"


def _unweighted(G, a):
    return a.get("weight") is None or "weighted clustering is not supported"


_CHECKS = {
    "pagerank": _pagerank_args,
    "connected_components": _undirected,
    "number_connected_components": _undirected,
    "weakly_connected_components": lambda G, a: G.is_directed() or "undirected graph",
    "number_weakly_connected_components": lambda G, a: G.is_directed() or "undirected graph",
    "single_source_shortest_path_length": _int_cutoff,
    "single_source_dijkstra_path_length": _both(_nonneg_weights, _int_cutoff),
    "core_number": _both(_undirected, _no_self_loops),
    "clustering": _both(_undirected, _no_self_loops, _unweighted),
    "triangles": _undirected,
    # Weights: positive (with zero-weight edges NetworkX's heap order decides
    # which equal paths it counts).
    "betweenness_centrality": _both(_positive_weights, lambda G, a: (
        not a.get("endpoints") and (a.get("k") is None or a.get("k") == len(G))
    ) or "endpoints and k: not supported"),
    "betweenness_centrality_subset": _both(_positive_weights, lambda G, a: (
        isinstance(a.get("sources"), (list, tuple, set))
        and isinstance(a.get("targets"), (list, tuple, set)) and set(a["targets"]) == set(G)
        and len(set(a["sources"])) == len(a["sources"]) and all(v in G for v in a["sources"])
    ) or "target subsets, repeated or missing sources: not supported"),
    "maximal_independent_set": _both(
        _undirected, _no_self_loops,
        # seed=None reaches the backend as the global random state
        # (NetworkX's py_random_state); a seed asks for NetworkX's sequence.
        lambda G, a: (a.get("nodes") is None and a.get("seed") in (None, random._inst))
        or "nodes and seed: NetworkX's own random sequence is expected"),
}

# The edge attribute each function reads its weights from (argument name).
_WEIGHT_ARG = {"pagerank": "weight", "single_source_dijkstra_path_length": "weight"}


class BackendInterface:
    """What NetworkX loads from the `networkx.backends` entry point."""

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None):
        if isinstance(G, OutcoreGraph):
            return G
        if G.is_multigraph():
            raise NotImplementedError("outcore does not store multigraphs")
        weight, default = None, 1.0
        if edge_attrs:
            (weight, default), = list(edge_attrs.items())[:1]
            default = 1.0 if default is None else default
        elif name in _WEIGHT_ARG:
            weight = "weight"
        if name == "single_source_dijkstra_path_length" and weight is None:
            # NetworkX's weight=None: every edge weighs 1 (an attribute no
            # edge has, so each gets the default).
            weight, default = object(), 1.0
        return OutcoreGraph(G, weight, default, uniform_is_unweighted=name == "pagerank")

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        return obj.G if isinstance(obj, OutcoreGraph) else obj

    @staticmethod
    def can_run(name, args, kwargs):
        func = nx.utils.backends._registered_algorithms.get(name)
        check = _CHECKS.get(name)
        if func is None or check is None:
            return False
        try:
            bound = inspect.signature(func).bind(*args, **kwargs)
        except TypeError as e:
            return str(e)
        bound.apply_defaults()
        a = bound.arguments
        G = _graph(a.get("G"))
        if G is None or G.is_multigraph():
            return "multigraphs are not supported"
        return check(G, a)

    @staticmethod
    def should_run(name, args, kwargs):
        return True


for _f in (pagerank, connected_components, number_connected_components,
           weakly_connected_components, number_weakly_connected_components,
           single_source_shortest_path_length, single_source_dijkstra_path_length,
           core_number, clustering, triangles, maximal_independent_set,
           betweenness_centrality, betweenness_centrality_subset):
    setattr(BackendInterface, _f.__name__, staticmethod(_f))


def get_info():
    """What NetworkX shows of the backend (`networkx.backend_info`)."""
    return {
        "backend_name": "outcore",
        "project": "outcore",
        "package": "outcore",
        "url": "https://github.com/outcore/outcore",
        "short_summary": "Out-of-core engines: graphs larger than memory, from an SSD, "
                         "inside a memory budget.",
        "default_config": {"memory": None, "tmp_dir": None, "progress": False},
        "functions": {name: {} for name in _CHECKS},
    }
