"""PageRank on Spark (pyspark DataFrame joins), the engine a user picks
today for a graph too big for one machine: issue 54's baseline for
benches/ray.sh. Run it in a venv with pyspark and a JRE (Spark 4 needs
Java 17 or later):

    python benches/spark_pagerank.py EDGES.parquet --iterations 10 \\
        --master 'local-cluster[2,1,1024]' [--check RANKS.txt]

EDGES.parquet has columns `source`, `target` (each edge once per
direction it is followed: `outcore export STORE --both-directions --out
E.parquet` for an undirected store). The ranks follow outcore's (and
LDBC Graphalytics') PageRank: every vertex starts at 1/n, a vertex's rank
goes to its out-neighbours in equal shares, the ranks of vertices with no
out-edges are spread over all n, damping 0.85. Each iteration is one join
of the edges with the ranks, a group-by on the target and a join back;
the ranks are checkpointed (`localCheckpoint`) every iteration so the
plans stay one iteration long. Prints the seconds of the load and of each
iteration to stderr, and the figures as one JSON line to stdout.
`--check FILE` compares with `outcore run pagerank --out FILE` (`id rank`
lines): the largest absolute difference."""

from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("edges")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--damping", type=float, default=0.85)
    p.add_argument("--master", default="local-cluster[2,1,1024]",
                   help="Spark master (local-cluster[executors,cores,MiB]; local[2] if it "
                        "cannot start)")
    p.add_argument("--driver-memory", default="2g")
    p.add_argument("--partitions", type=int, default=8)
    p.add_argument("--vertices", type=int, default=None,
                   help="the vertices are 0..N-1 (isolated ones included, as in the store); "
                        "default: the ids the edges name")
    p.add_argument("--check", default=None)
    a = p.parse_args()

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    t0 = time.perf_counter()
    spark = (SparkSession.builder.master(a.master).appName("pagerank")
             .config("spark.driver.memory", a.driver_memory)
             .config("spark.sql.shuffle.partitions", a.partitions)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter() - t0

    t = time.perf_counter()
    edges = (spark.read.parquet(a.edges).select(F.col("source").alias("src"),
                                                F.col("target").alias("dst"))
             .repartition(a.partitions, "src").cache())
    m = edges.count()
    if a.vertices is not None:
        verts = spark.range(a.vertices).select(F.col("id").alias("v"))
    else:
        verts = (edges.select(F.col("src").alias("v"))
                 .union(edges.select(F.col("dst").alias("v"))).distinct())
    verts = verts.repartition(a.partitions, "v").cache()
    n = verts.count()
    outdeg = edges.groupBy("src").agg(F.count("*").alias("deg"))
    # Each edge carries 1/outdeg(src): the share of src's rank it moves.
    wedges = (edges.join(outdeg, "src").select("src", "dst", (1.0 / F.col("deg")).alias("w"))
              .repartition(a.partitions, "src").cache())
    wedges.count()
    dangling = verts.join(outdeg.withColumnRenamed("src", "v"), "v", "left_anti").cache()
    nd = dangling.count()
    ranks = verts.select("v", F.lit(1.0 / n).alias("r")).cache()
    ranks.count()
    load = time.perf_counter() - t
    print(f"spark: {n} vertices, {m} edges, {nd} without out-edges; started in {started:.1f} s, "
          f"loaded in {load:.1f} s", file=sys.stderr, flush=True)

    d = a.damping
    its = []
    for i in range(a.iterations):
        t = time.perf_counter()
        lost = dangling.join(ranks, "v").agg(F.sum("r")).first()[0] or 0.0
        base = (1.0 - d) / n + d * lost / n
        sums = (wedges.join(ranks.withColumnRenamed("v", "src"), "src")
                .groupBy("dst").agg(F.sum(F.col("r") * F.col("w")).alias("s")))
        nxt = (verts.join(sums.withColumnRenamed("dst", "v"), "v", "left")
               .select("v", (F.lit(base) + F.lit(d) * F.coalesce(F.col("s"), F.lit(0.0)))
                       .alias("r"))
               .localCheckpoint(eager=True))
        ranks.unpersist()
        ranks = nxt
        its.append(time.perf_counter() - t)
        print(f"spark: iteration {i + 1}: {its[-1]:.2f} s", file=sys.stderr, flush=True)

    out = {"master": a.master, "vertices": n, "edges": m, "start_seconds": started,
           "load_seconds": load, "iteration_seconds": its, "total_seconds": load + sum(its)}
    if a.check:
        got = {int(r["v"]): float(r["r"]) for r in ranks.collect()}
        worst = 0.0
        with open(a.check) as f:
            for line in f:
                v, r = line.split()
                worst = max(worst, abs(got.get(int(v), 0.0) - float(r)))
        out["max_abs_difference"] = worst
    print(json.dumps(out))
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
