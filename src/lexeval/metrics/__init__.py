"""lexeval's metrics: keyword coverage, token F1 and ROUGE, with exact compatibility modes.

>>> sorted(list_metrics())[5:7]
['keyword_coverage', 'lexical_correctness']
>>> get_metric("keyword_coverage", compat="mastra").measure("React hooks", "react").score
0.5
"""

from __future__ import annotations

from lexeval.metrics.aggregate import AggregateResult, aggregate
from lexeval.metrics.base import BaseMetric, Metric, MetricResult, get_metric, list_metrics
from lexeval.metrics.correctness import LexicalCorrectnessMetric
from lexeval.metrics.keyword import KeywordCoverageMetric
from lexeval.metrics.rouge import RougeMetric, RougeScorer
from lexeval.metrics.nlp import (
    CompletenessMetric,
    ContentSimilarityMetric,
    TextualDifferenceMetric,
    ToneConsistencyMetric,
)
from lexeval.metrics.token_f1 import TokenF1Metric

__all__ = [
    "AggregateResult",
    "BaseMetric",
    "CompletenessMetric",
    "ContentSimilarityMetric",
    "KeywordCoverageMetric",
    "LexicalCorrectnessMetric",
    "Metric",
    "MetricResult",
    "RougeMetric",
    "RougeScorer",
    "TextualDifferenceMetric",
    "TokenF1Metric",
    "ToneConsistencyMetric",
    "aggregate",
    "get_metric",
    "list_metrics",
]


def _load_all() -> None:
    """Every metric module registers itself on import; they are imported above, except the
    judges (:mod:`lexeval.judge.registry`), imported here on first use."""
    import lexeval.judge.registry  # noqa: F401
