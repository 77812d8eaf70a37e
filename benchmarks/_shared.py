"""Helpers for the benchmarks: locate ``../shared`` beside the checkout and time calls."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ../shared; exits with a message when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        print(f"skipped: {path} not found (../shared beside the checkout is needed)")
        sys.exit(0)
    return path


def timed(
    fn: Callable[[], T], repeat: int = 3, setup: Callable[[], object] | None = None
) -> tuple[float, T]:
    """Best wall time of ``repeat`` calls (``setup`` runs untimed before each) and a result.

    The minimum is the figure least disturbed by other load on the machine.
    """
    best = float("inf")
    result: T | None = None
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    assert result is not None
    return best, result
