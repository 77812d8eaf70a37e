"""Scoring on every core: the process pool behind ``measure_many(..., workers=N)``.

A metric travels to the worker processes as its pickled configuration; each worker builds it
once (spaCy included) and keeps it for every later chunk and every later call with the same
configuration. The pool itself persists for the life of the process (:func:`shutdown` frees
it); its workers fork from the caller where that is safe (:func:`start_method`). The pairs go
out in chunks that shrink as the work runs out, the calling process scores chunks too (from
the end, while the workers start from the beginning), chunks and results travel as files
(:func:`chunk_directory`), the results as columns (:func:`pack_results`), and they are returned
in input order, identical to serial scoring.

>>> resolve_workers(1), resolve_workers("auto") == available_cores(), resolve_workers(0) >= 1
(1, True, True)
"""

from __future__ import annotations

import atexit
import gc
import hashlib
import marshal
import multiprocessing
import os
import pickle
import shutil
import tempfile
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from itertools import count, repeat
from operator import attrgetter
from typing import Any, TypeVar

from lexeval.collector import paused_gc, promote_batches
from lexeval.metrics.base import BaseMetric, MetricResult, new_result
from lexeval.text.base import TextProcessor

__all__ = [
    "MIN_CHUNK",
    "available_cores",
    "build_once",
    "builds_in_this_process",
    "chunk_bounds",
    "chunk_directory",
    "configuration_key",
    "map_chunks",
    "pack_results",
    "plain_results",
    "resolve_workers",
    "shutdown",
    "start_method",
    "unpack_results",
]

T = TypeVar("T")

#: The smallest chunk of pairs sent to a worker (smaller batches are scored in the caller).
MIN_CHUNK = 250
_MAX_CHUNK = 2500

# Objects built in this process from their pickled configuration, by its digest (a few).
_BUILT: OrderedDict[str, Any] = OrderedDict()
_BUILDS: Counter[str] = Counter()
_MAX_BUILT = 8
_BUILD_LOCK = threading.Lock()

# Where the workers' part of the last call on the same items ended, by (configuration key,
# processes, fingerprint of the items): the next call gives each side the items it scored.
_BOUNDARIES: OrderedDict[tuple[str, int, int], int] = OrderedDict()
_MAX_BOUNDARIES = 32

_POOLS: dict[tuple[int, str], ProcessPoolExecutor] = {}
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


def start_method() -> str:
    """How new pools start their worker processes: ``LEXEVAL_START_METHOD`` when set (``fork``,
    ``forkserver`` or ``spawn``), else ``fork`` where the platform has it and this process runs
    a single thread (the workers then inherit spaCy and the imports, already loaded, and start
    in milliseconds), else ``forkserver`` (workers fork from a server that imported spaCy and
    lexeval once), else ``spawn``. Results are the same with every method.

    >>> start_method() in ("fork", "forkserver", "spawn")
    True
    """
    methods = multiprocessing.get_all_start_methods()
    chosen = os.environ.get("LEXEVAL_START_METHOD", "").strip()
    if chosen:
        if chosen not in methods:
            raise ValueError(
                f"LEXEVAL_START_METHOD={chosen!r}: this platform offers {', '.join(methods)}"
            )
        return chosen
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _context(method: str) -> Any:
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(_PRELOAD)
    return context


def _worker_started() -> None:
    """In a new worker: the collector on (a forked worker inherits the caller's paused one) and
    what the worker inherited frozen (the collector then never walks it, nor copies its pages)."""
    gc.enable()
    gc.freeze()
    promote_batches(False)  # what it froze stays frozen (see lexeval.collector)


def _pool(processes: int) -> ProcessPoolExecutor:
    """The pool of ``processes`` workers, started by :func:`start_method` when there is none
    (a pool, once started, keeps its method; ``LEXEVAL_START_METHOD`` set to another one
    starts another pool)."""
    wanted = os.environ.get("LEXEVAL_START_METHOD", "").strip()
    with _POOL_LOCK:
        for (size, method), pool in _POOLS.items():
            if size == processes and (not wanted or method == wanted):
                return pool
        method = start_method()
        pool = ProcessPoolExecutor(
            max_workers=processes, mp_context=_context(method), initializer=_worker_started
        )
        _POOLS[(processes, method)] = pool
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
    _remove_spool()


atexit.register(shutdown)


# ---- the way chunks travel: files in memory, names through the pool's pipes -----------------
#
# A chunk's texts and its results (hundreds of kB) do not go through the pool's pipes: these
# are written by threads of the calling process that need the GIL for every 64 kB, which the
# scoring thread holds, in C, for tens of milliseconds at a time; a worker then waits, blocked
# in sending its results or in receiving its next chunk, while the caller scores. A worker
# instead reads its chunk from a file and writes its results to one (in /dev/shm, memory,
# where there is room), and only their names go through the pipes.

