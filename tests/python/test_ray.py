"""outcore.ray (issue 54): runs over a partitioned store, one actor per
shard, equal the single-machine run (`outcore.open(store).pagerank()` and
so on): PageRank within 1e-12; WCC, BFS, SSSP (weighted stores), CDLP and
k-core exactly; K = 1, 2, 3 shards of a directed and an undirected graph.
A cancelled run stops its actors and leaves no scratch files; a damaged
shard's error names the shard. The Local executor (no Ray) runs every
case; a real Ray cluster of three nodes (`ray.cluster_utils.Cluster`, one
CPU and 100 MiB of object store each) runs them again, one test so that
only one xdist worker starts the cluster. Without Ray the Ray tests skip,
unless OUTCORE_REQUIRE_RAY=1 (CI), where they fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import outcore
import outcore.ray

BIN = os.environ.get("OUTCORE_BIN", str(Path(__file__).resolve().parents[2] / "target/release/outcore"))
PARTS = (1, 2, 3)
ALGORITHMS = ("pagerank", "wcc", "bfs", "sssp", "cdlp", "kcore")


def _edges(seed: int, n: int, m: int):
    """Skewed edges over spread-out ids (an id map), some vertices apart
    (several components), with weights in [0.5, 10)."""
    rng = np.random.default_rng(seed)
    src = np.minimum(rng.integers(0, n, m), rng.integers(0, n, m)) * 7 + 3
    dst = rng.integers(0, n, m) * 7 + 3
    far = rng.random(m) < 0.1
    src[far] += 7 * n
    dst[far] += 7 * n
    return src.astype(np.uint64), dst.astype(np.uint64), rng.uniform(0.5, 10.0, m)


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """(name, store, {K: partition dir}, bfs/sssp source) for a directed and
    an undirected graph, both weighted."""
    base = tmp_path_factory.mktemp("ray")
    out = []
    for name, directed, seed in (("directed", True, 5), ("undirected", False, 6)):
        src, dst, w = _edges(seed, 300, 2500)
        store = base / f"{name}.oc"
        outcore.import_edges((src, dst, w), store, directed=directed, weighted=True,
                             memory="256MiB", progress=False)
        parts = {}
        for k in PARTS:
            d = base / f"{name}-p{k}"
            r = subprocess.run([BIN, "--quiet", "partition", str(store), "--parts", str(k),
                                "--out", str(d), "--memory", "256MiB"],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            parts[k] = d
        out.append((name, store, parts, int(src[0])))
    return out


def _call(g, alg: str, source: int, **kw):
    """`alg` on a Store or a PartitionedStore, with the same arguments."""
    kw = dict({"progress": False, "memory": "64MiB"}, **kw)
    if alg == "pagerank":
        return g.pagerank(iterations=12, **kw)
    if alg == "cdlp":
        return g.cdlp(iterations=7, **kw)
    if alg in ("bfs", "sssp"):
        return getattr(g, alg)(source, **kw)
    return getattr(g, alg)(**kw)


def _single(store, alg: str, source: int):
    return _call(outcore.open(store), alg, source)


def _sharded(ps, alg: str, source: int, **extra):
    return _call(ps, alg, source, **extra)


def _same(alg: str, what: str, want, got) -> None:
    assert np.array_equal(want.ids, got.ids), f"{what}: ids"
    assert want.values.dtype == got.values.dtype, f"{what}: dtypes"
    if alg == "pagerank":
        diff = np.abs(want.values - got.values).max()
        assert diff <= 1e-12, f"{what}: PageRank differs by {diff}"
        assert got.iterations == want.iterations, f"{what}: iterations"
    else:
        bad = np.flatnonzero(want.values != got.values)
        assert len(bad) == 0, (f"{what}: {len(bad)} values differ, first at id "
                               f"{want.ids[bad[0]]}: {got.values[bad[0]]} != {want.values[bad[0]]}")


def _check_all(graphs, executor, **extra) -> None:
    for name, store, parts, source in graphs:
        want = {alg: _single(store, alg, source) for alg in ALGORITHMS}
        for k, d in parts.items():
            # One set of actors serves the three runs.
            with outcore.ray.open(d, executor=executor) as ps:
                assert ps.parts == k
                for alg in ALGORITHMS:
                    got = _sharded(ps, alg, source, **extra)
                    _same(alg, f"{alg}, {name}, K = {k}, {executor}", want[alg], got)
                    if k > 1 and alg not in ("bfs", "sssp"):
                        assert got.stats["messages"] > 0, "messages crossed between shards"


def test_local_executor_equals_the_single_machine_run(graphs):
    _check_all(graphs, "local")


def test_local_runs_on_every_engine(graphs):
    name, store, parts, source = graphs[0]
    for engine in ("stream", "select"):
        want = _single(store, "wcc", source)
        got = outcore.ray.open(parts[3], executor="local").wcc(engine=engine, progress=False)
        _same("wcc", f"wcc on {engine}", want, got)


class ReadOnly(outcore.ray.Local):
    """The Local executor handing over read-only outboxes, as Ray's object
    store does."""

    def call(self, actor, method, *args, num_returns=1):
        out = super().call(actor, method, *args, num_returns=num_returns)
        if method == "scatter":
            for box in out[1:]:
                for a in box or ():
                    a.setflags(write=False)
        return out


def test_read_only_outboxes_are_read_in_place(graphs):
    name, store, parts, source = graphs[0]
    want = _single(store, "pagerank", source)
    with outcore.ray.open(parts[3], executor=ReadOnly()) as ps:
        got = _sharded(ps, "pagerank", source)
    assert got.stats["messages"] > 0
    _same("pagerank", "read-only outboxes", want, got)


def test_outboxes_carry_four_byte_ids_and_refuse_the_other_width(graphs):
    """An outbox's targets are uint32 (the receiver's local ids fit): 4 id
    bytes and the value a message (PageRank's f64, CDLP's u32 label), in
    the run's figures too; uint64 ids are refused, not misread."""
    from outcore import _outcore

    name, store, parts, source = graphs[1]
    for alg, value, kw in (("pagerank", 8, {"iterations": 3}), ("cdlp", 4, {"iterations": 3})):
        jobs = [_outcore.RawShardJob(str(parts[3]), k, alg, **kw) for k in range(3)]
        boxes = jobs[0].scatter(0)
        assert boxes, alg
        for to, targets, payload in boxes:
            assert targets.dtype == np.uint32, alg
            assert payload.nbytes == len(targets) * value, alg
            with pytest.raises(outcore.InputError, match="8-byte target ids.*refused"):
                jobs[to].receive(0, targets.astype(np.uint64), payload)
            with pytest.raises(outcore.InputError, match="uint32 or uint64"):
                jobs[to].receive(0, targets.astype(np.int64), payload)
            jobs[to].receive(0, targets, payload)
        with outcore.ray.open(parts[3], executor="local") as ps:
            got = _sharded(ps, alg, source)
        steps = got.stats["supersteps"]
        assert steps and all(s["bytes"] == s["messages"] * (4 + value) for s in steps), alg


