"""outcore import/export checked against NetworkX (the oracle for edge-set semantics).

A NetworkX Graph/DiGraph built with add_edges_from merges duplicate edges (the
last weight wins) and keeps self-loops; outcore must hold exactly that edge set.
"""

import os
import random
import json
import subprocess
from pathlib import Path

import networkx as nx
import pytest

import outcore as outcore_py

BIN = os.environ.get("OUTCORE_BIN", str(Path(__file__).resolve().parents[2] / "target/release/outcore"))


def outcore(*args):
    r = subprocess.run([BIN, "--quiet", *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def random_edges(rng, n_vertices, n_edges, big_ids):
    ids = [rng.randrange(0, 2**64) if big_ids else v for v in range(n_vertices)]
    edges = []
    for _ in range(n_edges):
        u, v = rng.choice(ids), rng.choice(ids)
        edges.append((u, v, rng.randrange(1, 1000) / 4))
        if rng.random() < 0.1:  # duplicates, reversed or not, with another weight
            edges.append((v, u, rng.randrange(1, 1000) / 4) if rng.random() < 0.5 else (u, v, 0.25))
        if rng.random() < 0.03:
            edges.append((u, u, 1.5))
    return edges


def exported(store, tmp, both):
    out = tmp / "out.txt"
    args = ["export", store, "--layout", "csr", "--out", out, "--force"]
    if both:
        args.append("--both-directions")
    outcore(*args)
    result = {}
    for line in out.read_text().splitlines():
        s, d, w = line.split()
        assert (int(s), int(d)) not in result
        result[(int(s), int(d))] = float(w)
    return result


@pytest.mark.parametrize("order", ["degree", "bfs", "original"])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("directed", [True, False])
def test_weighted_edge_set_matches_networkx(tmp_path, seed, directed, order):
    rng = random.Random(seed)
    edges = random_edges(rng, rng.randrange(1, 300), rng.randrange(0, 2000), big_ids=seed % 2 == 1)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_weighted_edges_from(edges)
    src = tmp_path / "g.txt"
    src.write_text("# test graph\n" + "".join(f"{u}\t{v}\t{w!r}\n" for u, v, w in edges))
    store = tmp_path / "g.oc"
    outcore("import", src, "--format", "snap", "--weighted", "--out", store, "--order", order,
            "--directed" if directed else "--undirected")
    outcore("verify", store)
    got = exported(store, tmp_path, both=not directed)
    if directed:
        expect = {(u, v): d["weight"] for u, v, d in g.edges(data=True)}
    else:
        expect = {}
        for u, v, d in g.edges(data=True):
            expect[(u, v)] = d["weight"]
            expect[(v, u)] = d["weight"]
    assert got == expect
    j = json.loads(outcore("info", "--json", store).stdout)
    assert j["vertex_order"] == order
    assert j["vertices"] == g.number_of_nodes()
    assert j["edges"] == g.number_of_edges()
    assert j["self_loops"] == nx.number_of_selfloops(g)
    # Degree summary agrees with NetworkX (a self-loop counts once in the adjacency).
    if g.number_of_nodes():
        adj_deg = max(len(g.adj[v]) for v in g) if not directed else max(d for _, d in g.out_degree())
        assert j["degrees"]["max_out"] == adj_deg


def test_drop_self_loops_matches_networkx(tmp_path):
    rng = random.Random(99)
    edges = random_edges(rng, 50, 400, big_ids=False)
    g = nx.Graph()
    g.add_weighted_edges_from(edges)
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    src = tmp_path / "g.txt"
    src.write_text("".join(f"{u} {v}\n" for u, v, _ in edges))
    store = tmp_path / "g.oc"
    outcore("import", src, "--undirected", "--drop-self-loops", "--out", store)
    out = tmp_path / "e.txt"
    outcore("export", store, "--layout", "tiles", "--out", out)
    got = {tuple(sorted(map(int, line.split()))) for line in out.read_text().splitlines()}
    assert got == {tuple(sorted(e)) for e in g.edges()}
    j = json.loads(outcore("info", "--json", store).stdout)
    assert j["vertices"] == g.number_of_nodes()  # vertices of dropped self-loops remain
    assert j["self_loops"] == 0


def read_values(path):
    out = {}
    for line in path.read_text().splitlines():
        v, x = line.split()
        out[int(v)] = x
    return out


@pytest.mark.parametrize("order", ["degree", "bfs", "original"])
@pytest.mark.parametrize("directed", [True, False])
def test_wcc_bfs_kcore_match_networkx(tmp_path, directed, order):
    """Results in original ids, whatever the store's vertex order."""
    rng = random.Random(7 + directed)
    edges = random_edges(rng, 120, 150, big_ids=True)
    edges += [(u, u, 1.0) for u, _, _ in edges[:3]]
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_weighted_edges_from(edges)
    src = tmp_path / "g.txt"
    src.write_text("".join(f"{u} {v}\n" for u, v, _ in edges))
    store = tmp_path / "g.oc"
    outcore("import", src, "--out", store, "--order", order,
            "--directed" if directed else "--undirected")
    ids = sorted(g.nodes)

    out = tmp_path / "wcc.txt"
    outcore("run", "wcc", store, "--out", out)
    comps = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    expect = {v: min(c) for c in comps for v in c}
    assert [int(x) for x in read_values(out).values()] == [expect[v] for v in ids]
    assert list(read_values(out)) == ids  # ascending original ids

    source = edges[0][0]
    out = tmp_path / "bfs.txt"
    outcore("run", "bfs", store, "--source", source, "--out", out)
    depth = nx.single_source_shortest_path_length(g, source)
    unreached = 9223372036854775807
    assert {v: int(x) for v, x in read_values(out).items()} == {v: depth.get(v, unreached) for v in ids}

    out = tmp_path / "core.txt"
    outcore("run", "kcore", store, "--out", out)
    h = nx.Graph(g)  # direction and self-loops ignored
    h.remove_edges_from(list(nx.selfloop_edges(h)))
    core = nx.core_number(h)
    assert {v: int(x) for v, x in read_values(out).items()} == core


@pytest.mark.parametrize("directed", [True, False])
def test_compressed_tiles_answer_as_networkx(tmp_path, directed):
    """`--compress` (Python `compress=True`): the stream engine reads coded
    tiles; WCC and BFS equal NetworkX's, PageRank equals the plain store's."""
    rng = random.Random(11 + directed)
    edges = random_edges(rng, 300, 2000, big_ids=False)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_weighted_edges_from(edges)
    src = tmp_path / "g.txt"
    src.write_text("".join(f"{u} {v}\n" for u, v, _ in edges))
    plain = outcore_py.import_edges(src, tmp_path / "plain.oc", directed=directed, compress=False,
                                    progress=False)
    coded = outcore_py.import_edges(src, tmp_path / "coded.oc", directed=directed, compress=True,
                                    progress=False)
    j = json.loads(outcore("info", "--json", tmp_path / "coded.oc").stdout)
    assert j["tiles"]["compression"] == "gap-svb"
    assert j["layouts"]["tiles"]["bits_per_edge"] < 32
    ids = sorted(g.nodes)
    out = tmp_path / "wcc.txt"
    outcore("run", "wcc", tmp_path / "coded.oc", "--engine", "stream", "--out", out)
    comps = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    expect = {v: min(c) for c in comps for v in c}
    assert [int(x) for x in read_values(out).values()] == [expect[v] for v in ids]
    source = edges[0][0]
    out = tmp_path / "bfs.txt"
    outcore("run", "bfs", tmp_path / "coded.oc", "--engine", "stream", "--source", source, "--out", out)
    depth = nx.single_source_shortest_path_length(g, source)
    unreached = 9223372036854775807
    assert {v: int(x) for v, x in read_values(out).items()} == {v: depth.get(v, unreached) for v in ids}
    a = plain.pagerank(engine="stream").to_dict()
    b = coded.pagerank(engine="stream").to_dict()
    assert a.keys() == b.keys() and all(abs(a[v] - b[v]) <= 1e-12 + 1e-9 * a[v] for v in a)


@pytest.mark.parametrize("directed", [True, False])
def test_small_csr_pages_answer_as_networkx(tmp_path, directed):
    """`compress="small"` (CLI `--compress=small`): CSR pages in Huffman-coded
    bit lengths; the select engine's WCC, BFS and k-core equal NetworkX's."""
    rng = random.Random(23 + directed)
    edges = random_edges(rng, 400, 3000, big_ids=False)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_weighted_edges_from(edges)
    g.remove_edges_from(nx.selfloop_edges(g))
    src = tmp_path / "g.txt"
    src.write_text("".join(f"{u} {v}\n" for u, v, _ in edges if u != v))
    s = outcore_py.import_edges(src, tmp_path / "small.oc", directed=directed, compress="small",
                                progress=False)
    j = json.loads(outcore("info", "--json", tmp_path / "small.oc").stdout)
    assert j["layouts"]["csr_out"]["compression"] == "page-huff"
    with pytest.raises(Exception, match="unknown compression"):
        outcore_py.import_edges(src, tmp_path / "bad.oc", compress="tiny", progress=False)
    comps = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    assert s.wcc(engine="select").to_dict() == {v: min(c) for c in comps for v in c}
    source = edges[0][0]
    depth = nx.single_source_shortest_path_length(g, source)
    unreached = 9223372036854775807
    assert s.bfs(source, engine="select").to_dict() == {v: depth.get(v, unreached) for v in g}
    if not directed:
        out = tmp_path / "kcore.txt"
        outcore("run", "kcore", tmp_path / "small.oc", "--out", out)
        core = nx.core_number(g)
        assert {v: int(x) for v, x in read_values(out).items()} == core
