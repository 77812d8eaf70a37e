"""Scoring on every core: the process pool behind ``measure_many(..., workers=N)``.

A metric travels to the worker processes as its pickled configuration; each worker builds it
once (spaCy included) and keeps it for every later chunk and every later call with the same
configuration. The pool itself persists for the life of the process (:func:`shutdown` frees
it). The pairs go out in large chunks, the calling process scores chunks too (from the end,
while the workers start from the beginning), and the results come back in input order,
identical to serial scoring.

>>> resolve_workers(1), resolve_workers("auto") == available_cores(), resolve_workers(0) >= 1
(1, True, True)
"""

from __future__ import annotations

import atexit
import hashlib
import multiprocessing
import os
import pickle
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

__all__ = [
    "MIN_CHUNK",
    "available_cores",
    "build_once",
    "builds_in_this_process",
    "chunk_bounds",
    "configuration_key",
    "map_chunks",
    "resolve_workers",
    "shutdown",
]

T = TypeVar("T")

#: The smallest chunk of pairs sent to a worker (smaller batches are scored in the caller).
MIN_CHUNK = 250
_MAX_CHUNK = 5000
_CHUNKS_PER_WORKER = 8

# Objects built in this process from their pickled configuration, by its digest (a few).
_BUILT: OrderedDict[str, Any] = OrderedDict()
_BUILDS: Counter[str] = Counter()
_MAX_BUILT = 8
_BUILD_LOCK = threading.Lock()

_POOLS: dict[int, ProcessPoolExecutor] = {}
_POOL_LOCK = threading.Lock()
# Modules a new worker process inherits already imported (where processes fork from a server).
_PRELOAD = ["lexeval.metrics", "lexeval.normalize", "spacy", "rapidfuzz", "numpy"]


def available_cores() -> int:
    """The cores this process may run on.

    >>> available_cores() >= 1
    True
    """
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def resolve_workers(workers: int | str) -> int:
    """The number of processes for ``workers``: a positive int as it is, ``0`` or ``"auto"``
    for every available core.

    >>> resolve_workers(3)
    3
    """
    if workers == "auto":
        return available_cores()
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be an int or 'auto', not {workers!r}")
    if workers < 0:
        raise ValueError(f"workers must be 0 ('auto'), or a positive int, not {workers}")
    return available_cores() if workers == 0 else workers


def configuration_key(blob: bytes) -> str:
    """A short digest of a pickled configuration, the key of :func:`build_once`."""
    return hashlib.sha256(blob).hexdigest()[:16]


def build_once(key: str, blob: bytes) -> Any:
    """The object pickled in ``blob``, unpickled at most once per process for ``key``.

    >>> blob = pickle.dumps({"a": 1})
    >>> build_once(configuration_key(blob), blob) is build_once(configuration_key(blob), blob)
    True
    """
    with _BUILD_LOCK:
        built = _BUILT.get(key)
        if built is None:
            built = pickle.loads(blob)
            _BUILDS[key] += 1
            _BUILT[key] = built
            while len(_BUILT) > _MAX_BUILT:
                _BUILT.popitem(last=False)
        else:
            _BUILT.move_to_end(key)
        return built


def builds_in_this_process() -> dict[str, int]:
    """How many times this process built each configuration (1 each on a worker).

    >>> isinstance(builds_in_this_process(), dict)
    True
    """
    with _BUILD_LOCK:
        return dict(_BUILDS)


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _pool(processes: int) -> ProcessPoolExecutor:
    with _POOL_LOCK:
        pool = _POOLS.get(processes)
        if pool is None:
            pool = ProcessPoolExecutor(max_workers=processes, mp_context=_context())
            _POOLS[processes] = pool
        return pool


def shutdown() -> None:
    """Stop the worker processes of every pool (a later parallel call starts new ones).

    >>> shutdown()
    """
    with _POOL_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)


atexit.register(shutdown)


def _run_chunk(key: str, blob: bytes, method: str, args: tuple[Any, ...]) -> Any:
    """In a worker: call ``method`` of the object built from ``blob`` on ``args``."""
    return getattr(build_once(key, blob), method)(*args)


def chunk_bounds(n: int, processes: int, min_chunk: int = MIN_CHUNK) -> list[tuple[int, int]]:
    """``(start, stop)`` of the chunks of ``n`` items for ``processes`` processes: about
    eight per process, each at least ``min_chunk`` (:data:`MIN_CHUNK`) and at most 5,000.

    >>> chunk_bounds(1000, 2)
    [(0, 250), (250, 500), (500, 750), (750, 1000)]
    """
    size = max(min_chunk, min(_MAX_CHUNK, -(-n // (processes * _CHUNKS_PER_WORKER))))
    return [(start, min(start + size, n)) for start in range(0, n, size)]


def map_chunks(
    target: Any,
    method: str,
    columns: Sequence[Sequence[Any]],
    processes: int,
    on_chunk: Callable[[int], None] | None = None,
    *,
    min_chunk: int = MIN_CHUNK,
) -> list[Any]:
    """``getattr(target, method)(*chunk_columns)`` on chunks of ``columns`` (equal-length
    sequences), on ``processes`` processes in all (the caller and ``processes - 1`` pool
    workers), concatenated in input order. ``on_chunk(size)`` runs after each chunk; chunks
    hold at least ``min_chunk`` items.

    The workers build ``target`` from its pickle once; the caller uses ``target`` itself.

    >>> from lexeval.metrics import TokenF1Metric
    >>> [r.score for r in map_chunks(TokenF1Metric(), "measure_many", [["a b"], ["a"]], 1)]
    [0.6666666666666666]
    """
    n = len(columns[0])
    bounds = chunk_bounds(n, processes, min_chunk)
    if processes < 2 or len(bounds) < 2:
        whole = list(getattr(target, method)(*columns))
        if on_chunk is not None:
            on_chunk(n)
        return whole
    try:
        blob = pickle.dumps(target, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise TypeError(f"{target!r} cannot be pickled for the worker processes: {exc}") from None
    key = configuration_key(blob)
    pool = _pool(processes - 1)

    def piece(start: int, stop: int) -> tuple[Any, ...]:
        return tuple(list(column[start:stop]) for column in columns)

    futures: list[Future[Any]] = [
        pool.submit(_run_chunk, key, blob, method, piece(start, stop)) for start, stop in bounds
    ]
    done: dict[int, Any] = {}
    call = getattr(target, method)
    try:
        # The caller takes chunks from the end while the workers work from the beginning.
        for index in range(len(bounds) - 1, -1, -1):
            if not futures[index].cancel():
                break
            start, stop = bounds[index]
            done[index] = call(*piece(start, stop))
            if on_chunk is not None:
                on_chunk(stop - start)
        results: list[Any] = []
        for index, future in enumerate(futures):
            if index in done:
                results.extend(done[index])
                continue
            results.extend(future.result())
            if on_chunk is not None:
                start, stop = bounds[index]
                on_chunk(stop - start)
        return results
    except BrokenProcessPool:
        _discard(pool)
        raise RuntimeError(
            "a lexeval worker process died (out of memory, or killed); the pool was discarded "
            "and the next call starts new workers"
        ) from None
    except BaseException:
        for future in futures:
            future.cancel()
        raise


def _discard(pool: ProcessPoolExecutor) -> None:
    with _POOL_LOCK:
        for processes, known in list(_POOLS.items()):
            if known is pool:
                del _POOLS[processes]
    pool.shutdown(wait=False, cancel_futures=True)
