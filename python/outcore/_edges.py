"""A NetworkX graph's edges as numpy arrays, what the store build reads
(`from_networkx` and the backend's conversions share it)."""

from itertools import chain

import numpy as np


def edge_arrays(G, weight=None, default=1.0, index=None):
    """(src, dst, weights or None) of G's edges as uint64 / float64 arrays;
    nodes mapped through `index` (a dict) unless it is None (the nodes are
    the ids). The adjacency dicts are read flat, straight into numpy (no
    Python tuple per edge, no dict lookup when nodes are their ids); an
    undirected edge is kept at the end whose id is smaller (a self-loop
    once)."""
    adj = G._adj
    counts = np.fromiter(map(len, adj.values()), np.int64, len(adj))
    total = int(counts.sum())
    get = None if index is None else index.__getitem__
    ends = adj if get is None else map(get, adj)
    src = np.repeat(np.fromiter(ends, np.uint64, len(adj)), counts)
    flat = chain.from_iterable(adj.values())
    dst = np.fromiter(flat if get is None else map(get, flat), np.uint64, total)
    w = None
    if weight is not None:
        attrs = chain.from_iterable(map(dict.values, adj.values()))
        w = np.fromiter((a.get(weight, default) for a in attrs), np.float64, total)
    if not G.is_directed():
        keep = dst >= src
        src, dst = src[keep], dst[keep]
        w = None if w is None else w[keep]
    return src, dst, w
