"""Every metric by name: lexeval's lexical metrics (:mod:`lexeval.metrics`) and the LLM judges
(:mod:`lexeval.judge.registry`), for ``lexeval.get_metric``, the CLI and the adapters.

>>> get_metric("token_f1").name
'token_f1'
>>> [name for name in list_metrics() if name.startswith("judge:")]
['judge:correctness', 'judge:pairwise', 'judge:rubric']
"""

from __future__ import annotations

from typing import Any

from lexeval.judge.registry import JUDGES
from lexeval.metrics.base import BaseMetric, known_metric
from lexeval.metrics.base import get_metric as get_lexical_metric
from lexeval.metrics.base import list_metrics as list_lexical_metrics

__all__ = ["get_metric", "list_metrics"]


def get_metric(name: str, **options: Any) -> BaseMetric:
    """A metric or an LLM judge by name, configured with ``options`` (see
    :func:`lexeval.metrics.get_metric` and :mod:`lexeval.judge.registry`).

    >>> get_metric("rouge2", compat="rouge-score").signature.split("|")[0]
    'rouge2'
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be str, not {type(name).__name__}")
    judge = JUDGES.get(name)
    if judge is not None:
        return judge(**options)
    if not known_metric(name):
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(list_metrics())}")
    return get_lexical_metric(name, **options)


def list_metrics() -> list[str]:
    """Every metric name (``rougeN`` stands for any ``rouge<n>``).

    >>> list_metrics()
    ['completeness', 'content_similarity', 'judge:correctness', 'judge:pairwise', 'judge:rubric',
     'keyword_coverage', 'lexical_correctness', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum',
     'rougeN', 'textual_difference', 'token_f1', 'tone_consistency']
    """
    return sorted([*list_lexical_metrics(), *JUDGES])
