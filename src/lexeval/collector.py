"""Pausing Python's cyclic garbage collector around batch work (loading, scoring)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Python's cyclic garbage collector off for a batch, back on after (when it was on).

    A batch allocates several containers per pair (results, their info dicts and lists); the
    collector, triggered by these allocations, walks every tracked object of the process
    (spaCy's and the lookup tables' too) again and again: about a third of a warm batch's
    time. Scoring creates almost no reference cycles; what it creates is collected after.

    >>> with paused_gc():
    ...     gc.isenabled()
    False
    """
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
