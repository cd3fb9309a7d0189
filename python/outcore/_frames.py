"""DataFrames, Arrow data and numpy arrays as `import_edges` inputs.

Each input becomes a pyarrow RecordBatchReader of batches of up to
`BATCH_ROWS` rows, made as it is read: a pandas DataFrame is converted a
chunk at a time (`pyarrow.RecordBatch.from_pandas`), a pyarrow Table,
Polars DataFrame or numpy arrays are sliced without copying their numbers,
a Dataset is scanned (`scanner(columns=...).to_reader()`). The extension
reads it through the Arrow C stream interface (`__arrow_c_stream__`) on the
build's thread, so no second full copy of the input is ever made.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Optional

import numpy as np
import pyarrow as pa

from .errors import InputError

BATCH_ROWS = 1 << 16


def is_paths(data: Any) -> bool:
    """True when `data` names files (a path or an iterable of paths), not
    a frame or arrays."""
    if isinstance(data, (str, bytes, os.PathLike)):
        return True
    if isinstance(data, (list, tuple)):
        return all(isinstance(p, (str, bytes, os.PathLike)) for p in data)
    return not (isinstance(data, dict) or hasattr(data, "__arrow_c_stream__")
                or _is(data, "pandas", "DataFrame") or _is(data, "pyarrow.dataset", "Dataset"))


def _is(data: Any, module: str, cls: str) -> bool:
    """isinstance(data, module.cls) when that module is loaded (so neither
    pandas nor pyarrow.dataset is imported for the check)."""
    m = sys.modules.get(module)
    return m is not None and isinstance(data, getattr(m, cls))


def _missing(what: str, names: list, types: list, wanted: list) -> None:
    """An InputError naming the first of `wanted` not among `names`, listing
    the columns there are."""
    for w in wanted:
        if w not in names:
            cols = ", ".join(f"{n} ({t})" for n, t in zip(names, types))
            raise InputError(f"{what}: no column `{w}`; its columns are: {cols or 'none'} "
                             "(choose with source=, target= and weight=)")


def _from_arrays(columns: dict) -> tuple:
    """numpy arrays (one per column, equal lengths) as a reader."""
    arrays = {k: np.asarray(v) for k, v in columns.items()}
    lengths = {len(a) for a in arrays.values()}
    if len(lengths) > 1 or any(a.ndim != 1 for a in arrays.values()):
        shapes = ", ".join(f"{k}: {a.shape}" for k, a in arrays.items())
        raise InputError(f"numpy arrays: expected one-dimensional arrays of one length; got {shapes}")
    n = lengths.pop() if lengths else 0

    def batches():
        for i in range(0, n, BATCH_ROWS):
            yield pa.record_batch({k: pa.array(a[i:i + BATCH_ROWS]) for k, a in arrays.items()})

    schema = pa.record_batch({k: pa.array(a[:0]) for k, a in arrays.items()}).schema
    return pa.RecordBatchReader.from_batches(schema, batches()), n


def _from_pandas(df, cols: list) -> tuple:
    """A pandas DataFrame's columns `cols`, converted a chunk at a time."""
    names = [str(c) for c in df.columns]
    _missing("pandas DataFrame", names, [str(t) for t in df.dtypes], cols)
    schema = pa.Schema.from_pandas(df.iloc[:BATCH_ROWS][cols], preserve_index=False)

    def batches():
        for i in range(0, len(df), BATCH_ROWS):
            yield pa.RecordBatch.from_pandas(df.iloc[i:i + BATCH_ROWS][cols], schema=schema,
                                             preserve_index=False)

    return pa.RecordBatchReader.from_batches(schema, batches()), len(df)


def reader(data: Any, cols: list) -> tuple:
    """`(reader, name, rows)`: `data` as a RecordBatchReader holding (at
    least) the columns `cols`, what it is called in messages, and its rows
    when known."""
    cols = list(dict.fromkeys(cols))
    if isinstance(data, dict):
        r, n = _from_arrays(data)
        what = "numpy arrays"
    elif isinstance(data, (list, tuple)):
        if len(data) not in (2, 3):
            raise InputError(f"numpy arrays: expected (source, target) or (source, target, weight) "
                             f"arrays; got {len(data)}")
        r, n = _from_arrays(dict(zip(cols, data)))
        what = "numpy arrays"
    elif _is(data, "pandas", "DataFrame"):
        r, n = _from_pandas(data, cols)
        return r, "pandas DataFrame", n
    elif _is(data, "pyarrow.dataset", "Dataset"):
        s = data.schema
        _missing("pyarrow Dataset", s.names, s.types, cols)
        return data.scanner(columns=cols, batch_size=BATCH_ROWS).to_reader(), "pyarrow Dataset", None
    elif isinstance(data, pa.Table):
        _missing("pyarrow Table", data.schema.names, data.schema.types, cols)
        return data.select(cols).to_reader(max_chunksize=BATCH_ROWS), "pyarrow Table", data.num_rows
    elif isinstance(data, pa.RecordBatchReader):
        r, n, what = data, None, "pyarrow RecordBatchReader"
    elif _is(data, "polars", "DataFrame"):
        _missing("Polars DataFrame", data.columns, [str(t) for t in data.dtypes], cols)
        sub = data.select(cols)
        # Polars before 1.x has no __arrow_c_stream__: its Arrow table
        # shares the columns' buffers all the same.
        r = (pa.RecordBatchReader.from_stream(sub) if hasattr(sub, "__arrow_c_stream__")
             else sub.to_arrow().to_reader(max_chunksize=BATCH_ROWS))
        return r, "Polars DataFrame", data.height
    elif hasattr(data, "__arrow_c_stream__"):
        r, n, what = pa.RecordBatchReader.from_stream(data), None, type(data).__name__
    else:
        raise InputError(f"import_edges: cannot read a {type(data).__name__}: expected paths, a "
                         "pandas or Polars DataFrame, a pyarrow Table, RecordBatchReader or "
                         "Dataset, a dict or tuple of numpy arrays, or an object with "
                         "__arrow_c_stream__")
    _missing(what, r.schema.names, r.schema.types, cols)
    return r, what, n


def columns(source: Optional[str], target: Optional[str], weight: Optional[str],
            edge_attr: Any, weighted: bool) -> tuple:
    """`(names, weighted)`: the columns to read, NetworkX's
    `from_pandas_edgelist` names: `source` and `target` (default "source"
    and "target"), the weight `weight` or `edge_attr` (one column name; a
    name makes the store weighted; weighted=True alone reads "weight")."""
    if edge_attr is not None and edge_attr is not False:
        if not isinstance(edge_attr, str):
            raise InputError("edge_attr: outcore keeps one weight per edge: give the name of its "
                             f"column (got {edge_attr!r})")
        if weight is not None and weight != edge_attr:
            raise InputError(f"weight={weight!r} and edge_attr={edge_attr!r} name two weights: "
                             "give one")
        weight = edge_attr
    if weight is not None:
        weighted = True
    elif weighted:
        weight = "weight"
    names = [source or "source", target or "target"] + ([weight] if weighted else [])
    return names, weighted
