#!/usr/bin/env bash
# The algorithm catalogue past LDBC's six (issue 13): betweenness from 16
# sampled sources, triangles, colouring, maximal independent set and random
# walks (1 walk per vertex, length 10) on Kronecker graphs at a small and a
# large budget. Prints, per run: seconds, supersteps, bytes read and
# written, peak RSS against the budget, the summary. Each run is cut off
# after TIMEOUT seconds (printed as such: a figure, not a failure).
#
#   bash benches/catalogue.sh                       # scales 22 and 24
#   SCALES="18 20" MEMS="64MiB 1GiB" bash benches/catalogue.sh
set -uo pipefail
cd "$(dirname "$0")/.."
SCALES=${SCALES:-"22 24"}
MEMS=${MEMS:-"256MiB 8GiB"}
TIMEOUT=${TIMEOUT:-1800}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=$PWD/target/release/outcore
store() {
  local s=$DIR/kron$1-degree.oc
  if [ ! -f "$s/manifest.json" ]; then
    echo "building $s (once) ..." >&2
    "$BIN" --quiet generate kron --scale "$1" --order degree --out "$s" --memory 8GiB --force >&2
  fi
  echo "$s"
}
printf "%-6s %-8s %-12s %9s %7s %10s %10s %9s  %s\n" scale memory algorithm seconds steps "read MiB" "write MiB" "RSS MiB" summary
for scale in $SCALES; do
  S=$(store "$scale")
  for mem in $MEMS; do
    for alg in betweenness triangles coloring mis randomwalk; do
      extra=()
      [ "$alg" = betweenness ] && extra=(--samples 16 --seed 1)
      [ "$alg" = randomwalk ] && extra=(--walks-per-vertex 1 --length 10)
      js=$DIR/cat-$scale-$alg-$mem.json
      rm -f "$js"
      sum=$(timeout "$TIMEOUT" "$BIN" --quiet run "$alg" "$S" --memory "$mem" --stats "$js" "${extra[@]}" 2>&1 >/dev/null | tail -1)
      if [ ! -f "$js" ]; then
        printf "%-6s %-8s %-12s %9s  %s\n" "$scale" "$mem" "$alg" "-" "did not finish in ${TIMEOUT}s: ${sum:0:120}"
        continue
      fi
      python3 - "$js" "$scale" "$mem" "$alg" "$sum" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); scale, mem, alg, summary = sys.argv[2:6]
summary = summary.split(": ", 1)[-1].split(";")[0]
print(f"{scale:<6} {mem:<8} {alg:<12} {s['wall_seconds']:9.1f} {len(s['iterations']):7d} "
      f"{s['bytes_read'] / 2**20:10.0f} {s['bytes_written'] / 2**20:10.0f} {s['peak_rss_bytes'] / 2**20:9.0f}  {summary}")
PY
    done
  done
done
