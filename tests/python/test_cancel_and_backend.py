"""Ctrl-C in Python cancels a run cleanly; the NetworkX backend returns
exactly what NetworkX returns, and NetworkX's own tests pass against it."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import networkx as nx
import pytest

import outcore  # noqa: E402 (from this tree: see conftest.py)

CHILD = textwrap.dedent("""
    import os, signal, sys, outcore
    # Ctrl-C raises KeyboardInterrupt, as in a terminal, even when the tests
    # were started in the background (a shell's `&` leaves SIGINT ignored,
    # and Python then keeps it ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    tmp = sys.argv[1]
    s = outcore.generate("kron", os.path.join(tmp, "k.oc"), scale=15, progress=False)
    print("running", flush=True)
    try:
        s.pagerank(iterations=100000, engine="external", memory="64MiB",
                   tmp_dir=os.path.join(tmp, "spill"), progress=False)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    # The store is still whole, and the engine can run again at once.
    s.verify()
    print(s.wcc(progress=False).summary, flush=True)
""")


def test_ctrl_c_cancels_a_run_and_leaves_no_files(tmp_path):
    os.makedirs(tmp_path / "spill")
    p = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "running"
    # While it runs, the spill directory holds the engine's files (on a
    # loaded machine the child may take a while to start spilling).
    end = time.monotonic() + 60
    while not list((tmp_path / "spill").iterdir()):
        assert p.poll() is None, "the run ended before it spilled"
        assert time.monotonic() < end, "the external engine spilled nothing in 60 s"
        time.sleep(0.05)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        # Where every thread of the child waits, for the failure message.
        stacks = ""
        if shutil.which("gdb"):
            stacks = subprocess.run(["gdb", "-p", str(p.pid), "-batch", "-ex", "thread apply all bt 16"],
                                    capture_output=True, text=True, timeout=120).stdout
        p.kill()
        out, err = p.communicate()
        pytest.fail(f"Ctrl-C did not stop the run within 60 s: {out} {err}\n{stacks}")
    assert p.returncode == 0, err
    assert out.split("\n")[0] == "interrupted", out + err
    assert "components" in out
    assert list((tmp_path / "spill").iterdir()) == []
    assert sorted(x.name for x in tmp_path.iterdir()) == ["k.oc", "spill"]


def test_backend_results_are_networkx_types():
    nx.config.warnings_to_ignore.add("cache")
    g = nx.Graph()
    g.add_edges_from([("a", "b", {"weight": 2}), ("b", "c", {"weight": 3}), ("c", "a", {"weight": 1}),
                      (("t", 1), "d", {"weight": 5})])
    g.add_node(None.__class__)  # any hashable node, isolated
    pr = nx.pagerank(g, backend="outcore")
    assert pr == pytest.approx(nx.pagerank(g), abs=1e-6)
    assert all(type(x) is float for x in pr.values())
    comps = list(nx.connected_components(g, backend="outcore"))
    assert sorted(map(len, comps)) == [1, 2, 3] and all(isinstance(c, set) for c in comps)
    assert nx.number_connected_components(g, backend="outcore") == 3
    d = nx.single_source_dijkstra_path_length(g, "a", backend="outcore")
    assert d == {"a": 0, "c": 1, "b": 2} and all(type(x) is int for x in d.values())
    assert nx.single_source_shortest_path_length(g, "a", backend="outcore") == {"a": 0, "b": 1, "c": 1}
    assert nx.core_number(g, backend="outcore") == nx.core_number(g)
    assert nx.triangles(g, backend="outcore") == nx.triangles(g)
    g.add_edge("a", "a")  # ignored by nx.triangles, as by outcore
    assert nx.triangles(g, backend="outcore") == nx.triangles(g)
    g.remove_edge("a", "a")
    assert nx.clustering(g, "a", backend="outcore") == nx.clustering(g, "a")
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(g, "zz", backend="outcore")
    dg = nx.DiGraph([(1, 2), (2, 3), (5, 6)])
    assert sorted(map(sorted, nx.weakly_connected_components(dg, backend="outcore"))) == [
        [1, 2, 3], [5, 6]]


def test_backend_runs_networkx_for_what_outcore_cannot_honour():
    from outcore.nx import native

    g = nx.path_graph(4)
    assert native("pagerank", (g,), {}) is True
    assert isinstance(native("pagerank", (g,), {"personalization": {0: 1}}), str)
    assert native("pagerank", (nx.MultiGraph(g),), {}) is not True
    g.add_edge(0, 0)
    assert native("core_number", (g,), {}) is not True
    assert native("core_number", (nx.DiGraph([(0, 1)]),), {}) is not True
    w = nx.Graph([(0, 1, {"weight": -1})])
    assert native("single_source_dijkstra_path_length", (w, 0), {}) is not True
    # ... and gives NetworkX's answer for it, asked for by name.
    d = nx.DiGraph([(0, 1, {"weight": -1})])
    assert native("single_source_dijkstra_path_length", (d, 0), {}) is not True
    assert nx.single_source_dijkstra_path_length(d, 0, backend="outcore") == {0: 0, 1: -1}
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.core_number(g, backend="outcore")  # as NetworkX itself


def test_converted_stores_live_in_the_configured_tmp_dir(tmp_path):
    import gc

    from outcore.nx import OutcoreGraph

    nx.config.backends.outcore.tmp_dir = str(tmp_path)
    try:
        og = OutcoreGraph(nx.path_graph(5))
        made = list(tmp_path.iterdir())
        assert len(made) == 1 and made[0].name.startswith("outcore-nx-")
        del og
        gc.collect()
        assert list(tmp_path.iterdir()) == []
    finally:
        nx.config.backends.outcore.tmp_dir = None


def test_networkx_own_tests_pass_against_the_backend(tmp_path):
    env = dict(os.environ, NETWORKX_TEST_BACKEND="outcore", NETWORKX_FALLBACK_TO_NX="True")
    mods = ["networkx.algorithms.link_analysis", "networkx.algorithms.components",
            "networkx.algorithms.shortest_paths", "networkx.algorithms.tests.test_core",
            "networkx.algorithms.tests.test_cluster", "networkx.algorithms.tests.test_mis",
            "networkx.algorithms.centrality.tests.test_betweenness_centrality",
            "networkx.algorithms.centrality.tests.test_betweenness_centrality_subset"]
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--pyargs", *mods], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and " failed" not in r.stdout


def test_the_gil_is_released_while_engines_run(tmp_path):
    import threading

    s = outcore.generate("kron", tmp_path / "k.oc", scale=14, progress=False)
    ticks, stop = [0], threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    try:
        before = ticks[0]
        r = s.pagerank(iterations=100, engine="external", memory="64MiB", progress=False)
        during = ticks[0] - before
    finally:
        stop.set()
        t.join()
    # A thread holding the GIL for the whole run would leave the counter still.
    assert r.seconds > 0.2, "the run is too short to tell"
    assert during >= 0.2 * r.seconds * 1000 / 2, (during, r.seconds)
