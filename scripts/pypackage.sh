#!/usr/bin/env bash
# The Python package `outcore` from this tree, without pip: cargo builds the
# extension (crates/outcore-py) in target/release, the release build the
# demo and the Rust tests use (the features pinned in Cargo.toml make it one
# build of the library: only outcore-py and pyo3 compile here), and this
# assembles target/python/outcore with a dist-info carrying pyproject.toml's
# name, version and NetworkX entry points. Then
#
#   PYTHONPATH=$PWD/target/python python3 -c 'import outcore'
#
# imports it, and NetworkX finds the backend (`backend="outcore"`).
# `pip install .` (maturin) installs the same package for good.
set -euo pipefail
cd "$(dirname "$0")/.."
# abi3 extension module: no link to libpython (pyo3-build-config reads this).
PYO3_BUILD_EXTENSION_MODULE=1 cargo build --release -p outcore-py
py=target/python
rm -rf "$py"
mkdir -p "$py"
cp -r python/outcore "$py/"
cp target/release/lib_outcore.so "$py/outcore/_outcore.abi3.so"
python3 - "$py" <<'EOF'
import pathlib, re, sys

# pyproject.toml's [project] name and version and its entry points, read
# line by line (tomllib is Python 3.11+; the package supports 3.9).
out = pathlib.Path(sys.argv[1])
meta, eps, section = {}, {}, None
for line in pathlib.Path("pyproject.toml").read_text().splitlines():
    line = line.split("#", 1)[0].strip()
    if line.startswith("["):
        m = re.fullmatch(r'\[project\.entry-points\."([^"]+)"\]', line)
        section = m.group(1) if m else line
        continue
    if "=" not in line:
        continue
    key, value = (x.strip() for x in line.split("=", 1))
    if section == "[project]" and key in ("name", "version"):
        meta[key] = value.strip('"')
    elif section and not section.startswith("["):
        eps.setdefault(section, []).append(f"{key} = {value.strip(chr(34))}")
info = out / f"{meta['name']}-{meta['version']}.dist-info"
info.mkdir()
(info / "METADATA").write_text(
    f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n")
(info / "entry_points.txt").write_text(
    "".join(f"[{g}]\n" + "\n".join(v) + "\n\n" for g, v in eps.items()))
EOF
