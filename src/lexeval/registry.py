"""Every metric by name, the one registry: lexeval's lexical metrics (:mod:`lexeval.metrics`)
and the LLM judges (:mod:`lexeval.judge.registry`), each registered with
:func:`lexeval.metrics.base.register_metric`; ``lexeval.get_metric`` and
``lexeval.list_metrics`` are the functions below.

>>> get_metric("token_f1").name
'token_f1'
>>> [name for name in list_metrics() if name.startswith("judge:")]
['judge:correctness', 'judge:pairwise', 'judge:rubric']
"""

from __future__ import annotations

from typing import Any

import lexeval.judge.registry  # noqa: F401  (registers the LLM judges)
from lexeval.metrics.base import BaseMetric, metric_factory, registered_metrics

__all__ = ["REPORT_EVIDENCE_LIMIT", "get_metric", "get_reporting_metric", "list_metrics"]

#: How many matched and missing tokens or n-grams ROUGE and token-F1 list in reports (the
#: command line, the DeepEval, Ragas and promptfoo adapters). In Python they list none unless
#: asked (``evidence_limit=N``): the lists cost most of a call.
REPORT_EVIDENCE_LIMIT = 20


def get_metric(name: str, **options: Any) -> BaseMetric:
    """A metric or an LLM judge by name, configured with ``options``.

    ``rougeN`` works for any positive ``N`` (``"rouge3"``, or ``"rougeN"`` with ``n=3``); the
    judges' options are in :mod:`lexeval.judge.registry`.

    >>> get_metric("rouge2", compat="rouge-score").signature.split("|")[0]
    'rouge2'
    >>> get_metric("token_f1", compat="squad").measure("Denver Broncos", "the Broncos").score
    0.6666666666666666
    """
    factory = metric_factory(name)
    if factory is None:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(list_metrics())}")
    return factory(**options)


def list_metrics() -> list[str]:
    """Every metric name (``rougeN`` stands for any ``rouge<n>``).

    >>> list_metrics()
    ['completeness', 'content_similarity', 'judge:correctness', 'judge:pairwise', 'judge:rubric',
     'keyword_coverage', 'lexical_correctness', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum',
     'rougeN', 'textual_difference', 'token_f1', 'tone_consistency']
    """
    return registered_metrics()


def get_reporting_metric(name: str, **options: Any) -> BaseMetric:
    """:func:`get_metric` for a report: listing its evidence
    (:meth:`~lexeval.metrics.base.BaseMetric.with_evidence`, :data:`REPORT_EVIDENCE_LIMIT`
    items) unless ``options`` set ``evidence_limit``.

    >>> get_reporting_metric("rouge1").measure("the cat sat", "the cat").info["missing"]
    ['sat']
    >>> "missing" in get_metric("rouge1").measure("the cat sat", "the cat").info
    False
    """
    metric = get_metric(name, **options)
    return metric if "evidence_limit" in options else metric.with_evidence(REPORT_EVIDENCE_LIMIT)
