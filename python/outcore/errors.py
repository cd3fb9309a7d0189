"""The exceptions outcore raises: each carries the CLI's message (the file
and line of bad input, the amount a refused budget needs, the broken file
of a corrupted store)."""

__all__ = [
    "OutcoreError",
    "InputError",
    "BudgetError",
    "StoreError",
    "DiskFullError",
    "OutcoreIOError",
]


class OutcoreError(Exception):
    """Base class of every outcore error."""


class InputError(OutcoreError, ValueError):
    """Bad input: an edge list that does not parse (the message names the
    file and line), an unknown option value, a vertex not in the graph."""


class BudgetError(OutcoreError, MemoryError):
    """The memory budget is too small for the work; the message says how
    much to ask for."""


class StoreError(OutcoreError):
    """A store that is missing, from another version, or corrupted (a
    checksum or structural check failed; the message names the file)."""


class DiskFullError(OutcoreError, OSError):
    """The disk filled up while writing; nothing half-written is left."""


class OutcoreIOError(OutcoreError, OSError):
    """An I/O error, with the file it happened on."""
