#!/usr/bin/env bash
# Fuzz targets (fuzz/, cargo-fuzz on nightly): every input parser, the gzip
# wrapper, the store reader on corrupted stores and the decoders of
# compressed tiles and CSR pages. Each target starts from
# its seeds (fuzz/seeds/TARGET, kept in the repository) plus what earlier
# runs found (fuzz/corpus/TARGET, not kept) and runs SECONDS (default 15);
# a crash, hang, leak or over-limit allocation fails the script and leaves
# the input in fuzz/artifacts/TARGET.
#
#   bash scripts/fuzz.sh            # 15 s per target (.ci/run runs 10)
#   bash scripts/fuzz.sh 600        # longer
#   RUNS=1000000 bash scripts/fuzz.sh parse_text   # a fixed number of executions
#   SANITIZER=none RUNS=1000000 bash scripts/fuzz.sh store
#       # without AddressSanitizer: ~5x the executions a second on the store
#       # target (ASan zero-fills every engine buffer); panics, hangs and RSS
#       # are still caught, memory errors in unsafe code are not
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=15
TARGETS=(parse_text parse_binary parse_gzip store tilecode csrcode)
for a in "$@"; do
  case "$a" in
    [0-9]*) SECONDS_EACH=$a ;;
    *) TARGETS=("$a") ;;
  esac
done
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "warning: no nightly toolchain: fuzz targets not run (rustup toolchain install nightly)" >&2
  exit 0
fi
command -v cargo-fuzz >/dev/null || cargo install --locked --quiet cargo-fuzz
SAN=(-s "${SANITIZER:-address}")
cargo +nightly fuzz build -O "${SAN[@]}" >/dev/null 2>&1 || cargo +nightly fuzz build -O "${SAN[@]}"
for t in "${TARGETS[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  limit=(-max_total_time="$SECONDS_EACH")
  [ -n "${RUNS:-}" ] && limit=(-runs="$RUNS")
  log="fuzz/corpus/$t.log"
  if ! cargo +nightly fuzz run -O "${SAN[@]}" "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
      "${limit[@]}" -timeout=30 -malloc_limit_mb=1024 -rss_limit_mb=2048 >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "fuzz target $t failed; the input is in fuzz/artifacts/$t" >&2
    exit 1
  fi
  echo "fuzz $t: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log")" >&2
done
