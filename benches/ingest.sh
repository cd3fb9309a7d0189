#!/usr/bin/env bash
# Ingest benchmark (issues 2 and 9): generation, import from text and bin32
# inside a budget (seconds per phase, MB/s of input, bytes spilled, peak RSS),
# store size per layout, next to the raw direct read and write of the disk
# (dd, O_DIRECT) and GridGraph's and G-Store's preprocessing of the same bin32
# list (benches/peers.sh; skipped when their source is unavailable), all
# measured in the same run.
#
#   bash benches/ingest.sh                 # kron scale 22, --memory 1GiB
#   SCALE=24 bash benches/ingest.sh        # the issue 9 figure
#   SCALE=20 MEMORY=128MiB PEERS=0 bash benches/ingest.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-22}
MEMORY=${MEMORY:-1GiB}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=$PWD/target/release/outcore
K=$DIR/kron$SCALE

now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || echo "  (could not drop the page cache; inputs may be cached)" >&2; }
# Runs a command under /usr/bin/time; prints "seconds peak_rss_kib".
timed() { /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" >"$DIR/last.out" 2>"$DIR/last.err"; cat "$DIR/time.txt"; }
dd_direct() { # prints MB/s of a direct read of $1
  dd if="$1" of=/dev/null bs=4M iflag=direct 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1); printf "%.1f MB/s", $1 / 1e6 / s}'
}

echo "== outcore ingest benchmark: kron scale $SCALE, edge factor 16, --memory $MEMORY =="
t0=$(now); "$BIN" --quiet generate kron --scale "$SCALE" --edges "$K.bin32" --edge-format bin32 --force >/dev/null; t1=$(now)
echo "generate kron -> bin32 edge list:   $(secs "$t0" "$t1") s ($(du -h "$K.bin32" | cut -f1))"
t0=$(now); "$BIN" --quiet generate kron --scale "$SCALE" --edges "$K.txt" --force >/dev/null; t1=$(now)
echo "generate kron -> text edge list:    $(secs "$t0" "$t1") s ($(du -h "$K.txt" | cut -f1))"
# Stores of an earlier run are removed first: replacing one (--force) also
# deletes the old files, which is not the build's time (0.6 s at scale 24).
rm -rf "$K-gen.oc" "$K-gen-orig.oc" "$K-txt.oc" "$K-bin32.oc"
read -r s rss < <(timed "$BIN" --quiet generate kron --scale "$SCALE" --out "$K-gen.oc" --memory "$MEMORY" --force)
echo "generate kron -> store:             $s s, peak RSS $((rss / 1024)) MiB ($(grep -o '(read [^)]*)' "$DIR/last.err"))"
read -r s rss < <(timed "$BIN" --quiet generate kron --scale "$SCALE" --out "$K-gen-orig.oc" --memory "$MEMORY" --order original --force)
echo "  the same, --order original:       $s s, peak RSS $((rss / 1024)) MiB ($(grep -o '(read [^)]*)' "$DIR/last.err"))"
rm -rf "$K-gen-orig.oc"

dd_write() { # prints MB/s of a direct 1 GiB write
  dd if=/dev/zero of="$DIR/dd.tmp" bs=4M count=256 oflag=direct 2>&1 | awk '/copied/ {for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1); printf "%.1f MB/s", $1 / 1e6 / s}'
  rm -f "$DIR/dd.tmp"
}
echo "-- disk: direct write (dd oflag=direct bs=4M, 1 GiB): $(dd_write) --"
for fmt in txt bin32; do
  f=$K.$fmt
  bytes=$(stat -c %s "$f")
  drop_caches
  echo "-- input $f ($((bytes / 1048576)) MiB) --"
  echo "  raw direct read (dd iflag=direct bs=4M): $(dd_direct "$f")"
  drop_caches
  format=snap; [ "$fmt" = bin32 ] && format=bin32
  read -r s rss < <(timed "$BIN" --quiet import "$f" --format "$format" --undirected --memory "$MEMORY" --out "$K-$fmt.oc" --force)
  mbps=$(python3 -c "print(f'{$bytes / 1e6 / $s:.1f}')")
  echo "  import --memory $MEMORY: $s s, $mbps MB/s of input, peak RSS $((rss / 1024)) MiB"
  grep -o "in [0-9.]*s (read.*" "$DIR/last.err" | sed 's/^/  phases: /'
  grep -o "spilled [^;]*" "$DIR/last.err" | sed 's/^/  /'
done
if [ "${PEERS:-1}" != 0 ]; then
  echo "-- peers on $K.bin32 (benches/peers.sh) --"
  INPUT=$K.bin32 VERTICES=$((1 << SCALE)) bash benches/peers.sh 2>"$DIR/peers.err" | sed 's/^/  /' || echo "  (peers failed: see $DIR/peers.err)"
fi

echo "-- store ($K-bin32.oc) --"
"$BIN" info --json "$K-bin32.oc" > "$DIR/info.json"
python3 - "$DIR/info.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t, c = j["tiles"], j["csr"]
print(f"  vertices {j['vertices']}, edges {j['edges']}, size on disk {j['size_on_disk'] / 2**20:.1f} MiB")
print(f"  tiles: {t['bytes'] / 2**20:.1f} MiB = {t['bytes_per_edge']:.2f} bytes/edge "
      f"({t['non_empty']} tiles, {t['groups']} groups, largest {t['largest_tile_edges']} edges)")
print(f"  csr:   {(c['out_bytes'] + c['in_bytes']) / 2**20:.1f} MiB = {c['bytes_per_edge']:.2f} bytes/edge "
      f"({c['padding_slots']} padding slots)")
PY
t0=$(now); "$BIN" --quiet verify "$K-bin32.oc" >/dev/null; t1=$(now)
echo "  verify: $(secs "$t0" "$t1") s"
