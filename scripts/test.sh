#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust tests (nextest when present),
# and the Python tests against NetworkX.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast
else
  cargo test --workspace --no-fail-fast
fi
cargo build -p outcore-cli
OUTCORE_BIN="$PWD/target/debug/outcore" python3 -m pytest -q tests/python
