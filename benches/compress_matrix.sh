#!/usr/bin/env bash
# Is the compressed layout ever slower than the plain one? (issue 51,
# item 4.) For each scale: a plain and a `--compress` store of the same
# Kronecker graph (and a weighted pair for SSSP), the import of each timed
# (compressed/plain, the 1.1x target), then PageRank 10, BFS and WCC on the
# stream and the select engine, SSSP and k-core on select, each at a budget
# that caches the graph (CACHED) and one that makes the run I/O-bound
# (IOBOUND), plain and compressed alternated run by run, median of RUNS;
# prints seconds and coded/plain per case.
#
#   bash benches/compress_matrix.sh                  # kron 22
#   SCALES="22 24" bash benches/compress_matrix.sh   # the issue's table
#   SCALES=18 RUNS=1 bash benches/compress_matrix.sh # a dry run
set -euo pipefail
cd "$(dirname "$0")/.."
SCALES=${SCALES:-22}
RUNS=${RUNS:-3}
CACHED=${CACHED:-8GiB}
IOBOUND=${IOBOUND:-256MiB}
IMPORT_MEMORY=${IMPORT_MEMORY:-1GiB}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=${BIN:-$PWD/target/release/outcore}

secs() { /usr/bin/time -f "%e" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/last.err" ||
  { cat "$DIR/last.err" >&2; return 1; }; cat "$DIR/time.txt"; }
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
ratio() { python3 -c "print(f'{$2 / $1:.3f}')"; }

for s in $SCALES; do
  K=$DIR/cm-kron$s
  echo "== kron scale $s: plain against --compress (median of $RUNS, alternated) =="
  [ -s "$K.bin32" ] || "$BIN" --quiet generate kron --scale "$s" --edges "$K.bin32" --edge-format bin32 --force
  declare -A imp=()
  for ((r = 1; r <= RUNS; r++)); do
    for v in plain coded; do
      extra=(--no-compress); [ $v = coded ] && extra=(--compress)
      rm -rf "$K-$v.oc"
      imp[$v]="${imp[$v]:-} $(secs "$BIN" --quiet import "$K.bin32" --format bin32 --undirected \
        --memory "$IMPORT_MEMORY" --out "$K-$v.oc" "${extra[@]}")"
    done
  done
  p=$(median "${imp[plain]}"); c=$(median "${imp[coded]}")
  echo "  import bin32 --memory $IMPORT_MEMORY: plain $p s, compressed $c s: $(ratio "$p" "$c") (target <= 1.10; runs:${imp[plain]} /${imp[coded]})"
  for v in plain coded; do
    echo "  $v: $(du -sm "$K-$v.oc" | cut -f1) MiB on disk, $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["vertex_order"])' "$K-$v.oc/manifest.json") order"
  done
  for v in plain coded; do
    extra=(--no-compress); [ $v = coded ] && extra=(--compress)
    [ -d "$K-w-$v.oc" ] || "$BIN" --quiet generate kron --scale "$s" --weighted --memory 4GiB --out "$K-w-$v.oc" --force "${extra[@]}"
  done
  printf '  %-32s %9s %9s %7s\n' case plain coded coded/plain
  for mem in "$CACHED" "$IOBOUND"; do
    while read -r algo engine store args; do
      declare -A t=()
      for ((r = 1; r <= RUNS; r++)); do
        for v in plain coded; do
          st=$K-$v.oc; [ "$store" = w ] && st=$K-w-$v.oc
          # shellcheck disable=SC2086
          t[$v]="${t[$v]:-} $(secs "$BIN" --quiet run "$algo" "$st" --engine "$engine" --memory "$mem" $args --out "$DIR/cm.out")"
        done
      done
      p=$(median "${t[plain]}"); c=$(median "${t[coded]}")
      printf '  %-32s %8ss %8ss %7s\n' "$algo/$engine $mem" "$p" "$c" "$(ratio "$p" "$c")"
    done <<EOF
pagerank stream u --iterations 10
pagerank select u --iterations 10
bfs stream u --source max-degree
bfs select u --source max-degree
wcc stream u
wcc select u
sssp select w --source max-degree
kcore select u
EOF
  done
done
