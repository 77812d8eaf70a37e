"""Writing reports safely: atomically to a regular file, or to an open stream.

A report target is a regular file or a new name in an existing directory, replaced through a
temporary file and a rename (whole or untouched), or a stream the process already has open
(``-``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``), written where it stands, never
replaced; devices, FIFOs, sockets, directories and the run's own inputs are refused.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from types import FrameType

from lexeval.io.errors import OutputError, file_kind
from lexeval.io.reading import STDIN

__all__ = [
    "TERMINATING_SIGNALS",
    "Terminated",
    "check_output_path",
    "current_umask",
    "signals_as_exceptions",
    "stream_fd",
    "write_text_atomic",
]


def current_umask() -> int:
    """The process umask (read from ``/proc`` where possible, not changed).

    >>> 0 <= current_umask() <= 0o777
    True
    """
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_STREAM_NAME = re.compile(r"/dev/(stdin|stdout|stderr)|/dev/fd/([0-9]+)|/proc/self/fd/([0-9]+)")


def stream_fd(path: str | os.PathLike[str]) -> int | None:
    """The file descriptor a report target names when it names a stream the process has open:
    ``-`` and ``/dev/stdout`` (1), ``/dev/stderr`` (2), ``/dev/stdin`` (0, refused by
    :func:`check_output_path` unless open for writing), ``/dev/fd/N`` and ``/proc/self/fd/N``
    (N); None for any other name. Such a target is written where the stream stands, never
    replaced: with the shell's ``> out.json``, ``--json /dev/stdout`` appends to what the
    shell opened instead of putting a new file in its place.

    >>> stream_fd("-"), stream_fd("/dev/stderr"), stream_fd("/dev/fd/3"), stream_fd("r.json")
    (1, 2, 3, None)
    """
    name = os.fspath(path)
    if name == STDIN:
        return 1
    match = _STREAM_NAME.fullmatch(name)
    if match is None:
        return None
    std, fd, proc_fd = match.groups()
    if std is not None:
        return ("stdin", "stdout", "stderr").index(std)
    return int(fd if fd is not None else proc_fd)


def _check_stream(
    name: str, fd: int, inputs: Mapping[str, str | os.PathLike[str] | None] | None
) -> None:
    """Refuse a stream that is not open for writing, or that is one of the run's inputs."""
    try:
        mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
        info = os.fstat(fd)
    except OSError:
        raise OutputError(name, f"file descriptor {fd} is not open") from None
    if mode not in (os.O_WRONLY, os.O_RDWR):
        raise OutputError(name, f"file descriptor {fd} is not open for writing")
    _check_not_input(name, info, inputs)


def _check_not_input(
    name: str, info: os.stat_result, inputs: Mapping[str, str | os.PathLike[str] | None] | None
) -> None:
    for label, input_path in (inputs or {}).items():
        if input_path is None or os.fspath(input_path) == STDIN:
            continue
        try:
            other = os.stat(input_path)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            raise OutputError(name, f"is the run's {label} ({os.fspath(input_path)}): refused")


def check_output_path(
    path: str | os.PathLike[str], inputs: Mapping[str, str | os.PathLike[str] | None] | None = None
) -> str:
    """The file to write for report target ``path``, after checking it is safe to write.

    A target must be a regular file or a new name in an existing directory; symbolic links are
    followed (the file they point to is replaced, the link stays). A stream the process has
    open (:func:`stream_fd`: ``-``, ``/dev/stdout``, ...) is accepted when it is open for
    writing and is not one of the run's ``inputs``; its name is returned as given. Refused with
    :class:`OutputError`: an empty name, a device, FIFO, socket or directory, and one of the
    run's ``inputs`` (label -> path, compared by device and inode, so hard links and symlinks
    are caught). A missing directory raises ``FileNotFoundError``.

    >>> check_output_path("/dev/null")
    Traceback (most recent call last):
    ...
    lexeval.io.OutputError: /dev/null: is a character device, not a regular file
    >>> check_output_path("")
    Traceback (most recent call last):
    ...
    lexeval.io.OutputError: '': an empty file name
    """
    name = os.fspath(path)
    if not name.strip():
        raise OutputError(repr(name), "an empty file name")
    fd = stream_fd(name)
    if fd is not None:
        _check_stream(name, fd, inputs)
        return name
    real = os.path.realpath(name)
    try:
        # stat the name itself: the kernel follows links, /dev/stdout included, to what is there
        info = os.stat(name)
    except FileNotFoundError:
        parent = os.path.dirname(real) or "."
        if not os.path.isdir(parent):  # an OSError, as open() would raise
            raise FileNotFoundError(errno.ENOENT, f"no such directory {parent}", name) from None
        return real
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror or str(exc), name) from None
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(name, f"is {file_kind(info.st_mode)}, not a regular file")
    _check_not_input(name, info, inputs)
    return real


