"""What the framework adapters share: a metric with its threshold, and a one-line reason.

>>> scorer, threshold = metric_and_threshold("keyword_coverage", None, {})
>>> threshold
0.3797
>>> result = scorer.measure("Paris is the capital of France", "The capital is Paris")
>>> reason(scorer.name, result, threshold)
'keyword_coverage 0.668 >= threshold 0.380; missing: france; matched: paris, capital'
>>> reason(scorer.name, result, None)
'keyword_coverage 0.668; missing: france; matched: paris, capital'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexeval.metrics.base import BaseMetric, MetricResult, verdict
from lexeval.registry import get_reporting_metric

__all__ = ["metric_and_threshold", "metric_by_name", "reason"]

_SHOWN = 10


def metric_by_name(metric: str | BaseMetric, options: Mapping[str, Any]) -> BaseMetric:
    """The metric named (built with ``options``), or the metric object as given."""
    if isinstance(metric, BaseMetric):
        if options:
            raise TypeError("options apply to a metric given by name, not to a metric object")
        return metric
    if isinstance(metric, str):
        return get_reporting_metric(metric, **options)  # with ROUGE/token-F1 evidence
    raise TypeError(f"metric must be a name or a metric, not {type(metric).__name__}")


def metric_and_threshold(
    metric: str | BaseMetric, threshold: float | None, options: Mapping[str, Any]
) -> tuple[BaseMetric, float]:
    """A metric (by name with ``options``, or as given) and the threshold to apply: the one
    given, else the metric's own, else its recommended one; ValueError when there is none."""
    scorer = metric_by_name(metric, options)
    chosen = threshold if threshold is not None else scorer.threshold
    if chosen is None:
        chosen = scorer.recommended_threshold
    if chosen is None:
        raise ValueError(
            f"{scorer.name} has no recommended threshold for these settings: give a threshold"
        )
    if isinstance(chosen, bool) or not isinstance(chosen, (int, float)):
        raise TypeError(f"threshold must be a number, not {type(chosen).__name__}")
    return scorer, float(chosen)


def _listing(values: list[Any]) -> str:
    shown = ", ".join(str(v) for v in values[:_SHOWN])
    return shown + (f", ... ({len(values) - _SHOWN} more)" if len(values) > _SHOWN else "")


def reason(name: str, result: MetricResult, threshold: float | None) -> str:
    """One line: the score (against the threshold, if any), then the missing and matched
    evidence."""
    parts = [f"{name} {result.score:.3f}"]
    if threshold is not None:
        sign = ">=" if verdict(result.score, threshold) else "<"
        parts[0] += f" {sign} threshold {threshold:.3f}"
    for key in ("missing", "matched"):
        values = result.info.get(key)
        if isinstance(values, list) and values:
            parts.append(f"{key}: {_listing(values)}")
    return "; ".join(parts)
