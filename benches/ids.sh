#!/usr/bin/env bash
# Ids beyond the budget (issue 9, items 2-3): a vertex-heavy edge list whose
# distinct ids need FACTOR x what --memory holds in 8-byte entries, imported
# inside that budget (the id map outgrows its share: ids are ranked on disk),
# then WCC with its output written through the streamed id map; and the same
# graph with string ids (a csv of names) imported and run the same way.
# Prints wall time, peak RSS (against the budget + 64 MiB), bytes spilled
# and the phases, beside dd's raw write and read of the input in the same run.
#
#   bash benches/ids.sh                       # 10x of 128 MiB: 168M ids
#   FACTOR=1 bash benches/ids.sh              # a quick check (16.8M ids)
set -euo pipefail
cd "$(dirname "$0")/.."
MEMORY=${MEMORY:-128MiB}
FACTOR=${FACTOR:-10}
DIR=${BENCH_DIR:-bench-out}/ids
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=$PWD/target/release/outcore
budget=$(python3 -c "
import re,sys
m=re.fullmatch(r'(\d+)(KiB|MiB|GiB)', '$MEMORY'); print(int(m[1]) << {'KiB':10,'MiB':20,'GiB':30}[m[2]])")
ids=$((budget / 8 * FACTOR))
edges=$((ids / 2))
timed() { /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" >"$DIR/last.out" 2>"$DIR/last.err"; cat "$DIR/time.txt"; }
report() { # name seconds rss
  local rss=$(( $3 / 1024 )) cap=$(( budget / 1048576 + 64 ))
  echo "$1: $2 s, peak RSS $rss MiB (budget $MEMORY; allowed $cap MiB: $([ $rss -le $cap ] && echo within || echo OVER))"
}

echo "== $ids distinct ids ($FACTOR x what $MEMORY holds in 8-byte entries), $edges edges, each end a fresh random id =="
python3 - "$DIR" "$edges" <<'EOF'
import sys, numpy as np
d, m = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(7)
with open(f"{d}/ids.bin64", "wb") as f, open(f"{d}/names.csv", "w") as c:
    c.write("source,target\n")
    left = m
    while left:
        k = min(left, 4_000_000)
        e = rng.integers(0, 2**63, size=(k, 2), dtype=np.uint64)
        e.tofile(f)
        if m <= 50_000_000:
            c.writelines(f"user-{a:x},acct {b:x}\n" for a, b in e)
        left -= k
EOF
sync
dd if=/dev/zero of="$DIR/dd.tmp" bs=4M count=256 oflag=direct 2>&1 | tail -1 | sed 's/^/dd write (direct): /'
dd if="$DIR/ids.bin64" of=/dev/null bs=4M iflag=direct 2>&1 | tail -1 | sed 's/^/dd read of the input (direct): /'
rm -f "$DIR/dd.tmp"

read -r s rss < <(timed "$BIN" import "$DIR/ids.bin64" --memory "$MEMORY" --out "$DIR/ids.oc" --force)
report "import bin64 ($(du -h "$DIR/ids.bin64" | cut -f1))" "$s" "$rss"
grep -o "in [0-9.]*s (read.*" "$DIR/last.err" | sed 's/^/  /' || true
read -r s rss < <(timed "$BIN" --quiet run wcc "$DIR/ids.oc" --memory "$MEMORY" --out "$DIR/wcc.out")
report "run wcc --out (external engine, $(wc -l < "$DIR/wcc.out") lines)" "$s" "$rss"

if [ -s "$DIR/names.csv" ] && [ "$(wc -l < "$DIR/names.csv")" -gt 1 ]; then
  read -r s rss < <(timed "$BIN" import "$DIR/names.csv" --header --memory "$MEMORY" --out "$DIR/names.oc" --force)
  report "import csv of names ($(du -h "$DIR/names.csv" | cut -f1), --ids auto)" "$s" "$rss"
  grep -o "in [0-9.]*s (read.*" "$DIR/last.err" | sed 's/^/  /' || true
  read -r s rss < <(timed "$BIN" --quiet run wcc "$DIR/names.oc" --memory "$MEMORY" --out "$DIR/wcc-names.out")
  report "run wcc --out on names" "$s" "$rss"
else
  echo "(the csv of names is written only up to 50M edges)"
fi
rm -f "$DIR/ids.bin64" "$DIR/names.csv" "$DIR/wcc.out" "$DIR/wcc-names.out"
