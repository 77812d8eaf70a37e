"""Pausing Python's cyclic garbage collector around batch work (loading, scoring)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc", "promote_batches"]

#: Young objects (the collector's count) from which a batch's objects are moved to the oldest
#: generation when its pause ends; a smaller batch's are walked as usual (cheap).
MANY_YOUNG = 100_000
_PROMOTE = [True]


def promote_batches(enabled: bool) -> None:
    """Whether :func:`paused_gc` moves what a large batch made to the oldest generation when it
    ends (the default). A process that froze objects it must keep frozen, and knows it, turns
    it off: checking for frozen objects costs a walk over all of them (lexeval's pool workers
    do this).

    >>> promote_batches(True)
    """
    _PROMOTE[0] = enabled


@contextmanager
def paused_gc() -> Iterator[None]:
    """Python's cyclic garbage collector off for a batch, back on after (when it was on).

    A batch allocates several containers per pair (results, their info dicts and lists); the
    collector, triggered by these allocations, walks every tracked object of the process
    (spaCy's and the lookup tables' too) again and again: about a third of a warm batch's
    time. Scoring creates almost no reference cycles.

    When the collector comes back on after a large batch (:data:`MANY_YOUNG`), what the batch
    made and kept (results, caches) moves straight to the oldest generation (``gc.freeze()``
    then ``gc.unfreeze()``, two list splices), where the next full collection looks at it and
    frees whatever cycles it holds: walking millions of young objects at once, as the first
    allocation after the batch would otherwise make it do, took about 1 s of the 7.5 s (CPU)
    of a cold 100,000-pair batch of keyword coverage, and 0.2-0.4 s of a warm one's 2.3 s.
    Not when objects are frozen (``unfreeze`` would thaw them too), nor after
    ``promote_batches(False)``.

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
            if _PROMOTE[0] and gc.get_count()[0] >= MANY_YOUNG and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