_SPOOL_ROOM = 256 * 1024 * 1024  # free bytes /dev/shm must have to be used
_SPOOL: dict[int, str] = {}  # this process's directory, by pid (a forked child makes its own)
_SPOOL_LOCK = threading.Lock()
_SEQUENCE = count()


def chunk_directory() -> str:
    """This process's directory for the files that carry chunks to the workers and their
    results back (in /dev/shm when it has room, else the temporary directory): created on
    first use, each file removed once read, the directory removed by :func:`shutdown`. When a
    file cannot be written there, that chunk travels through the pool's pipe instead.

    >>> import os
    >>> os.path.isdir(chunk_directory())
    True
    """
    with _SPOOL_LOCK:
        directory = _SPOOL.get(os.getpid())
        if directory is not None:
            return directory
        base = None
        with suppress(OSError):
            stats = os.statvfs("/dev/shm")
            if stats.f_bavail * stats.f_frsize >= _SPOOL_ROOM and os.access("/dev/shm", os.W_OK):
                base = "/dev/shm"
        directory = _SPOOL[os.getpid()] = tempfile.mkdtemp(prefix="lexeval-chunks-", dir=base)
        return directory


def _remove_spool() -> None:
    with _SPOOL_LOCK:
        directory = _SPOOL.pop(os.getpid(), None)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)


