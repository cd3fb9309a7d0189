#!/usr/bin/env bash
# Parquet benchmark (issue 52, item 6): the same Kronecker edge list as
# text, bin32 and Parquet (written by pyarrow: zstd, pyarrow's default row
# groups, uint64 columns src/dst), each imported with the same budget,
# alternated run by run, median of RUNS; prints seconds, MB/s of input and
# million edges/s per format, and Parquet's time per edge against text's
# (the target: <= 1.00). Then PageRank's result written as text and as
# Parquet (`run --out F.txt` / `--out F.parquet`): size and seconds.
#
#   bash benches/parquet.sh                 # kron scale 22, --memory 1GiB
#   SCALE=24 bash benches/parquet.sh        # the issue's figure
#   SCALE=18 RUNS=1 bash benches/parquet.sh # a dry run
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-22}
MEMORY=${MEMORY:-1GiB}
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-bench-out}
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=${BIN:-$PWD/target/release/outcore}
K=$DIR/kron$SCALE

# Runs a command under /usr/bin/time; prints "seconds peak_rss_kib".
timed() { /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" >"$DIR/last.out" 2>"$DIR/last.err" ||
  { cat "$DIR/last.err" >&2; return 1; }; cat "$DIR/time.txt"; }

echo "== Parquet import benchmark: kron scale $SCALE, edge factor 16, --memory $MEMORY, median of $RUNS =="
[ -s "$K.txt" ] || "$BIN" --quiet generate kron --scale "$SCALE" --edges "$K.txt" --force >/dev/null
[ -s "$K.bin32" ] || "$BIN" --quiet generate kron --scale "$SCALE" --edges "$K.bin32" --edge-format bin32 --force >/dev/null
if [ ! -s "$K.parquet" ]; then
  # Streamed text -> Parquet, a block at a time, so a scale-24 list needs
  # no more memory than a few row groups.
  python3 - "$K.txt" "$K.parquet" <<'PY'
import sys
import pyarrow as pa, pyarrow.csv as csv, pyarrow.parquet as pq
schema = pa.schema([("src", pa.uint64()), ("dst", pa.uint64())])
reader = csv.open_csv(sys.argv[1], read_options=csv.ReadOptions(column_names=["src", "dst"], block_size=64 << 20),
                      parse_options=csv.ParseOptions(delimiter=" "),
                      convert_options=csv.ConvertOptions(column_types={"src": pa.uint64(), "dst": pa.uint64()}))
with pq.ParquetWriter(sys.argv[2] + ".tmp", schema, compression="zstd") as w:
    for batch in reader:
        w.write_table(pa.Table.from_batches([batch]))
import os
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
PY
fi
edges=$(python3 -c "import pyarrow.parquet as pq; print(pq.ParquetFile('$K.parquet').metadata.num_rows)")
groups=$(python3 -c "import pyarrow.parquet as pq; print(pq.ParquetFile('$K.parquet').metadata.num_row_groups)")
for f in txt bin32 parquet; do
  echo "  input $K.$f: $(($(stat -c %s "$K.$f") / 1048576)) MiB"
done
echo "  $edges edges; the Parquet file has $groups row groups"

declare -A times
for ((r = 1; r <= RUNS; r++)); do
  for f in txt bin32 parquet; do
    format=snap; [ "$f" = bin32 ] && format=bin32; [ "$f" = parquet ] && format=parquet
    rm -rf "$K-$f.oc"
    read -r s rss < <(timed "$BIN" --quiet import "$K.$f" --format "$format" --undirected --memory "$MEMORY" --out "$K-$f.oc" --force)
    times[$f]="${times[$f]:-} $s"
    echo "  run $r: import $f: $s s, peak RSS $((rss / 1024)) MiB" >&2
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "-- import, --memory $MEMORY (median of $RUNS; runs alternated) --"
for f in txt bin32 parquet; do
  m=$(median "${times[$f]}")
  python3 -c "b = $(stat -c %s "$K.$f"); s = $m; print(f'  {\"$f\":8} {s:7.2f} s  {b / 1e6 / s:7.1f} MB/s of input  {$edges / 1e6 / s:6.2f} M edges/s   (runs:${times[$f]})')"
done
python3 -c "print(f'  parquet / text time per edge: {$(median "${times[parquet]}") / $(median "${times[txt]}"):.3f} (target <= 1.00)')"
python3 -c "print(f'  parquet / bin32 time per edge: {$(median "${times[parquet]}") / $(median "${times[bin32]}"):.3f}')"
"$BIN" --quiet verify "$K-parquet.oc" >/dev/null && echo "  the Parquet store verifies"

echo "-- PageRank 20 result written as text and as Parquet (median of $RUNS) --"
declare -A outs
for ((r = 1; r <= RUNS; r++)); do
  for ext in txt parquet; do
    read -r s _ < <(timed "$BIN" --quiet run pagerank "$K-bin32.oc" --iterations 20 --memory "$MEMORY" --out "$K-pr.$ext")
    outs[$ext]="${outs[$ext]:-} $s"
  done
done
for ext in txt parquet; do
  echo "  --out pr.$ext: $(median "${outs[$ext]}") s, $(($(stat -c %s "$K-pr.$ext") / 1048576)) MiB (runs:${outs[$ext]})"
done
python3 - "$K-pr.txt" "$K-pr.parquet" <<'PY'
import sys
import pyarrow.parquet as pq
t = pq.read_table(sys.argv[2])
n = sum(1 for _ in open(sys.argv[1]))
print(f"  the Parquet result has {t.num_rows} rows (text: {n} lines), columns {t.schema.names} "
      f"({', '.join(str(x.type) for x in t.schema)})")
PY
