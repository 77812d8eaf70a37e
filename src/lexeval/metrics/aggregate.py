"""Corpus-level summary of many :class:`~lexeval.metrics.base.MetricResult` objects (or plain
scores, or pass/fail booleans: a pass rate is an aggregate too).

The seeded bootstrap lives in :mod:`lexeval.stats`; ``bootstrap_mean`` stays importable from
here.

>>> from lexeval.metrics.base import MetricResult
>>> rs = [MetricResult(s, {"counts": {"overlap": o, "reference": 4, "output": 2}})
...       for s, o in [(0.5, 2), (0.25, 1)]]
>>> agg = aggregate(rs, n_boot=200)
>>> agg.mean, agg.micro_recall, agg.micro_precision, agg.seed
(0.375, 0.375, 0.75, 12345)
>>> aggregate([True, True, False, True]).pass_rate
0.75
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, TypeAlias

from lexeval.metrics.base import MetricResult, fmeasure

__all__ = ["AggregateResult", "Scored", "aggregate", "aggregate_scores"]


def __getattr__(name: str) -> Any:
    """``bootstrap_mean`` from :mod:`lexeval.stats`, imported on first use (numpy and scipy
    stay unloaded until a bootstrap is asked for)."""
    if name == "bootstrap_mean":
        from lexeval.stats import bootstrap_mean

        return bootstrap_mean
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


Scored: TypeAlias = MetricResult | float | bool
"""What :func:`aggregate` accepts: a result, a plain score, or a pass/fail verdict."""


@dataclass(frozen=True)
class AggregateResult:
    """Mean score, pooled (micro) precision/recall/F when every result has ``counts``, a
    percentile bootstrap confidence interval of the mean with its recorded seed, and the pass
    rate with its Wilson interval when results carry a verdict (``passed``).

    ``n_passed`` and ``n_judged`` count the results that passed and those that carry a verdict
    (results measured without a threshold carry none); the pass rate is ``n_passed / n_judged``.
    ``n_parse_errors`` counts the judge results left out because the judge's reply could not be
    read (``info["parse_error"]``, score NaN): never counted as zeros.
    """

    n: int
    mean: float
    ci_low: float
    ci_high: float
    confidence: float
    n_boot: int
    seed: int
    micro_precision: float | None = None
    micro_recall: float | None = None
    micro_fmeasure: float | None = None
    n_judged: int = 0
    n_passed: int | None = None
    pass_rate: float | None = None
    pass_rate_ci_low: float | None = None
    pass_rate_ci_high: float | None = None
    n_parse_errors: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict."""
        return asdict(self)


def _as_result(item: object) -> MetricResult:
    """A :class:`MetricResult` from a result, a plain finite score or a bool verdict."""
    if isinstance(item, MetricResult):
        return item
    import numpy as np

    if isinstance(item, (bool, np.bool_)):
        verdict = bool(item)
        return MetricResult(float(verdict), passed=verdict)
    if isinstance(item, numbers.Real):
        value = float(item)
        if not math.isfinite(value):
            raise ValueError(f"results must hold finite scores, not {item!r}")
        return MetricResult(value)
    raise TypeError(
        f"results must hold MetricResult, float or bool values, not {type(item).__name__}"
    )