def test_arguments_are_checked_as_stores_are(graphs):
    ps = outcore.ray.open(graphs[0][2][2], executor="local")
    with pytest.raises(TypeError, match="valid:"):
        ps.pagerank(iteratons=3)
    with pytest.raises(ValueError, match="damping"):
        ps.pagerank(damping=2.0)
    with pytest.raises(outcore.InputError, match="not in the graph"):
        ps.bfs(source=1, progress=False)
    with pytest.raises(outcore.StoreError):
        outcore.ray.open(graphs[0][1])  # a store, not a partition


def test_the_command_writes_what_the_cli_writes(graphs, tmp_path):
    name, store, parts, source = graphs[1]
    want = tmp_path / "want.txt"
    r = subprocess.run([BIN, "--quiet", "run", "pagerank", str(store), "--iterations", "12",
                        "--out", str(want)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    stats = tmp_path / "stats.json"
    r = subprocess.run([sys.executable, "-m", "outcore.ray", "run", "pagerank", str(parts[3]),
                        "--local", "--iterations", "12", "--stats", str(stats)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "superstep 0" in r.stderr and "superstep" not in r.stdout
    got = dict(line.split() for line in r.stdout.splitlines())
    exp = dict(line.split() for line in want.read_text().splitlines())
    assert got.keys() == exp.keys()
    assert max(abs(float(got[i]) - float(exp[i])) for i in exp) <= 1e-12
    import json

    doc = json.loads(stats.read_text())
    assert doc["parts"] == 3 and len(doc["supersteps"]) == 12
    step = doc["supersteps"][0]
    assert step["messages"] > 0 and len(step["actors"]) == 3
    assert sum(a["bytes"] for a in step["actors"]) == step["bytes"]
    assert sum(a["received_messages"] for a in step["actors"]) == step["messages"]
    # What each shard's state holds is charged to its budget.
    assert all(0 < a["state_bytes"] <= a["budget_peak_bytes"] for a in step["actors"])


def test_the_command_runs_sssp_cdlp_and_kcore_as_the_cli_does(graphs, tmp_path):
    name, store, parts, source = graphs[0]
    for alg, args in (("sssp", ["--source", str(source)]), ("cdlp", ["--iterations", "7"]),
                      ("kcore", [])):
        want = tmp_path / f"{alg}.txt"
        r = subprocess.run([BIN, "--quiet", "run", alg, str(store), "--out", str(want)] + args,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        r = subprocess.run([sys.executable, "-m", "outcore.ray", "run", alg, str(parts[3]),
                            "--local", "--quiet"] + args, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert r.stdout == want.read_text(), alg
    r = subprocess.run([sys.executable, "-m", "outcore.ray", "run", "sssp", str(parts[2]),
                        "--local"], capture_output=True, text=True)
    assert r.returncode == 2 and "sssp needs --source" in r.stderr


def _leftovers(*dirs) -> list:
    """The `.outcore-*` scratch files and directories under `dirs`."""
    return [p for d in dirs for p in Path(d).rglob(".outcore-*")]


def _cancelled(ps, how: str, tmp, seen: list):
    """Runs PageRank on `ps`, cancelled after superstep 2 by `how`
    ("cancel": `ps.cancel()`; "interrupt": a KeyboardInterrupt in the
    driver's loop); `seen` gets the actors."""

    def hook(step, actors):
        seen.append(list(actors))
        if step == 2:
            if how == "cancel":
                ps.cancel()
            else:
                raise KeyboardInterrupt

    expected = outcore.ray.Cancelled if how == "cancel" else KeyboardInterrupt
    with pytest.raises(expected):
        _sharded(ps, "pagerank", 0, tmp_dir=tmp, _hook=hook)
    assert len(seen) == 3, "no superstep after the cancel"


def test_a_cancelled_run_stops_its_actors_and_leaves_nothing(graphs, tmp_path):
    name, store, parts, source = graphs[0]
    want = _single(store, "pagerank", source)
    for how in ("cancel", "interrupt"):
        tmp = tmp_path / how
        tmp.mkdir()
        seen: list = []
        with outcore.ray.open(parts[3], executor="local") as ps:
            _cancelled(ps, how, tmp, seen)
            assert ps._actors is None, f"{how}: the actors are stopped"
            assert all(a.job is None for a in seen[-1]), f"{how}: the jobs are dropped"
            assert not _leftovers(parts[3], tmp), how
            # The next run starts new actors and runs whole.
            _same("pagerank", f"after a {how}", want, _sharded(ps, "pagerank", source))


def _damaged(parts, tmp_path, file: str = "manifest.json") -> Path:
    """A copy of the 3-shard partition with a byte of shard 1's `file`
    flipped."""
    import shutil

    d = tmp_path / f"damaged-{file.replace('/', '-')}"
    shutil.copytree(parts[3], d)
    f = d / "shard-001" / file
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0x01
    f.write_bytes(bytes(b))
    return d


def test_a_damaged_shard_is_named(graphs, tmp_path):
    d = _damaged(graphs[0][2], tmp_path)
    with outcore.ray.open(d, executor="local") as ps:
        with pytest.raises(outcore.StoreError, match=r"shard 1 \(.*shard-001\)"):
            ps.wcc(progress=False)
    # A data file the run reads: its chunk checksum fails during a
    # superstep, and the error names the shard as opening one does.
    d = _damaged(graphs[0][2], tmp_path, "tiles/edges.bin")
    with outcore.ray.open(d, executor="local") as ps:
        pattern = r"shard 1 \(.*shard-001\): .*edges.bin is damaged.*partition the store again"
        with pytest.raises(outcore.StoreError, match=pattern):
            ps.wcc(progress=False)


# --- a real Ray cluster ----------------------------------------------------


def _ray():
    try:
        import ray
        from ray.cluster_utils import Cluster
    except ImportError:
        if os.environ.get("OUTCORE_REQUIRE_RAY") == "1":
            pytest.fail("OUTCORE_REQUIRE_RAY=1 but Ray is not installed (pip install ray)")
        pytest.skip("Ray is not installed (pip install 'outcore[ray]')")
    return ray, Cluster


@pytest.fixture(scope="module")
def cluster():
    """A head and two more nodes, one CPU and 100 MiB of object store each;
    workers import outcore from where this process does."""
    ray, Cluster = _ray()
    pkg = str(Path(outcore.__file__).resolve().parents[1])
    path = os.pathsep.join([pkg] + [p for p in os.environ.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    node = {"num_cpus": 1, "object_store_memory": 100 * 2**20}
    c = Cluster(initialize_head=True, head_node_args=node)
    for _ in range(2):
        c.add_node(**node)
    c.wait_for_nodes()
    ray.init(address=c.address, runtime_env={"env_vars": {"PYTHONPATH": path}},
             log_to_driver=False)
    try:
        yield ray, c
    finally:
        ray.shutdown()
        c.shutdown()


def _dead(ray, actor, wait: float = 20.0) -> bool:
    """Whether `actor` is dead within `wait` seconds (`ray.kill` lands a
    moment after it returns)."""
    import time

    end = time.monotonic() + wait
    while time.monotonic() < end:
        try:
            ray.get(actor.node.remote(), timeout=wait)
        except ray.exceptions.RayActorError:
            return True
        except ray.exceptions.GetTimeoutError:
            pass
        time.sleep(0.2)
    return False


# One Ray cluster at a time: both cluster tests go to one xdist worker
# (scripts/test.sh runs pytest with --dist loadgroup).
@pytest.mark.xdist_group("ray-cluster")
def test_ray_cluster_runs_equal_the_single_machine_run(graphs, cluster, tmp_path):
    ray, c = cluster
    assert len([n for n in ray.nodes() if n["Alive"]]) == 3
    _check_all(graphs, "ray")
    # The actors are spread over the nodes.
    name, store, parts, source = graphs[0]
    with outcore.ray.open(parts[3]) as ps:
        r = ps.pagerank(iterations=3, progress=False)
    nodes = {a["node"] for a in r.stats["supersteps"][0]["actors"]}
    assert len(nodes) == 3, nodes

    # An actor killed after superstep 2: the driver restarts the actors
    # and replays from superstep 0 (no checkpoints yet); the result is the
    # undisturbed run's.
    want = _single(store, "pagerank", source)
    killed = []

    def kill(step, actors):
        if step == 2 and not killed:
            killed.append(actors[1])
            ray.kill(actors[1])
            # Dead before the next superstep's calls (the kill is sent
            # asynchronously and could land after the run).
            assert _dead(ray, actors[1])

    with outcore.ray.open(parts[3]) as ps:
        got = ps.pagerank(iterations=12, progress=False, _hook=kill)
        assert killed and got.stats["restarts"] == 1
        _same("pagerank", "pagerank after a killed actor", want, got)
        # The new actors serve the next run.
        again = ps.wcc(progress=False)
        assert again.stats["restarts"] == 0
    _same("wcc", "wcc after a restart", _single(store, "wcc", source), again)

    # Cancelled: the actors are killed after dropping their jobs, nothing
    # is left on disk, and the next run starts new actors.
    seen: list = []
    with outcore.ray.open(parts[3]) as ps:
        _cancelled(ps, "cancel", tmp_path, seen)
        assert ps._actors is None
        assert all(_dead(ray, a) for a in seen[-1]), "the actors are killed"
        assert not _leftovers(parts[3], tmp_path)
        _same("wcc", "wcc after a cancel", _single(store, "wcc", source), ps.wcc(progress=False))

    # A damaged shard: the shard's StoreError itself, not a RayTaskError.
    with outcore.ray.open(_damaged(parts, tmp_path)) as ps:
        with pytest.raises(outcore.StoreError, match=r"shard 1 \(.*shard-001\)") as e:
            ps.wcc(progress=False)
    assert not isinstance(e.value, ray.exceptions.RayTaskError), type(e.value)
    assert "ray::" not in str(e.value), str(e.value)

    # A node removed mid-run (after a fourth joins, so that the three
    # one-CPU actors fit on the nodes left): its actor is lost, the driver
    # starts the actors again on the alive nodes (soft affinity) and
    # replays from superstep 0.
    c.add_node(num_cpus=1, object_store_memory=100 * 2**20)
    c.wait_for_nodes()
    want = _single(store, "sssp", source)
    removed = []

    def remove(step, actors):
        if step == 1 and not removed:
            on = ray.get([a.node.remote() for a in actors])
            node = next(x for x in c.list_all_nodes()
                        if x is not c.head_node and x.node_id in on)
            removed.append(node.node_id)
            c.remove_node(node)

    with outcore.ray.open(parts[3]) as ps:
        got = ps.sssp(source, progress=False, _hook=remove)
    assert removed and got.stats["restarts"] >= 1
    assert removed[0] not in {a["node"] for a in got.stats["supersteps"][0]["actors"]}
    _same("sssp", "sssp after a removed node", want, got)
