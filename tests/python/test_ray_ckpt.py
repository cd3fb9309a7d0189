"""outcore.ray's checkpoints (issue 54, E5; BSP checkpointing at the
beginning of a superstep): every `checkpoint_every` supersteps each shard
saves its state; a lost actor's run restarts the actors, restores the last
checkpoint every shard wrote and replays from its superstep, not from 0,
and ends with the single-machine run's values. With the Local executor a
"lost actor" is an error the hook raises (the executor counts it as
lost); on a real Ray cluster (`ray.cluster_utils.Cluster`, three nodes)
an actor is killed with `ray.kill`. The checkpoints are removed at the
end of the run. Without Ray the Ray test skips, unless
OUTCORE_REQUIRE_RAY=1 (CI), where it fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import outcore.ray
from outcore.ray import Local

from test_ray import _call, _dead, _same, _single, cluster, graphs  # noqa: F401 (fixtures)


class _Lost(Exception):
    """An actor lost, as the Local executor's test double sees it."""


class _LosingLocal(Local):
    lost = (_Lost,)


def _loser(at: int, seen: list):
    """A hook that loses an actor once, after superstep `at`."""

    def hook(step, actors):
        seen.append(step)
        if step == at and seen.count(at) == 1:
            raise _Lost(f"actor lost after superstep {at}")

    return hook


def _ckpt_dirs(base) -> list:
    return [n for n in os.listdir(base) if n.startswith("outcore-ray-ckpt-")]


@pytest.mark.parametrize("alg", ["pagerank", "wcc", "bfs", "sssp", "cdlp", "kcore"])
def test_a_lost_actor_restarts_from_the_last_checkpoint(graphs, tmp_path, alg):
    name, store, parts, source = graphs[0]
    want = _single(store, alg, source)
    with outcore.ray.open(parts[3], executor="local", checkpoint_every=0) as ps:
        n = len(_call(ps, alg, source).stats["supersteps"])
    assert n >= 4, f"{alg}: {n} supersteps"
    # Checkpoints every 2 supersteps; an actor lost after the one before
    # the last.
    every, at = 2, n - 2
    last = at // every * every
    seen: list = []
    with outcore.ray.open(parts[3], executor=_LosingLocal(), checkpoint_every=every,
                          checkpoint_dir=tmp_path) as ps:
        got = _call(ps, alg, source, _hook=_loser(at, seen))
    assert seen.count(at) == 2, seen
    _same(alg, f"{alg} after a lost actor", want, got)
    assert len(got.stats["supersteps"]) == n
    c = got.stats["checkpoints"]
    assert got.stats["restarts"] == 1
    assert c["restored_from"] == [last], c
    assert c["replayed_supersteps"] == at + 1 - last, c
    assert c["written"] >= 1 and all(b > 0 for x in c["checkpoints"] for b in x["bytes"])
    # Replayed from the checkpoint, not from 0: the hook saw the
    # supersteps before it once, those after it twice.
    assert seen.count(0) == 1 and seen.count(last - 1) == 1 and seen.count(last) == 2, seen
    assert not _ckpt_dirs(tmp_path), "the checkpoints are removed at the end"


def test_without_checkpoints_a_lost_actor_replays_from_0(graphs, tmp_path):
    name, store, parts, source = graphs[0]
    seen: list = []
    with outcore.ray.open(parts[2], executor=_LosingLocal(), checkpoint_every=0,
                          checkpoint_dir=tmp_path) as ps:
        got = _call(ps, "pagerank", source, _hook=_loser(7, seen))
    c = got.stats["checkpoints"]
    assert (c["written"], c["restored_from"], c["replayed_supersteps"]) == (0, [], 8)
    assert seen.count(0) == 2
    _same("pagerank", "pagerank replayed from 0", _single(store, "pagerank", source), got)


def test_bad_checkpoint_settings_are_refused(graphs):
    with pytest.raises(ValueError, match="checkpoint_every"):
        outcore.ray.open(graphs[0][2][2], executor="local", checkpoint_every=-1)


def test_the_command_reports_checkpoints(graphs, tmp_path):
    name, store, parts, source = graphs[0]
    stats = tmp_path / "stats.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(outcore.__file__))]
        + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run([sys.executable, "-m", "outcore.ray", "run", "pagerank", str(parts[3]),
                        "--local", "--iterations", "12", "--checkpoint-every", "4",
                        "--checkpoint-dir", str(tmp_path), "--stats", str(stats),
                        "--out", str(tmp_path / "pr.txt")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    c = json.loads(stats.read_text())["checkpoints"]
    assert [x["step"] for x in c["checkpoints"]] == [4, 8] and c["restores"] == 0, c
    assert "2 checkpoints, 0 restores, 0 supersteps replayed" in r.stderr, r.stderr
    assert not _ckpt_dirs(tmp_path)


# One Ray cluster at a time: both cluster tests go to one xdist worker
# (scripts/test.sh runs pytest with --dist loadgroup).
@pytest.mark.xdist_group("ray-cluster")
def test_ray_cluster_restarts_a_killed_actor_from_a_checkpoint(graphs, cluster, tmp_path):
    ray, c = cluster
    name, store, parts, source = graphs[0]
    want = _single(store, "pagerank", source)
    killed = []

    def kill(step, actors):
        # After superstep 6: the checkpoint of superstep 5 is complete.
        if step == 6 and not killed:
            killed.append(actors[1])
            ray.kill(actors[1])
            # Dead before superstep 7's calls: the kill is sent
            # asynchronously, and one landing later would restore from
            # another checkpoint than the one this test asserts.
            assert _dead(ray, actors[1])

    with outcore.ray.open(parts[3], checkpoint_every=5, checkpoint_dir=tmp_path) as ps:
        got = ps.pagerank(iterations=12, progress=False, _hook=kill)
        assert killed and got.stats["restarts"] == 1
        _same("pagerank", "pagerank after a killed actor", want, got)
        ck = got.stats["checkpoints"]
        assert ck["restored_from"] == [5], ck
        assert ck["replayed_supersteps"] == 2, ck
        assert ck["written"] >= 2, ck
        # The new actors serve the next run, from superstep 0.
        again = ps.wcc(progress=False)
        assert again.stats["restarts"] == 0
        assert again.stats["checkpoints"]["restores"] == 0
    _same("wcc", "wcc after a restart", _single(store, "wcc", source), again)
    assert not _ckpt_dirs(tmp_path)
