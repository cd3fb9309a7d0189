#!/usr/bin/env bash
# Stream engine benchmark (issue 3): PageRank (10 iterations), WCC and BFS
# from a highest-degree vertex on a Kronecker graph (scale 24, edge factor 16,
# undirected) with --memory 512MiB and 8GiB, next to the raw direct-read
# throughput of the tiles measured in the same run.
#
#   bash benches/stream.sh                  # scale 24
#   SCALE=20 bash benches/stream.sh         # quicker
#   ORDER=original bash benches/stream.sh   # a store without degree order
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-24}
DIR=${BENCH_DIR:-bench-out}
MEMS=${MEMS:-"512MiB 8GiB"}
ORDER=${ORDER:-degree}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=$PWD/target/release/outcore
S=$DIR/kron$SCALE-$ORDER.oc
if [ ! -f "$S/manifest.json" ]; then
  echo "building $S (once) ..."
  "$BIN" --quiet generate kron --scale "$SCALE" --order "$ORDER" --out "$S" --memory 8GiB --force
fi
TILES=$S/tiles/edges.bin
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
raw=$(dd if="$TILES" of=/dev/null bs=4M iflag=direct 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1); printf "%s %.1f", s, $1 / 1e6 / s}')
read -r raw_secs raw_mbs <<<"$raw"
echo "== stream engine: kron scale $SCALE ($ORDER order), tiles $(du -h "$TILES" | cut -f1) =="
echo "raw: dd if=tiles/edges.bin bs=4M iflag=direct: $raw_mbs MB/s ($raw_secs s)"
for mem in $MEMS; do
  for alg in pagerank wcc bfs; do
    extra=()
    [ "$alg" = bfs ] && extra=(--source max-degree)
    [ "$alg" = pagerank ] && extra=(--iterations 10)
    "$BIN" --quiet run "$alg" "$S" --memory "$mem" --stats "$DIR/$alg-$mem.json" "${extra[@]}" > "$DIR/$alg-$mem.out"
    echo "-- $alg --memory $mem: $(cat "$DIR/$alg-$mem.out")"
    python3 - "$DIR/$alg-$mem.json" "$raw_mbs" "$(stat -c %s "$TILES")" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); raw = float(sys.argv[2]); tiles = int(sys.argv[3])
ring = max((it.get("segments", 0) for it in s["iterations"]), default=0) or 2
print(f"   segments {ring} x {s['segment_bytes'] >> 20} MiB, cache pool {s['cache_pool_bytes'] >> 20} MiB, "
      f"vertex state {s['vertex_state_bytes'] >> 20} MiB, peak RSS {s['peak_rss_bytes'] >> 20} MiB")
print("   iter  seconds   read MiB  hit%   eff MB/s  vs raw  io-wait  compute  caching  Medges/s  active")
for it in s["iterations"]:
    processed = it["bytes_read"] + it["cache_hit_bytes"]
    hit = 100 * it["cache_hit_bytes"] / processed if processed else 0
    eff = it["bytes_read"] / 1e6 / it["seconds"] if it["seconds"] else 0
    meps = it["edges_processed"] / 1e6 / it["seconds"] if it["seconds"] else 0
    print(f"   {it['iteration']:4d} {it['seconds']:8.3f} {it['bytes_read'] / 2**20:10.1f} {hit:5.1f} "
          f"{eff:10.1f} {eff / raw:6.0%} {it['io_wait_seconds']:8.3f} {it['compute_seconds']:8.3f} {it['cache_seconds']:8.3f} "
          f"{meps:9.0f} {it['active_vertices']:8d}")
tot = sum(it["bytes_read"] for it in s["iterations"])
levels = len(s["iterations"])
print(f"   total read {tot / 2**20:.1f} MiB = {tot / tiles:.2f} x tile bytes over {levels} iterations")
PY
  done
done
