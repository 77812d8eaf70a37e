"""The two errors of :mod:`lexeval.io`: an input that cannot be used, a target that must not
be written; and how a file that is not a regular file is named in their messages."""

from __future__ import annotations

import stat

__all__ = ["InputError", "OutputError", "file_kind"]


class InputError(ValueError):
    """An input file that cannot be used; the message names file, line and field.

    >>> str(InputError("d.yaml", 3, "cases[0].id", "expected a string"))
    'd.yaml:3: cases[0].id: expected a string'
    >>> str(InputError("d.yaml", None, None, "file is empty"))
    'd.yaml: file is empty'
    """

    def __init__(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.file = file
        self.line = line
        self.field = field
        self.message = message
        where = file if line is None else f"{file}:{line}"
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


class OutputError(ValueError):
    """A report target that must not be written (a device, a directory, an input of the run).

    >>> str(OutputError("/dev/null", "is a character device, not a regular file"))
    '/dev/null: is a character device, not a regular file'
    """

    def __init__(self, target: str, message: str) -> None:
        self.target = target
        self.message = message
        super().__init__(f"{target}: {message}")


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages.

    >>> file_kind(stat.S_IFIFO)
    'a FIFO'
    """
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


# Shown and pickled as ``lexeval.io.InputError``: where users import them from.
InputError.__module__ = OutputError.__module__ = "lexeval.io"
