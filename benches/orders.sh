#!/usr/bin/env bash
# Vertex orders benchmark (issue 14, item 3): bits per edge of the
# compressed tiles and CSR, and build seconds, for every `--order` on graphs
# with and without locality:
#   - a p2p-Gnutella31-sized stand-in (ER, 62,586 vertices, 147,892
#     directed edges; the SNAP file is not on this machine);
#   - 1024 x 1024 and 4096 x 4096 grids, ids row-major (their own order is
#     already local);
#   - the same grid under shuffled ids (a road network's ids rarely follow
#     its geometry);
#   - a planted-partition graph (2,000 communities of 50 vertices, 12
#     neighbours inside a community and 2 outside on average) under
#     shuffled ids: the clustered structure of social and web graphs;
#   - Kronecker graphs (SCALES, default 20 and 22): hubs, no locality.
# `auto` with `--compress` picks bfs where it codes 10% smaller.
#
#   bash benches/orders.sh
#   SCALES=20 bash benches/orders.sh     # quicker
set -euo pipefail
cd "$(dirname "$0")/.."
SCALES=${SCALES:-"20 22"}
DIR=${BENCH_DIR:-bench-out}/orders
mkdir -p "$DIR"
cargo build --release -p outcore-cli >/dev/null 2>&1
BIN=$PWD/target/release/outcore

# row ORDER STORE ERRFILE: one line of the table.
row() {
  "$BIN" info "$2" --json | python3 -c '
import json, re, sys
j = json.load(sys.stdin)
l = j["layouts"]
secs = re.findall(r"in ([0-9.]+)s \(", open(sys.argv[2]).read())
line = "  %-8s -> %-8s tiles %6.2f  csr_out %6.2f (+%.2f index)" % (
    sys.argv[1], j["vertex_order"], l["tiles"]["bits_per_edge"],
    l["csr_out"]["bits_per_edge"], l["csr_out"]["index_bits_per_edge"])
if "csr_in" in l:
    line += "  csr_in %6.2f" % l["csr_in"]["bits_per_edge"]
print(line + "  built in %s s" % (secs[-1] if secs else "?"))
' "$1" "$3"
}

# orders NAME COMMAND...: builds the graph in every order, compressed.
orders() {
  local name=$1; shift
  for o in degree original bfs auto; do
    local s=$DIR/$name-$o.oc
    "$BIN" "$@" --compress --order "$o" --out "$s" --memory 2GiB --force 2> "$DIR/$name-$o.err"
    row "$o" "$s" "$DIR/$name-$o.err"
    grep -h "vertex order" "$DIR/$name-$o.err" | sed 's/^/      /' || true
    rm -rf "$s"
  done
}

# A text edge list under shuffled ids: grid or planted partition.
shuffled() {
  python3 - "$1" "$2" <<'PY'
import random, sys
kind, out = sys.argv[1], sys.argv[2]
rng = random.Random(1)
edges = []
if kind == "grid":
    side = 1024
    n = side * side
    for r in range(side):
        for c in range(side):
            v = r * side + c
            if c + 1 < side: edges.append((v, v + 1))
            if r + 1 < side: edges.append((v, v + side))
else:
    k, size = 2000, 50
    n = k * size
    for v in range(n):
        base = v - v % size
        for _ in range(6):
            edges.append((v, base + rng.randrange(size)))
        edges.append((v, rng.randrange(n)))
perm = list(range(n))
rng.shuffle(perm)
with open(out, "w") as f:
    f.writelines(f"{perm[u]} {perm[v]}\n" for u, v in edges)
PY
}

echo "== p2p-Gnutella31 stand-in: ER, 62586 vertices, 147892 directed edges (CEESOR: 11.73 bits/edge CSR on the real file) =="
orders gnutella generate er --vertices 62586 --num-edges 147892 --directed
echo "== grid 1024 x 1024, row-major ids =="
orders grid generate grid --rows 1024 --cols 1024
echo "== grid 4096 x 4096, row-major ids (8,189 levels) =="
orders grid4k generate grid --rows 4096 --cols 4096
echo "== grid 1024 x 1024, shuffled ids (text import) =="
shuffled grid "$DIR/grid-shuffled.txt"
orders grid-shuffled import "$DIR/grid-shuffled.txt" --undirected
echo "== planted partition, 100000 vertices in communities of 50, shuffled ids (text import) =="
shuffled communities "$DIR/communities.txt"
orders communities import "$DIR/communities.txt" --undirected
rm -f "$DIR"/*.txt
for scale in $SCALES; do
  echo "== kron scale $scale, edge factor 16, undirected =="
  orders "kron$scale" generate kron --scale "$scale"
done
