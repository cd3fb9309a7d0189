"""The Python tests import the package `outcore` built from this tree.
scripts/test.sh puts it together in target/python (scripts/pypackage.sh:
the extension from the release build, no pip) and on PYTHONPATH, which the
tests' subprocesses inherit. By hand:

    bash scripts/pypackage.sh
    PYTHONPATH=$PWD/target/python OUTCORE_BIN=$PWD/target/release/outcore \\
        python3 -m pytest -q tests/python

(or `pip install .` into a virtual environment, which installs it for good).
"""

import importlib.util

import pytest


def pytest_sessionstart(session):
    if importlib.util.find_spec("outcore") is None:
        pytest.exit("the package `outcore` is not importable: run `bash scripts/pypackage.sh` "
                    "and put target/python on PYTHONPATH (scripts/test.sh does both)", returncode=4)
