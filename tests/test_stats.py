"""lexeval.stats: the seeded bootstrap is scipy's, and undefined resamples are left out."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap

from lexeval.metrics.aggregate import bootstrap_mean as old_home
from lexeval.stats import bootstrap_indices, bootstrap_mean, bootstrap_p_value


def test_bootstrap_mean_keeps_its_old_import() -> None:
    assert old_home is bootstrap_mean


def test_bootstrap_indices_is_scipys_percentile_bootstrap() -> None:
    data = np.random.default_rng(0).random(30)
    ours = bootstrap_indices(
        lambda rows: [data[rows].mean()], [30], seed=5, n_resamples=300, confidence=0.9
    )
    theirs = bootstrap(
        (data,),
        np.mean,
        n_resamples=300,
        confidence_level=0.9,
        method="percentile",
        rng=np.random.default_rng(5),
    )
    low, high = ours.intervals[0]
    assert low == pytest.approx(theirs.confidence_interval.low)
    assert high == pytest.approx(theirs.confidence_interval.high)
    assert ours.undefined == (0,)


def test_undefined_resamples_are_dropped_and_counted() -> None:
    data = np.array([0.0, 1.0, 2.0, 3.0])
    result = bootstrap_indices(
        lambda rows: [np.nan if 0 in rows else data[rows].mean(), data[rows].mean()],
        [4],
        seed=1,
        n_resamples=200,
        confidence=0.95,
    )
    dropped, kept = result.undefined
    assert 0 < dropped < 200 and kept == 0
    defined = result.distribution[0][~np.isnan(result.distribution[0])]
    assert result.intervals[0] == pytest.approx(tuple(np.percentile(defined, [2.5, 97.5])))
    assert result.intervals[0][0] >= 1.0  # row 0 (value 0.0) never counts


def test_two_independent_samples() -> None:
    seen: list[tuple[int, int]] = []

    def statistic(a: np.ndarray, b: np.ndarray) -> list[float]:
        seen.append((a.size, b.size))
        return [float(a.sum() + b.sum())]

    bootstrap_indices(statistic, [5, 3], seed=0, n_resamples=10, confidence=0.9)
    assert set(seen) == {(5, 3)}
    with pytest.raises(ValueError, match="at least 2 items"):
        bootstrap_indices(statistic, [1], seed=0, n_resamples=10, confidence=0.9)


def test_p_value() -> None:
    assert bootstrap_p_value([0.9, 1.1, 1.0, np.nan], 1.0) == pytest.approx(1 / 4)
    assert bootstrap_p_value([0.0, 0.0, 0.0], 0.0) == 1.0
