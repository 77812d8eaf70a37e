"""Scoring on several processes: the one place that owns ``workers``, chunking and processes.

:func:`map_chunks` cuts equal-length columns into chunks (items that share a text in one
chunk: :func:`shared_text_order`), hands them one at a time to each of ``workers`` processes
started for this call only (one pipe each: no queue, no thread and no named semaphore in the
caller), and returns the results in input order, identical to one call in this process.
Every worker dies with the caller (``PR_SET_PDEATHSIG`` on Linux; under ``forkserver`` and
elsewhere a thread that watches the caller), ignores ``SIGINT`` (the caller decides what an
interrupt means), and is gone when the call returns or raises.
Nothing of the caller changes: not its garbage collector, not its signal handlers; no file is
written (under ``forkserver``, the standard library's fork server and its socket directory stay
until the caller exits, as they do for any forkserver pool). A worker tunes its own collector
only (:func:`_serve`).

``workers`` is a positive int of at most :func:`max_workers` (4 per available core), or
``"auto"`` (every available core); anything else is a ValueError before any process starts.

>>> resolve_workers(1), resolve_workers("auto") == available_cores()
(1, True)
>>> resolve_workers(0)
Traceback (most recent call last):
...
ValueError: workers must be a positive int of at most ... or 'auto', not 0
"""

from __future__ import annotations

import ast
import gc
import multiprocessing
import multiprocessing.util
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from itertools import compress
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from operator import ne
from typing import Any, NoReturn

__all__ = [
    "MIN_CHUNK",
    "START_METHODS",
    "WorkerError",
    "available_cores",
    "check_main_guard",
    "chunk_bounds",
    "map_chunks",
    "max_workers",
    "resolve_workers",
    "shared_text_order",
    "start_method",
]

#: The fewest items a chunk holds (a call with fewer than two chunks' worth runs in this
#: process: starting processes would cost more than it saves).
MIN_CHUNK = 250
#: The most items a chunk holds.
MAX_CHUNK = 5000
#: Chunks per worker process (when the items allow): enough that a slow chunk does not leave
#: the other workers idle at the end, few enough that handing them out costs nothing.
CHUNKS_PER_WORKER = 8
#: The start methods :func:`map_chunks` accepts.
START_METHODS = ("fork", "forkserver", "spawn")

_PER_CORE = 4


class WorkerError(RuntimeError):
    """A worker process died (killed, out of memory) or could not start."""


def available_cores() -> int:
    """The cores this process may run on.

    >>> available_cores() >= 1
    True
    """
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def max_workers() -> int:
    """The largest ``workers`` accepted: 4 per available core.

    >>> max_workers() == 4 * available_cores()
    True
    """
    return _PER_CORE * available_cores()


def resolve_workers(workers: object) -> int:
    """The number of processes for ``workers``: a positive int up to :func:`max_workers` as it
    is, ``"auto"`` for every available core; a ValueError for anything else (``True``, a float,
    0, a negative or absurd number).

    >>> resolve_workers(3)
    3
    >>> resolve_workers(True)
    Traceback (most recent call last):
    ...
    ValueError: workers must be a positive int of at most ... or 'auto', not True
    """
    if workers == "auto" and isinstance(workers, str):
        return available_cores()
    if type(workers) is int and 1 <= workers <= max_workers():
        return workers
    raise ValueError(
        f"workers must be a positive int of at most {max_workers()} (4 per available core) "
        f"or 'auto', not {workers!r}"
    )


def start_method(method: str | None = None) -> str:
    """How the pool starts its processes: ``method`` when given (one of
    :data:`START_METHODS` this platform has), else ``fork`` where the platform has it and
    this process runs one thread (the workers then inherit the loaded metric and spaCy and
    start in milliseconds), else ``spawn``. Results are the same with every method.

    >>> start_method("spawn")
    'spawn'
    """
    methods = multiprocessing.get_all_start_methods()
    if method is not None:
        if method not in START_METHODS or method not in methods:
            offered = ", ".join(m for m in START_METHODS if m in methods)
            raise ValueError(f"start_method must be one of {offered}, not {method!r}")
        return method
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "spawn"


