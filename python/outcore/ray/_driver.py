"""The driver of a run over shards: the superstep loop of
`engine/shard/driver.rs`'s `exchange` (bulk-synchronous parallel, as
Pregel's master), with actors instead of a vector of shard runs.

A superstep: every actor `scatter`s (its messages for other shards,
combined on the sender, one outbox per destination shard, each its own
object); every actor `receive_apply`s the outboxes addressed to it, in
shard order, so sums add up in the same order every run; the driver sums
the aggregates and active counts in shard order and hands them to every
actor's `finish`, whose verdict ends the run. The outboxes go from actor
to actor as Ray objects: the driver holds their references only.

The actors outlive a run (the store's next run opens its job on them).

Checkpoints (BSP checkpointing, Pregel's "checkpoint at the beginning of
a superstep"): every `checkpoint_every` supersteps each actor writes its
shard's state at the boundary to `<dir>/sNNNNNN/shard-KKK.ckpt` on its
node's disk (atomically, with a checksum: `RawShardJob.checkpoint`); the
checkpoint of superstep s is complete when every actor has written its
file, which the driver (the master) notes. A lost actor (killed, or its
node gone) ends the attempt: the driver stops the others, starts new ones,
which restore the last complete checkpoint (`RawShardJob.restore`), and
replays from its superstep (from 0 when none is complete yet), at most
`retries` times. An actor keeps its last two checkpoints (the complete
one and the one being written); the run's checkpoint directory is removed
at its end, whatever the end. A restarted actor must see the files its
predecessor wrote: on a real cluster, a checkpoint directory on storage
every node mounts (the test cluster's nodes share this machine's disk).

A run cancelled from the driver (`PartitionedStore.cancel()`, checked
between supersteps, or a KeyboardInterrupt while the driver waits) drops
the shards' jobs, stops the actors and raises (`Cancelled`, or the
KeyboardInterrupt): nothing of the run stays behind."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import uuid
from typing import Any, Callable, Optional

import numpy as np

from ..errors import OutcoreError


class Cancelled(OutcoreError):
    """The run was cancelled (`PartitionedStore.cancel()`); its actors are
    stopped."""


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n}"


class _Checkpoints:
    """A run's checkpoints: where they go, every how many supersteps, the
    last complete one, and the figures `--stats` reports."""

    def __init__(self, every: int, base: Optional[str]) -> None:
        if every < 0:
            raise ValueError(f"checkpoint_every must be 0 (off) or more, got {every}")
        self.every = every
        base = os.fspath(base) if base is not None else tempfile.gettempdir()
        # The run's own directory under `base`, removed at its end.
        self.root = os.path.join(base, f"outcore-ray-ckpt-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        self.complete: Optional[int] = None
        self.steps: list = []
        self.written: list = []
        self.restored_from: list = []
        self.replayed = 0

    def due(self, step: int, max_steps: int) -> bool:
        """Whether to checkpoint at the beginning of superstep `step`."""
        return self.every > 0 and step > 0 and step % self.every == 0 and step < max_steps

    def stats(self) -> dict:
        return {"every": self.every, "dir": self.root, "written": len(self.written),
                "bytes": sum(sum(c["bytes"]) for c in self.written),
                "seconds": sum(max(c["seconds"]) for c in self.written),
                "checkpoints": self.written, "restores": len(self.restored_from),
                "restored_from": self.restored_from, "replayed_supersteps": self.replayed}

    def clean(self, ex, actors: Optional[list]) -> None:
        """Removes the run's checkpoints: each actor its own (on its node's
        disk), then the directory here."""
        if actors:
            try:
                ex.get([ex.call(a, "clean_checkpoints", self.root) for a in actors])
            except Exception:  # lost actors: their files go with the directory
                pass
        shutil.rmtree(self.root, ignore_errors=True)


def _attempt(ex, actors: list, algorithm: str, options: dict, progress: bool,
             hook: Optional[Callable], cancelled: Callable[[], bool], ck: _Checkpoints) -> dict:
    """One run on `actors` (shard k's at k), from superstep 0 or from
    `ck`'s last complete checkpoint: its values by global id, kind, steps
    and per-shard statistics."""
    parts, label = len(actors), algorithm
    try:
        inits = ex.get([ex.call(a, "open", algorithm, options) for a in actors])
        nodes = ex.get([ex.call(a, "node") for a in actors])
        s0 = s1 = 0.0
        for agg, _active, _steps, _kind in inits:
            s0 += agg[0]
            s1 += agg[1]
        max_steps, kind = inits[0][2], inits[0][3]
        if ck.complete is None:
            ex.get([ex.call(a, "set_aggregate", (s0, s1)) for a in actors])
            step = 0
        else:
            # Every shard at the beginning of the checkpoint's superstep,
            # its aggregate the one saved.
            step = ck.complete
            ex.get([ex.call(a, "restore", ck.root, step) for a in actors])
            ck.restored_from.append(step)
            if progress:
                print(f"outcore.ray: {label} restored from the checkpoint of superstep {step}",
                      file=sys.stderr, flush=True)
        steps = ck.steps
        del steps[step:]
        while step < max_steps:
            if cancelled():
                raise Cancelled(f"outcore.ray: {label} cancelled before superstep {step}")
            t = time.perf_counter()
            outs = [ex.call(a, "scatter", step, num_returns=parts + 1) for a in actors]
            heads = ex.get([o[0] for o in outs])
            # The program's begin is the same on every shard.
            if any(h is None for h in heads):
                break
            got = ex.get([ex.call(actors[j], "receive_apply", step,
                                  *[outs[k][j + 1] for k in range(parts)])
                          for j in range(parts)])
            s0 = s1 = 0.0
            active = 0
            for agg, c, _ in got:
                s0 += agg[0]
                s1 += agg[1]
                active += c
            done = any(ex.get([ex.call(a, "finish", step, (s0, s1), active) for a in actors]))
            seconds = time.perf_counter() - t
            per = [dict(shard=k, node=nodes[k], **heads[k], **got[k][2]) for k in range(parts)]
            ex_step = {"step": step, "seconds": seconds,
                       "messages": sum(h["messages"] for h in heads),
                       "bytes": sum(h["bytes"] for h in heads), "active": active,
                       "actors": per}
            steps.append(ex_step)
            if progress:
                print(f"outcore.ray: {label} superstep {step}: {seconds:.3f} s, "
                      f"{ex_step['messages']} messages ({_human(ex_step['bytes'])}) between "
                      f"{parts} shards, {active} active", file=sys.stderr, flush=True)
            if hook is not None:
                hook(step, actors)
            step += 1
            if done:
                break
            if ck.due(step, max_steps):
                got = ex.get([ex.call(a, "checkpoint", ck.root, step, ck.complete)
                              for a in actors])
                ck.complete = step
                ck.written.append({"step": step, "bytes": [b for b, _ in got],
                                   "seconds": [t for _, t in got]})
                if progress:
                    print(f"outcore.ray: {label} checkpoint of superstep {step}: "
                          f"{_human(sum(b for b, _ in got))} in "
                          f"{max(t for _, t in got):.3f} s", file=sys.stderr, flush=True)
        ends = ex.get([ex.call(a, "values") for a in actors])
        stats = ex.get([ex.call(a, "stats") for a in actors])
    finally:
        for a in actors:
            try:
                ex.call(a, "drop")
            except ex.lost:
                pass
    values = np.concatenate([v for _, v, _ in ends]) if ends else np.empty(0, np.uint64)
    globals_ = np.concatenate([g for g, _, _ in ends]) if ends else np.empty(0, np.uint64)
    if not np.array_equal(globals_, np.arange(len(globals_), dtype=np.uint64)):
        raise RuntimeError("outcore.ray: the shards' vertices do not cover the global ids "
                           "in order; partition the store again")
    return {"values": values, "kind": kind, "steps": steps, "shards": stats, "nodes": nodes}


def run(ex, actors: Callable[[], list], lost: Callable[[], None], algorithm: str,
        options: dict, *, progress: bool = True, retries: int = 3,
        hook: Optional[Callable[[int, list], Any]] = None,
        cancelled: Callable[[], bool] = lambda: False,
        cancel: Optional[Callable[[], None]] = None, checkpoint_every: int = 5,
        checkpoint_dir: Optional[str] = None) -> dict:
    """Runs `algorithm` on executor `ex` over the shard actors `actors()`
    gives, checkpointing every `checkpoint_every` supersteps (0: never)
    under `checkpoint_dir` (default: the temporary directory); a lost actor
    calls `lost()` (which stops them all, so that the next `actors()`
    starts new ones), which restore the last complete checkpoint and go on
    from there (from superstep 0 when there is none), at most `retries`
    times (`restarts` in the answer counts them, `checkpoints` has the
    checkpoints' figures). `cancelled()` true before a superstep, or a
    KeyboardInterrupt, calls `cancel()` (which drops the jobs and stops the
    actors) and raises."""
    restarts = 0
    ck = _Checkpoints(checkpoint_every, checkpoint_dir)
    current: Optional[list] = None
    try:
        while True:
            try:
                current = actors()
                out = _attempt(ex, current, algorithm, options, progress, hook, cancelled, ck)
                out["restarts"] = restarts
                out["checkpoints"] = ck.stats()
                return out
            except (Cancelled, KeyboardInterrupt):
                print(f"outcore.ray: {algorithm} cancelled; stopping the shards' actors",
                      file=sys.stderr, flush=True)
                current = None
                (cancel or lost)()
                raise
            except ex.lost as e:
                current = None
                lost()
                if restarts >= retries:
                    raise
                restarts += 1
                # The supersteps done since the checkpoint are done again.
                start = ck.complete or 0
                ck.replayed += max(0, len(ck.steps) - start)
                print(f"outcore.ray: an actor was lost ({type(e).__name__}); starting the "
                      f"actors again and replaying from superstep {start}"
                      f"{' (its checkpoint)' if ck.complete else ''} (restart {restarts} of "
                      f"at most {retries})", file=sys.stderr, flush=True)
    finally:
        ck.clean(ex, current)
