#!/usr/bin/env bash
# Compression benchmark (issue 14): for SNAP's p2p-Gnutella31 (tests/data),
# an Erdős–Rényi stand-in of its size and Kronecker graphs, the bits per
# edge of every layout, plain, `--compress` (fast), `--compress=small` and
# compressed in original order; the decoders' throughput on one core (tiles,
# CSR pages) next to the disk's direct read of the tiles; PageRank (10
# iterations), WCC and BFS with the stream engine at --memory 512MiB on the
# plain and the compressed store, per-iteration medians and their ratio;
# and BFS on the select engine (CSR pages) on the plain, fast and small
# stores at 512MiB and 128MiB (MEMORY, SMALL_MEMORY), all in the same run.
#
#   bash benches/compress.sh               # scales 22 and 24
#   SCALES=20 bash benches/compress.sh     # quicker
set -euo pipefail
cd "$(dirname "$0")/.."
SCALES=${SCALES:-"22 24"}
MEMORY=${MEMORY:-512MiB}
SMALL_MEMORY=${SMALL_MEMORY:-128MiB}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
cargo build --release -p outcore --example decode >/dev/null 2>&1
BIN=$PWD/target/release/outcore
DECODE=$PWD/target/release/examples/decode
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }

# Prints "layout: bits/edge (+ index bits/edge)" for every layout of $1.
bits() {
  "$BIN" info "$1" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
parts = []
for k, v in j["layouts"].items():
    b, i = v["bits_per_edge"], v["index_bits_per_edge"]
    parts.append(f"{k} {b:.2f} (+{i:.2f} index)")
print("; ".join(parts))'
}

# build NAME CMD ARGS...: the plain, compressed (`fast`), compressed
# `small` and compressed original-order stores of one graph (CMD is
# generate or import).
build() {
  local name=$1; shift
  for v in plain coded small coded-original; do
    local extra=(--no-compress)
    case $v in
      coded) extra=(--compress) ;;
      small) extra=(--compress=small) ;;
      coded-original) extra=(--compress --order original) ;;
    esac
    "$BIN" --quiet "$@" --out "$DIR/$name-$v.oc" --memory 4GiB --force "${extra[@]}" 2> "$DIR/build-$v.err"
  done
  for v in plain coded small coded-original; do
    echo "  $v ($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["vertex_order"])' "$DIR/$name-$v.oc/manifest.json") order): $(bits "$DIR/$name-$v.oc")"
    echo "    built $(grep -o 'in [0-9.]*s ([^)]*)' "$DIR/build-$v.err")"
  done
}

echo "== p2p-Gnutella31, the SNAP file (tests/data): 62586 vertices, 147892 directed edges (CEESOR: 11.73 bits/edge CSR) =="
build gnutella import tests/data/p2p-Gnutella31.txt.gz
echo "  decode: $("$DECODE" "$DIR/gnutella-small.oc" 2>/dev/null | tail -1)"
rm -rf "$DIR"/gnutella-*.oc
echo "== p2p-Gnutella31-sized stand-in: ER, 62586 vertices, 147892 directed edges =="
build gnutella-er generate er --vertices 62586 --num-edges 147892 --directed
rm -rf "$DIR"/gnutella-er-*.oc

for scale in $SCALES; do
  name=kron$scale
  echo "== kron scale $scale, edge factor 16, undirected =="
  build "$name" generate kron --scale "$scale"
  rm -rf "$DIR/$name-coded-original.oc"
  P=$DIR/$name-plain.oc
  C=$DIR/$name-coded.oc
  S=$DIR/$name-small.oc
  drop_caches
  raw=$(dd if="$C/tiles/edges.bin" of=/dev/null bs=4M iflag=direct 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1); printf "%.1f", $1 / 1e6 / s}')
  echo "  disk: direct read of the compressed tiles: $raw MB/s"
  echo "  decode (one core): $("$DECODE" "$C" 2>/dev/null | head -1)"
  echo "  CSR pages, --compress (one core): $("$DECODE" "$C" 2>/dev/null | tail -1)"
  echo "  plain words (one core): $("$DECODE" "$P" 2>/dev/null)"
  echo "  CSR pages, --compress=small (one core): $("$DECODE" "$S" 2>/dev/null | tail -1)"
  # The select engine (CSR pages) on the three stores: BFS from the
  # highest-degree vertex, cold, at $MEMORY and $SMALL_MEMORY.
  for mem in "$MEMORY" "$SMALL_MEMORY"; do
    line="  select bfs --memory $mem:"
    for v in plain coded small; do
      drop_caches
      "$BIN" --quiet run bfs "$DIR/$name-$v.oc" --engine select --memory "$mem" --source max-degree \
        --stats "$DIR/$name-sel-$v.json" > /dev/null 2>&1
      line+=" $v $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("%.2f s / %d MiB" % (s["wall_seconds"], s["bytes_read"] >> 20))' "$DIR/$name-sel-$v.json");"
    done
    echo "$line"
  done
  for alg in pagerank wcc bfs; do
    extra=()
    [ "$alg" = bfs ] && extra=(--source max-degree)
    [ "$alg" = pagerank ] && extra=(--iterations 10)
    for v in plain coded; do
      drop_caches
      "$BIN" --quiet run "$alg" "$DIR/$name-$v.oc" --engine stream --memory "$MEMORY" \
        --stats "$DIR/$name-$alg-$v.json" "${extra[@]}" > /dev/null
    done
    python3 - "$DIR/$name-$alg-plain.json" "$DIR/$name-$alg-coded.json" "$alg" "$MEMORY" <<'PY'
import json, statistics, sys
p, c = (json.load(open(f)) for f in sys.argv[1:3])
def med(s, k):
    return statistics.median(it[k] for it in s["iterations"]) if s["iterations"] else 0.0
def tot(s, k):
    return sum(it[k] for it in s["iterations"])
mp, mc = med(p, "seconds"), med(c, "seconds")
print(f"  {sys.argv[3]} --memory {sys.argv[4]}: {len(p['iterations'])} iterations, median "
      f"{mp:.3f} s plain vs {mc:.3f} s compressed ({mp / mc:.2f}x); read {tot(p, 'bytes_read') / 2**20:.0f} vs "
      f"{tot(c, 'bytes_read') / 2**20:.0f} MiB; cache pool {p['cache_pool_bytes'] >> 20} MiB both; "
      f"total {tot(p, 'seconds'):.2f} vs {tot(c, 'seconds'):.2f} s; "
      f"peak RSS {p['peak_rss_bytes'] >> 20} vs {c['peak_rss_bytes'] >> 20} MiB")
PY
  done
done
