"""Where the shard actors run: `Local` (in this process, no Ray: the
tests' executor and a one-machine fallback) and `Ray` (one Ray actor per
shard, placed round-robin over the alive nodes with soft node affinity).
The driver (`_driver.py`) is the same for both: it `start`s the actors,
`call`s their methods (a future, or `num_returns` of them), and `get`s
the futures it needs."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, List, Optional, Sequence

from ._actor import ShardActor


class Local:
    """Every shard's actor in this process; calls run at once."""

    name = "local"
    #: The errors meaning an actor was lost (none here).
    lost: tuple = ()

    def start(self, args: Sequence[tuple]) -> list:
        return [ShardActor(*a) for a in args]

    def call(self, actor: ShardActor, method: str, *args: Any, num_returns: int = 1) -> Any:
        return getattr(actor, method)(*args)

    def get(self, futures: Any) -> Any:
        return futures

    def stop(self, actors: list, drain: bool = False) -> None:
        for a in actors:
            a.drop()
        actors.clear()


def _ray():
    try:
        import ray
    except ImportError:
        raise ImportError("outcore.ray needs Ray: pip install 'outcore[ray]' "
                          "(or pass executor='local' to run the shards in this process)") from None
    return ray


class Ray:
    """One Ray actor per shard (`num_cpus` each), shard k placed on the
    k-th alive node round-robin (`NodeAffinitySchedulingStrategy`, soft:
    elsewhere when that node cannot take it). `address`: None starts a
    local Ray (`ray.init()`), else the cluster's address ("auto", or
    "ray://..."); a Ray already initialised in this process is used as is.
    """

    name = "ray"
    #: Seconds a cancelled run's actors get to drop their jobs.
    grace = 10.0

    def __init__(self, address: Optional[str] = None, num_cpus: float = 1) -> None:
        ray = _ray()
        self.ray = ray
        self.num_cpus = num_cpus
        if not ray.is_initialized():
            # Workers import this package from where the driver does.
            here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            path = os.pathsep.join([here] + [p for p in os.environ.get("PYTHONPATH", "").split(
                os.pathsep) if p])
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR,
                     runtime_env={"env_vars": {"PYTHONPATH": path}})
        from ray import exceptions as rx

        self.lost = (rx.RayActorError, rx.ObjectLostError, rx.OwnerDiedError)
        self.task_error = rx.RayTaskError
        self.remote = ray.remote(num_cpus=num_cpus, max_restarts=0)(ShardActor)

    def nodes(self) -> List[str]:
        """The alive nodes' ids, in a fixed order."""
        alive = [n for n in self.ray.nodes() if n.get("Alive")]
        return sorted(n["NodeID"] for n in alive)

    def start(self, args: Sequence[tuple]) -> list:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes = self.nodes()
        actors = []
        for k, a in enumerate(args):
            opts = {}
            if nodes:
                opts["scheduling_strategy"] = NodeAffinitySchedulingStrategy(
                    node_id=nodes[k % len(nodes)], soft=True)
            actors.append(self.remote.options(**opts).remote(*a))
        return actors

    def call(self, actor: Any, method: str, *args: Any, num_returns: int = 1) -> Any:
        m = getattr(actor, method)
        if num_returns != 1:
            m = m.options(num_returns=num_returns)
        return m.remote(*args)

    def get(self, futures: Any) -> Any:
        """The futures' values; an actor's error raised as itself (a shard's
        StoreError naming the shard, not a RayTaskError around it)."""
        try:
            return self.ray.get(futures)
        except self.task_error as e:
            cause = getattr(e, "cause", None)
            if isinstance(cause, Exception) and not isinstance(cause, self.lost):
                raise cause from None
            raise

    def stop(self, actors: list, drain: bool = False) -> None:
        """Kills the actors; `drain`: first lets them drop their jobs (the
        Rust side's drops delete what the run had on disk), waiting up to
        `grace` seconds for the supersteps under way."""
        if not self.ray.is_initialized():  # Ray shut down: they are gone
            actors.clear()
            return
        if drain:
            refs = []
            for a in actors:
                try:
                    refs.append(a.drop.remote())
                except Exception:  # already dead
                    pass
            if refs:
                self.ray.wait(refs, num_returns=len(refs), timeout=self.grace)
        for a in actors:
            try:
                self.ray.kill(a)
            except Exception as e:  # already dead: nothing to stop
                print(f"outcore.ray: stopping an actor: {e}", file=sys.stderr)
        actors.clear()


def executor(kind: Any = None, address: Optional[str] = None, num_cpus: float = 1):
    """The executor `kind` names: "ray" (default), "local", or an executor."""
    if kind is None or kind == "ray":
        return Ray(address, num_cpus)
    if kind == "local":
        return Local()
    if hasattr(kind, "start") and hasattr(kind, "call"):
        return kind
    raise ValueError(f"executor must be 'ray' or 'local', got {kind!r}")
