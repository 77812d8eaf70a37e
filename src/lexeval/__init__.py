"""lexeval: lexical evaluation of LLM output on one shared, reproducible normalization layer.

Importing lexeval is cheap: spaCy and the metrics load on first use.

>>> import lexeval
>>> lexeval.__version__
'0.1.0'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lexeval._version import __version__

if TYPE_CHECKING:
    from lexeval.frame import score_frame
    from lexeval.metrics import (
        CompletenessMetric,
        ContentSimilarityMetric,
        KeywordCoverageMetric,
        LexicalCorrectnessMetric,
        MetricResult,
        RougeMetric,
        RougeScorer,
        TextualDifferenceMetric,
        TokenF1Metric,
        ToneConsistencyMetric,
    )
    from lexeval.metrics.aggregate import aggregate
    from lexeval.metrics.semantic import SemanticSimilarityMetric
    from lexeval.normalize import Normalizer
    from lexeval.registry import get_metric, list_metrics
    from lexeval.run import measure_many

__all__ = [
    "CompletenessMetric",
    "ContentSimilarityMetric",
    "KeywordCoverageMetric",
    "LexicalCorrectnessMetric",
    "MetricResult",
    "Normalizer",
    "RougeMetric",
    "RougeScorer",
    "SemanticSimilarityMetric",
    "TextualDifferenceMetric",
    "TokenF1Metric",
    "ToneConsistencyMetric",
    "__version__",
    "aggregate",
    "get_metric",
    "list_metrics",
    "measure_many",
    "score_frame",
]

_LAZY = {
    "Normalizer": "lexeval.normalize",
    "CompletenessMetric": "lexeval.metrics",
    "ContentSimilarityMetric": "lexeval.metrics",
    "KeywordCoverageMetric": "lexeval.metrics",
    "LexicalCorrectnessMetric": "lexeval.metrics",
    "MetricResult": "lexeval.metrics",
    "RougeMetric": "lexeval.metrics",
    "RougeScorer": "lexeval.metrics",
    "TextualDifferenceMetric": "lexeval.metrics",
    "TokenF1Metric": "lexeval.metrics",
    "ToneConsistencyMetric": "lexeval.metrics",
    "SemanticSimilarityMetric": "lexeval.metrics.semantic",  # the optional semantic extra
    "aggregate": "lexeval.metrics",
    "get_metric": "lexeval.registry",
    "list_metrics": "lexeval.registry",
    "measure_many": "lexeval.run",
    "score_frame": "lexeval.frame",
}


#: Subpackages and modules reachable as attributes (``import lexeval; lexeval.cards``).
_SUBMODULES = frozenset(
    {"batch", "cards", "cli", "compat", "frame", "integrations", "io", "judge", "meta"}
    | {"metrics", "normalize", "run", "stats", "testing"}
)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        submodule = importlib.import_module(f"lexeval.{name}")
        globals()[name] = submodule
        return submodule
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lexeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
