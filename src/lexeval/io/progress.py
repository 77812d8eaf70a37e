"""Progress bars, always on standard error: standard output carries results only (a progress
bar written there would end up in ``lexeval score ... > out.json``).

Every progress bar of lexeval (the metrics' ``measure_many(progress=True)``, the worker pool,
the card matcher, the command line) is made here. The bar never redirects ``sys.stdout`` or
``sys.stderr`` (rich's default while a bar is shown): what the caller prints meanwhile goes where
it was going, and the process's streams are left alone. rich is imported on first use.

>>> list(track_on_stderr(iter([1, 2]), total=2, description="demo", disable=True))
[1, 2]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = ["progress_on_stderr", "track_on_stderr"]

T = TypeVar("T")


def progress_on_stderr(*, transient: bool = False, disable: bool = False) -> Progress:
    """A rich ``Progress`` (use it as a context manager) drawn on standard error, with rich's
    default columns, leaving ``sys.stdout`` and ``sys.stderr`` as they are."""
    from rich.console import Console
    from rich.progress import Progress

    return Progress(
        *Progress.get_default_columns(),
        console=Console(stderr=True),
        transient=transient,
        redirect_stdout=False,
        redirect_stderr=False,
        disable=disable,
    )


def track_on_stderr(
    items: Iterable[T],
    *,
    total: int | None,
    description: str,
    transient: bool = False,
    disable: bool = False,
) -> Iterator[T]:
    """``items``, one by one, with a progress bar on standard error (rich's ``track``, which
    draws on standard output unless told otherwise)."""
    with progress_on_stderr(transient=transient, disable=disable) as bar:
        yield from bar.track(items, total=total, description=description)
