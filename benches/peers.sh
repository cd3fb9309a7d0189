#!/usr/bin/env bash
# Peer benchmark: how long two published out-of-core graph systems take to
# preprocess (import) the same bin32 edge list that outcore imports, built
# from their public source with -O3 and timed with /usr/bin/time:
#   GridGraph (Zhu et al., ATC'15)   tools/preprocess: edge list -> P x P grid
#   G-Store   (Kumar & Huang, SC'16) gstoreu -c 1:   edge list -> tiles (undirected)
# Prints one line per peer on stdout:
#   gridgraph_preprocess_seconds S peak_rss_kib K out_bytes B sync_seconds T
#   gstore_convert_seconds       S peak_rss_kib K out_bytes B sync_seconds T
# S is the wall time of the tool alone from a cold page cache (as benches/ingest.sh
# times outcore import); sync_seconds is the flush of its output done afterwards.
#
#   INPUT=bench-out/kron22.bin32 VERTICES=4194304 bash benches/peers.sh
#
# INPUT: pairs of little-endian u32 (src, dst); VERTICES: vertex count (2^scale).
# Sources: bench-out/peers/<name>-src (an extracted snapshot, or a shallow git
# clone made here when it is missing; with no network that peer is skipped).
# Offline, from a bare mirror of the repository (e.g. one a snapshot tool fetched):
#   mkdir -p bench-out/peers/gridgraph-src && git --git-dir=MIRROR archive HEAD \
#     | tar -x -C bench-out/peers/gridgraph-src
#   echo "https://github.com/thu-pacman/GridGraph $(git --git-dir=MIRROR rev-parse HEAD)" \
#     > bench-out/peers/gridgraph-src/.peer-commit     (the same for gstore-src)
# Builds go to bench-out/peers/<name>-build (a patched copy), outputs to
# bench-out/peers/out (removed after each run), tool logs to bench-out/peers/<name>.log.
# Options for a 1 GiB budget:
#   GridGraph: preprocess has no memory option (it streams the input through
#     3 x threads x 24 MiB buffers); P = VERTICES / 2^20 (its own default,
#     at least 1), override with GRIDGRAPH_P. It keeps edges as given (directed).
#   G-Store: -c 1 is the README's conversion for a single edge-list file; it is
#     in memory (input + 4 bytes/edge of tiles) and has no memory option (-m only
#     sizes the run-time cache). -c 2 (on disk) needs >= 2^25 vertices and writes
#     next to the input, so it is not used. Vertex count is given with -v: the
#     README's -s SCALE underflows for scale < 24 and overruns the tile counts.
# Both Makefiles already use -O3 (GridGraph's CXXFLAGS is restated without -g).
# Patches (on the build copy only): G-Store NUM_THDS 32 -> nproc (its README asks
# for that), MAP_HUGE_2MB defined on the command line (newer glibc headers no
# longer provide it through <asm/mman.h>); needs libaio-dev (installed if missing).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${INPUT:?set INPUT to a bin32 edge list}" "${VERTICES:?set VERTICES (2^scale)}"
INPUT=$(realpath "$INPUT")
PEERS=${PEERS_DIR:-bench-out/peers}
NPROC=$(nproc)
mkdir -p "$PEERS"
PEERS=$(realpath "$PEERS"); OUT=$PEERS/out
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

# source_dir NAME LABEL URL: ensures $PEERS/NAME-src exists; prints its provenance.
source_dir() {
  local dir=$PEERS/$1-src
  if [ ! -d "$dir" ]; then
    if git clone -q --depth 1 "$3" "$dir.tmp" >/dev/null 2>&1; then
      echo "$3 $(git -C "$dir.tmp" rev-parse HEAD)" > "$dir.tmp/.peer-commit"
      rm -rf "$dir.tmp/.git"; mv "$dir.tmp" "$dir"
    else
      rm -rf "$dir.tmp"; echo "$2: source not available, skipped" >&2; return 1
    fi
  fi
  echo "# $2 source: $(cat "$dir/.peer-commit" 2>/dev/null || echo "$dir (unknown commit)")" >&2
}

