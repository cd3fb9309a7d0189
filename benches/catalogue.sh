#!/usr/bin/env bash
# The algorithm catalogue past LDBC's six (issue 13): betweenness from 16
# sampled sources, triangles, colouring, maximal independent set and random
# walks (1 walk per vertex, length 10) on Kronecker graphs at a small and a
# large budget. Prints, per run: seconds, supersteps, bytes read and
# written, peak RSS against the budget, the summary. Each run is cut off
# after TIMEOUT seconds (printed as such: a figure, not a failure).
#
# Triangles are compared with GAPBS `tc` (Beamer et al., in memory, built
# from its public source with its own Makefile, -O3 -fopenmp) on the same
# graph: the store's edges exported as an edge list, converted to GAPBS's
# serialized format symmetrised (`converter -s`, not timed), then
# `tc -n 3`; its average trial time is printed with its triangle count.
# GAPBS=0 skips it; no source and no network skips it with a note.
#
#   bash benches/catalogue.sh                       # scales 22 and 24
#   SCALES="18 20" MEMS="64MiB 1GiB" bash benches/catalogue.sh
#   ALGS="triangles" MEMS=8GiB SCALES=24 bash benches/catalogue.sh
set -uo pipefail
cd "$(dirname "$0")/.."
SCALES=${SCALES:-"22 24"}
MEMS=${MEMS:-"256MiB 8GiB"}
TIMEOUT=${TIMEOUT:-1800}
ALGS=${ALGS:-"betweenness triangles coloring mis randomwalk"}
GAPBS=${GAPBS:-1}
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
    for alg in $ALGS; do
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

# GAPBS tc on the same graphs.
[ "$GAPBS" = 1 ] && [[ " $ALGS " == *" triangles "* ]] || exit 0
G=$DIR/peers/gapbs-src
if [ ! -d "$G" ]; then
  mkdir -p "$DIR/peers"
  git clone -q --depth 1 https://github.com/sbeamer/gapbs "$G" 2>/dev/null \
    || { echo "# GAPBS: source not available (no network?), skipped" >&2; exit 0; }
fi
make -C "$G" -s tc converter >&2 || { echo "# GAPBS: build failed, skipped" >&2; exit 0; }
echo "# GAPBS source: $(git -C "$G" rev-parse HEAD 2>/dev/null || echo "$G")" >&2
for scale in $SCALES; do
  S=$(store "$scale"); el=$DIR/kron$scale.el; sg=$DIR/kron$scale.sg
  if [ ! -f "$sg" ]; then
    "$BIN" --quiet export "$S" --out "$el" >&2 \
      && "$G/converter" -f "$el" -s -b "$sg" >/dev/null && rm -f "$el"
  fi
  out=$(/usr/bin/time -f "rss_kib %M" "$G/tc" -f "$sg" -n 3 -a 2>&1)
  avg=$(sed -n 's/^Average Time: *//p' <<<"$out" | awk '{printf "%.1f", $1}')
  tri=$(sed -n 's/^\([0-9]*\) triangles/\1/p' <<<"$out" | tail -1)
  rss=$(sed -n 's/^rss_kib //p' <<<"$out")
  printf "%-6s %-8s %-12s %9s %7s %10s %10s %9s  %s\n" "$scale" "in-mem" "gapbs-tc" "$avg" 3 - - \
    "$((rss / 1024))" "$tri triangles, average of 3 trials (graph build not counted)"
done
