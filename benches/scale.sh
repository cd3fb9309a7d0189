#!/usr/bin/env bash
# End-to-end scale run (issue 9): generate a Kronecker edge list as bin32,
# import it inside a budget, run PageRank (10 iterations), BFS and WCC;
# prints each step's wall time, peak RSS and the disk it used (the input,
# the store, and the most scratch space seen during the import, sampled
# with df every second).
#
#   SCALE=26 MEMORY=4GiB bash benches/scale.sh     # the issue 9 figure
#   SCALE=20 MEMORY=256MiB bash benches/scale.sh   # a quick check
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-26}
MEMORY=${MEMORY:-4GiB}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=$PWD/target/release/outcore
K=$DIR/kron$SCALE
timed() { /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" >"$DIR/last.out" 2>"$DIR/last.err"; cat "$DIR/time.txt"; }
used() { df --output=used -B1 "$DIR" | tail -1; }
gib() { python3 -c "print(f'{$1 / 2**30:.2f} GiB')"; }

echo "== scale run: kron scale $SCALE, edge factor 16, --memory $MEMORY (df free: $(df -h --output=avail "$DIR" | tail -1 | tr -d ' ')) =="
read -r s rss < <(timed "$BIN" --quiet generate kron --scale "$SCALE" --edges "$K.bin32" --edge-format bin32 --force)
echo "generate bin32: $s s, $(gib "$(stat -c %s "$K.bin32")"), peak RSS $((rss / 1024)) MiB"
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
base=$(used); peak=$base
( while sleep 1; do used; done ) > "$DIR/df.txt" &
sampler=$!
read -r s rss < <(timed "$BIN" --quiet import "$K.bin32" --format bin32 --undirected --memory "$MEMORY" --out "$K.oc" --force)
kill $sampler 2>/dev/null || true
peak=$(sort -n "$DIR/df.txt" | tail -1); peak=${peak:-$base}
store=$(du -sb "$K.oc" | cut -f1)
echo "import: $s s, peak RSS $((rss / 1024)) MiB, store $(gib "$store"), scratch at most $(gib $((peak - base > store ? peak - base - store : 0))) beyond the store"
grep -o "in [0-9.]*s (read.*" "$DIR/last.err" | sed 's/^/  /' || true
for algo in "pagerank --iterations 10" "bfs --source max-degree" "wcc"; do
  sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
  # shellcheck disable=SC2086
  read -r s rss < <(timed "$BIN" --quiet run $algo "$K.oc" --memory "$MEMORY")
  echo "run $algo: $s s, peak RSS $((rss / 1024)) MiB"
done
