"""`ShardActor`: one shard's run of a vertex program, a superstep at a time
(the worker of a bulk-synchronous run, Pregel's "worker"). The Ray
executor makes it a Ray actor; the Local executor calls it in this process.
Plain Python over `_outcore.RawShardJob`: no Ray import here."""

from __future__ import annotations

import os
import sys
import time
from typing import Iterable, Optional


def _peak_rss() -> int:
    """This process's peak resident set (an actor's own under Ray; the
    driver's with the Local executor)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class ShardActor:
    """Shard `k` of the `parts` of the partition at `path`: `open` starts
    an algorithm with the single-machine run's options, and the driver
    calls its steps; one actor serves every run of a `PartitionedStore`."""

    def __init__(self, path: str, k: int, parts: int) -> None:
        self.path, self.k, self.parts = path, k, parts
        self.job = None

    def open(self, algorithm: str, options: dict) -> tuple:
        """Starts `algorithm` on the shard (the job a run before left is
        dropped): (aggregate of the shard's inits, their active count,
        supersteps at most, the values' kind)."""
        from outcore import _outcore

        if not hasattr(self, "start_rss"):
            # Before this actor's first run, the library loaded: what the
            # runs' figures measure their peak RSS growth from.
            self.start_rss = _peak_rss()
        self.job = None
        self.job = _outcore.RawShardJob(self.path, self.k, algorithm, **options)
        agg, active = self.job.init
        return agg, active, self.job.max_steps, self.job.kind

    def drop(self) -> None:
        """Frees the run's state (the actor stays, for the next run)."""
        self.job = None

    def node(self) -> Optional[str]:
        """The Ray node this actor runs on (None outside Ray: a Ray worker
        has imported Ray; importing it here would cost the Local executor
        a second of start-up)."""
        ray = sys.modules.get("ray")
        if ray is None or not ray.is_initialized():
            return None
        return ray.get_runtime_context().get_node_id()

    def set_aggregate(self, agg: tuple) -> None:
        self.job.set_aggregate(agg)

    def scatter(self, step: int) -> list:
        """Superstep `step`'s messages for other shards, combined on this
        one (a message log per destination): a list of parts + 1 entries,
        first this shard's figures (None when the program stops before the
        superstep), then per shard j the outbox for j, (its local ids,
        uint32 or uint64 past 2^32 vertices; message bytes uint8) or None.
        Ray returns each entry as its own object (`num_returns`), which
        only shard j's actor fetches."""
        t = time.perf_counter()
        boxes = self.job.scatter(step)
        out: list = [None] * (self.parts + 1)
        if boxes is None:
            return out
        messages = nbytes = 0
        for to, targets, payload in boxes:
            out[to + 1] = (targets, payload)
            messages += len(targets)
            nbytes += targets.nbytes + payload.nbytes
        out[0] = {"scatter_seconds": time.perf_counter() - t, "messages": messages,
                  "bytes": nbytes}
        return out

    def receive_apply(self, step: int, *boxes) -> tuple:
        """Folds the outboxes for this shard, `boxes[k]` from shard k,
        in shard order (so sums add up in the same order every run), then
        applies the owned vertices: (aggregate, active count, figures)."""
        t = time.perf_counter()
        received = 0
        for sender, box in enumerate(boxes):
            if box is not None:
                self.job.receive(sender, box[0], box[1])
                received += len(box[0])
        agg, active = self.job.apply()
        state, peak = self.job.charged()
        return agg, active, {"apply_seconds": time.perf_counter() - t,
                             "received_messages": received, "peak_rss_bytes": _peak_rss(),
                             "start_rss_bytes": self.start_rss, "state_bytes": state,
                             "budget_peak_bytes": peak}

    def finish(self, step: int, agg: tuple, active: int) -> bool:
        return self.job.finish(step, agg, active)

    def values(self) -> tuple:
        """(global ids, values as uint64 bits, kind) of the owned vertices."""
        return self.job.values()

    def stats(self) -> str:
        return self.job.stats()

    # Checkpoints (BSP checkpointing; the driver says when and which are
    # complete): `<root>/sNNNNNN/shard-KKK.ckpt`, on this actor's node.

    def _ckpt(self, root: str, step: int) -> str:
        return os.path.join(root, f"s{step:06d}", f"shard-{self.k:03d}.ckpt")

    def _prune(self, root: str, keep: Iterable[Optional[int]]) -> None:
        """Removes this shard's checkpoints but those of the supersteps in
        `keep` (and the superstep directories left empty)."""
        keep = {s for s in keep if s is not None}
        try:
            names = os.listdir(root)
        except FileNotFoundError:
            return
        for name in names:
            if not (name.startswith("s") and name[1:].isdigit()) or int(name[1:]) in keep:
                continue
            try:
                os.remove(self._ckpt(root, int(name[1:])))
            except FileNotFoundError:
                pass
            try:
                os.rmdir(os.path.join(root, name))
            except OSError:  # another shard's file is still there
                pass

    def checkpoint(self, root: str, step: int, keep: Optional[int]) -> tuple:
        """Writes the job at the beginning of superstep `step` (after
        `finish(step - 1)`) under `root`; keeps this shard's checkpoint of
        superstep `keep` (the last complete one) and drops its others:
        (bytes, seconds)."""
        path = self._ckpt(root, step)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        at, nbytes, seconds = self.job.checkpoint(path)
        if at != step:
            raise RuntimeError(f"outcore.ray: shard {self.k} is at superstep {at}, "
                               f"not {step}, and cannot checkpoint it")
        self._prune(root, (step, keep))
        return nbytes, seconds

    def restore(self, root: str, step: int) -> None:
        """Loads this shard's checkpoint of superstep `step` into the job
        just opened."""
        self.job.restore(self._ckpt(root, step), step)

    def clean_checkpoints(self, root: str) -> None:
        """Removes this shard's checkpoints (and `root` when empty)."""
        self._prune(root, ())
        try:
            os.rmdir(root)
        except OSError:
            pass