def aggregate(
    results: Iterable[Scored],
    *,
    seed: int = 12345,
    n_boot: int = 1000,
    confidence: float = 0.95,
) -> AggregateResult:
    """Summarise ``results``: mean, micro P/R/F from ``info["counts"]``, bootstrap CI, pass
    rate.

    ``results`` may mix :class:`MetricResult` objects, plain scores (floats) and verdicts
    (bools: ``True`` scores 1.0 and counts as passed). The pass rate is reported when at
    least one item carries a verdict, over those items, with a Wilson score interval at the
    same ``confidence``.

    The bootstrap resamples the scores ``n_boot`` times with ``numpy.random.default_rng(seed)``
    (scipy's percentile bootstrap); one result gives a zero-width interval. An empty list
    raises ValueError.

    Judge results whose reply could not be read (``info["parse_error"]``) are left out and
    counted in ``n_parse_errors``.

    >>> aggregate([MetricResult(1.0)]).ci_low
    1.0
    >>> agg = aggregate([MetricResult(1.0), MetricResult(float("nan"), {"parse_error": "no JSON"})])
    >>> agg.n, agg.mean, agg.n_parse_errors
    (1, 1.0, 1)
    """
    items = [_as_result(r) for r in results]
    if not items:
        raise ValueError("results is empty")
    kept = [r for r in items if "parse_error" not in r.info]
    parse_errors = len(items) - len(kept)
    if not kept:
        raise ValueError(f"all {parse_errors} results are parse errors: nothing to aggregate")
    if parse_errors:
        return replace(
            aggregate(kept, seed=seed, n_boot=n_boot, confidence=confidence),
            n_parse_errors=parse_errors,
        )
    pooled: tuple[int, int, int] | None = None
    counts = [r.info.get("counts") for r in items]
    if all(isinstance(c, dict) for c in counts):
        pooled = (
            sum(int(c["overlap"]) for c in counts if c is not None),
            sum(int(c["reference"]) for c in counts if c is not None),
            sum(int(c["output"]) for c in counts if c is not None),
        )
    verdicts = [r.passed for r in items if r.passed is not None]
    return aggregate_scores(
        [float(r.score) for r in items],
        pooled_counts=pooled,
        verdicts=(sum(verdicts), len(verdicts)) if verdicts else None,
        seed=seed,
        n_boot=n_boot,
        confidence=confidence,
    )


def aggregate_scores(
    scores: Sequence[float],
    *,
    pooled_counts: tuple[int, int, int] | None = None,
    verdicts: tuple[int, int] | None = None,
    seed: int = 12345,
    n_boot: int = 1000,
    confidence: float = 0.95,
) -> AggregateResult:
    """:func:`aggregate` from the scores in order, the counts already summed
    (``(overlap, reference, output)``, or None) and the verdicts already counted
    (``(passed, judged)``, or None): the path for results held in columns, such as
    :func:`lexeval.run.dask.aggregate_dask`, which sums where the results are.

    >>> agg = aggregate_scores([0.5, 0.25], pooled_counts=(3, 8, 4), n_boot=200)
    >>> agg.mean, agg.micro_precision, agg.micro_recall
    (0.375, 0.75, 0.375)
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be int, not {type(seed).__name__}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive int, not {n_boot!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    import numpy as np

    from lexeval.stats import bootstrap_mean

    values = scores if isinstance(scores, list) else [float(s) for s in scores]
    if not values:
        raise ValueError("results is empty")
    array = np.array(values, dtype=float)
    mean = float(array.mean())
    if len(values) == 1 or bool(np.all(array == array[0])):
        low = high = mean
    else:
        low, high, _ = bootstrap_mean(values, seed=seed, n_resamples=n_boot, confidence=confidence)

    micro_p = micro_r = micro_f = None
    if pooled_counts is not None:
        overlap, ref, out = pooled_counts
        micro_p = overlap / out if out else 0.0
        micro_r = overlap / ref if ref else 0.0
        micro_f = fmeasure(micro_p, micro_r)

    n_judged = 0
    n_passed = pass_rate = rate_low = rate_high = None
    if verdicts is not None and verdicts[1] > 0:
        from scipy.stats import binomtest

        n_passed, n_judged = verdicts
        pass_rate = n_passed / n_judged
        interval = binomtest(n_passed, n_judged).proportion_ci(
            confidence_level=confidence, method="wilson"
        )
        rate_low, rate_high = float(interval.low), float(interval.high)
    return AggregateResult(
        n=len(values),
        mean=mean,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        n_boot=n_boot,
        seed=seed,
        micro_precision=micro_p,
        micro_recall=micro_r,
        micro_fmeasure=micro_f,
        n_judged=n_judged,
        n_passed=n_passed,
        pass_rate=pass_rate,
        pass_rate_ci_low=rate_low,
        pass_rate_ci_high=rate_high,
    )