#: Signals whose default action ends the process; :func:`signals_as_exceptions` turns them
#: into :class:`Terminated` so that temporary files are removed (SIGKILL cannot be caught).
TERMINATING_SIGNALS: tuple[str, ...] = (
    "SIGTERM",
    "SIGHUP",
    "SIGQUIT",
    "SIGUSR1",
    "SIGUSR2",
    "SIGALRM",
    "SIGVTALRM",
    "SIGPROF",
    "SIGXCPU",
)
_BLOCKED = {signal.SIGINT} | {
    getattr(signal, name) for name in TERMINATING_SIGNALS if hasattr(signal, name)
}


def write_text_atomic(
    path: str | os.PathLike[str],
    text: str,
    *,
    inputs: Mapping[str, str | os.PathLike[str] | None] | None = None,
) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: whole, or the old file untouched.

    A stream the process has open (:func:`stream_fd`: ``-`` or ``/dev/stdout``, ``/dev/stderr``,
    ``/dev/fd/N``) gets the text where it stands (standard output and error through
    ``sys.stdout``/``sys.stderr``, flushed), so a shell's ``> out.json`` keeps what was
    written before and after; nothing is renamed over the file behind it.

    Any other target is checked with :func:`check_output_path`; the text goes to a temporary
    file in
    the target's directory, created with the permissions of the file it replaces (or
    ``0o666`` less the umask), then renamed over the target. On any error or exception
    (including signals turned into exceptions) the temporary file is removed; write errors
    name the target.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "r.md"
    >>> write_text_atomic(target, "# ok\\n")
    >>> target.read_text(), oct(target.stat().st_mode & 0o777) == oct(0o666 & ~current_umask())
    ('# ok\\n', True)
    """
    name = os.fspath(path)
    real = check_output_path(name, inputs)
    fd = stream_fd(name)
    if fd is not None:
        _write_stream(name, fd, text)
        return
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~current_umask()
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror or str(exc), name) from None
    directory, base = os.path.split(real)
    tmp: str | None = None
    mask_signals = threading.current_thread() is threading.main_thread()
    try:
        if mask_signals:  # no signal between creating the temporary file and knowing its name
            signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory or ".")
        finally:
            if mask_signals:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _BLOCKED)
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, real)
        tmp = None
    except OSError as exc:  # name the target, not the temporary file
        raise type(exc)(exc.errno, exc.strerror or str(exc), name) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _write_stream(name: str, fd: int, text: str) -> None:
    """``text`` as UTF-8 to open file descriptor ``fd`` (1 and 2 through Python's streams, so
    that what they buffered comes first)."""
    data = text.encode("utf-8")
    stream = sys.stdout if fd == 1 else sys.stderr if fd == 2 else None
    try:
        if stream is None:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            return
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            stream.write(text)
            stream.flush()
        else:
            buffer.write(data)
            buffer.flush()
    except OSError as exc:  # name the target (BrokenPipeError stays one)
        raise type(exc)(exc.errno, exc.strerror or str(exc), name) from None


# ---------------------------------------------------------------- signals


class Terminated(BaseException):
    """Raised in the main thread when SIGTERM or SIGHUP arrives (see
    :func:`signals_as_exceptions`), so that ``finally`` blocks clean up."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


@contextlib.contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """Within the block, SIGTERM, SIGHUP and the other :data:`TERMINATING_SIGNALS` that still
    have their default action raise :class:`Terminated` (SIGINT already raises
    ``KeyboardInterrupt``); the previous handlers come back afterwards. Main thread only.

    >>> import os, signal
    >>> with signals_as_exceptions():
    ...     try:
    ...         os.kill(os.getpid(), signal.SIGTERM)
    ...         for _ in range(1000):
    ...             pass
    ...     except Terminated as exc:
    ...         print("caught", exc)
    caught SIGTERM
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        del frame
        raise Terminated(signum)

    numbers = [getattr(signal, n) for n in TERMINATING_SIGNALS if hasattr(signal, n)]
    # A signal someone already handles (a profiler's SIGPROF, say) keeps its handler.
    previous = {
        n: signal.signal(n, handler) for n in numbers if signal.getsignal(n) is signal.SIG_DFL
    }
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
