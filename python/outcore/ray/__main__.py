"""`python -m outcore.ray run ALG DIR`: a run over the shards of a
partitioned store, one Ray actor per shard. The values go to stdout (or
`--out FILE`) as `outcore run --out` writes them (`id value` lines in
ascending original id); progress, one line a superstep, to stderr;
`--stats FILE` writes the run's figures as JSON (per superstep: seconds,
messages and bytes sent; per actor: its seconds scattering and applying,
messages and bytes sent, messages received, peak RSS; the checkpoints
written, with their bytes and seconds per shard, the restores and the
supersteps replayed). `--checkpoint-every K` checkpoints the shards every
K supersteps (default 5; 0: never), so that a lost actor's run goes on
from the last checkpoint."""

from __future__ import annotations

import argparse
import json
import sys
import time


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m outcore.ray",
                                description="outcore's vertex programs over a partitioned "
                                            "store, one Ray actor per shard")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run an algorithm over the shards")
    r.add_argument("algorithm", choices=["pagerank", "wcc", "bfs", "sssp", "cdlp", "kcore"])
    r.add_argument("dir", help="a partitioned store (outcore partition STORE --parts K --out DIR)")
    r.add_argument("--address", default=None,
                   help="the Ray cluster's address ('auto': the running one); "
                        "default: start a local Ray")
    r.add_argument("--local", action="store_true",
                   help="run every shard in this process, without Ray")
    r.add_argument("--num-cpus", type=float, default=1, help="CPUs per actor (default 1)")
    r.add_argument("--memory", default=None, help="each shard's budget, e.g. 2GiB")
    r.add_argument("--engine", default="auto", choices=["auto", "stream", "select"])
    r.add_argument("--source", default=None, help="bfs, sssp: the source's original id")
    r.add_argument("--iterations", type=int, default=10, help="pagerank, cdlp: iterations")
    r.add_argument("--damping", type=float, default=0.85, help="pagerank: damping")
    r.add_argument("--tol", type=float, default=None, help="pagerank: L1 tolerance")
    r.add_argument("--out", default="-", help="the values' file (default: stdout)")
    r.add_argument("--stats", default=None, help="write the run's figures as JSON here")
    r.add_argument("--checkpoint-every", type=int, default=5, metavar="K",
                   help="checkpoint the shards every K supersteps (default 5; 0: never)")
    r.add_argument("--checkpoint-dir", default=None,
                   help="where the checkpoints go (default: the temporary directory; "
                        "removed at the end of the run)")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def main(argv=None) -> int:
    from .. import _checks
    from ..errors import OutcoreError
    from . import PartitionedStore

    a = _parser().parse_args(argv)
    alg = a.algorithm
    kw = {"memory": a.memory, "engine": a.engine, "progress": not a.quiet}
    if alg == "pagerank":
        kw.update(iterations=a.iterations, damping=a.damping, tol=a.tol)
    if alg == "cdlp":
        kw["iterations"] = a.iterations
    if alg in ("bfs", "sssp"):
        if a.source is None:
            print(f"outcore.ray: {alg} needs --source (an original vertex id)", file=sys.stderr)
            return 2
        kw["source"] = a.source
    try:
        kw = _checks.check(alg, kw)
        ps = PartitionedStore(a.dir, executor="local" if a.local else None,
                              address=a.address, num_cpus=a.num_cpus,
                              checkpoint_every=a.checkpoint_every,
                              checkpoint_dir=a.checkpoint_dir)
        t = time.perf_counter()
        out = ps._run_raw(alg, kw)
        seconds = time.perf_counter() - t
        ps.close()
        ps._raw.write(a.out, out["values"], out["kind"])
    except (OutcoreError, ValueError, TypeError) as e:
        print(f"outcore.ray: {e}", file=sys.stderr)
        return 1
    if a.stats:
        steps = out["steps"]
        doc = {"command": "ray run", "algorithm": alg, "store": ps.path, "parts": ps.parts,
               "executor": ps._ex.name, "parameters": {k: v for k, v in kw.items()},
               "seconds": seconds, "restarts": out["restarts"], "nodes": out["nodes"],
               "checkpoints": out["checkpoints"],
               "messages": sum(s["messages"] for s in steps),
               "bytes": sum(s["bytes"] for s in steps), "supersteps": steps,
               "shards": [json.loads(s) for s in out["shards"]]}
        with open(a.stats, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
    if not a.quiet:
        c = out["checkpoints"]
        print(f"outcore.ray: {alg} over {ps.parts} shards: {len(out['steps'])} supersteps "
              f"in {seconds:.3f} s; {c['written']} checkpoints, {c['restores']} restores, "
              f"{c['replayed_supersteps']} supersteps replayed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
