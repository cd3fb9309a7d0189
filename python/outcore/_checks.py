"""The arguments of the Python API, checked before they reach the engines:
an unknown keyword is a TypeError naming the method and the valid ones; a
value of the wrong type a TypeError; a number out of its range a ValueError
that gives the range. Every message starts with the method, `pagerank(): `."""

from __future__ import annotations

import difflib
import inspect
import math
from numbers import Integral, Real
from typing import Any, Callable, Iterable, Optional

from . import _outcore

# The integers: name -> (smallest, bound above or None). The engines take
# 64-bit counts and seeds, 32-bit walk lengths and hops.
_INTS = {
    "iterations": (0, 2**64), "seed": (0, 2**64), "walks_per_vertex": (1, 2**64),
    "length": (0, 2**32), "samples": (1, 2**64), "hops": (0, 2**32), "segments": (2, 2**64),
    "depth": (1, 2**64), "page_size": (1, 2**64), "group_tiles": (1, 2**32),
}
# Per method, where its semantics differ: CDLP runs at least one iteration
# (PageRank's 0 iterations give the initial ranks, 1/n).
_INTS_OF = {("cdlp", "iterations"): (1, 2**64)}
# The reals: name -> (test, the range as the message says it).
_REALS: dict = {
    "damping": (lambda x: 0.0 <= x <= 1.0, "within [0, 1]"),
    "restart": (lambda x: 0.0 <= x < 1.0, "within [0, 1)"),
    "tol": (lambda x: x > 0.0, "> 0"),
    "delta": (lambda x: x > 0.0, "> 0 (a bucket width)"),
}
# Sizes in bytes (an int, or text such as "512MiB"): name -> smallest.
_SIZES = {"memory": 1, "segment": 1, "cache": 0}
_FLAGS = {"weighted", "normalized", "progress", "force", "directed", "header",
          "drop_self_loops"}


def _range(lo: int, hi: Optional[int]) -> str:
    if hi is None:
        return f">= {lo}"
    top = f"2**{hi.bit_length() - 1}" if hi > 2**20 and hi & (hi - 1) == 0 else str(hi)
    return f">= {lo} and < {top}"


def check_int(method: str, name: str, value: Any, lo: int, hi: Optional[int] = None) -> int:
    """`value` as an int in [lo, hi), else TypeError / ValueError."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{method}(): {name} must be an int, got {value!r}")
    value = int(value)
    if value < lo or (hi is not None and value >= hi):
        raise ValueError(f"{method}(): {name} must be {_range(lo, hi)}, got {value}")
    return value


def check_real(method: str, name: str, value: Any, ok: Callable[[float], bool],
               what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{method}(): {name} must be a number, got {value!r}")
    value = float(value)
    if math.isnan(value) or not ok(value):
        raise ValueError(f"{method}(): {name} must be {what}, got {value!r}")
    return value


def size(method: str, name: str, value: Any, lo: int = 1) -> Optional[int]:
    """A size as bytes: None, an int, or text such as "512MiB", "4GiB" or
    "4GB"; at least `lo`."""
    if value is None:
        return None
    if isinstance(value, str):
        value = _outcore.parse_size(value)
    elif isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f'{method}(): {name} must be bytes (an int) or text such as "512MiB", '
                        f"got {value!r}")
    if value < lo:
        raise ValueError(f'{method}(): {name} must be {"> 0" if lo == 1 else f">= {lo}"} '
                         f'(bytes, or text such as "512MiB"), got {value}')
    return int(value)


def check(method: str, kw: dict) -> dict:
    """`kw` with every known argument checked (and sizes as bytes)."""
    out = {}
    for name, value in kw.items():
        if value is not None:
            if name in _SIZES:
                value = size(method, name, value, _SIZES[name])
            elif name in _INTS:
                value = check_int(method, name, value, *_INTS_OF.get((method, name), _INTS[name]))
            elif name in _REALS:
                value = check_real(method, name, value, *_REALS[name])
            elif name in _FLAGS and not isinstance(value, bool):
                raise TypeError(f"{method}(): {name} must be True or False, got {value!r}")
        out[name] = value
    return out


def _named(func: Callable) -> list:
    """The parameters `func` names (not self, not *args / **kwargs)."""
    return [p.name for p in inspect.signature(func).parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def known(method: str, func: Callable, options: dict, more: Iterable[str]) -> None:
    """Raises TypeError for a keyword in `options` that is neither one of
    `func`'s parameters nor in `more`, naming `method` and the valid ones."""
    named = _named(func)
    valid = named + [m for m in more if m not in named]
    for key in options:
        if key not in valid:
            near = difflib.get_close_matches(key, valid, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise TypeError(f"{method}() got an unexpected keyword argument {key!r}; "
                            f"valid: {', '.join(valid)}{hint}")
