#!/usr/bin/env bash
# External engine benchmark (issue 8): PageRank (10 iterations) and WCC on a
# Kronecker graph at a budget far below the vertex state (external engine)
# and at one that holds it (stream engine), next to raw dd read and write
# throughput measured in the same run; CDLP (10 iterations) and LCC
# (triangle listing) at a smaller scale, LCC at both budgets. Prints per-superstep seconds, bytes read and written, log bytes
# before and after reduction, and peak RSS against the budget.
#
#   bash benches/external.sh                 # scale 24 (CDLP at 22)
#   SCALE=20 CDLP_SCALE=18 bash benches/external.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-24}
CDLP_SCALE=${CDLP_SCALE:-22}
DIR=${BENCH_DIR:-bench-out}
SMALL=${SMALL:-64MiB}
BIG=${BIG:-1GiB}
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
S=$(store "$SCALE")
ADJ=$S/csr/out.adj
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
rd=$(dd if="$ADJ" of=/dev/null bs=4M iflag=direct 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1); printf "%.1f", $1 / 1e6 / s}')
wr=$(dd if=/dev/zero of="$DIR/dd-write.tmp" bs=4M count=256 oflag=direct 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1); printf "%.1f", $1 / 1e6 / s}')
rm -f "$DIR/dd-write.tmp"
echo "== external engine: kron scale $SCALE, adjacency $(du -h "$ADJ" | cut -f1) =="
echo "raw: dd read (csr/out.adj, bs=4M, iflag=direct) $rd MB/s; dd write (1 GiB, bs=4M, oflag=direct) $wr MB/s"
report() {
  python3 - "$1" "$rd" "$wr" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); rd = float(sys.argv[2]); wr = float(sys.argv[3])
print(f"   engine {s['engine']}, vertex state {s['vertex_state_bytes'] >> 20} MiB, budget {s['memory_budget'] >> 20} MiB, "
      f"peak RSS {s['peak_rss_bytes'] >> 20} MiB (budget + {(s['peak_rss_bytes'] - s['memory_budget']) >> 20} MiB)")
print("   step  path            seconds  read MiB  write MiB  log raw MiB  log reduced MiB  grid tiles MiB  windows  disk-time  of-raw  scatter  apply")
for it in s["iterations"]:
    x = it.get("external") or {}
    r, w = it["bytes_read"] / 1e6, it.get("bytes_written", 0) / 1e6
    ideal = r / rd + w / wr
    path = (it.get("planner") or {}).get("chosen") or it.get("engine", "")
    print(f"   {it['iteration']:4d}  {path:14s} {it['seconds']:8.2f} {it['bytes_read'] / 2**20:9.0f} {it.get('bytes_written', 0) / 2**20:10.0f} "
          f"{x.get('log_bytes_raw', 0) / 2**20:12.0f} {x.get('log_bytes_reduced', 0) / 2**20:16.0f} "
          f"{x.get('grid_tile_bytes', 0) / 2**20:15.0f} {x.get('grid_windows', 0):8d} "
          f"{ideal:9.2f} {ideal / it['seconds'] if it['seconds'] else 0:6.0%} "
          f"{x.get('scatter_seconds', 0):8.2f} {x.get('apply_seconds', 0):6.2f}")
print(f"   total {s['wall_seconds']:.1f} s")
PY
}
for alg in pagerank wcc; do
  for mem in "$SMALL" "$BIG"; do
    extra=()
    [ "$alg" = pagerank ] && extra=(--iterations 10)
    # The small budget forces the external engine (at small scales the state would fit).
    [ "$mem" = "$SMALL" ] && extra+=(--engine external)
    "$BIN" --quiet run "$alg" "$S" --memory "$mem" --stats "$DIR/ext-$alg-$mem.json" "${extra[@]}" > "$DIR/ext-$alg-$mem.out"
    echo "-- $alg --memory $mem: $(cat "$DIR/ext-$alg-$mem.out")"
    report "$DIR/ext-$alg-$mem.json"
  done
done
C=$(store "$CDLP_SCALE")
"$BIN" --quiet run cdlp "$C" --iterations 10 --memory "$SMALL" --stats "$DIR/ext-cdlp.json" > "$DIR/ext-cdlp.out"
echo "-- cdlp scale $CDLP_SCALE --memory $SMALL: $(cat "$DIR/ext-cdlp.out")"
report "$DIR/ext-cdlp.json"
for mem in "$SMALL" "$BIG"; do
  "$BIN" --quiet run lcc "$C" --memory "$mem" --stats "$DIR/ext-lcc-$mem.json" > "$DIR/ext-lcc-$mem.out"
  echo "-- lcc scale $CDLP_SCALE --memory $mem: $(cat "$DIR/ext-lcc-$mem.out")"
  python3 - "$DIR/ext-lcc-$mem.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); it = s["iterations"]
print(f"   orient {it[0]['seconds']:.2f} s; {len(it) - 2} blocks {sum(i['seconds'] for i in it[1:-1]):.2f} s "
      f"({sum(i['edges_processed'] for i in it[1:-1]) / 1e9:.2f} G list entries probed); credits {it[-1]['seconds']:.2f} s; "
      f"read {s['bytes_read'] >> 20} MiB, written {s['bytes_written'] >> 20} MiB; "
      f"peak RSS {s['peak_rss_bytes'] >> 20} MiB of {s['memory_budget'] >> 20} MiB; total {s['wall_seconds']:.1f} s")
PY
done
