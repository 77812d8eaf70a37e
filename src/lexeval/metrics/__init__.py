"""lexeval's metrics: keyword coverage, token F1, ROUGE, BLEU, chrF and TER, with exact
compatibility modes.

Importing this package loads no metric: each module loads on first use of one of its names
(``from lexeval.metrics import RougeScorer`` loads ROUGE alone); the registry
(:func:`lexeval.get_metric`, :func:`lexeval.list_metrics`, with the LLM judges) loads them all.

>>> KeywordCoverageMetric(compat="mastra").measure("React hooks", "react").score
0.5
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lexeval._build import note_build

# aggregate is imported here, not lazily: importing the submodule lexeval.metrics.aggregate
# would otherwise bind the name ``aggregate`` of this package to the module
from lexeval.metrics.aggregate import AggregateResult, aggregate
from lexeval.metrics.base import BaseMetric, Metric, MetricResult

note_build()  # the first use of a metric says when the compiled build is missing

if TYPE_CHECKING:
    from lexeval.metrics.correctness import LexicalCorrectnessMetric
    from lexeval.metrics.error_rate import CerMetric, WerMetric
    from lexeval.metrics.exact_match import ExactMatchMetric
    from lexeval.metrics.keyword import KeywordCoverageMetric
    from lexeval.metrics.mt import BleuMetric, ChrfMetric, TerMetric
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
    "BleuMetric",
    "CerMetric",
    "ChrfMetric",
    "CompletenessMetric",
    "ContentSimilarityMetric",
    "ExactMatchMetric",
    "KeywordCoverageMetric",
    "LexicalCorrectnessMetric",
    "Metric",
    "MetricResult",
    "RougeMetric",
    "RougeScorer",
    "TerMetric",
    "TextualDifferenceMetric",
    "TokenF1Metric",
    "ToneConsistencyMetric",
    "WerMetric",
    "aggregate",
]

#: Where each lazily loaded name lives.
_LAZY = {
    "KeywordCoverageMetric": "lexeval.metrics.keyword",
    "LexicalCorrectnessMetric": "lexeval.metrics.correctness",
    "RougeMetric": "lexeval.metrics.rouge",
    "RougeScorer": "lexeval.metrics.rouge",
    "TokenF1Metric": "lexeval.metrics.token_f1",
    "BleuMetric": "lexeval.metrics.mt",
    "ChrfMetric": "lexeval.metrics.mt",
    "TerMetric": "lexeval.metrics.mt",
    "CompletenessMetric": "lexeval.metrics.nlp",
    "ContentSimilarityMetric": "lexeval.metrics.nlp",
    "TextualDifferenceMetric": "lexeval.metrics.nlp",
    "ToneConsistencyMetric": "lexeval.metrics.nlp",
    "WerMetric": "lexeval.metrics.error_rate",
    "CerMetric": "lexeval.metrics.error_rate",
    "ExactMatchMetric": "lexeval.metrics.exact_match",
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
