"""Lexical assertions for tests: :func:`assert_lexical`, and records for dataset-driven tests.

With lexeval installed, pytest loads its plugin (:mod:`lexeval.pytest_plugin`): the marker
``@pytest.mark.lexeval_cases(FILE)`` runs a test once per record of FILE, handing each as the
``lexeval_case`` argument. Without pytest, :func:`load_cases` gives the same records for any
parametrization.

>>> result = assert_lexical("Paris is the capital of France", "The capital is Paris",
...                         metric="keyword_coverage", threshold=0.5)
>>> round(result.score, 3), result.passed
(0.668, True)
>>> assert_lexical("Water boils at 100 degrees Celsius", "It boils at 90 degrees",
...                threshold=0.5)
Traceback (most recent call last):
...
AssertionError: keyword_coverage 0.261 is below the threshold 0.500
  missing: water, 100, celsius
  matched: boil, degree
  reference: 'Water boils at 100 degrees Celsius'
  output: 'It boils at 90 degrees'
  settings: keyword_coverage|mode:default|...|lang:en|stem:no|v:... #...

The settings line is the short signature (:func:`lexeval.text.signature.short_signature`);
``LEXEVAL_FULL_SIGNATURE=1`` (or pytest's ``--lexeval-full-signature``) shows the full one,
which ``result.signature`` always holds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator, Sequence
from typing import Any

from lexeval.metrics.base import BaseMetric, MetricResult, verdict
from lexeval.registry import get_metric
from lexeval.run.batch import Record, read_records
from lexeval.text.signature import short_signature

__all__ = [
    "Record",
    "Recorded",
    "assert_lexical",
    "case_id",
    "failure_message",
    "load_cases",
    "recording",
]

_SHOWN = 12  # evidence entries shown in a failure message
_TEXT = 200  # characters of the reference and output shown


def _clip(text: str | Sequence[str]) -> str:
    if not isinstance(text, str):
        return "[" + ", ".join(_clip(t) for t in text) + "]"
    shown = repr(text[:_TEXT])
    return shown if len(text) <= _TEXT else f"{shown}... ({len(text)} characters)"


def _listing(values: Sequence[Any]) -> str:
    shown = ", ".join(str(v) for v in values[:_SHOWN])
    more = len(values) - _SHOWN
    return shown + (f", ... ({more} more)" if more > 0 else "") if values else "(none)"


def failure_message(
    name: str,
    result: MetricResult,
    threshold: float,
    reference: str | Sequence[str],
    output: str,
    *,
    full_signature: bool | None = None,
) -> str:
    """What :func:`assert_lexical` says when a score is below its threshold: the score, the
    threshold, the missing and matched keywords (or tokens, n-grams), the texts (clipped) and
    the settings: the short signature, or the full one when ``full_signature`` (default: the
    environment variable ``LEXEVAL_FULL_SIGNATURE`` set to ``1``)."""
    if full_signature is None:
        full_signature = os.environ.get("LEXEVAL_FULL_SIGNATURE", "") == "1"
    lines = [f"{name} {result.score:.3f} is below the threshold {threshold:.3f}"]
    for key in ("missing", "matched"):
        if key in result.info:
            lines.append(f"  {key}: {_listing(result.info[key])}")
    lines.append(f"  reference: {_clip(reference)}")
    lines.append(f"  output: {_clip(output)}")
    if result.signature and full_signature:
        lines.append(f"  signature: {result.signature}")
    elif result.signature:
        lines.append(f"  settings: {short_signature(result.signature)}")
    return "\n".join(lines)


def assert_lexical(
    reference: str | Sequence[str],
    output: str,
    *,
    metric: str | BaseMetric = "keyword_coverage",
    threshold: float | None = None,
    question: str | None = None,
    **options: Any,
) -> MetricResult:
    """Assert that ``output`` scores at least ``threshold`` against ``reference``; return the
    result. ``question``, if given, goes to metrics that read it (keyword coverage weighs the
    reference keywords it names less).

    ``metric`` is a name (built with ``options``, see ``lexeval metrics``) or a configured
    metric. ``threshold`` defaults to the metric's own ``threshold``, then to its
    ``recommended_threshold`` (0.3797 for default keyword coverage); a metric with neither needs
    one. The failure message shows the score, the threshold, the missing and matched keywords
    (tokens or n-grams for ROUGE and token-F1) and the metric's signature. The returned result's
    ``passed`` is the verdict at that threshold.
    """
    __tracebackhide__ = True  # pytest shows the caller's line
    if isinstance(metric, str):
        scorer = get_metric(metric, **options)
    elif isinstance(metric, BaseMetric):
        if options:
            raise TypeError("options apply to a metric given by name, not to a metric object")
        scorer = metric
    else:
        raise TypeError(f"metric must be a name or a metric, not {type(metric).__name__}")
    if threshold is None:
        threshold = scorer.threshold
    if threshold is None:
        threshold = scorer.recommended_threshold
    if threshold is None:
        raise ValueError(
            f"{scorer.name} has no recommended threshold for these settings: pass threshold="
        )
    result = scorer.measure(reference, output, question)
    result = dataclasses.replace(result, passed=verdict(result.score, threshold))
    for collected in _RECORDINGS:
        collected.append(
            Recorded(scorer.name, scorer.signature, reference, output, question, result, scorer)
        )
    if not result.passed:
        result = _with_evidence(scorer, result, reference, output, question)
        raise AssertionError(failure_message(scorer.name, result, threshold, reference, output))
    return result


@dataclasses.dataclass(frozen=True, slots=True)
class Recorded:
    """One :func:`assert_lexical` call seen by :func:`recording`: the metric's name and
    signature, the texts, the result (``passed``: the verdict at the threshold used) and the
    metric that measured it (for its corpus figure: BLEU, chrF, TER, WER, CER)."""

    metric: str
    signature: str
    reference: str | Sequence[str]
    output: str
    question: str | None
    result: MetricResult
    scorer: BaseMetric | None = dataclasses.field(default=None, compare=False, repr=False)


_RECORDINGS: list[list[Recorded]] = []


@contextlib.contextmanager
def recording() -> Iterator[list[Recorded]]:
    """Collect every :func:`assert_lexical` call made inside the block, passing or failing
    (the pytest plugin's ``--lexeval-save`` saves them in the run store).

    >>> with recording() as seen:
    ...     _ = assert_lexical("the cat sat", "the cat sat", metric="rouge1", threshold=0.5)
    >>> [(r.metric, r.result.score, r.result.passed) for r in seen]
    [('rouge1', 1.0, True)]
    """
    collected: list[Recorded] = []
    _RECORDINGS.append(collected)
    try:
        yield collected
    finally:
        _RECORDINGS.remove(collected)


def _with_evidence(
    scorer: BaseMetric,
    result: MetricResult,
    reference: str | Sequence[str],
    output: str,
    question: str | None,
) -> MetricResult:
    """``result`` with the matched and missing lists, measured again by ``scorer`` listing its
    evidence when it leaves them out (ROUGE and token-F1 list them only when asked:
    :meth:`~lexeval.metrics.base.BaseMetric.with_evidence`)."""
    if "missing" in result.info or scorer.evidence_limit != 0:
        return result
    info = scorer.with_evidence(_EVIDENCE_SHOWN).measure(reference, output, question).info
    return dataclasses.replace(result, info=info)


_EVIDENCE_SHOWN = 20  # matched and missing entries a failure message asks for


def load_cases(
    path: str | os.PathLike[str],
    *,
    reference_field: str | None = None,
    output_field: str | None = None,
    id_field: str | None = None,
) -> list[Record]:
    """The records of a JSONL, JSON, CSV or TSV file (:func:`lexeval.run.batch.read_records`), for
    ``pytest.mark.parametrize("case", load_cases(FILE), ids=case_id)``."""
    return read_records(
        path, reference_field=reference_field, output_field=output_field, id_field=id_field
    )


def case_id(record: Record) -> str:
    """A test id for a record: its id, else ``line<N>``.

    >>> case_id(Record(3, None, "a", "b")), case_id(Record(3, "q7", "a", "b"))
    ('line3', 'q7')
    """
    return f"line{record.line}" if record.id is None else str(record.id)
