"""`Store`'s updates: `update`, `add_edges`, `remove_edges` and `compact`
(a mixin of `outcore.Store`, kept apart to keep store.py short)."""

from __future__ import annotations

import os
from typing import Any, Optional, Union

import numpy as np

from . import _checks, _outcore

Size = Union[int, str, None]


class Updates:
    """The update methods of `outcore.Store` (see `Store.update`)."""

    def update(self, add: Any = None, remove: Any = None, *, memory: Size = None,
               compact_at: Optional[float] = None, compact: bool = True,
               progress: bool = True, format: Optional[str] = None,
               source: Optional[str] = None, target: Optional[str] = None,
               weight: Optional[str] = None, **format_options: Any) -> dict:
        """Removes the edges `remove`, then adds the edges `add`, in place.

        The store afterwards is the one an import of the updated edge list
        builds (NetworkX's `remove_edges_from` then `add_edges_from`): an
        added edge the store holds takes the added weight, new ids become
        new vertices, removing an edge the store does not hold is counted,
        not an error, and vertices stay when they lose their last edge. In
        an undirected store either direction names an edge. The update is
        atomic: a crash leaves the store as it was before or after.

        The update lands in the store's delta, beside its base (seconds for
        a small batch), and the store is compacted (the delta merged into a
        new base, about the cost of a binary import) once the delta's edge
        changes (edges added plus base edges removed) reach `compact_at` of
        the base's edges. PageRank, WCC, BFS, SSSP, k-core, CDLP, colouring,
        MIS and betweenness read base + delta; other algorithms and the
        queries ask for `compact()` first.

        Args:
            add, remove: edge-list files (a path or a list of paths, in the
                store's id kind; `format` and the CLI's `header`,
                `columns`, `delimiter`), or the edges themselves, as
                `import_edges` takes them: a DataFrame, a pyarrow Table or
                RecordBatchReader, a dict or tuple of numpy arrays
                `(source, target[, weight])` (columns named by `source`,
                `target`, `weight`). Added edges of a weighted store given
                as arrays or a dict without weights weigh 1.0, an edge the
                store holds too (NetworkX would keep its weight: give the
                weights to keep them); a frame names its weight column.
            memory: the budget for the whole update.
            compact_at: compact once the delta reaches this fraction of the
                base (default: $OUTCORE_COMPACT_AT, else 0.1); 0 rewrites the
                store at every update and writes no delta.
            compact: False keeps the delta whatever its size (`info()`'s
                `delta.compaction_due` says when `compact()` is due).

        An update too large for the delta's share of `memory` (the delta
        holds a batch in memory) rewrites the store instead, which streams
        the additions through the external build; with `compact=False` it
        raises `BudgetError`.

        Returns: counts: `removed`, `removals_absent`, `additions_read`,
            `vertices_before`/`vertices`, `edges_before`/`edges`, `seconds`,
            `delta` (the update was written into the delta), `compacted`,
            `compaction` (why it was or was not), `delta_fraction`.
        """
        from .errors import InputError

        _checks.known("update", self.update, format_options, ("header", "columns", "delimiter",
                                                               "tmp_dir"))
        if self._nodes is not None:
            raise InputError("update: this store numbers NetworkX nodes that are not integers; "
                             "update the NetworkX graph and call from_networkx again")
        if add is None and remove is None:
            raise InputError("update: nothing to do: give edges to add= or remove=")
        if format_options.get("tmp_dir") is not None:
            format_options["tmp_dir"] = os.fspath(format_options["tmp_dir"])
        add = self._edits(add, source, target, weight, self.weighted)
        remove = self._edits(remove, source, target, None, False)
        # This object's pin on the store goes first, so that the replaced
        # store is removed at once (other readers keep theirs until they close).
        path, self._raw = self.path, None
        try:
            counts = _outcore.update_store(path, add=add, remove=remove, format=format,
                                           memory=_checks.size("update", "memory", memory),
                                           compact_at=compact_at, compact=compact,
                                           progress=progress, **format_options)
        finally:
            self._raw = _outcore.RawStore(path)
        return counts

    def compact(self, memory: Size = None, tmp_dir: Any = None, progress: bool = True) -> bool:
        """Merges the store's delta (from `update`, `add_edges`,
        `remove_edges`) into a new base, in place and atomically: the store
        an import of its current edges would build. Returns False when the
        store had no delta (nothing written)."""
        path, self._raw = self.path, None
        try:
            done, _ = _outcore.compact_store(path, memory=_checks.size("compact", "memory", memory),
                                             tmp_dir=None if tmp_dir is None else os.fspath(tmp_dir),
                                             progress=progress)
        finally:
            self._raw = _outcore.RawStore(path)
        return done

    def add_edges(self, src: Any, dst: Any = None, weight: Any = None, **options: Any) -> dict:
        """Adds edges: arrays `src`, `dst` (and `weight`), or edge-list
        paths or a frame as `src` (`weight`: then its weight column's name).
        See `update`."""
        if dst is None:
            return self.update(add=src, weight=weight, **options)
        return self.update(add=(src, dst) if weight is None else (src, dst, weight), **options)

    def remove_edges(self, src: Any, dst: Any = None, **options: Any) -> dict:
        """Removes edges: arrays `src`, `dst`, or one edge-list path or
        frame as `src`. See `update`."""
        return self.update(remove=src if dst is None else (src, dst), **options)

    def _edits(self, data: Any, source, target, weight, weighted: bool):
        """`data` as `_outcore.update_store` takes it: a list of paths, or
        (reader, name, "SRC,DST[,W]", rows)."""
        from . import _frames

        if data is None:
            return None
        if _frames.is_paths(data):
            paths = [data] if isinstance(data, (str, bytes, os.PathLike)) else list(data)
            return [os.fspath(p) for p in paths]
        if isinstance(data, (list, tuple)) and len(data) == 2 and weighted and weight is None:
            data = (data[0], data[1], np.ones(len(data[1]), dtype=np.float64))
        if isinstance(data, dict) and weighted and (weight or "weight") not in data:
            first = next(iter(data.values()), [])
            data = dict(data, **{weight or "weight": np.ones(len(first), dtype=np.float64)})
        if isinstance(data, (list, tuple)) and len(data) == 3 and not weighted:
            data = (data[0], data[1])
        cols, _ = _frames.columns(source, target, weight, None, weighted)
        reader, name, rows = _frames.reader(data, cols)
        return (reader, name, ",".join(cols), rows)
