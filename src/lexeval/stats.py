"""Seeded bootstrap intervals, the one resampling machinery of lexeval.

Everything resamples with :func:`scipy.stats.bootstrap` (percentile method) driven by
``numpy.random.default_rng(seed)``: the same seed gives the same interval, on any machine and
with any concurrency. :func:`bootstrap_mean` serves ``aggregate`` and the card comparison;
:func:`bootstrap_indices` serves the meta-evaluation, whose statistics (ROC AUC, kappa, a
summary-level correlation) are recomputed on resampled row, document or system indices.

>>> low, high, _ = bootstrap_mean([0.0, 1.0, 1.0, 0.0], seed=1, n_resamples=99, confidence=0.9)
>>> 0.0 <= low <= 0.5 <= high <= 1.0
True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["BootstrapResult", "bootstrap_indices", "bootstrap_mean", "bootstrap_p_value"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


def bootstrap_mean(
    values: Sequence[float], *, seed: int, n_resamples: int, confidence: float
) -> tuple[float, float, Any]:
    """Percentile bootstrap interval of the mean, seeded: ``(low, high, resampled means)``.

    scipy's ``stats.bootstrap`` with ``numpy.random.default_rng(seed)``; the same seed gives
    the same interval. The card comparison uses it on paired per-case differences.

    >>> low, high, means = bootstrap_mean([0.0, 1.0, 1.0, 0.0], seed=1, n_resamples=99,
    ...                                   confidence=0.9)
    >>> 0.0 <= low <= 0.5 <= high <= 1.0, len(means)
    (True, 99)
    """
    from scipy.stats import bootstrap

    result = bootstrap(
        (np.asarray(values, dtype=float),),
        np.mean,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
        # Resample in batches of about 4M index cells (same draws, same result): memory stays
        # bounded whatever the number of values and resamples.
        batch=max(1, 4_194_304 // max(1, len(values))),
    )
    interval = result.confidence_interval
    return float(interval.low), float(interval.high), result.bootstrap_distribution


@dataclass(frozen=True)
class BootstrapResult:
    """Percentile intervals of k statistics from one set of resamples.

    ``distribution`` has shape ``(k, n_resamples)``; a resample on which a statistic is
    undefined (NaN, e.g. an AUC on a resample with one class) is left out of that statistic's
    interval and counted in ``undefined``.
    """

    intervals: tuple[tuple[float, float], ...]
    distribution: FloatArray
    undefined: tuple[int, ...]


def bootstrap_indices(
    statistic: Callable[..., Sequence[float] | FloatArray],
    sizes: Sequence[int],
    *,
    seed: int,
    n_resamples: int,
    confidence: float,
) -> BootstrapResult:
    """Resample ``range(size)`` for each size independently and apply ``statistic``.

    ``statistic(*indices)`` receives one resampled index array per entry of ``sizes`` (rows;
    or documents and systems, resampled independently as in Deutsch et al. 2021) and returns
    k floats. The intervals are scipy's percentile intervals (NaN resamples dropped).

    >>> data = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    >>> result = bootstrap_indices(lambda i: [data[i].mean(), data[i].max()], [5], seed=7,
    ...                            n_resamples=200, confidence=0.95)
    >>> (low, high), (max_low, max_high) = result.intervals
    >>> 1.0 <= low <= 2.8 <= high <= 5.0, max_high, result.distribution.shape
    (True, 5.0, (2, 200))
    """
    from scipy.stats import bootstrap

    if any(size < 2 for size in sizes):
        raise ValueError(f"a bootstrap needs at least 2 items to resample, not {list(sizes)}")

    def wrapped(*indices: IntArray) -> FloatArray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(statistic(*(np.asarray(i, dtype=np.intp) for i in indices)), float)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = bootstrap(
            tuple(np.arange(size) for size in sizes),
            wrapped,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            vectorized=False,
            paired=False,
            rng=np.random.default_rng(seed),
        )
    distribution = np.atleast_2d(np.asarray(result.bootstrap_distribution, dtype=float))
    lows = np.atleast_1d(np.asarray(result.confidence_interval.low, dtype=float))
    highs = np.atleast_1d(np.asarray(result.confidence_interval.high, dtype=float))
    percents = [50 * (1 - confidence), 50 * (1 + confidence)]
    intervals: list[tuple[float, float]] = []
    undefined: list[int] = []
    for row, low, high in zip(distribution, lows, highs, strict=True):
        defined = row[~np.isnan(row)]
        undefined.append(int(row.size - defined.size))
        if defined.size == row.size:  # scipy's own percentile interval
            intervals.append((float(low), float(high)))
        elif defined.size == 0:
            intervals.append((float("nan"), float("nan")))
        else:  # the same percentile definition (numpy's linear), over the defined resamples
            low, high = np.percentile(defined, percents)
            intervals.append((float(low), float(high)))
    return BootstrapResult(tuple(intervals), distribution, tuple(undefined))


def bootstrap_p_value(distribution: Sequence[float] | FloatArray, observed: float) -> float:
    """Two-sided p-value of ``observed != 0`` from its bootstrap distribution shifted to the null.

    ``(1 + #{|d - observed| >= |observed|}) / (B + 1)`` over the B defined resamples: how often
    a world with no effect would give a difference at least as large as the observed one.

    >>> bootstrap_p_value([0.9, 1.1, 1.0, 0.95, 1.05], 1.0)
    0.16666666666666666
    >>> bootstrap_p_value([-0.2, 0.1, 0.0, 0.3, -0.1], 0.1)
    0.8333333333333334
    """
    values = np.asarray(distribution, dtype=float)
    values = values[~np.isnan(values)]
    extreme = int(np.count_nonzero(np.abs(values - observed) >= abs(observed) - 1e-12))
    return min(1.0, (1 + extreme) / (int(values.size) + 1))
