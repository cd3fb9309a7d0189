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

Arguments outcore's engines cannot honour (personalization, nstart and
dangling for pagerank, callable, negative or zero weights, weighted
clustering, endpoints in betweenness, a seeded maximal_independent_set,
multigraphs, self-loops where the semantics differ, directed graphs for
core_number and clustering) run NetworkX's own implementation, on the same
graph, inside the backend: the answer is NetworkX's whether the backend was
asked for with `backend="outcore"` or picked by `backend_priority`, and no
NotImplementedError is raised. `native(name, args, kwargs)` tells which way
a call goes (True, or the reason), and the `networkx` logger says so at
DEBUG level.
"""

from __future__ import annotations

import functools
import inspect
import logging
import random
import re

import networkx as nx

from ._nxgraph import OutcoreGraph, graph as _graph, weights as _weights

__all__ = ["BackendInterface", "OutcoreGraph", "get_info", "native"]

_UNREACHED = 2**63 - 1
_log = logging.getLogger("networkx")


# --- the functions -------------------------------------------------------


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None):
    n = len(G)
    if n == 0:
        return {}
    # NetworkX stops once the L1 change is below n * tol, after at most max_iter.
    # Weights all equal rank as none (the engines' unweighted PageRank).
    r = G.run("pagerank", weight=weight, iterations=max_iter, damping=alpha, tol=n * tol,
              weighted=not G.uniform(weight))
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


def connected_components(G):
    yield from _components(G)


def number_connected_components(G):
    return len(_components(G))


def weakly_connected_components(G):
    yield from _components(G)


def number_weakly_connected_components(G):
    return len(_components(G))


def _from_source(G, source, method, cutoff, cast, weight=None):
    r = G.run(method, weight=weight, source=G.id_text(source))
    found = [(x, i) for i, x in zip(r.ids.tolist(), r.values.tolist())
             if x != _UNREACHED and x != float("inf") and (cutoff is None or x <= cutoff)]
    found.sort()
    # The source's distance is NetworkX's int 0 whatever the weights' type.
    return {G.node(i): (0 if G.node(i) == source and x == 0 else cast(x)) for x, i in found}


def single_source_shortest_path_length(G, source, cutoff=None):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if cutoff is None:
        cutoff = float("inf")
    return _from_source(G, source, "bfs", cutoff, int)


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if weight is None:
        # NetworkX reads `d.get(None, 1)`: every edge weighs 1, hops.
        return _from_source(G, source, "bfs", cutoff, int)
    ints = all(isinstance(w, int) for w in _weights(G, weight))
    return _from_source(G, source, "sssp", cutoff, int if ints else float, weight)


def core_number(G):
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


def clustering(G, nodes=None, weight=None):
    c = {v: (x if x else 0) for v, x in _lcc(G).items()}
    return _pick(c, G, nodes)


def triangles(G, nodes=None):
    t = G.values(G.run("triangles"), int) if len(G) else {}
    return _pick(t, G, nodes)


def _rescale():
    """NetworkX's own rescaling of sampled betweenness (3.5+), or None."""
    try:
        from networkx.algorithms.centrality.betweenness import _rescale as rescale
    except ImportError:
        return None
    return rescale if "sampled_nodes" in inspect.signature(rescale).parameters else None


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    n = len(G)
    if n == 0:
        return {}
    if k is None or k == n:
        return G.values(G.run("betweenness", weight=weight, normalized=normalized,
                              weighted=weight is not None))
    # NetworkX's sources: `seed` is what its py_random_state made of the
    # seed given (a random.Random; the same made here of one not passed so).
    sources = nx.utils.create_py_random_state(seed).sample(list(G), k)
    # outcore's sums from given sources, as betweenness_centrality_subset
    # scales them unnormalized (halved in an undirected graph of 3+ nodes),
    # brought back to the raw sums and scaled by NetworkX's own _rescale.
    r = G.run("betweenness", weight=weight, sources=[G.id_text(v) for v in sources],
              normalized=False, weighted=weight is not None)
    halved = not G.is_directed() and n >= 3
    raw = {v: 2 * x if halved else x for v, x in G.values(r).items()}
    return _rescale()(raw, n, normalized=normalized, directed=G.is_directed(), endpoints=False,
                      sampled_nodes=sources)


def betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
    if len(G) == 0:
        return {}
    return G.values(G.run("betweenness", weight=weight, sources=[G.id_text(v) for v in sources],
                          normalized=normalized, weighted=weight is not None))


def maximal_independent_set(G, nodes=None, seed=None):
    # Luby's algorithm with priorities drawn once (outcore's seed 0): a
    # maximal independent set, as NetworkX's is for seed=None.
    if len(G) == 0:
        return []
    return [v for v, x in G.values(G.run("mis"), int).items() if x]


# --- what runs on outcore ------------------------------------------------


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


def _betweenness_args(G, a):
    if a.get("endpoints"):
        return "endpoints: not supported"
    k = a.get("k")
    if k is None or k == len(G):
        return True
    if not isinstance(k, int) or not 1 <= k < len(G):
        return "k: NetworkX raises its own error"
    return _rescale() is not None or "k: this NetworkX's scaling of samples is not known"


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
    "betweenness_centrality": _both(_positive_weights, _betweenness_args),
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


def _bound(name, args, kwargs):
    """The arguments of a call of NetworkX's `name`, defaults applied."""
    func = nx.utils.backends._registered_algorithms[name].orig_func
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    return func, bound


def native(name, args, kwargs):
    """True when outcore's engines run NetworkX's `name` with these
    arguments; else the reason NetworkX's own implementation runs."""
    if name not in _CHECKS:
        return f"{name} is not one of the backend's functions"
    kwargs = {k: v for k, v in kwargs.items() if k != "backend"}
    try:
        _, bound = _bound(name, args, kwargs)
    except TypeError as e:
        return str(e)
    a = bound.arguments
    G = _graph(a.get("G"))
    if G is None or G.is_multigraph():
        return "multigraphs are not supported"
    return _CHECKS[name](G, a)


def _dispatched(f):
    """`f` on outcore's engines when it can honour the arguments, else
    NetworkX's own implementation on the NetworkX graph."""

    @functools.wraps(f)
    def run(*args, backend=None, **kwargs):
        why = native(f.__name__, args, kwargs)
        if why is True:
            return f(*args, **kwargs)
        _log.debug("outcore runs NetworkX's own %s: %s", f.__name__, why)
        func, bound = _bound(f.__name__, args, kwargs)
        bound.arguments["G"] = _graph(bound.arguments["G"])
        return func(*bound.args, **bound.kwargs)

    return run


class BackendInterface:
    """What NetworkX loads from the `networkx.backends` entry point."""

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None):
        if isinstance(G, OutcoreGraph):
            return G
        # The stores are built when a function runs on outcore, each of the
        # attribute the function's `weight` names (edge_attrs says which
        # attribute this call needs, but NetworkX's cache hands a converted
        # graph to later calls that need another, or none).
        weight, default = None, 1.0
        if edge_attrs:
            (weight, default), = list(edge_attrs.items())[:1]
        return OutcoreGraph(G, weight, 1.0 if default is None else default)

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        return obj.G if isinstance(obj, OutcoreGraph) else obj

    @staticmethod
    def can_run(name, args, kwargs):
        # Whatever outcore cannot honour runs NetworkX's code inside the
        # backend (`_dispatched`), so the backend runs every call of these.
        return name in _CHECKS

    @staticmethod
    def should_run(name, args, kwargs):
        return True


for _f in (pagerank, connected_components, number_connected_components,
           weakly_connected_components, number_weakly_connected_components,
           single_source_shortest_path_length, single_source_dijkstra_path_length,
           core_number, clustering, triangles, maximal_independent_set,
           betweenness_centrality, betweenness_centrality_subset):
    setattr(BackendInterface, _f.__name__, staticmethod(_dispatched(_f)))


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