def chunk_bounds(n: int, processes: int, min_chunk: int = MIN_CHUNK) -> list[tuple[int, int]]:
    """``(start, stop)`` of the chunks of ``n`` items for ``processes`` workers, in the order
    they are handed out: about :data:`CHUNKS_PER_WORKER` per worker of ``min_chunk`` to
    :data:`MAX_CHUNK` items each, then smaller ones (what is left over twice the number of
    workers, at least half of ``min_chunk``), so that the workers finish together and the last
    results, which this process unpickles after every worker is done, are few.

    >>> chunk_bounds(1000, 2)
    [(0, 250), (250, 437), (437, 577), (577, 702), (702, 827), (827, 1000)]
    >>> [stop - start for start, stop in chunk_bounds(20_000, 2)][-12:]
    [1250, 937, 703, 527, 395, 297, 222, 167, 125, 125, 125, 127]
    """
    size = max(min_chunk, min(MAX_CHUNK, -(-n // (CHUNKS_PER_WORKER * processes))))
    floor = max(1, min_chunk // 2)
    bounds = []
    start = 0
    while start < n:
        step = min(size, max(floor, (n - start) // (_TAIL * processes)))
        if n - start - step < floor:  # no chunk of a few items at the end
            step = n - start
        bounds.append((start, min(n, start + step)))
        start += step
    return bounds


#: The last chunks hold 1/_TAIL of a worker's share of what is left.
_TAIL = 2


def shared_text_order(columns: Sequence[Sequence[Any]]) -> list[int] | None:
    """The order in which :func:`map_chunks` hands out the items: items linked by a text (a
    value that occurs twice in a column of ``str``, directly or through other items) next to
    each other, groups in the order of their first item, items in input order within a group;
    None when no column of ``str`` repeats a value (the input order as it is).

    Each worker fills its own caches: a text that items in two workers' chunks share is
    analysed twice, a text within one chunk once (several outputs of one reference, one
    output against several references, answers to one question).

    >>> shared_text_order([["a", "b", "a", "c"], ["x", "y", "z", "y"], [None] * 4])
    [0, 2, 1, 3]
    >>> shared_text_order([["a", "b"], ["x", "y"]]) is None
    True
    """
    n = len(columns[0]) if columns else 0
    parent: list[int] | None = None  # union-find over items: parent[i] <= i, a root its first
    for column in columns:
        if set(map(type, column)) != {str}:
            continue  # not a column of texts (lists of references, questions left out)
        first = dict(zip(reversed(column), range(n - 1, -1, -1), strict=True))
        if len(first) == n:
            continue
        firsts = list(map(first.__getitem__, column))
        if parent is None:  # the first column that links items: each to its text's first
            parent = firsts
            continue
        for i in compress(range(n), map(ne, firsts, range(n))):
            a, b = i, firsts[i]
            while parent[a] != a:  # the roots, halving the paths on the way
                parent[a] = parent[parent[a]]
                a = parent[a]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b
    if parent is None:
        return None
    roots = parent
    for i in range(n):  # in increasing order: parent[i] <= i is final by then
        roots[i] = roots[parent[i]]
    return sorted(range(n), key=roots.__getitem__)


def check_main_guard(method: str) -> None:
    """Under ``spawn`` and ``forkserver`` each worker imports the caller's main script again:
    a script that scores at its top level, without ``if __name__ == "__main__":``, would start
    pools within pools. A RuntimeError that says so, before any process starts."""
    if method == "fork":
        return
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or not str(path).endswith(".py"):
        return  # an interactive session, python -c, a notebook: nothing is imported again
    try:
        with open(path, encoding="utf-8") as file:
            tree = ast.parse(file.read())
    except (OSError, SyntaxError, ValueError):
        return
    if any(isinstance(node, ast.If) and _names_main(node.test) for node in tree.body):
        return
    raise RuntimeError(
        f"workers under the {method!r} start method import the main script {path} again, and "
        'it has no `if __name__ == "__main__":` guard: put the code that scores under one '
        "(see the multiprocessing guide), or use workers=1"
    )


def _names_main(test: ast.expr) -> bool:
    return any(isinstance(node, ast.Name) and node.id == "__name__" for node in ast.walk(test))


# ---- in the worker process -------------------------------------------------------------------


def _follow_parent(caller: int, leftover: str | None) -> None:
    """In a worker: die with the caller, quietly. On Linux the kernel sends SIGKILL when the
    parent ends (``PR_SET_PDEATHSIG``); where the parent is not the caller (``forkserver``:
    the server, which ends with the caller) or the kernel offers no such signal, a thread
    checks every 0.2 s that the caller runs, removes ``leftover`` (the fork server's socket
    directory, when this call created it) once it is gone, and ends the worker. Checked once
    more after setting it up: the caller may be gone already."""
    parent = os.getppid()

    def gone() -> bool:
        return os.getppid() != parent or not _running(caller)

    if parent == caller and sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0:  # PR_SET_PDEATHSIG
                if gone():
                    os._exit(0)
                return
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while _running(caller):
            time.sleep(0.2)
        _leave(leftover)

    if not _running(caller):
        _leave(leftover)
    threading.Thread(target=watch, name="lexeval-caller-watch", daemon=True).start()
    if leftover is not None:  # a SIGTERM to the group reaches the caller and this worker
        signal.signal(signal.SIGTERM, partial(_terminated, caller, leftover))


def _terminated(caller: int, leftover: str, signum: int, frame: object) -> None:
    """A worker's SIGTERM under forkserver: the end, after removing ``leftover`` if the caller
    ends too (within a second: a SIGTERM to the process group ends it at the same time)."""
    deadline = time.monotonic() + 1.0
    while _running(caller) and time.monotonic() < deadline:
        time.sleep(0.01)
    if not _running(caller):
        shutil.rmtree(leftover, ignore_errors=True)
    os._exit(128 + signum)


def _leave(leftover: str | None) -> NoReturn:
    """End this worker now (its caller is gone), removing ``leftover`` first."""
    if leftover is not None:
        shutil.rmtree(leftover, ignore_errors=True)
    os._exit(0)


def _running(pid: int) -> bool:
    """Whether ``pid`` runs: exists, and (where /proc tells) is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _serve(
    work: tuple[Callable[..., list[Any]], Callable[[list[Any]], Any]] | None,
    caller: int,
    conn: Connection,
    leftover: str | None,
) -> None:
    """A worker: ignore SIGINT (the caller decides what an interrupt means), follow the
    caller, then score the chunks ``conn`` brings until it brings None or closes, sending
    ``(True, pack(results))`` or ``(False, error)`` for each. ``work`` is ``(task, pack)``
    under fork (inherited as they are, caches included); under the other start methods it
    is None and comes first on ``conn``, once the worker follows its caller (rebuilding the
    metric can take a while: the worker must not outlive a caller killed meanwhile).

    The worker's collector (its own) is off during a chunk; after each it collects what the
    chunk left and moves the survivors (under fork: first all it inherited, spaCy included)
    to its permanent generation, so that no collection walks them again: about 15% of a
    worker's CPU on keyword coverage (docs/scale.md). lexeval's metrics leave no cycles to
    collect; a chunk bounds what one that did could hold."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _follow_parent(caller, leftover)
    if work is None:
        try:
            work = conn.recv()
        except (EOFError, OSError):  # the caller is gone
            _leave(leftover)
    task, pack = work
    gc.freeze()
    gc.disable()
    while True:
        try:
            columns = conn.recv()
        except (EOFError, OSError):  # the caller is gone
            _leave(leftover)
        if columns is None:
            return
        try:
            reply = ForkingPickler.dumps((True, pack(list(task(*columns)))))
        except BaseException as error:  # raised in the caller
            reply = ForkingPickler.dumps((False, _portable(error)))
        del columns
        try:  # first: the caller unpickles these results while this process collects
            conn.send_bytes(reply)
        except OSError:
            _leave(leftover)
        del reply
        gc.collect()
        gc.freeze()


def _portable(error: BaseException) -> BaseException:
    """``error`` with its traceback in a note, as the caller can receive it (a RuntimeError
    that names it when it does not pickle)."""
    import traceback

    text = "".join(traceback.format_exception(error))
    try:
        error.add_note(f"in a lexeval worker process:\n{text}")
        ForkingPickler.loads(ForkingPickler.dumps(error))
    except Exception:  # any failure to carry it
        return RuntimeError(f"in a lexeval worker process:\n{text}")
    return error


# ---- in the caller ---------------------------------------------------------------------------


def _as_list(results: list[Any]) -> list[Any]:
    return results


def map_chunks(
    task: Callable[..., list[Any]],
    columns: Sequence[Sequence[Any]],
    workers: object,
    *,
    min_chunk: int = MIN_CHUNK,
    on_chunk: Callable[[int], None] | None = None,
    method: str | None = None,
    pack: Callable[[list[Any]], Any] = _as_list,
    unpack: Callable[[Any], list[Any]] = _as_list,
) -> list[Any]:
    """``task(*chunk_columns)`` on chunks of ``columns`` (equal-length sequences) on
    ``workers`` processes (:func:`resolve_workers`), concatenated in input order: the same
    list as ``task(*columns)``. ``task`` must be picklable (a module-level function, a
    ``functools.partial`` of one, a bound method of a picklable object) and return one result
    per item, whatever the items' order (the chunks group items that share a text:
    :func:`shared_text_order`). ``on_chunk(size)`` runs in this process after each chunk;
    ``method`` chooses the start method (:func:`start_method`). A worker sends
    ``pack(results)`` (picklable, like ``task``) and this process keeps ``unpack(packed)``: a
    chunk's results travel in whatever form costs least (:mod:`lexeval.run.packing`). With one
    worker, or fewer than two chunks of ``min_chunk`` items, ``task`` runs here.

    The pool starts for this call and stops before it returns; its processes ignore SIGINT
    and die with this one.

    >>> from functools import partial
    >>> map_chunks(partial(map, str.upper), [["a", "b"]], 2)
    ['A', 'B']
    """
    processes = resolve_workers(workers)
    chosen = start_method(method)
    n = len(columns[0]) if columns else 0
    if any(len(column) != n for column in columns):
        raise ValueError("the columns must have the same length")
    if processes == 1 or n < 2 * min_chunk:
        whole = list(task(*columns))
        if on_chunk is not None:
            on_chunk(n)
        return whole
    check_main_guard(chosen)
    order = shared_text_order(columns)
    bounds = chunk_bounds(n, processes, min_chunk)
    context = multiprocessing.get_context(chosen)
    leftover = _forkserver_directory() if chosen == "forkserver" else None
    pool: dict[Connection, BaseProcess] = {}
    work = (task, pack)
    finished = False
    try:
        for _ in range(min(processes, len(bounds))):
            mine, theirs = context.Pipe()
            worker = context.Process(  # type: ignore[attr-defined]
                target=_serve,
                args=(work if chosen == "fork" else None, os.getpid(), theirs, leftover),
                name="lexeval-worker",
                daemon=True,
            )
            pool[mine] = worker
            worker.start()
            theirs.close()
        if chosen != "fork":  # once they all start: a worker reads it when it follows the caller
            for conn in pool:
                _send(conn, work)
        results = _collect(pool, columns, order, bounds, unpack, on_chunk)
        finished = True
    finally:
        _stop(pool, finished)
    if order is None:
        return results
    in_input_order: list[Any] = [None] * n
    for i, result in zip(order, results, strict=True):
        in_input_order[i] = result
    return in_input_order


def _forkserver_directory() -> str | None:
    """The directory of the fork server's socket when a call of lexeval created it (None when
    the process had one before: it is not lexeval's to remove). The standard library removes
    it when the process exits normally; a worker removes it when the caller is killed
    (:func:`_follow_parent`)."""
    config = getattr(multiprocessing.current_process(), "_config", None)
    if not isinstance(config, dict):
        return None
    directory = config.get("tempdir")
    if directory is None:
        directory = multiprocessing.util.get_temp_dir()
        _CREATED_DIRECTORIES.add(directory)
    return directory if directory in _CREATED_DIRECTORIES else None


#: The multiprocessing temporary directories that lexeval's calls created (at most one).
_CREATED_DIRECTORIES: set[str] = set()


def _collect(
    pool: dict[Connection, BaseProcess],
    columns: Sequence[Sequence[Any]],
    order: list[int] | None,
    bounds: list[tuple[int, int]],
    unpack: Callable[[Any], list[Any]],
    on_chunk: Callable[[int], None] | None,
) -> list[Any]:
    """Hand the chunks of the items in ``order`` (None: input order; ``bounds`` are positions
    in it) to the workers of ``pool``, one at a time each, and gather the results in that
    order. A worker with no chunk left is told to stop at once: it ends
    while this process unpickles the last results (so when this returns, every worker was
    told)."""
    waiting = iter(enumerate(bounds))
    busy: dict[Connection, int] = {}
    chunks: list[list[Any]] = [[] for _ in bounds]

    def give(conn: Connection) -> None:
        for i, (start, stop) in waiting:
            if order is None:
                _send(conn, [list(column[start:stop]) for column in columns])
            else:
                mine = order[start:stop]
                _send(conn, [list(map(column.__getitem__, mine)) for column in columns])
            busy[conn] = i
            return
        with suppress(OSError):
            conn.send(None)

    for conn in pool:
        give(conn)
    while busy:
        for ready in wait([*busy, *(pool[conn].sentinel for conn in busy)]):
            if not isinstance(ready, Connection):
                raise _died()
            try:
                reply = ready.recv_bytes()
            except (EOFError, OSError):
                raise _died() from None
            i = busy.pop(ready)
            give(ready)  # first: the worker scores while this process unpickles and unpacks
            ok, payload = ForkingPickler.loads(reply)
            del reply
            if not ok:
                raise payload
            chunks[i] = unpack(payload)
            if on_chunk is not None:
                on_chunk(bounds[i][1] - bounds[i][0])
    results: list[Any] = []
    for chunk in chunks:
        results.extend(chunk)
    return results


def _send(conn: Connection, message: object) -> None:
    try:
        conn.send(message)
    except OSError:  # the worker is gone
        raise _died() from None


def _died() -> WorkerError:
    return WorkerError(
        "a lexeval worker process died (killed, or out of memory), or could not start"
    )


def _stop(pool: dict[Connection, BaseProcess], finished: bool) -> None:
    """End every worker of ``pool``: when the call finished, each was told to stop already
    (:func:`_collect`); else (an error, an interrupt) each is killed at once. Waited for
    either way, and the pipes closed."""
    for worker in pool.values():
        if not finished and worker.pid is not None:
            with suppress(OSError):
                worker.kill()
    for conn, worker in pool.items():
        if worker.pid is not None:
            worker.join(5 if finished else None)
            if worker.exitcode is None:  # pragma: no cover (a worker that does not stop)
                worker.kill()
                worker.join()
        conn.close()
