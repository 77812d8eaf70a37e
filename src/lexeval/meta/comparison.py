"""Is metric A's agreement with people higher than metric B's? A paired bootstrap of the difference.

Both metrics are scored on the same resamples (rows, groups or systems), so what they share
cancels out. The p-value is two-sided, from the bootstrap distribution of the difference
shifted to the null of no difference (:func:`lexeval.stats.bootstrap_p_value`).

>>> human = [1, 1, 1, 0, 1, 0, 0, 0, 1, 0]
>>> good = [0.9, 0.8, 0.7, 0.3, 0.6, 0.2, 0.4, 0.1, 0.95, 0.25]
>>> poor = [0.2, 0.9, 0.4, 0.5, 0.1, 0.6, 0.3, 0.8, 0.7, 0.35]
>>> c = compare(good, poor, human, n_resamples=300)
>>> c.statistic, c.a, round(c.b, 2), c.difference > 0, c.interval[0] > 0
('auc', 1.0, 0.44, True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from lexeval.meta.binary import BinaryTable, binary_inputs, calibrate
from lexeval.meta.correlation import CorrelationPlan, Level, Method, Resampling, Variant
from lexeval.meta.inputs import as_scores, check_resampling, same_length
from lexeval.meta.record import JsonRecord
from lexeval.stats import bootstrap_indices, bootstrap_p_value

__all__ = ["STATISTICS", "MetricComparison", "compare"]

Statistic = Literal["auc", "kappa", "correlation"]
STATISTICS: tuple[str, ...] = ("auc", "kappa", "correlation")


@dataclass(frozen=True)
class MetricComparison(JsonRecord):
    """The agreement of A and of B with the human labels, and the bootstrap of ``a - b``."""

    statistic: str
    a: float
    b: float
    difference: float
    interval: tuple[float, float]
    p_value: float
    n: int
    level: str
    method: str | None
    threshold_a: float | None
    threshold_b: float | None
    thresholds_in_sample: bool
    seed: int
    n_resamples: int
    confidence: float

    def __str__(self) -> str:
        low, high = self.interval
        return (
            f"{self.statistic} A {self.a:.3f} vs B {self.b:.3f}: difference "
            f"{self.difference:+.3f} [{low:+.3f}, {high:+.3f}], p={self.p_value:.3g}, n={self.n}"
        )


def _is_binary(values: npt.NDArray[np.float64]) -> bool:
    return bool(np.isin(values, (0.0, 1.0)).all())


def compare(
    metric_a: Iterable[Any],
    metric_b: Iterable[Any],
    human: Iterable[Any],
    *,
    statistic: Statistic | None = None,
    threshold_a: float | None = None,
    threshold_b: float | None = None,
    groups: Iterable[Any] | None = None,
    systems: Iterable[Any] | None = None,
    level: Level = "flat",
    method: Method = "kendall",
    variant: Variant = "b",
    resample: Resampling | None = None,
    seed: int = 12345,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> MetricComparison:
    """Compare two metrics' agreement with ``human``: ``a - b`` with interval and p-value.

    ``statistic``: ``"auc"`` (binary labels; the default when ``human`` is all 0/1 at the flat
    level), ``"kappa"`` at ``threshold_a``/``threshold_b`` (kappa-best on these rows when not
    given, flagged in-sample), or ``"correlation"`` (the default otherwise) with the arguments
    of :func:`lexeval.meta.correlation`.

    >>> compare([1, 2, 3], [1, 2, 3], [1, 0, 1], statistic="f1")
    Traceback (most recent call last):
    ValueError: statistic must be one of ('auc', 'kappa', 'correlation'), not 'f1'
    """
    check_resampling(seed, n_resamples, confidence)
    if statistic is not None and statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, not {statistic!r}")
    if statistic is None:
        values = as_scores(human, "human")
        flat = level == "flat" and groups is None and systems is None
        statistic = "auc" if flat and _is_binary(values) else "correlation"
    if statistic == "correlation":
        options: dict[str, Any] = {
            "groups": groups,
            "systems": systems,
            "level": level,
            "method": method,
            "variant": variant,
            "resample": resample,
        }
        plan_a = CorrelationPlan(metric_a, human, metric_name="metric_a", **options)
        plan_b = CorrelationPlan(metric_b, human, metric_name="metric_b", **options)
        same_length(metric_a=plan_a.metric, metric_b=plan_b.metric)
        a, b, n, sizes = plan_a.value, plan_b.value, plan_a.n, plan_a.sizes

        def difference(*indices: npt.NDArray[np.intp]) -> list[float]:
            return [plan_a.resampled(*indices) - plan_b.resampled(*indices)]

        thresholds: tuple[float | None, float | None] = (None, None)
        in_sample = False
    else:
        if level != "flat" or groups is not None or systems is not None:
            raise ValueError(f"statistic={statistic!r} compares at the flat level only")
        scores_a, labels = binary_inputs(metric_a, human)
        scores_b = as_scores(metric_b, "metric_b")
        same_length(metric_a=scores_a, metric_b=scores_b)
        table_a, table_b = BinaryTable(scores_a, labels), BinaryTable(scores_b, labels)
        n, sizes = int(labels.size), [int(labels.size)]
        in_sample = False
        if statistic == "auc":
            thresholds = (None, None)

            def value(table: BinaryTable, weights: npt.NDArray[np.int64], which: int) -> float:
                return table.auc(weights)
        else:
            in_sample = threshold_a is None or threshold_b is None
            t_a = calibrate(scores_a, labels).value if threshold_a is None else threshold_a
            t_b = calibrate(scores_b, labels).value if threshold_b is None else threshold_b
            thresholds = (float(t_a), float(t_b))

            def value(table: BinaryTable, weights: npt.NDArray[np.int64], which: int) -> float:
                t = thresholds[which]
                assert t is not None
                return table.objective(weights, t, "kappa")

        a = value(table_a, table_a.counts, 0)
        b = value(table_b, table_b.counts, 1)

        def difference(*indices: npt.NDArray[np.intp]) -> list[float]:
            (rows,) = indices
            weights_a, weights_b = table_a.weights(rows), table_b.weights(rows)
            return [value(table_a, weights_a, 0) - value(table_b, weights_b, 1)]

    boot = bootstrap_indices(
        difference, sizes, seed=seed, n_resamples=n_resamples, confidence=confidence
    )
    observed = a - b
    return MetricComparison(
        statistic=statistic,
        a=a,
        b=b,
        difference=observed,
        interval=boot.intervals[0],
        p_value=bootstrap_p_value(boot.distribution[0], observed),
        n=n,
        level=level,
        method=method if statistic == "correlation" else None,
        threshold_a=thresholds[0],
        threshold_b=thresholds[1],
        thresholds_in_sample=in_sample,
        seed=seed,
        n_resamples=n_resamples,
        confidence=float(confidence),
    )
