"""lexeval's metrics: keyword coverage, token F1 and ROUGE, with exact compatibility modes.

Importing this package loads no metric: each module loads on first use of one of its names
(``from lexeval.metrics import RougeScorer`` loads ROUGE alone), and the registry
(:func:`get_metric`, :func:`list_metrics`) loads them all; the LLM judges are in
:mod:`lexeval.registry`.

>>> sorted(list_metrics())[2:4]
['keyword_coverage', 'lexical_correctness']
>>> get_metric("keyword_coverage", compat="mastra").measure("React hooks", "react").score
0.5
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lexeval._build import note_build

# aggregate is imported here, not lazily: importing the submodule lexeval.metrics.aggregate
# would otherwise bind the name ``aggregate`` of this package to the module
from lexeval.metrics.aggregate import AggregateResult, aggregate
from lexeval.metrics.base import BaseMetric, Metric, MetricResult, get_metric, list_metrics

note_build()  # the first use of a metric says when the compiled build is missing

if TYPE_CHECKING:
    from lexeval.metrics.correctness import LexicalCorrectnessMetric
    from lexeval.metrics.keyword import KeywordCoverageMetric
    from lexeval.metrics.nlp import (
        CompletenessMetric,
        ContentSimilarityMetric,
        TextualDifferenceMetric,
        ToneConsistencyMetric,
    )
    from lexeval.metrics.rouge import RougeMetric, RougeScorer
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

#: Where each lazily loaded name lives.
_LAZY = {
    "KeywordCoverageMetric": "lexeval.metrics.keyword",
    "LexicalCorrectnessMetric": "lexeval.metrics.correctness",
    "RougeMetric": "lexeval.metrics.rouge",
    "RougeScorer": "lexeval.metrics.rouge",
    "TokenF1Metric": "lexeval.metrics.token_f1",
    "CompletenessMetric": "lexeval.metrics.nlp",
    "ContentSimilarityMetric": "lexeval.metrics.nlp",
    "TextualDifferenceMetric": "lexeval.metrics.nlp",
    "ToneConsistencyMetric": "lexeval.metrics.nlp",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lexeval.metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
