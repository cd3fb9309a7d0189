#!/usr/bin/env bash
# What an update costs against importing the updated edge list (issue 53,
# item 5). A Kronecker store of SCALE from a bin32 edge list; additions: a
# G(n, m) edge list of PCT% of the edges over the same vertices plus new
# ones; removals: every (100/PCT)-th edge of the input. Alternated, median
# of RUNS: `outcore update --rewrite` on a fresh copy of the store,
# against `outcore import` of base + additions (what a user without update
# runs; it does not remove, so it is the cheaper side), and `outcore update
# --no-compact` (the update written as a delta generation beside the base,
# not compacted whatever the policy says) on another fresh copy. Prints
# seconds, update/import and delta/import; then `outcore compact` of the
# delta store against the import, and PageRank 10, BFS and WCC on base +
# delta against the compacted store.
#
#   bash benches/update.sh                    # kron 22, 1%
#   SCALE=24 PCT="1 10" bash benches/update.sh
#   SCALE=18 RUNS=1 bash benches/update.sh    # a dry run
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-22}
PCT=${PCT:-1}
RUNS=${RUNS:-3}
MEMORY=${MEMORY:-1GiB}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=${BIN:-$PWD/target/release/outcore}

secs() { /usr/bin/time -f "%e" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/last.err" ||
  { cat "$DIR/last.err" >&2; return 1; }; cat "$DIR/time.txt"; }
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

K=$DIR/up-kron$SCALE
[ -s "$K.bin32" ] || "$BIN" --quiet generate kron --scale "$SCALE" --edges "$K.bin32" --edge-format bin32 --force
rm -rf "$K.oc"
"$BIN" --quiet import "$K.bin32" --format bin32 --undirected --memory "$MEMORY" --out "$K.oc"
edges=$(($(stat -c %s "$K.bin32") / 8))
n=$((1 << SCALE))
for p in $PCT; do
  m=$((edges * p / 100))
  # Additions over n + n/16 vertices: some new ones.
  "$BIN" --quiet generate er --vertices $((n + n / 16)) --num-edges "$m" --seed 7 --directed \
    --edges "$K-add$p.bin32" --edge-format bin32 --force
  python3 - "$K.bin32" "$K-rm$p.bin32" "$((100 / p))" <<'EOF'
import sys, numpy as np
e = np.fromfile(sys.argv[1], dtype=np.uint32).reshape(-1, 2)
e[:: int(sys.argv[3])].tofile(sys.argv[2])
EOF
  cat "$K.bin32" "$K-add$p.bin32" >"$K-all$p.bin32"
  up="" im="" dl=""
  for ((r = 1; r <= RUNS; r++)); do
    rm -rf "$K-u.oc" "$K-i.oc" "$K-d.oc"
    cp -a "$K.oc" "$K-u.oc"
    cp -a "$K.oc" "$K-d.oc"
    dl="$dl $(secs "$BIN" --quiet update "$K-d.oc" --no-compact --add "$K-add$p.bin32" \
      --remove "$K-rm$p.bin32" --format bin32 --memory "$MEMORY")"
    up="$up $(secs "$BIN" --quiet update "$K-u.oc" --rewrite --add "$K-add$p.bin32" --remove "$K-rm$p.bin32" \
      --format bin32 --memory "$MEMORY")"
    im="$im $(secs "$BIN" --quiet import "$K-all$p.bin32" --format bin32 --undirected \
      --memory "$MEMORY" --out "$K-i.oc")"
  done
  u=$(median "$up") i=$(median "$im") dm=$(median "$dl")
  echo "kron-$SCALE, add $p% ($m edges) and remove $p%, --memory $MEMORY:" \
    "update --rewrite $u s [$up ], import of base + additions $i s [$im ], update/import" \
    "$(python3 -c "print(f'{$u / $i:.3f}')")"
  echo "  update --no-compact $dm s [$dl ], delta/import $(python3 -c "print(f'{$dm / $i:.3f}')")," \
    "delta/update $(python3 -c "print(f'{$dm / $u:.3f}')")"
  # Runs on base + delta (the last run's $K-d.oc) against its compaction,
  # and compaction against the import.
  rm -rf "$K-c.oc"
  cp -a "$K-d.oc" "$K-c.oc"
  cs=$(secs "$BIN" --quiet compact "$K-c.oc" --memory "$MEMORY")
  echo "  compact $cs s, compact/import $(python3 -c "print(f'{$cs / $i:.3f}')")"
  for alg in "pagerank --iterations 10" "bfs --source max-degree" "wcc"; do
    d="" c=""
    for ((r = 1; r <= RUNS; r++)); do
      # shellcheck disable=SC2086
      d="$d $(secs "$BIN" --quiet run $alg "$K-d.oc" --memory "$MEMORY" --out /dev/null)"
      # shellcheck disable=SC2086
      c="$c $(secs "$BIN" --quiet run $alg "$K-c.oc" --memory "$MEMORY" --out /dev/null)"
    done
    dm2=$(median "$d") cm=$(median "$c")
    echo "  run ${alg%% *}: base + delta $dm2 s [$d ], compacted $cm s [$c ]," \
      "delta/compacted $(python3 -c "print(f'{$dm2 / $cm:.2f}')")"
  done
  rm -rf "$K-u.oc" "$K-i.oc" "$K-d.oc" "$K-c.oc" "$K-add$p.bin32" "$K-rm$p.bin32" "$K-all$p.bin32"
done
rm -rf "$K.oc"