# fresh_copy NAME: a clean build copy of the source, echoes its path.
fresh_copy() {
  local b=$PEERS/$1-build
  rm -rf "$b"; cp -r "$PEERS/$1-src" "$b"; echo "$b"
}

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || echo "# could not drop the page cache" >&2; }

# run KEY LOG CMD...: cold-cache timed run; prints the result line.
run() {
  local key=$1 log=$2; shift 2
  rm -rf "$OUT"; mkdir -p "$OUT"
  drop_caches
  echo "# $key: $*" >&2
  if ! /usr/bin/time -f "%e %M" -o "$PEERS/time.txt" "$@" >"$log" 2>&1; then
    echo "$key: run failed (see $log)" >&2; rm -rf "$OUT"; return 1
  fi
  local t0 t1 s rss bytes
  t0=$(date +%s.%N); sync; t1=$(date +%s.%N)
  read -r s rss < <(tail -n 1 "$PEERS/time.txt")
  bytes=$(du -sb "$OUT" | cut -f1)
  echo "$key $s peak_rss_kib $rss out_bytes $bytes sync_seconds $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")"
}

echo "# input $INPUT: $(( $(stat -c %s "$INPUT") / 8 )) edges, $VERTICES vertices, $NPROC threads" >&2

# ---- GridGraph -------------------------------------------------------------
gridgraph() {
  source_dir gridgraph GridGraph https://github.com/thu-pacman/GridGraph || return 0
  local b; b=$(fresh_copy gridgraph)
  mkdir -p "$b/bin"
  if ! make -C "$b" bin/preprocess CXX=g++ \
      CXXFLAGS="-O3 -Wall -std=c++11 -fopenmp -I$b" >"$PEERS/gridgraph-build.log" 2>&1; then
    echo "GridGraph: build failed (see $PEERS/gridgraph-build.log), skipped" >&2; return 0
  fi
  local p=${GRIDGRAPH_P:-$(( VERTICES / 1048576 ))}
  [ "$p" -ge 1 ] || p=1
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true   # it keeps P*P block files open
  run gridgraph_preprocess_seconds "$PEERS/gridgraph.log" \
    "$b/bin/preprocess" -i "$INPUT" -o "$OUT/grid" -v "$VERTICES" -p "$p" -t 0 || { rm -rf "$OUT"; return 0; }
  echo "# GridGraph meta (type vertices edges P): $(cat "$OUT/grid/meta");" \
    "$(tr '\r' '\n' < "$PEERS/gridgraph.log" | grep -o 'it takes .* edge grid')" >&2
  rm -rf "$OUT"
}

# ---- G-Store ---------------------------------------------------------------
gstore() {
  source_dir gstore G-Store https://github.com/the-data-lab/gstore || return 0
  if [ ! -e /usr/include/libaio.h ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    { apt-get install -y -qq libaio-dev || { apt-get update -qq && apt-get install -y -qq libaio-dev; }; } >/dev/null 2>&1
  fi
  local b; b=$(fresh_copy gstore)
  rm -f "$b/gstoreu" "$b/gstored"          # the repository ships prebuilt binaries
  sed -i "s/^#define NUM_THDS .*/#define NUM_THDS $NPROC/" "$b/gstore.h"
  if ! make -C "$b" gstoreu CC="g++ -DMAP_HUGE_2MB=0x54000000" >"$PEERS/gstore-build.log" 2>&1; then
    echo "G-Store: build failed (libaio-dev? see $PEERS/gstore-build.log), skipped" >&2; return 0
  fi
  run gstore_convert_seconds "$PEERS/gstore.log" \
    "$b/gstoreu" -v "$VERTICES" -i "$INPUT" -c 1 -o "$OUT/tile" || { rm -rf "$OUT"; return 0; }
  echo "# G-Store: $(grep -E 'Total Edges again|GStore Conversion Time' "$PEERS/gstore.log" | tr '\n' ';')" >&2
  rm -rf "$OUT"
}

gridgraph
gstore
rm -f "$PEERS/time.txt"
