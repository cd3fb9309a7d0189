"""outcore.ray: the vertex programs of `outcore` over a partitioned store,
one Ray actor per shard (issue 54).

Make a partitioned store with `outcore partition STORE --parts K --out
DIR`, then::

    import outcore.ray
    ps = outcore.ray.open(DIR)                 # address=None: a local Ray
    pr = ps.pagerank(iterations=10)            # an outcore.Result
    ps.wcc(); ps.bfs(source=1); ps.sssp(source=1); ps.cdlp(); ps.kcore()

Each shard's actor runs the planner's in-memory engine on its shard in
supersteps (bulk-synchronous parallel, Pregel's model); the messages for
other shards' vertices are combined on the sender, one log per
destination shard, and travel as numpy arrays in Ray's object store. The
results equal the single-machine run's (`outcore.open(STORE).pagerank()`:
PageRank to 1e-12; WCC, BFS, SSSP, CDLP and k-core exactly).
`executor="local"` runs the same driver with every shard in this process,
without Ray. `cancel()` (or a KeyboardInterrupt) stops a run and its
actors; a shard's damaged files raise the shard's StoreError, naming it.

From a shell: `python -m outcore.ray run pagerank DIR --address auto`.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Optional, Union

import numpy as np

from .. import _checks, _outcore
from ..result import Result
from . import _driver
from ._driver import Cancelled
from ._executors import Local, Ray
from ._executors import executor as _make_executor

__all__ = ["open", "PartitionedStore", "Local", "Ray", "Cancelled"]

Size = Union[int, str, None]
Vertex = Union[int, str]

# The engines' options every method takes besides its own (Store's).
_RUN_OPTIONS = ("memory", "engine", "io", "segment", "segments", "cache", "depth", "tmp_dir",
                "progress")


class PartitionedStore:
    """A partitioned store (`outcore partition`), run over one actor per
    shard. Methods have the names and parameters of `outcore.Store`'s;
    `memory` is each shard's budget. The actors start at the first run and
    serve the next ones until `close()` (or the end of a `with` block). `executor`: "ray" (default) or
    "local"; `address`: the Ray cluster's (None: an initialised Ray, else a
    local one); `num_cpus`: per actor. `checkpoint_every`: every how many
    supersteps the shards checkpoint (0: never), so that a lost actor's run
    goes on from the last checkpoint rather than superstep 0;
    `checkpoint_dir`: where (default: the temporary directory; a run's
    checkpoints are removed at its end)."""

    def __init__(self, path: Union[str, os.PathLike], *, executor: Any = None,
                 address: Optional[str] = None, num_cpus: float = 1, retries: int = 3,
                 checkpoint_every: int = 5,
                 checkpoint_dir: Union[str, os.PathLike, None] = None) -> None:
        if not isinstance(checkpoint_every, int) or checkpoint_every < 0:
            raise ValueError(f"checkpoint_every must be an int, 0 (off) or more, "
                             f"got {checkpoint_every!r}")
        self.checkpoint_every = checkpoint_every
        self.checkpoint_dir = None if checkpoint_dir is None else os.fspath(checkpoint_dir)
        self._raw = _outcore.RawPartition(os.fspath(path))
        self._executor, self._address, self._num_cpus = executor, address, num_cpus
        self._ex = None
        self._actors: Optional[list] = None
        self.retries = retries
        self._ids = None
        self._cancel = threading.Event()

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return (f"<outcore.ray.PartitionedStore {self.path}: {self.parts} shards, "
                f"{self.num_vertices} vertices, {self.num_edges} edges, {kind}>")

    @property
    def path(self) -> str:
        return os.fspath(self._raw.path)

    @property
    def parts(self) -> int:
        return self._raw.parts

    @property
    def num_vertices(self) -> int:
        return self._raw.num_vertices

    @property
    def num_edges(self) -> int:
        return self._raw.num_edges

    @property
    def directed(self) -> bool:
        return self._raw.directed

    def manifest(self) -> dict:
        """`partition.json`: shards, bounds, balance, checksums."""
        import json

        return json.loads(self._raw.manifest_json())

    def _executor_now(self):
        if self._ex is None:
            self._ex = _make_executor(self._executor, self._address, self._num_cpus)
        return self._ex

    def _actors_now(self) -> list:
        """The shards' actors, started at the first run."""
        if self._actors is None:
            ex = self._executor_now()
            self._actors = ex.start([(self.path, k, self.parts) for k in range(self.parts)])
        return self._actors

    def close(self, drain: bool = False) -> None:
        """Stops the shards' actors (the next run starts new ones);
        `drain`: after they drop their jobs."""
        if self._actors is not None and self._ex is not None:
            self._ex.stop(self._actors, drain)
        self._actors = None

    def cancel(self) -> None:
        """Cancels the run under way (from another thread, or a progress
        hook): before its next superstep the driver drops the shards' jobs,
        stops the actors and raises `Cancelled`. A KeyboardInterrupt in the
        driver does the same and goes on."""
        self._cancel.set()

    def __enter__(self) -> "PartitionedStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter exit: Ray may be gone already
            pass

    def _id_text(self, v: Vertex) -> str:
        if isinstance(v, (bool, float)):
            raise TypeError(f"a vertex id is an int or a str, not {type(v).__name__}")
        return str(int(v)) if isinstance(v, (int, np.integer)) else str(v)

    def _run_raw(self, algorithm: str, kw: dict, hook=None) -> dict:
        """The driver's answer for `algorithm` with the checked options."""
        kw = dict(kw)
        progress = kw.pop("progress", None)
        progress = True if progress is None else progress
        if kw.get("source") is not None:
            kw["source"] = self._id_text(kw["source"])
        kw.pop("delta", None)  # Bellman-Ford rounds over shards: no buckets
        if kw.get("tmp_dir") is not None:
            kw["tmp_dir"] = os.fspath(kw["tmp_dir"])
        kw = {k: v for k, v in kw.items() if v is not None}
        self._cancel.clear()
        return _driver.run(self._executor_now(), self._actors_now, self.close, algorithm, kw,
                           progress=progress, retries=self.retries, hook=hook,
                           cancelled=self._cancel.is_set,
                           cancel=lambda: self.close(drain=True),
                           checkpoint_every=self.checkpoint_every,
                           checkpoint_dir=self.checkpoint_dir)

    def _run(self, algorithm: str, _hook=None, **kw: Any) -> Result:
        _checks.known(algorithm, getattr(PartitionedStore, algorithm), kw, _RUN_OPTIONS)
        kw = _checks.check(algorithm, kw)
        asked = dict(kw)
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        t = time.perf_counter()
        out = self._run_raw(algorithm, kw, _hook)
        seconds = time.perf_counter() - t
        if self._ids is None:
            self._ids = self._raw.ids()
        order, originals = self._ids
        if isinstance(originals, list):
            originals = np.array(originals, dtype=object)
        bits = out["values"][order]
        kind = out["kind"]
        if kind == "float":
            values = bits.view(np.float64)
        elif kind == "int":
            values = bits.view(np.int64)
        else:
            values = originals[bits.astype(np.int64)]
            if values.dtype == np.uint64 and (len(values) == 0 or values.max() <= 2**63 - 1):
                values = values.astype(np.int64)
        steps = out["steps"]
        iterations = len(steps) if algorithm == "pagerank" else None
        stats = {"command": "ray run", "outcore_version": _outcore.__version__,
                 "started_at": started, "store": self.path, "parts": self.parts,
                 "executor": self._executor_now().name,
                 "parameters": dict(asked, algorithm=algorithm), "seconds": seconds,
                 "supersteps": steps, "restarts": out["restarts"],
                 "checkpoints": out["checkpoints"],
                 "messages": sum(s["messages"] for s in steps),
                 "bytes": sum(s["bytes"] for s in steps)}
        if asked.get("source") is not None:
            stats["source"] = asked["source"]
        import json

        stats["shards"] = [json.loads(s) for s in out["shards"]]
        summary = (f"{len(steps)} supersteps over {self.parts} shards, "
                   f"{stats['messages']} messages between them")
        return Result(algorithm, originals, values, stats, summary, seconds, iterations)

    def pagerank(self, iterations: int = 10, damping: float = 0.85, tol: Optional[float] = None,
                 weighted: bool = False, memory: Size = None, engine: str = "auto",
                 **options: Any) -> Result:
        """PageRank, as `Store.pagerank` (unweighted only, for now)."""
        return self._run("pagerank", iterations=iterations, damping=damping, tol=tol,
                         weighted=weighted, memory=memory, engine=engine, **options)

    def bfs(self, source: Vertex, memory: Size = None, engine: str = "auto",
            **options: Any) -> Result:
        """Hop depth from `source` (an original id), as `Store.bfs`;
        "max-degree" is not supported over shards yet."""
        return self._run("bfs", source=source, memory=memory, engine=engine, **options)

    def wcc(self, memory: Size = None, engine: str = "auto", **options: Any) -> Result:
        """Weakly connected components, as `Store.wcc`."""
        return self._run("wcc", memory=memory, engine=engine, **options)

    def sssp(self, source: Vertex, delta: Optional[float] = None, memory: Size = None,
             engine: str = "auto", **options: Any) -> Result:
        """Shortest-path distances from `source` (an original id) along
        weighted out-edges, as `Store.sssp` (the partition must be
        weighted). Over shards the supersteps are Bellman-Ford rounds, with
        no buckets: `delta` (delta-stepping's bucket width) is checked and
        has no effect; the distances are the single-machine run's."""
        return self._run("sssp", source=source, delta=delta, memory=memory, engine=engine,
                         **options)

    def cdlp(self, iterations: int = 10, memory: Size = None, **options: Any) -> Result:
        """Community detection by label propagation (LDBC Graphalytics,
        synchronous), as `Store.cdlp`: each label is an original id."""
        return self._run("cdlp", iterations=iterations, memory=memory, **options)

    def kcore(self, memory: Size = None, engine: str = "auto", **options: Any) -> Result:
        """Core numbers (direction and self-loops ignored), as `Store.kcore`."""
        return self._run("kcore", memory=memory, engine=engine, **options)


def open(path: Union[str, os.PathLike], *, executor: Any = None,  # noqa: A001
         address: Optional[str] = None, num_cpus: float = 1, checkpoint_every: int = 5,
         checkpoint_dir: Union[str, os.PathLike, None] = None) -> PartitionedStore:
    """Opens a partitioned store (raises StoreError when it is not one);
    the keywords as `PartitionedStore`'s."""
    return PartitionedStore(path, executor=executor, address=address, num_cpus=num_cpus,
                            checkpoint_every=checkpoint_every, checkpoint_dir=checkpoint_dir)
