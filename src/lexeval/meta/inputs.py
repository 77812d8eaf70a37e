"""Checking the inputs of the meta-evaluation: every error names the argument and the first bad row.

>>> as_scores([0.5, 1, True], "scores").tolist()
[0.5, 1.0, 1.0]
>>> as_binary([1, 0, True, 0.0], "human").tolist()
[1, 0, 1, 0]
>>> as_scores([0.1, float("nan")], "scores")
Traceback (most recent call last):
ValueError: scores[1] is nan, not a finite number
>>> as_binary(["yes", "no"], "human")
Traceback (most recent call last):
ValueError: human[0] is 'yes', not a binary label (True/False or 0/1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Real
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "PREFERENCES",
    "as_binary",
    "as_labels",
    "as_preferences",
    "as_scores",
    "check_resampling",
    "same_length",
]

PREFERENCES = ("A", "B", "tie")


def _listed(values: Iterable[Any] | Any, name: str) -> Sequence[Any] | npt.NDArray[Any]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a sequence of values, not {type(values).__name__}")
    items = values if isinstance(values, np.ndarray) else list(values)
    if len(items) == 0:
        raise ValueError(f"{name} is empty")
    return items


def _is_number(value: Any) -> bool:
    return isinstance(value, Real | np.bool_)


def as_scores(values: Iterable[Any], name: str) -> npt.NDArray[np.float64]:
    """Finite real numbers (bools count as 0/1) as a float array."""
    items = _listed(values, name)
    array = np.asarray(items)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
    if array.dtype.kind not in "biuf":
        for i, value in enumerate(items):
            if not _is_number(value):
                raise ValueError(f"{name}[{i}] is {value!r}, not a finite number")
    result = array.astype(float)
    bad = np.flatnonzero(~np.isfinite(result))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name}[{i}] is {items[i]!r}, not a finite number")
    return result


def as_binary(values: Iterable[Any], name: str) -> npt.NDArray[np.int64]:
    """Binary labels (True/False or the numbers 0 and 1) as a 0/1 int array."""
    items = _listed(values, name)
    array = np.asarray(items)
    if array.ndim == 1 and array.dtype.kind in "biuf":
        bad = np.flatnonzero((array != 0) & (array != 1))
        candidates: Iterable[int] = bad[:1].tolist()
    else:
        candidates = range(len(items))
    for i in candidates:
        value = items[i]
        if not _is_number(value) or value not in (0, 1):
            raise ValueError(f"{name}[{i}] is {value!r}, not a binary label (True/False or 0/1)")
    return np.asarray(items, dtype=float).astype(np.int64)


def as_labels(values: Iterable[Any], name: str) -> list[Any]:
    """Category labels: hashable, not None and not NaN."""
    items = _listed(values, name)
    for i, value in enumerate(items):
        if value is None or (isinstance(value, float) and value != value):
            raise ValueError(f"{name}[{i}] is {value!r}, not a label")
        try:
            hash(value)
        except TypeError:
            raise ValueError(f"{name}[{i}] is {value!r}, not a label") from None
    return list(items.tolist() if isinstance(items, np.ndarray) else items)


def as_preferences(values: Iterable[Any], name: str) -> npt.NDArray[np.str_]:
    """Pairwise preferences ``"A"``, ``"B"`` or ``"tie"`` (any case) as an array of those three."""
    items = _listed(values, name)
    canonical = {p.lower(): p for p in PREFERENCES}
    out: list[str] = []
    for i, value in enumerate(items):
        key = value.strip().lower() if isinstance(value, str) else None
        if key not in canonical:
            raise ValueError(f"{name}[{i}] is {value!r}, not a preference ('A', 'B' or 'tie')")
        out.append(canonical[key])
    return np.asarray(out)


def same_length(**arrays: Sequence[Any] | npt.NDArray[Any]) -> int:
    """The common length of the named arrays, or a ValueError naming the first unmatched row."""
    names = list(arrays)
    first = names[0]
    n = len(arrays[first])
    for other in names[1:]:
        m = len(arrays[other])
        if m != n:
            raise ValueError(
                f"{first} has {n} rows but {other} has {m}; row {min(n, m)} has no partner"
            )
    return n


def check_resampling(seed: int, n_resamples: int, confidence: float) -> None:
    """The bootstrap settings: an int seed, at least one resample, a confidence in (0, 1)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive int, not {n_resamples!r}")
    if not isinstance(confidence, Real) or not 0 < float(confidence) < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
