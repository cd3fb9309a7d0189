#!/usr/bin/env bash
# Select engine benchmark (issue 4), cold unless said otherwise, --memory 512MiB:
# BFS bytes and seconds with --engine stream, select and auto on the scale-24
# Kronecker store; 1-hop, 2-hop and 1-step-egonet latency (median, p99) over
# 100 random sources, cold and warm; SSSP on a weighted 4096x4096 grid
# (16M vertices); achieved random-read IOPS next to `outcore calibrate`'s best.
#
#   bash benches/select.sh               # scale 24, grid 4096
#   SCALE=20 GRID=1024 bash benches/select.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-24}
GRID=${GRID:-4096}
MEM=${MEM:-512MiB}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=$PWD/target/release/outcore
ORDER=${ORDER:-degree}
S=$DIR/kron$SCALE-$ORDER.oc
G=$DIR/grid$GRID.oc
[ -f "$S/manifest.json" ] || "$BIN" --quiet generate kron --scale "$SCALE" --order "$ORDER" --out "$S" --memory 8GiB --force
[ -f "$G/manifest.json" ] || "$BIN" --quiet generate grid --rows "$GRID" --cols "$GRID" --weighted --out "$G" --memory 8GiB --force

echo "== select engine: kron scale $SCALE, --memory $MEM =="
echo "-- calibrate (csr/out.adj, 4 KiB pages) --"
"$BIN" calibrate "$S" --depths 1,8,32,64,128 --seconds 1 | sed 's/^/   /'
best=$(python3 -c "import json; print(round(json.load(open('$S/calibration.json'))['best_iops']))")

echo "-- BFS from a highest-degree vertex --"
for eng in stream select auto; do
  "$BIN" --quiet run bfs "$S" --source max-degree --engine "$eng" --memory "$MEM" --stats "$DIR/bfs-$eng.json" >/dev/null
  python3 - "$DIR/bfs-$eng.json" "$eng" "$best" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); eng = sys.argv[2]; best = float(sys.argv[3])
print(f"   {eng:6s}: {s['wall_seconds']:6.2f} s, read {s['bytes_read'] / 2**20:8.1f} MiB, levels: " +
      " ".join(f"{i['engine'][:3]}:{i['bytes_read'] >> 20}MiB/{i['seconds']:.2f}s" for i in s["iterations"]))
for i in s["iterations"]:
    if i["engine"] == "select" and i["read_requests"] > 100 and i["seconds"] > 0:
        iops = i["read_requests"] / max(i["seconds"], 1e-9)
        print(f"           level {i['iteration']}: {i['read_requests']} page reads, {iops:,.0f} IOPS = {iops / best:.0%} of calibrated {best:,.0f}"
              + (f"; planner: stream {i['planner']['stream_bytes'] >> 20} MiB vs select {i['planner']['select_bytes'] >> 20} MiB" if i.get("planner") else ""))
PY
done

echo "-- targeted queries: 100 random sources (seed 7), latency per query --"
python3 -c "
import random; random.seed(7)
n = 2 ** $SCALE
print('\n'.join(str(random.randrange(n)) for _ in range(100)))" > "$DIR/sources.txt"
for q in "khop --hops 1" "khop --hops 2" "egonet --hops 1"; do
  # shellcheck disable=SC2086
  "$BIN" query $q "$S" --sources "$DIR/sources.txt" --repeat 2 --memory "$MEM" 2>&1 | sed 's/^/   /'
done
echo "   one cold process per query (1-hop, first 5 sources):"
for s in $(head -5 "$DIR/sources.txt"); do
  "$BIN" query khop "$S" --source "$s" --hops 1 --memory "$MEM" 2>&1 >/dev/null | sed 's/^/     /'
done

echo "-- SSSP on a weighted ${GRID}x${GRID} grid --"
"$BIN" --quiet run sssp "$G" --source 0 --memory "$MEM" --stats "$DIR/sssp.json" | sed 's/^/   /'
python3 - "$DIR/sssp.json" "$best" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); best = float(sys.argv[2])
iops = s["read_requests"] / max(s["wall_seconds"], 1e-9)
print(f"   {len(s['iterations'])} phases, {s['read_requests']} reads, {iops:,.0f} IOPS overall ({iops / best:.0%} of calibrated)")
PY
