#!/usr/bin/env bash
# The gate of issue 50: PageRank 20, BFS from the highest-degree vertex and WCC
# (vertex programs since the hand kernels went) against a baseline binary, on
# one Kronecker store, at two budgets, alternated run by run (median of REPS)
# so a slow hour hits both.
#
#   bash benches/programs.sh                        # vs c8f6c8f, the last kernels
#   BASE_REV=HEAD~3 bash benches/programs.sh        # vs another commit (built once)
#   BASE_BIN=old/outcore bash benches/programs.sh   # vs a binary at hand
#   SCALE=20 MEMS=1GiB REPS=1 bash benches/programs.sh   # a dry run
#
# Prints, per case, the medians of process wall seconds and of the engine's
# own `wall_seconds` (stats), new/old for each, and the share of the process
# spent outside the engine (opening the store, mapping ids, writing --out).
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-24}
DIR=${BENCH_DIR:-bench-out}
MEMS=${MEMS:-"1GiB 4GiB"}
REPS=${REPS:-3}
ALGS=${ALGS:-"pagerank bfs wcc"}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
NEW=$PWD/target/release/outcore
BASE_REV=${BASE_REV:-c8f6c8f}
if [ -z "${BASE_BIN:-}" ]; then
  BASE_BIN=$DIR/base-$BASE_REV/target/release/outcore
  if [ ! -x "$BASE_BIN" ]; then
    echo "building the baseline $BASE_REV (once) ..." >&2
    rm -rf "$DIR/base-$BASE_REV"
    git worktree add --detach "$DIR/base-$BASE_REV" "$BASE_REV" >/dev/null 2>&1
    (cd "$DIR/base-$BASE_REV" && cargo build --release -p outcore-cli >/dev/null 2>&1)
  fi
fi
BASE=$BASE_BIN
NEWFLAG=()
S=${STORE:-$DIR/kron$SCALE.oc}
if [ ! -f "$S/manifest.json" ]; then
  echo "building $S (once) ..." >&2
  "$NEW" --quiet generate kron --scale "$SCALE" --out "$S" --memory 4GiB --force
fi
echo "== $NEW vs $BASE: $S, $REPS runs each, alternated =="
one() { # bin stats out alg mem extra...
  local bin=$1 st=$2 out=$3 alg=$4 mem=$5; shift 5
  local t0 t1
  t0=$(date +%s.%N)
  "$bin" --quiet run "$alg" "$S" --memory "$mem" --out "$out" --stats "$st" "$@" >/dev/null
  t1=$(date +%s.%N)
  python3 -c "import json,sys; print(f'{$t1-$t0:.3f}', json.load(open('$st'))['wall_seconds'])"
}
for mem in $MEMS; do
  for alg in $ALGS; do
    extra=()
    [ "$alg" = bfs ] && extra=(--source max-degree)
    [ "$alg" = pagerank ] && extra=(--iterations 20)
    old=() new=()
    for _ in $(seq "$REPS"); do
      old+=("$(one "$BASE" "$DIR/old.json" "$DIR/old.out" "$alg" "$mem" "${extra[@]}")")
      new+=("$(one "$NEW" "$DIR/new.json" "$DIR/new.out" "$alg" "$mem" "${extra[@]}" "${NEWFLAG[@]}")")
    done
    python3 - "$alg" "$mem" "${old[*]}" "${new[*]}" <<'PY'
import statistics as st, sys
alg, mem, old, new = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
def med(xs, i): return st.median(float(x) for x in xs[i::2])
po, eo, pn, en = med(old, 0), med(old, 1), med(new, 0), med(new, 1)
print(f"{alg:9} {mem:5} process old {po:7.2f} s new {pn:7.2f} s  new/old {pn/po:5.3f} | "
      f"engine old {eo:7.2f} new {en:7.2f} new/old {en/eo:5.3f} | outside engine new {100*(pn-en)/pn:4.1f}%")
PY
  done
done
