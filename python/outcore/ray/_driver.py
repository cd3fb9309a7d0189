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

The actors outlive a run (the store's next run opens its job on them). A
lost actor (killed, or its node gone) ends the attempt: the driver stops
the others, starts new ones and replays from superstep 0 (no checkpoints
yet), at most `retries` times.

A run cancelled from the driver (`PartitionedStore.cancel()`, checked
between supersteps, or a KeyboardInterrupt while the driver waits) drops
the shards' jobs, stops the actors and raises (`Cancelled`, or the
KeyboardInterrupt): nothing of the run stays behind."""

from __future__ import annotations

import sys
import time
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


def _attempt(ex, actors: list, algorithm: str, options: dict, progress: bool,
             hook: Optional[Callable], cancelled: Callable[[], bool]) -> dict:
    """One run from superstep 0 on `actors` (shard k's at k): its values by
    global id, kind, steps and per-shard statistics."""
    parts, label = len(actors), algorithm
    try:
        inits = ex.get([ex.call(a, "open", algorithm, options) for a in actors])
        nodes = ex.get([ex.call(a, "node") for a in actors])
        s0 = s1 = 0.0
        for agg, _active, _steps, _kind in inits:
            s0 += agg[0]
            s1 += agg[1]
        max_steps, kind = inits[0][2], inits[0][3]
        ex.get([ex.call(a, "set_aggregate", (s0, s1)) for a in actors])
        steps = []
        step = 0
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
        cancel: Optional[Callable[[], None]] = None) -> dict:
    """Runs `algorithm` on executor `ex` over the shard actors `actors()`
    gives; a lost actor calls `lost()` (which stops them all, so that the
    next `actors()` starts new ones) and replays from superstep 0, at most
    `retries` times (`restarts` in the answer counts them). `cancelled()`
    true before a superstep, or a KeyboardInterrupt, calls `cancel()` (which
    drops the jobs and stops the actors) and raises."""
    restarts = 0
    while True:
        try:
            out = _attempt(ex, actors(), algorithm, options, progress, hook, cancelled)
            out["restarts"] = restarts
            return out
        except (Cancelled, KeyboardInterrupt):
            print(f"outcore.ray: {algorithm} cancelled; stopping the shards' actors",
                  file=sys.stderr, flush=True)
            (cancel or lost)()
            raise
        except ex.lost as e:
            lost()
            if restarts >= retries:
                raise
            restarts += 1
            print(f"outcore.ray: an actor was lost ({type(e).__name__}); starting the actors "
                  f"again and replaying from superstep 0 (restart {restarts} of at most "
                  f"{retries})", file=sys.stderr, flush=True)