def _spool(path: str, value: Any) -> str | Any:
    """``path`` after pickling ``value`` into it (a new file), or ``value`` itself when the
    file cannot be written (no room): it then travels through the pipe."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        with open(path, "xb") as file:
            file.write(data)
    except OSError:
        with suppress(OSError):
            os.unlink(path)
        return value
    return path


def _unspool(sent: Any) -> Any:
    """What :func:`_spool` sent: read from its file (then removed), or as it came."""
    if type(sent) is not str:
        return sent
    with open(sent, "rb") as file:
        data = file.read()
    os.unlink(sent)
    return pickle.loads(data)


def plain_results(target: Any, columns: Sequence[Sequence[Any]]) -> bool:
    """Whether ``target``'s results on ``columns`` are sure to hold only plain Python values
    (``str``, ``int``, ``float``, ``bool``, ``None``; lists, tuples and dicts of them), which
    :mod:`marshal` copies exactly and faster than :mod:`pickle`: ``target`` is a metric of
    ``lexeval.metrics`` itself (not a subclass defined elsewhere), every text processor it
    holds is lexeval's own, and every text it scores is a ``str`` (a list of them for several
    references), so no user type can reach its results.

    >>> from lexeval.metrics import TokenF1Metric
    >>> plain_results(TokenF1Metric(), [["a b", ["a", "b"]], ["a", "c"]])
    True
    >>> plain_results(TokenF1Metric(), [[b"a b"], ["a"]])
    False
    """
    return _plain_metric(target) and _plain_texts(columns)


def _plain_metric(target: Any) -> bool:
    """The part of :func:`plain_results` about ``target`` (a few hundred microseconds: the
    text processor protocol is checked at run time): once per call, in the caller."""
    if not isinstance(target, BaseMetric) or not _ours(target):
        return False
    processors = [value for value in vars(target).values() if isinstance(value, TextProcessor)]
    return all(_ours(processor) for processor in processors)


def _plain_texts(columns: Sequence[Sequence[Any]]) -> bool:
    """The part of :func:`plain_results` about the texts: each a ``str`` or a list of them."""
    for column in columns:
        types = set(map(type, column))  # at C speed: a chunk's columns are long
        if types <= {str}:
            continue
        if not types <= {str, list, tuple}:
            return False
        for item in column:
            if type(item) is not str and set(map(type, item)) != {str}:
                return False
    return True


def _ours(value: Any) -> bool:
    return type(value).__module__.startswith("lexeval.")


def pack_results(items: list[Any], plain: bool = False) -> tuple[Any, ...]:
    """A chunk's results as they travel back from a worker: a list of :class:`MetricResult`
    of one signature as columns (score, passed, info; the signature once), which pickle in
    about two thirds of the time of the objects, or, when ``plain`` (see
    :func:`plain_results`), as :mod:`marshal` bytes (half that again); anything else as it is.
    :func:`unpack_results` undoes it.

    >>> from lexeval.metrics import TokenF1Metric
    >>> results = TokenF1Metric().measure_many(["a b", "c"], ["a", "c"])
    >>> unpack_results(pack_results(results)) == results == unpack_results(
    ...     pack_results(results, plain=True))
    True
    """
    if items and set(map(type, items)) == {MetricResult}:
        signatures = set(map(_SIGNATURE, items))
        if len(signatures) == 1:
            signature = signatures.pop()
            columns = (
                list(map(_SCORE, items)),
                list(map(_PASSED, items)),
                list(map(_INFO, items)),
            )
            if plain:
                try:
                    return (signature, marshal.dumps(columns))
                except ValueError:  # a value marshal refuses: pickle it
                    pass
            return (signature, columns)
    return (items,)


_SIGNATURE = attrgetter("signature")
_SCORE = attrgetter("score")
_PASSED = attrgetter("passed")
_INFO = attrgetter("info")


def unpack_results(packed: tuple[Any, ...]) -> list[Any]:
    """The results :func:`pack_results` packed, equal to the original ones."""
    if len(packed) == 1:
        return list(packed[0])
    signature, columns = packed
    if type(columns) is bytes:
        columns = marshal.loads(columns)
    scores, passed, infos = columns
    if not len(scores) == len(passed) == len(infos):
        raise ValueError("packed results: columns of different lengths")
    return list(map(new_result, scores, infos, passed, repeat(signature)))


def _run_chunk(
    key: str, blob: bytes, method: str, plain_metric: bool, sent: Any, result_path: str
) -> Any:
    """In a worker: call ``method`` of the object built from ``blob`` on the chunk ``sent``
    (see :func:`_spool`); the results packed (as :mod:`marshal` bytes when ``plain_metric``
    and the texts are plain, see :func:`plain_results`) and spooled to ``result_path``. The
    collector stays paused until the results are packed and freed: were it on while packing,
    it would walk every result of the chunk (and promote them to older generations, walked
    again later) although none of them outlives the chunk."""
    with paused_gc():
        args = _unspool(sent)
        target = build_once(key, blob)
        results = getattr(target, method)(*args)
        packed = pack_results(results, plain=plain_metric and _plain_texts(args))
        del results, args
        sent_back = _spool(result_path, packed)
    # What the chunk made and kept (cache entries) is walked once, for the cycles it may
    # hold, then frozen with what the worker inherited: otherwise each collection of an
    # older generation would walk the growing caches again (a tenth of a cold worker's time).
    gc.collect(0)
    gc.freeze()
    return sent_back


class _Split:
    """The items not handed out yet: the workers' part ``[0, boundary)`` and the caller's
    ``[boundary, n)``, each taken from its start by its owner; who runs out of its own part
    takes from the far end of the other's. With no boundary (a first call) the workers' part
    is everything: the workers take from the front, the caller from the back. Chunks shrink
    with what is left in all (guided scheduling), so that the last ones, which decide when
    everybody is done, are short; the caller's are half the workers' (it hands out more work
    to the workers between two of its own chunks)."""

    def __init__(self, n: int, processes: int, min_chunk: int, boundary: int | None = None) -> None:
        middle = n if boundary is None else min(max(boundary, 0), n)
        self.workers = [0, middle]  # [next, end) of the workers' part
        self.caller = [middle, n]  # [next, end) of the caller's part
        self.processes = processes
        self.min_chunk = min_chunk

    @property
    def boundary(self) -> int:
        """Where the workers' own part ends now: how far they got through it."""
        return self.workers[0]

    def _size(self, share: int, largest: int) -> int:
        left = self.workers[1] - self.workers[0] + self.caller[1] - self.caller[0]
        return max(self.min_chunk, min(largest, left // share))

    def _take(self, own: list[int], other: list[int], size: int) -> tuple[int, int] | None:
        if own[0] < own[1]:
            start = own[0]
            own[0] = min(own[1], start + size)
            return start, own[0]
        if other[0] < other[1]:
            stop = other[1]
            other[1] = max(other[0], stop - size)
            return other[1], stop
        return None

    def take_front(self) -> tuple[int, int] | None:
        """The workers' next chunk."""
        return self._take(self.workers, self.caller, self._size(4 * self.processes, _MAX_CHUNK))

    def take_back(self) -> tuple[int, int] | None:
        """The caller's next chunk."""
        size = self._size(8 * self.processes, _MAX_CHUNK // 2)
        return self._take(self.caller, self.workers, size)


def _fingerprint(columns: Sequence[Sequence[Any]]) -> int | None:
    """A hash of the number of items and of 17 of them spread over the columns (texts, or
    lists of texts), or None for items that cannot be hashed: the same items, as far as
    scheduling is concerned (a collision only costs speed)."""
    n = len(columns[0])
    picks = [*range(0, n, max(1, n // 16)), n - 1]
    try:
        return hash((n, *(_hashable(column[i]) for column in columns for i in picks)))
    except Exception:  # unhashable items (or a __hash__ that fails): nothing remembered
        return None


def _hashable(item: Any) -> Any:
    return tuple(item) if type(item) in (list, tuple) else item


def chunk_bounds(
    n: int, processes: int, min_chunk: int = MIN_CHUNK, *, boundary: int | None = None
) -> list[tuple[int, int]]:
    """``(start, stop)`` of the chunks the workers would take if they took all ``n`` items:
    each a share of what is left (a ``4 * processes``-th), at least ``min_chunk``
    (:data:`MIN_CHUNK`) and at most 2,500; with a ``boundary`` (where their part ended in the
    last call on the same items) their part ``[0, boundary)`` first, then the caller's from its
    far end.

    >>> chunk_bounds(1000, 2)
    [(0, 250), (250, 500), (500, 750), (750, 1000)]
    >>> chunk_bounds(1000, 2, boundary=600)
    [(0, 250), (250, 500), (500, 600), (750, 1000), (600, 750)]
    """
    split = _Split(n, processes, min_chunk, boundary)
    bounds: list[tuple[int, int]] = []
    while (taken := split.take_front()) is not None:
        bounds.append(taken)
    return bounds


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

    The workers build ``target`` from its pickle once; the caller uses ``target`` itself. Each
    worker has two chunks at a time (one to work on, the next one waiting), the caller hands
    out more after each of its own chunks, and takes its own from the end. Called again on the
    same items (same number, same sampled items, same ``target`` configuration), each side
    first scores the part it scored the last time (its caches hold those texts), then helps
    with the other's from its far end.

    >>> from lexeval.metrics import TokenF1Metric
    >>> [r.score for r in map_chunks(TokenF1Metric(), "measure_many", [["a b"], ["a"]], 1)]
    [0.6666666666666666]
    """
    n = len(columns[0])
    if processes < 2 or n < 2 * min_chunk:
        whole = list(getattr(target, method)(*columns))
        if on_chunk is not None:
            on_chunk(n)
        return whole
    try:
        blob = pickle.dumps(target, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise TypeError(f"{target!r} cannot be pickled for the worker processes: {exc}") from None
    key = configuration_key(blob)
    plain_metric = _plain_metric(target)
    pool = _pool(processes - 1)
    fingerprint = _fingerprint(columns)
    remembered = None if fingerprint is None else (key, processes, fingerprint)
    split = _Split(n, processes, min_chunk, _BOUNDARIES.get(remembered) if remembered else None)
    call = getattr(target, method)
    pending: dict[Future[Any], tuple[int, int, str]] = {}  # bounds and file name
    done: dict[int, list[Any]] = {}
    directory = chunk_directory()
    unread: set[str] = set()  # files of this call's chunks (texts, results) not read yet

    def piece(start: int, stop: int) -> tuple[Any, ...]:
        return tuple(list(column[start:stop]) for column in columns)

    def hand_out() -> None:
        bounds = split.take_front()
        if bounds is not None:
            name = os.path.join(directory, f"{os.getpid()}-{next(_SEQUENCE)}")
            unread.update((name, name + "r"))
            sent = _spool(name, piece(*bounds))
            pending[pool.submit(_run_chunk, key, blob, method, plain_metric, sent, name + "r")] = (
                *bounds,
                name,
            )

    def collect(finished: Iterable[Future[Any]]) -> None:
        for future in finished:
            start, stop, name = pending.pop(future)
            sent = future.result()
            unread.difference_update((name, name + "r"))  # the worker read its texts
            done[start] = unpack_results(_unspool(sent))
            if on_chunk is not None:
                on_chunk(stop - start)
            hand_out()

    try:
        with paused_gc():  # the results are many new containers (see lexeval.collector)
            for _ in range(2 * (processes - 1)):
                hand_out()
            while (bounds := split.take_back()) is not None:
                done[bounds[0]] = list(call(*piece(*bounds)))
                if on_chunk is not None:
                    on_chunk(bounds[1] - bounds[0])
                collect([future for future in pending if future.done()])
            while pending:
                collect(wait(pending, return_when=FIRST_COMPLETED).done)
    except BrokenProcessPool:
        _discard(pool)
        raise RuntimeError(
            "a lexeval worker process died (out of memory, or killed); the pool was discarded "
            "and the next call starts new workers"
        ) from None
    except BaseException:
        for future in pending:
            future.cancel()
        raise
    finally:
        for name in unread:  # of chunks cancelled, failed or still running: never read
            with suppress(OSError):
                os.unlink(name)
    if remembered is not None:
        with _POOL_LOCK:
            _BOUNDARIES[remembered] = split.boundary
            _BOUNDARIES.move_to_end(remembered)
            while len(_BOUNDARIES) > _MAX_BOUNDARIES:
                _BOUNDARIES.popitem(last=False)
    results: list[Any] = []
    for start in sorted(done):
        results.extend(done[start])
    return results


def _discard(pool: ProcessPoolExecutor) -> None:
    with _POOL_LOCK:
        for name, known in list(_POOLS.items()):
            if known is pool:
                del _POOLS[name]
    pool.shutdown(wait=False, cancel_futures=True)
