"""The exceptions outcore raises. Each carries the message the command line
prints (the file and line of bad input, the amount a refused budget needs,
the broken file of a corrupted store), with the CLI's flags named as the
Python arguments that set them (`--weighted` reads `weighted=True`,
`raise --memory` reads `raise memory=`).

Arguments Python checks itself raise the built-in exceptions: `TypeError`
for an unknown keyword or a value of the wrong type, `ValueError` for a
number out of its range (the message gives the range).
"""

import re

__all__ = [
    "OutcoreError",
    "InputError",
    "BudgetError",
    "StoreError",
    "DiskFullError",
    "OutcoreIOError",
]


class OutcoreError(Exception):
    """Base class of every error outcore's engines and builds raise; catch
    it to handle any of them."""


class InputError(OutcoreError, ValueError):
    """Bad input: an edge list that does not parse (the message names the
    file and line), an option value the library refuses (an unknown engine,
    an unweighted store asked for weights), a vertex not in the graph, a
    store path that already exists without `force=True`. A `ValueError`."""


class BudgetError(OutcoreError, MemoryError):
    """The memory budget is too small for the work; the message says how
    much to ask for (pass a larger `memory=`). A `MemoryError`."""


class StoreError(OutcoreError):
    """A store that is missing, from another version, or corrupted (a
    checksum or structural check failed; the message names the file).
    `Store.verify()` raises it for the first broken file."""


class DiskFullError(OutcoreError, OSError):
    """The disk filled up while writing (a build, a spill of the external
    engine, a result); what was half-written is removed. An `OSError`."""


class OutcoreIOError(OutcoreError, OSError):
    """An I/O error other than a full disk (unreadable file, permission
    denied), with the file it happened on. An `OSError`."""


# --- the CLI's flags as Python arguments ---------------------------------

# Flags that are switches: what passing them means in Python.
_SWITCHES = {
    "weighted": "weighted=True", "header": "header=True", "force": "force=True",
    "directed": "directed=True", "undirected": "directed=False",
    "drop-self-loops": "drop_self_loops=True", "normalized": "normalized=True",
    "compress": "compress=True", "no-compress": "compress=False",
}
# Flags that take a value (the Python argument's name is the flag's, with
# `_` for `-`), and the words each takes.
_VALUED = {
    "memory": (), "engine": ("auto", "stream", "select", "external"),
    "order": ("auto", "degree", "bfs", "original"), "ids": ("auto", "int", "string"),
    "format": ("snap", "csv", "tsv", "mtx", "ldbc", "bin32", "bin64"), "io": ("uring", "sync"),
    "compress": ("fast", "small"), "columns": ("SRC,DST", "SRC,DST,W"), "samples": (),
    "sources": (), "source": ("max-degree",), "tol": (), "damping": (), "iterations": (),
    "restart": (), "walks-per-vertex": (), "length": (), "seed": (), "delta": (),
    "tmp-dir": (), "page-size": (), "group-tiles": (), "delimiter": ("tab",), "segment": (),
    "segments": (), "cache": (), "depth": (), "walks": (),
}
_FLAG = re.compile(
    r"--([a-z][a-z-]*)"
    # A value after the flag: a number or a size (1.5, 64.00 MiB), or a word
    # (external, SRC,DST), kept when it is one the flag takes.
    r"(?: (?P<num>-?[0-9][0-9.eE+-]*(?: [KMGT]i?B| B)?)(?![\w.])"
    r"| (?P<word>[A-Za-z][A-Za-z0-9,-]*))?"
    r"(?P<must> must)?")


def _python_argument(m: "re.Match") -> str:
    flag, num, word, must = m.group(1), m.group("num"), m.group("word"), m.group("must") or ""
    if flag not in _VALUED and flag not in _SWITCHES:
        return m.group(0)  # a flag of the command line only (--out, --stats)
    name = flag.replace("-", "_")
    if word and word in _VALUED.get(flag, ()):
        return f'{name}="{word}"{must}'
    rest = f" {word}{must}" if word else must  # a word of the sentence
    if num and flag in _VALUED:
        return f"{name}={num}{must}"
    rest = f" {num}{rest}" if num else rest
    if flag in _SWITCHES:
        return _SWITCHES[flag] + rest
    return name + rest if rest.startswith(" must") else f"{name}={rest}"


def _python_message(text: str) -> str:
    """A message of the library as a Python user reads it: each CLI flag
    becomes the argument that sets it (`--weighted` -> `weighted=True`,
    `--engine external` -> `engine="external"`, `raise --memory` ->
    `raise memory=`, `--samples must` -> `samples must`)."""
    return _FLAG.sub(_python_argument, text)
