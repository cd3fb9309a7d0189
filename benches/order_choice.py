"""Which locality order (issue 14, item 3): the gap bits of the CSR (the
cost `--order auto` compares: per sorted adjacency list, the first gap from
the vertex plus a sign bit, then log2 of each gap between neighbours) under
candidate orders, on small stand-ins of the graphs benches/orders.sh builds:

- degree: by degree, highest first (outcore's default);
- cm: Cuthill-McKee levels from the highest-degree vertex, each level by
  smallest neighbour position then degree (outcore's `--order bfs`);
- rcm: its reverse (gaps are the same by symmetry: a check);
- dfs: depth-first preorder from the highest-degree vertex, neighbours by
  degree;
- ceesor: CEESOR §3's enumeration: a DFS tree, each vertex's subtrees
  heaviest first, the vertex itself placed once half its subtree's weight
  is numbered.

    python3 benches/order_choice.py
"""
import math
import random
import sys

sys.setrecursionlimit(1 << 20)


def bits(g):
    return max(1, g.bit_length())


def gap_bits(adj, pos):
    total = entries = 0
    for v, nbrs in enumerate(adj):
        if not nbrs:
            continue
        ids = sorted(pos[u] for u in nbrs)
        total += bits(abs(ids[0] - pos[v])) + 1
        total += sum(bits(b - a) for a, b in zip(ids, ids[1:]))
        entries += len(ids)
    return total / entries


def degree_order(adj):
    return sorted(range(len(adj)), key=lambda v: (-len(adj[v]), v))


def cm_order(adj):
    n = len(adj)
    pos = [-1] * n
    order = []
    for root in degree_order(adj):
        if pos[root] >= 0:
            continue
        pos[root] = len(order)
        order.append(root)
        level = [root]
        while level:
            found = {}
            for v in level:
                for u in adj[v]:
                    if pos[u] < 0 and u not in found:
                        found[u] = pos[v]
            nxt = sorted(found, key=lambda u: (found[u], -len(adj[u]), u))
            for u in nxt:
                pos[u] = len(order)
                order.append(u)
            level = nxt
    return order


def dfs_tree(adj, root, seen):
    """Children lists of an iterative DFS tree (neighbours by degree)."""
    children = {root: []}
    seen[root] = True
    stack = [(root, iter(sorted(adj[root], key=lambda u: -len(adj[u]))))]
    pre = [root]
    while stack:
        v, it = stack[-1]
        for u in it:
            if not seen[u]:
                seen[u] = True
                children[v].append(u)
                children[u] = []
                pre.append(u)
                stack.append((u, iter(sorted(adj[u], key=lambda w: -len(adj[w])))))
                break
        else:
            stack.pop()
    return children, pre


def dfs_order(adj):
    seen = [False] * len(adj)
    order = []
    for root in degree_order(adj):
        if not seen[root]:
            order += dfs_tree(adj, root, seen)[1]
    return order


def ceesor_order(adj):
    seen = [False] * len(adj)
    order = []
    for root in degree_order(adj):
        if seen[root]:
            continue
        children, pre = dfs_tree(adj, root, seen)
        weight = {}
        for v in reversed(pre):
            weight[v] = 1 + sum(weight[c] for c in children[v])
        # Iterative: ("enum", v) expands v; ("emit", v) numbers it.
        work = [("enum", root)]
        while work:
            kind, v = work.pop()
            if kind == "emit":
                order.append(v)
                continue
            kids = sorted(children[v], key=lambda c: -weight[c])
            seq, done, placed = [], 0, False
            for c in kids:
                if not placed and 2 * done >= weight[v] - 1:
                    seq.append(("emit", v))
                    placed = True
                seq.append(("enum", c))
                done += weight[c]
            if not placed:
                seq.append(("emit", v))
            work.extend(reversed(seq))
    return order


def positions(order):
    pos = [0] * len(order)
    for i, v in enumerate(order):
        pos[v] = i
    return pos


def undirected(n, edges):
    adj = [set() for _ in range(n)]
    for u, v in edges:
        if u != v:
            adj[u].add(v)
            adj[v].add(u)
    return [list(s) for s in adj]


def shuffled(n, edges, rng):
    p = list(range(n))
    rng.shuffle(p)
    return [(p[u], p[v]) for u, v in edges]


def graphs():
    rng = random.Random(1)
    side = 256
    grid = [(r * side + c, r * side + c + 1) for r in range(side) for c in range(side - 1)]
    grid += [(r * side + c, (r + 1) * side + c) for r in range(side - 1) for c in range(side)]
    n = side * side
    yield "grid 256x256, row-major", n, grid
    yield "grid 256x256, shuffled", n, shuffled(n, grid, rng)
    k, size = 400, 50
    n = k * size
    comm = [(v, v - v % size + rng.randrange(size)) for v in range(n) for _ in range(6)]
    comm += [(v, rng.randrange(n)) for v in range(n)]
    yield "planted partition 400x50, shuffled", n, shuffled(n, comm, rng)
    n = 20000
    yield "ER 20000 v, 47000 e", n, [(rng.randrange(n), rng.randrange(n)) for _ in range(47000)]
    # R-MAT / Kronecker (a, b, c = 0.57, 0.19, 0.19), scale 15, ids scrambled.
    scale, m = 15, 16 << 15
    kron = []
    for _ in range(m):
        u = v = 0
        for _ in range(scale):
            r = rng.random()
            u, v = 2 * u + (r >= 0.76), 2 * v + (0.57 <= r < 0.76 or r >= 0.95)
        kron.append((u, v))
    yield "kron scale 15, scrambled", 1 << scale, shuffled(1 << scale, kron, rng)


def main():
    orders = [("original", lambda a: list(range(len(a)))), ("degree", degree_order),
              ("cm", cm_order), ("rcm", lambda a: cm_order(a)[::-1]),
              ("dfs", dfs_order), ("ceesor", ceesor_order)]
    print("gap bits per CSR entry (lower is better)")
    print("%-36s" % "graph" + "".join("%9s" % o for o, _ in orders))
    for name, n, edges in graphs():
        adj = undirected(n, edges)
        row = [gap_bits(adj, positions(f(adj))) for _, f in orders]
        print("%-36s" % name + "".join("%9.2f" % x for x in row), flush=True)


if __name__ == "__main__":
    main()
