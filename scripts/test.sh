#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust tests (nextest when present),
# and the Python tests against NetworkX.
#
# Tests build with the release profile, the one the demo (`cargo run
# --release -p outcore-cli -- demo`) builds: a newcomer running both README
# commands compiles the dependencies once (plus clippy's check pass), and
# the Python tests use the release binary the Rust tests built.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast --cargo-profile release
else
  cargo test --workspace --no-fail-fast --release
fi
# The Python package from this tree (maturin builds crates/outcore-py in
# release, sharing target/ with the build above), then the Python tests:
# the CLI ones use target/release/outcore, the API ones `import outcore`.
python3 -m pip install --quiet --disable-pip-version-check .
OUTCORE_BIN="$PWD/target/release/outcore" python3 -m pytest -q tests/python
# A short run of every fuzz target (scripts/fuzz.sh; needs nightly).
bash scripts/fuzz.sh 10
