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

import inspect
import typing
from functools import partial
from typing import Any

import lexeval.judge.registry  # noqa: F401  (registers the LLM judges)
from lexeval.judge.registry import BACKEND_OPTIONS
from lexeval.metrics.base import BaseMetric, metric_factory, registered_metrics
from lexeval.normalize import Normalizer, shared_normalizer
from lexeval.text.resources import check_language

__all__ = [
    "REPORT_EVIDENCE_LIMIT",
    "get_metric",
    "get_reporting_metric",
    "list_metrics",
    "metric_options",
]

#: How many matched and missing tokens or n-grams ROUGE and token-F1 list in reports (the
#: command line, the DeepEval, Ragas and promptfoo adapters). In Python they list none unless
#: asked (``evidence_limit=N``): the lists cost most of a call.
REPORT_EVIDENCE_LIMIT = 20


def get_metric(name: str, *, language: str | None = None, **options: Any) -> BaseMetric:
    """A metric or an LLM judge by name, configured with ``options``; ``language``: the
    metric's normalizer preset in that language (``Normalizer(preset, language=...)``).

    ``rougeN`` works for any positive ``N`` (``"rouge3"``, or ``"rougeN"`` with ``n=3``); the
    judges' options are in :mod:`lexeval.judge.registry`.


    ``language``: the metric's normalizer in that language (its preset, or the ``normalizer``
    preset named in ``options``): the same metric as ``normalizer=Normalizer(preset,
    language=language)``, the language in its signature (``lexeval score --language``). A
    metric that does not use lexeval's normalizer (a ``compat`` mode, lexical_correctness, the
    judges) takes no language: ValueError, as for an unknown code.

    >>> get_metric("rouge2", compat="rouge-score").signature.split("|")[0]
    'rouge2'
    >>> get_metric("token_f1", compat="squad").measure("Denver Broncos", "the Broncos").score
    0.6666666666666666
    >>> "|lang:de|" in get_metric("keyword_coverage", language="de").signature
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be str, not {type(name).__name__}")
    factory = metric_factory(name)
    if factory is None:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(list_metrics())}")
    metric = factory(**options)
    if language is None:
        return metric
    normalizer = _language_normalizer(name, metric, language, options)
    return factory(**{**options, "normalizer": normalizer})


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
    ['bleu', 'cer', 'chrf', 'completeness', 'content_similarity', 'exact_match',
     'judge:correctness', 'judge:pairwise', 'judge:rubric', 'keyword_coverage',
     'lexical_correctness', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'rougeN', 'ter',
     'textual_difference', 'token_f1', 'tone_consistency', 'wer']
    """
    return registered_metrics()


def get_reporting_metric(name: str, *, language: str | None = None, **options: Any) -> BaseMetric:
    """:func:`get_metric` for a report: listing its evidence
    (:meth:`~lexeval.metrics.base.BaseMetric.with_evidence`, :data:`REPORT_EVIDENCE_LIMIT`
    items) unless ``options`` set ``evidence_limit``.


    >>> get_reporting_metric("rouge1").measure("the cat sat", "the cat").info["missing"]
    ['sat']
    >>> "missing" in get_metric("rouge1").measure("the cat sat", "the cat").info
    False
    """
    metric = get_metric(name, language=language, **options)
    return metric if "evidence_limit" in options else metric.with_evidence(REPORT_EVIDENCE_LIMIT)


def metric_options(name: str) -> dict[str, tuple[str, ...]]:
    """The options ``get_metric(name, ...)`` takes, read from the metric class's constructor
    (keyword parameters), each with its choices when its type lists them (``Literal``); a
    judge's backend options too. What ``lexeval score --help`` lists, so that it cannot fall
    behind the code.

    >>> options = metric_options("keyword_coverage")
    >>> options["weighting"], options["compat"]
    (('frequency', 'uniform'), ('mastra', 'mastra-scorer'))
    >>> {"task", "extra_penalty", "near_credit", "conflict_penalty"} <= set(options)
    True
    >>> "model" in metric_options("judge:correctness")
    True
    """
    factory = metric_factory(name)
    if factory is None:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(list_metrics())}")
    judge = getattr(factory, "judge_class", None)
    if judge is not None:
        found: dict[str, tuple[str, ...]] = dict.fromkeys(BACKEND_OPTIONS, ())
        found.update(_init_options(judge))
        return found
    target = factory.func if isinstance(factory, partial) else factory  # rouge<n>: rougeN's
    cls = (
        target
        if isinstance(target, type)
        else _annotation(target, inspect.signature(target).return_annotation)
    )
    if not isinstance(cls, type):
        return {}
    options = _init_options(cls)
    if name == "rougeN":
        options = {"n": (), **options}
    return options


def _init_options(cls: type) -> dict[str, tuple[str, ...]]:
    """The keyword parameters of ``cls.__init__`` with the ``Literal`` choices of each."""
    found: dict[str, tuple[str, ...]] = {}
    init = getattr(cls, "__init__")  # noqa: B009 (mypy: __init__ of a type object)
    for parameter in inspect.signature(init).parameters.values():
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            continue
        if parameter.name == "variant":  # an older spelling of compat, kept for callers
            continue
        found[parameter.name] = _choices(_annotation(init, parameter.annotation))
    return found


def _annotation(function: Any, annotation: Any) -> Any:
    """An annotation evaluated in its function's module (None when it names something that
    module imports for type checking only: such a type lists no choices)."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, getattr(function, "__globals__", {}))
    except Exception:  # a name imported under TYPE_CHECKING only
        return None


def _choices(hint: Any) -> tuple[str, ...]:
    """The strings a type hint's ``Literal`` parts allow (through unions), in order."""
    if typing.get_origin(hint) is typing.Literal:
        return tuple(str(a) for a in typing.get_args(hint))
    found: list[str] = []
    for arg in typing.get_args(hint):
        found += [c for c in _choices(arg) if c not in found]
    return tuple(found)
