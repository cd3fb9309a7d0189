#!/usr/bin/env bash
# Past one machine (issue 54, item 5): the programs over K = 1, 2 and 4
# shards of a Kronecker store on a local Ray cluster of NODES nodes (one
# CPU and a 1 GiB object store each), every worker in the same budget
# (MEMORY), beside the single-machine run at that budget; then Spark's
# PageRank (pyspark DataFrame joins, 2 executors of one core each) on the
# same graph, when pyspark and a JRE are there (SPARK_PY: a python with
# pyspark, e.g. a venv's). benches/ray_bench.py prints, per (K,
# algorithm): seconds (wall, supersteps, slowest superstep), messages and
# bytes exchanged against the cross-shard edges and the ghosts, each
# worker's peak RSS growth against the budget, the balance, and whether
# the values equal the single machine's (exit status 1 if not).
#
#   bash benches/ray.sh                           # kron 22, 1 GiB a worker
#   SCALES="22 24" bash benches/ray.sh
#   SCALES=16 PARTS="1 2" bash benches/ray.sh     # a dry run
#   SPARK_PY=/path/venv/bin/python bash benches/ray.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SCALES=${SCALES:-22}
PARTS=${PARTS:-1 2 4}
NODES=${NODES:-4}
MEMORY=${MEMORY:-1GiB}
ALGS=${ALGS:-pagerank,bfs,wcc,cdlp,kcore}
SPARK_PY=${SPARK_PY:-python3}
SPARK_MEM=${SPARK_MEM:-2048}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
bash scripts/pypackage.sh >/dev/null 2>&1
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=${BIN:-$PWD/target/release/outcore}
export PYTHONPATH=$PWD/target/python${PYTHONPATH:+:$PYTHONPATH}

for s in $SCALES; do
  g=$DIR/ray-kron$s
  [ -d "$g.oc" ] || "$BIN" --quiet generate kron --scale "$s" --out "$g.oc" --memory 4GiB
  parts=()
  for k in $PARTS; do
    [ -d "$g-p$k" ] || "$BIN" --quiet partition "$g.oc" --parts "$k" --out "$g-p$k" --memory 4GiB
    parts+=("$g-p$k")
  done
  echo "== kron $s: $NODES nodes, $MEMORY a worker" >&2
  python3 benches/ray_bench.py "$g.oc" "${parts[@]}" --nodes "$NODES" --memory "$MEMORY" \
    --algorithms "$ALGS" --out "$DIR/ray-kron$s"

  if "$SPARK_PY" -c 'import pyspark' 2>/dev/null && command -v java >/dev/null; then
    [ -s "$g.parquet" ] || "$BIN" --quiet export "$g.oc" --both-directions --out "$g.parquet"
    "$BIN" --quiet run pagerank "$g.oc" --iterations 10 --memory "$MEMORY" --out "$g.pr"
    n=$("$BIN" info --json "$g.oc" | python3 -c 'import json, sys; print(json.load(sys.stdin)["vertices"])')
    echo "== kron $s: Spark PageRank 10, local-cluster[2,1,$SPARK_MEM]" >&2
    "$SPARK_PY" benches/spark_pagerank.py "$g.parquet" --iterations 10 --vertices "$n" \
      --master "local-cluster[2,1,$SPARK_MEM]" --check "$g.pr"
  else
    echo "Spark left out: no pyspark in $SPARK_PY or no java" >&2
  fi
done
