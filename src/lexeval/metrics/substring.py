"""Substring search whose cost per query does not grow with the text (for long texts).

Lenient keyword matching asks, for every reference keyword missing from the output's keys,
whether it occurs inside the output text. ``key in text`` scans the whole text per query, so a
long reference against a long output cost (number of keys) x (text length). A
:class:`SubstringIndex` answers from a sorted index of the text's character 4-grams instead
(built once, in numpy, when the text is long): a query looks up its rarest 4-gram and checks
only the places where it occurs.

>>> index = SubstringIndex("the massachusetts1 bay colony " * 2000)
>>> index.contains("massachusetts"), index.contains("massachusettz")
(True, False)
>>> list(SubstringIndex("a 15,000 b 5,000").positions("5,000"))
[3, 11]
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported when an index is first built, not with lexeval
    import numpy as np
    import numpy.typing as npt

__all__ = ["GRAM", "LONG_TEXT", "SCANS_BEFORE_INDEX", "SubstringIndex", "find_all"]

#: Length of the indexed character n-grams; queries shorter than this scan the text.
GRAM = 4
#: Texts shorter than this are searched directly (``str.find`` is faster there).
LONG_TEXT = 32_768
#: A long text is scanned for its first queries; the index is built for the next one (a few
#: scans cost less than building it).
SCANS_BEFORE_INDEX = 8

# Odd 64-bit multipliers that mix the four code points of a gram into one hash (a collision
# only costs a wasted comparison: every candidate is verified against the text).
_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5)


@functools.cache
def _numpy() -> Any:
    import numpy

    return numpy


def _gram_hashes(codes: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """The hash of every 4-gram of a code-point array (length ``len(codes) - 3``)."""
    numpy = _numpy()
    n = codes.size - GRAM + 1
    out: npt.NDArray[np.uint64]
    if n <= 0:
        out = numpy.zeros(0, dtype=numpy.uint64)
        return out
    with numpy.errstate(over="ignore"):
        out = codes[:n] * numpy.uint64(_MULTIPLIERS[0])
        for i in range(1, GRAM):
            out ^= codes[i : i + n] * numpy.uint64(_MULTIPLIERS[i])
    return out


def _codes(text: str) -> npt.NDArray[np.uint64]:
    numpy = _numpy()
    codes: npt.NDArray[np.uint64] = numpy.frombuffer(
        text.encode("utf-32-le"), dtype=numpy.uint32
    ).astype(numpy.uint64)
    return codes


def find_all(text: str, key: str) -> Iterator[int]:
    """Start of every occurrence of ``key`` in ``text`` by scanning (overlaps included).

    >>> list(find_all("aaa", "aa"))
    [0, 1]
    """
    if not key:
        return
    start = text.find(key)
    while start >= 0:
        yield start
        start = text.find(key, start + 1)


class SubstringIndex:
    """Occurrences of substrings in one text; the 4-gram index of a long text
    (:data:`LONG_TEXT` characters or more) is built when more than :data:`SCANS_BEFORE_INDEX`
    queries have come, never for a short one."""

    __slots__ = ("_hashes", "_scans", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._scans = 0
        self._hashes: npt.NDArray[np.uint64] | None = None
        self._starts: npt.NDArray[np.intp] | None = None

    def _index(self) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.intp]]:
        hashes, starts = self._hashes, self._starts
        if hashes is None or starts is None:
            raw = _gram_hashes(_codes(self.text))
            starts = _numpy().argsort(raw, kind="stable")  # equal grams in text order
            hashes = raw[starts]
            self._hashes, self._starts = hashes, starts  # published whole (thread-safe)
        return hashes, starts

    def positions(self, key: str) -> Iterator[int]:
        """Start of every occurrence of ``key`` (overlapping ones included), in text order."""
        text = self.text
        if not key:
            return
        if len(text) < LONG_TEXT or len(key) < GRAM:
            yield from find_all(text, key)
            return
        if self._hashes is None and self._scans < SCANS_BEFORE_INDEX:
            self._scans += 1  # a lost update under threads only means one more scan
            yield from find_all(text, key)
            return
        hashes, starts = self._index()
        grams = _gram_hashes(_codes(key))
        lows = hashes.searchsorted(grams, side="left")
        highs = hashes.searchsorted(grams, side="right")
        rarest = int((highs - lows).argmin())
        low, high = int(lows[rarest]), int(highs[rarest])
        if low == high:
            return
        for begin in starts[low:high].tolist():
            start = begin - rarest
            if start >= 0 and text.startswith(key, start):
                yield start

    def contains(self, key: str) -> bool:
        """Whether ``key`` occurs in the text."""
        if len(self.text) < LONG_TEXT or (
            self._hashes is None and self._scans < SCANS_BEFORE_INDEX
        ):
            self._scans += 1
            return key in self.text
        return next(self.positions(key), None) is not None
