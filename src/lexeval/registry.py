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

__all__ = ["REPORT_EVIDENCE_LIMIT", "get_metric", "get_reporting_metric", "list_metrics"]

#: How many matched and missing tokens or n-grams ROUGE and token-F1 list in reports (the
#: command line, the DeepEval, Ragas and promptfoo adapters). In Python they list none unless
#: asked (``evidence_limit=N``): the lists cost most of a call.
REPORT_EVIDENCE_LIMIT = 20


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
    ['bleu', 'chrf', 'completeness', 'content_similarity', 'judge:correctness', 'judge:pairwise',
     'judge:rubric', 'keyword_coverage', 'lexical_correctness', 'rouge1', 'rouge2', 'rougeL',
     'rougeLsum', 'rougeN', 'ter', 'textual_difference', 'token_f1', 'tone_consistency']
    """
    return sorted([*list_lexical_metrics(), *JUDGES])


def get_reporting_metric(name: str, **options: Any) -> BaseMetric:
    """:func:`get_metric` for a report: ROUGE and token-F1 list their evidence
    (:data:`REPORT_EVIDENCE_LIMIT` items) unless ``options`` set ``evidence_limit``.

    >>> get_reporting_metric("rouge1").measure("the cat sat", "the cat").info["missing"]
    ['sat']
    >>> "missing" in get_metric("rouge1").measure("the cat sat", "the cat").info
    False
    """
    metric = get_metric(name, **options)
    if getattr(metric, "evidence_limit", None) == 0 and "evidence_limit" not in options:
        metric = get_metric(name, **options, evidence_limit=REPORT_EVIDENCE_LIMIT)
    return metric
