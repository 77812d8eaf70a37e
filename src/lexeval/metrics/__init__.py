"""lexeval's metrics: keyword coverage, token F1 and ROUGE, with exact compatibility modes.

>>> sorted(list_metrics())[:2]
['keyword_coverage', 'lexical_correctness']
>>> get_metric("keyword_coverage", compat="mastra").measure("React hooks", "react").score
0.5
"""

from __future__ import annotations

from lexeval.metrics.aggregate import AggregateResult, aggregate
from lexeval.metrics.base import BaseMetric, Metric, MetricResult, get_metric, list_metrics
from lexeval.metrics.correctness import LexicalCorrectnessMetric
from lexeval.metrics.keyword import KeywordCoverageMetric
from lexeval.metrics.rouge import RougeMetric
from lexeval.metrics.token_f1 import TokenF1Metric

__all__ = [
    "AggregateResult",
    "BaseMetric",
    "KeywordCoverageMetric",
    "LexicalCorrectnessMetric",
    "Metric",
    "MetricResult",
    "RougeMetric",
    "TokenF1Metric",
    "aggregate",
    "get_metric",
    "list_metrics",
]
