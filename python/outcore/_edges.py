"""A NetworkX graph's edges as numpy arrays, what the store build reads
(`from_networkx` and the backend's conversions share it)."""

from itertools import chain

import numpy as np


def edge_arrays(G, weight=None, default=1.0, index=None):
    """(src, dst, weights or None) of G's edges as uint64 / float64 arrays;
    nodes mapped through `index` (a dict) unless it is None (nodes are the
    ids). Edges stream through `np.fromiter`: no list of tuples in between."""
    m = G.number_of_edges()
    if weight is None:
        pairs = G.edges() if index is None else ((index[u], index[v]) for u, v in G.edges())
        e = np.fromiter(chain.from_iterable(pairs), dtype=np.uint64, count=2 * m).reshape(m, 2)
        return e[:, 0].copy(), e[:, 1].copy(), None
    src = np.empty(m, dtype=np.uint64)
    dst = np.empty(m, dtype=np.uint64)
    triples = G.edges(data=weight, default=default)
    if index is not None:
        triples = ((index[u], index[v], w) for u, v, w in triples)
    triples = iter(triples)
    w = np.empty(m, dtype=np.float64)
    # Ids up to 2**64 do not fit a float64: ends and weights go apart.
    for chunk_start in range(0, m, 1 << 20):
        chunk = list(_take(triples, min(1 << 20, m - chunk_start)))
        k = len(chunk)
        src[chunk_start:chunk_start + k] = np.fromiter((t[0] for t in chunk), np.uint64, k)
        dst[chunk_start:chunk_start + k] = np.fromiter((t[1] for t in chunk), np.uint64, k)
        w[chunk_start:chunk_start + k] = np.fromiter((t[2] for t in chunk), np.float64, k)
    return src, dst, w


def _take(it, k):
    for _ in range(k):
        yield next(it)
