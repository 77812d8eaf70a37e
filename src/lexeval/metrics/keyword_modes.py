"""Keyword coverage's modes behind one interface, :class:`CoverageMode`, chosen once by
:class:`~lexeval.metrics.keyword.KeywordCoverageMetric`'s constructor: the default lenient
matching with task profiles (:class:`LenientCoverage`), exact matching
(:class:`~lexeval.metrics.keyword_exact.ExactCoverage`), explicit keywords
(:class:`~lexeval.metrics.keyword_exact.ExplicitCoverage`) and Mastra's two implementations
(:class:`~lexeval.metrics.keyword_mastra.MastraCoverage`).

>>> from lexeval.normalize import Normalizer
>>> from lexeval.metrics.keyword_tasks import PROFILES
>>> from lexeval.metrics.weights import KeywordWeights
>>> profile = PROFILES["short_answer"]
>>> mode = LenientCoverage(Normalizer(), None, {"short_answer": (profile, KeywordWeights("en"))})
>>> score, info = mode.score("Paris", "It is Paris.")
>>> score, info["task"]
(1.0, 'short_answer')
"""

from __future__ import annotations

from typing import Any, Protocol

from lexeval.metrics.base import best_reference
from lexeval.metrics.keyword_lenient import LenientMatcher, lenient_score
from lexeval.metrics.keyword_tasks import TaskProfile, choose_task
from lexeval.metrics.weights import KeywordWeights
from lexeval.text.base import TextProcessor

__all__ = ["CoverageMode", "LenientCoverage"]

_NOTHING_ECHOED: frozenset[str] = frozenset()


class CoverageMode(Protocol):
    """What keyword coverage asks of a mode: unscaled score and ``info``."""

    @property
    def processor(self) -> TextProcessor:
        """The processor whose keys the mode compares."""
        ...

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        """One reference, without a question (the metric's fast path)."""
        ...

    def score_references(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any]]:
        """The best of ``references`` (:func:`lexeval.metrics.base.best_reference`), with the
        ``question`` the output answers when the mode reads it."""
        ...


class LenientCoverage:
    """Lenient matching (:mod:`lexeval.metrics.keyword_lenient`) under a task profile: the
    ``task`` given, or one chosen per call by :func:`choose_task`; ``scorers`` holds each
    task's profile and weights. A question's keys weigh the profile's ``question_weight``."""

    def __init__(
        self,
        processor: TextProcessor,
        task: str | None,
        scorers: dict[str, tuple[TaskProfile, KeywordWeights]],
    ) -> None:
        self.processor = processor
        self.matcher = LenientMatcher(processor)
        self.task = task
        self.scorers = scorers

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        """:meth:`score_references`'s steps for one reference and no question, without its
        lists and loop."""
        matcher = self.matcher
        out = matcher.output(output)
        ref = matcher.reference(reference)
        task = self.task or choose_task(len(ref.keys), len(out.keywords), asked=False)
        profile, weights = self.scorers[task]
        found = lenient_score(ref, matcher.weighted(ref, weights), out, profile)
        found[1]["task"] = task
        return found

    def score_references(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any]]:
        """The task chosen once for the call (a question says that long references are
        answers to it), then the best reference under its profile."""
        matcher = self.matcher
        asked = question is not None
        echoed = _NOTHING_ECHOED if question is None else matcher.question_keys(question)
        out = matcher.output(output)
        refs = list(map(matcher.reference, references))
        task = self.task
        if task is None:
            task = choose_task([len(r.keys) for r in refs], len(out.keywords), asked=asked)
        profile, weights = self.scorers[task]
        if profile.question_weight == 1.0:
            echoed = _NOTHING_ECHOED
        best = best_reference(
            lenient_score(ref, matcher.weighted(ref, weights), out, profile, echoed) for ref in refs
        )
        best[1]["task"] = task
        return best
