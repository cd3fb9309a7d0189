"""String vertex ids through the CLI, checked against NetworkX.

A CSV of names (quoted where CSV needs it, numbers that are not integers in
byte order, non-ASCII, blanks and quotes inside names) is imported with the
default `--ids auto`; WCC and BFS must equal NetworkX's on the same graph:
WCC labels are the smallest name of each component (names order by their
UTF-8 bytes, as ranks do), BFS depths from a named source. Outputs quote a
name that holds a blank or a quote (`"a b"`, `""` for a quote), so every
`id value` line splits into two fields.
"""

import csv
import json
import io
import os
import random
import subprocess
from pathlib import Path

import networkx as nx
import pytest

BIN = os.environ.get("OUTCORE_BIN", str(Path(__file__).resolve().parents[2] / "target/release/outcore"))
UNREACHED = 9223372036854775807


def outcore(*args):
    r = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def names(rng, n):
    pool = set()
    while len(pool) < n:
        i = rng.randrange(10**6)
        pool.add(rng.choice([
            f"user{i}", f"{i}", f"00{i}", f"Smith, {i}", f'say "{i}"',
            f"Zoë {i}", f"ünïcode-{i}", f"acct:{i:x}", f"{'x' * rng.randrange(60)}{i}",
        ]))
    return sorted(pool)


def fields(line):
    """The blank-separated fields of a line, a field in double quotes
    possibly holding blanks and `""` for a quote."""
    out, i = [], 0
    while i < len(line):
        if line[i] == '"':
            j, buf = i + 1, []
            while True:
                k = line.index('"', j)
                buf.append(line[j:k])
                if line[k + 1:k + 2] == '"':
                    buf.append('"')
                    j = k + 2
                    continue
                break
            out.append("".join(buf))
            i = k + 2
        else:
            k = line.find(" ", i)
            k = len(line) if k < 0 else k
            out.append(line[i:k])
            i = k + 1
    return out


def read_values(text):
    """`id value` lines as {id: value}, quoting undone."""
    out = {}
    for line in text.splitlines():
        name, value = fields(line)
        assert name not in out
        out[name] = value
    return out


def utf8_min(xs):
    return min(xs, key=lambda s: s.encode())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("order", ["auto", "bfs"])
def test_wcc_and_bfs_on_names_match_networkx(tmp_path, seed, directed, order):
    rng = random.Random(seed)
    pool = names(rng, rng.randrange(5, 200))
    edges = [(rng.choice(pool), rng.choice(pool)) for _ in range(rng.randrange(1, 3 * len(pool)))]
    # `--ids auto` decides by the first row: make it names.
    edges.insert(0, ("alice", "Bob Smith"))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["source", "target"])
    w.writerows(edges)
    (tmp_path / "g.csv").write_text(buf.getvalue(), encoding="utf-8")
    store = tmp_path / "g.oc"
    r = outcore("import", tmp_path / "g.csv", "--header", "--out", store,
                "--directed" if directed else "--undirected", "--order", order)
    assert "--ids string" in r.stderr, "auto-detected"
    outcore("verify", store)
    if order == "bfs":
        assert json.loads(outcore("info", "--json", store).stdout)["vertex_order"] == "bfs"
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_edges_from(edges)

    wcc = read_values(outcore("run", "wcc", store, "--out", "-").stdout)
    comps = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    expect = {v: utf8_min(c) for c in comps for v in c}
    assert wcc == expect

    source = rng.choice(edges)[0]
    bfs = read_values(outcore("run", "bfs", store, "--source", source, "--out", "-").stdout)
    depth = nx.single_source_shortest_path_length(g, source)
    assert {v: int(d) for v, d in bfs.items()} == {v: depth.get(v, UNREACHED) for v in g.nodes}

    # khop answers in names, one per line, as the user typed them in.
    got = outcore("query", "khop", store, "--source", source, "--hops", "2").stdout.splitlines()
    assert sorted((fields(x)[0] for x in got), key=str.encode) == sorted(
        (v for v, d in depth.items() if d <= 2), key=str.encode)
