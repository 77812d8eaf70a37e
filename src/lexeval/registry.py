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
from lexeval.normalize import Normalizer, shared_normalizer
from lexeval.text.resources import check_language

__all__ = ["REPORT_EVIDENCE_LIMIT", "get_metric", "get_reporting_metric", "list_metrics"]

#: How many matched and missing tokens or n-grams ROUGE and token-F1 list in reports (the
#: command line, the DeepEval, Ragas and promptfoo adapters). In Python they list none unless
#: asked (``evidence_limit=N``): the lists cost most of a call.
REPORT_EVIDENCE_LIMIT = 20


def get_metric(name: str, *, language: str | None = None, **options: Any) -> BaseMetric:
    """A metric or an LLM judge by name, configured with ``options`` (see
    :func:`lexeval.metrics.get_metric` and :mod:`lexeval.judge.registry`).

    ``language``: the metric's normalizer in that language (its preset, or the ``normalizer``
    preset named in ``options``): the same metric as ``normalizer=Normalizer(preset,
    language=language)``, the language in its signature (``lexeval score --language``). A
    metric that does not use lexeval's normalizer (a ``compat`` mode, lexical_correctness, the
    judges) takes no language: ValueError, as for an unknown code.

    >>> get_metric("rouge2", compat="rouge-score").signature.split("|")[0]
    'rouge2'
    >>> "|lang:de|" in get_metric("keyword_coverage", language="de").signature
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be str, not {type(name).__name__}")
    judge = JUDGES.get(name)
    if judge is not None:
        metric: BaseMetric = judge(**options)
    elif not known_metric(name):
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(list_metrics())}")
    else:
        metric = get_lexical_metric(name, **options)
    if language is None:
        return metric
    normalizer = _language_normalizer(name, metric, language, options)
    return get_metric(name, **{**options, "normalizer": normalizer})


def _language_normalizer(
    name: str, metric: BaseMetric, language: str, options: dict[str, Any]
) -> Normalizer:
    """The shared normalizer of ``metric``'s preset in ``language`` (errors: see get_metric)."""
    check_language(language)
    given = options.get("normalizer")
    if given is not None and not isinstance(given, str):
        raise ValueError(
            f"metric {name}: give the language in the normalizer (Normalizer(..., "
            "language=...)) or as language=, not both"
        )
    normalizer = getattr(metric, "normalizer", None)
    if not isinstance(normalizer, Normalizer) or normalizer.config.compat is not None:
        raise ValueError(
            f"metric {name} takes no language in these settings: it does not use lexeval's "
            "normalizer (a compat mode, a fixed model or an LLM judge)"
        )
    return shared_normalizer(normalizer.preset, language)


def list_metrics() -> list[str]:
    """Every metric name (``rougeN`` stands for any ``rouge<n>``).

    >>> list_metrics()
    ['completeness', 'content_similarity', 'judge:correctness', 'judge:pairwise', 'judge:rubric',
     'keyword_coverage', 'lexical_correctness', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum',
     'rougeN', 'textual_difference', 'token_f1', 'tone_consistency']
    """
    return sorted([*list_lexical_metrics(), *JUDGES])


def get_reporting_metric(name: str, *, language: str | None = None, **options: Any) -> BaseMetric:
    """:func:`get_metric` for a report: ROUGE and token-F1 list their evidence
    (:data:`REPORT_EVIDENCE_LIMIT` items) unless ``options`` set ``evidence_limit``.

    >>> get_reporting_metric("rouge1").measure("the cat sat", "the cat").info["missing"]
    ['sat']
    >>> "missing" in get_metric("rouge1").measure("the cat sat", "the cat").info
    False
    """
    metric = get_metric(name, language=language, **options)
    if getattr(metric, "evidence_limit", None) == 0 and "evidence_limit" not in options:
        metric = get_metric(
            name, language=language, **options, evidence_limit=REPORT_EVIDENCE_LIMIT
        )
    return metric
