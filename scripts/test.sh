#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust tests (nextest when present),
# and the Python tests against NetworkX. Fuzzing is apart: .ci/run ends with
# `bash scripts/fuzz.sh 10` (10 s of each target), longer runs are
# `bash scripts/fuzz.sh 600`.
#
# Tests build with the release profile, the one the demo (`cargo run
# --release -p outcore-cli -- demo`) builds, and Cargo.toml pins the
# features that differ between the demo's, the tests' and the extension's
# dependencies: a newcomer running both README commands compiles the
# library once for them (plus clippy's check pass and the test build of
# its unit tests), and the Python tests use the release binary the Rust
# tests built.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python packages the tests use, installed first where missing (a fresh
# machine), so a failure to install shows before the long Rust part.
missing=$(python3 - <<'EOF2'
import importlib.util
need = {"networkx": "networkx", "numpy": "numpy", "scipy": "scipy", "pandas": "pandas",
        "pytest": "pytest", "xdist": "pytest-xdist", "pyarrow": "pyarrow", "polars": "polars",
        "duckdb": "duckdb"}
print(" ".join(p for m, p in need.items() if importlib.util.find_spec(m) is None))
EOF2
)
if [ -n "$missing" ]; then
  echo "installing the Python packages the tests need: $missing" >&2
  python3 -m pip install --quiet --disable-pip-version-check $missing
fi
cargo fmt --all -- --check
# The floors (docs/DESIGN.md): ingest builds stores without the engines
# (orders computed from a store run above them, in api and algo).
if grep -rn 'crate::engine' crates/outcore/src/ingest; then
  echo "ingest imports the engines (above it): move that code to algo or api" >&2
  exit 1
fi
cargo clippy --workspace --all-targets -- -D warnings
if command -v cargo-nextest >/dev/null 2>&1; then
  # .config/nextest.toml: 4 at once, the slowest first.
  cargo nextest run --workspace --no-fail-fast --cargo-profile release
else
  cargo test --workspace --no-fail-fast --release
fi
# The Python package from this tree in target/python (scripts/pypackage.sh:
# cargo builds the extension beside the binary, no pip), then the Python
# tests: the CLI ones use target/release/outcore, the API ones `import
# outcore` (the package on PYTHONPATH, which their subprocesses inherit).
bash scripts/pypackage.sh
if ! command -v chromium >/dev/null 2>&1 && [ "${OUTCORE_REQUIRE_BROWSER:-}" != 1 ]; then
  echo "note: chromium is not installed, so the report's browser tests (tests/python/test_report.py) are skipped; apt-get install chromium runs them" >&2
fi
# Three at a time (pytest-xdist): they wait on the CLI's processes and the
# browser more than they compute. The Ray cluster tests share a group, so
# one worker runs them (one cluster at a time).
PYTHONPATH="$PWD/target/python${PYTHONPATH:+:$PYTHONPATH}" \
  OUTCORE_BIN="$PWD/target/release/outcore" python3 -m pytest -q -n 3 --dist loadgroup tests/python
