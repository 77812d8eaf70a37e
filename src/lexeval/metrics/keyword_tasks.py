"""Task profiles of keyword coverage: named settings of lenient matching's knobs, per family.

A :class:`TaskProfile` is plain data (printable, comparable). :data:`PROFILES` holds one per
task; ``KeywordCoverageMetric(task=...)`` uses it, and explicit knobs override its values.
Without a task the metric picks one per call with :func:`choose_task` (``task="auto"``).

>>> PROFILES["summary"]  # doctest: +NORMALIZE_WHITESPACE
TaskProfile(name='summary', weighting='uniform', extra_penalty=0.0, near_credit=0.0,
            conflict_penalty=0.0, question_weight=0.25)
>>> choose_task([3], 40, asked=False), choose_task([30], 35, asked=False)
('short_answer', 'summary')
>>> choose_task([30], 600, asked=False), choose_task([30, 28], 35, asked=True)
('source_support', 'long_answer')
>>> choose_task([6], 90, asked=False)  # a one-sentence summary against its article
'source_support'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

__all__ = [
    "AUTO_RULE",
    "PROFILES",
    "SHORT_MAX_KEYWORDS",
    "SHORT_SOURCE_RATIO",
    "SOURCE_MIN_INPUT",
    "SOURCE_MIN_OUTPUT",
    "SOURCE_RATIO",
    "TASKS",
    "Task",
    "TaskProfile",
    "choose_task",
]

Task = Literal["short_answer", "summary", "source_support", "long_answer", "prompt"]
Weighting = Literal["frequency", "uniform"]
TASKS: tuple[str, ...] = ("short_answer", "summary", "source_support", "long_answer", "prompt")


@dataclass(frozen=True)
class TaskProfile:
    """The settings of lenient keyword matching for one task family (see docs/metrics.md)."""

    name: str
    weighting: Weighting = "frequency"
    extra_penalty: float = 0.05
    near_credit: float = 0.5
    conflict_penalty: float = 1.0
    question_weight: float = 0.25

    def with_options(self, **options: Any) -> TaskProfile:
        """This profile with the knobs in ``options`` that are not None replaced."""
        changed = {k: v for k, v in options.items() if v is not None}
        return replace(self, **changed) if changed else self

    @property
    def signature(self) -> str:
        """The knobs as a signature part.

        >>> PROFILES["short_answer"].signature
        'extra:0.05,near:0.5,conflict:1,question:0.25'
        """
        return (
            f"extra:{self.extra_penalty:g},near:{self.near_credit:g},"
            f"conflict:{self.conflict_penalty:g},question:{self.question_weight:g}"
        )


#: One profile per task. ``short_answer``: tuned on EVOUNA NQ's develop half, confirmed on the
#: other (``benchmarks/quality/keyword_defaults.py``). ``summary`` and ``source_support``:
#: chosen on a develop half of SummEval's articles and confirmed on the other half
#: (``benchmarks/quality/families.py --halves``). ``long_answer`` and ``prompt`` have no
#: public human set here: they follow measurements reported on held-out sets (long answers: uniform
#: weighting costs .06, near credit off gains .013) and the shape of the task (a prompt is
#: covered by a response that says much more: no extra-keyword or conflict penalty).
PROFILES: dict[str, TaskProfile] = {
    "short_answer": TaskProfile("short_answer"),
    "summary": TaskProfile(
        "summary", weighting="uniform", extra_penalty=0.0, near_credit=0.0, conflict_penalty=0.0
    ),
    "source_support": TaskProfile(
        "source_support", extra_penalty=0.0, near_credit=0.0, conflict_penalty=0.0
    ),
    "long_answer": TaskProfile("long_answer", near_credit=0.0, conflict_penalty=0.0),
    "prompt": TaskProfile("prompt", extra_penalty=0.0, near_credit=0.0, conflict_penalty=0.0),
}

#: A reference of at most this many keywords is a short answer (EVOUNA and NQ301 gold answers
#: have at most a handful; a one-sentence summary has more).
SHORT_MAX_KEYWORDS = 8
#: A source: an output of at least :data:`SOURCE_MIN_OUTPUT` keywords and at least
#: :data:`SOURCE_RATIO` times the (shortest) reference's, a reference of at least
#: :data:`SOURCE_MIN_INPUT` (a summary or claim checked against its article). Chosen on FRANK
#: (96% of its 2,246 summary-article pairs) and EVOUNA NQ (the 4: none of its 15,098
#: gold-answer pairs), confirmed on SummEval (92% of its summary-article pairs, none of its
#: 17,600 reference-summary pairs), NQ301 (none) and EVOUNA TQ (4 of 9,690 answers):
#: ``benchmarks/quality/families.py --source``.
SOURCE_RATIO = 2.5
SOURCE_MIN_OUTPUT = 60
SOURCE_MIN_INPUT = 4
#: The earlier rule, after the short-answer one: an output of this many times a longer
#: reference's keywords is its source.
SHORT_SOURCE_RATIO = 4.0
#: The rule of :func:`choose_task`, as it appears in the signature.
AUTO_RULE = (
    f"task:auto(source>={SOURCE_RATIO:g}x&out>={SOURCE_MIN_OUTPUT}&in>={SOURCE_MIN_INPUT},"
    f"short<={SHORT_MAX_KEYWORDS},source>={SHORT_SOURCE_RATIO:g}x)"
)


def choose_task(
    reference_keywords: Sequence[int] | int, output_keywords: int, *, asked: bool
) -> str:
    """The task family of one call, from the keyword counts of its references (or of its one
    reference, an int) and its output and whether a question came with it (``asked``):

    1. the output has at least :data:`SOURCE_MIN_OUTPUT` keywords and at least
       :data:`SOURCE_RATIO` times the shortest reference's, which has at least
       :data:`SOURCE_MIN_INPUT`: ``source_support`` (a summary, even of one sentence, and its
       article; a gold answer of one or two keywords never is one);
    2. else the shortest reference has at most :data:`SHORT_MAX_KEYWORDS` keywords:
       ``short_answer`` (one short alternative makes the gold a short answer);
    3. else the output has at least :data:`SHORT_SOURCE_RATIO` times the shortest reference's
       keywords: ``source_support`` (the rule before rule 1, kept so that no call it sent
       elsewhere changes family);
    4. else with a question: ``long_answer``; without one: ``summary``.

    ``prompt`` is never chosen: pass ``task="prompt"``.

    >>> choose_task(3, 40, asked=False), choose_task(30, 600, asked=False)
    ('short_answer', 'source_support')
    >>> choose_task(3, 300, asked=False)  # a three-keyword gold and a long answer
    'short_answer'
    """
    if isinstance(reference_keywords, int):  # one reference: its count, without a min() call
        shortest = reference_keywords
    else:
        shortest = min(reference_keywords) if reference_keywords else 0  # (min's default= costs)
    if (
        output_keywords >= SOURCE_MIN_OUTPUT
        and shortest >= SOURCE_MIN_INPUT
        and output_keywords >= SOURCE_RATIO * shortest
    ):
        return "source_support"
    if shortest <= SHORT_MAX_KEYWORDS:
        return "short_answer"
    if output_keywords >= SHORT_SOURCE_RATIO * shortest:
        return "source_support"
    return "long_answer" if asked else "summary"
