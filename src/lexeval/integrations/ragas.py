"""Ragas metrics scoring a response against its reference lexically, without an LLM or
embeddings (``pip install 'lexeval[ragas]'``; tested with ragas 0.4.3).

:class:`LexicalMetric` is one of Ragas's class-based metrics
(``ragas.metrics.collections.BaseMetric``): ``score``/``ascore`` take ``reference`` and
``response`` and return a Ragas ``MetricResult`` whose ``value`` is lexeval's score and whose
``reason`` gives the missing and matched evidence (and the verdict when a threshold applies);
``batch_score``/``abatch_score`` score lists of such inputs.

>>> metric = LexicalMetric("keyword_coverage", threshold=0.5)
>>> result = metric.score(reference="Paris is the capital of France",
...                       response="The capital is Paris")
>>> round(result.value, 3), result.reason
(0.668, 'keyword_coverage 0.668 >= threshold 0.500; missing: france; matched: paris, capital')

:class:`LexicalSingleTurnMetric` gives the same score as a ``SingleTurnMetric`` for
``ragas.evaluate`` over an ``EvaluationDataset`` (columns ``reference`` and ``response``).
A reference may be a list of strings (several references, the best one scored).
"""

from __future__ import annotations

from typing import Any

from ragas.dataset_schema import SingleTurnSample
from ragas.metrics.base import MetricType, SingleTurnMetric
from ragas.metrics.collections.base import BaseMetric as RagasBaseMetric
from ragas.metrics.result import MetricResult as RagasResult
from ragas.run_config import RunConfig

from lexeval.integrations.common import metric_by_name, reason
from lexeval.metrics.base import BaseMetric

__all__ = ["LexicalMetric", "LexicalSingleTurnMetric"]


class _Lexical:
    """What both classes share: a lexeval metric, the threshold its reasons mention (the one
    given, the metric's own or its recommended one) and the Ragas name (the metric's)."""

    def __init__(
        self,
        metric: str | BaseMetric = "keyword_coverage",
        threshold: float | None = None,
        *,
        name: str | None = None,
        **options: Any,
    ) -> None:
        self.lexeval_metric = metric_by_name(metric, options)
        if threshold is None:
            threshold = self.lexeval_metric.threshold
        if threshold is None:
            threshold = self.lexeval_metric.recommended_threshold
        self.threshold = threshold
        self._set_up(name or self.lexeval_metric.name)

    def _set_up(self, name: str) -> None:
        raise NotImplementedError

    def _score(
        self, reference: str | list[str], response: str, question: str | None = None
    ) -> tuple[float, str]:
        label = self.lexeval_metric.name
        if not isinstance(response, str):
            raise ValueError(f"{label}: the response must be a string")
        if not reference or not isinstance(reference, (str, list)):
            raise ValueError(f"{label} needs a reference (a string or a list)")
        if question is not None and not isinstance(question, str):
            raise ValueError(f"{label}: the user input must be a string")
        result = self.lexeval_metric.measure(reference, response, question)
        return float(result.score), reason(label, result, self.threshold)


class LexicalMetric(_Lexical, RagasBaseMetric):  # type: ignore[misc]
    """A lexeval metric as a Ragas class-based metric: ``score(reference=, response=)``."""

    def _set_up(self, name: str) -> None:
        RagasBaseMetric.__init__(self, name=name, allowed_values=(0.0, 1.0))

    async def ascore(
        self, reference: str | list[str], response: str, user_input: str | None = None
    ) -> RagasResult:
        """Score ``response`` against ``reference`` (``user_input``: the question, optional);
        the value is lexeval's score."""
        value, why = self._score(reference, response, user_input)
        return RagasResult(value=value, reason=why)


class LexicalSingleTurnMetric(_Lexical, SingleTurnMetric):  # type: ignore[misc]
    """A lexeval metric as a Ragas ``SingleTurnMetric`` (for ``ragas.evaluate``): it reads a
    sample's ``reference`` and ``response``, and its ``user_input`` (the question) if any."""

    def _set_up(self, name: str) -> None:
        self._required_columns = {
            MetricType.SINGLE_TURN: {"reference", "response", "user_input:optional"}
        }
        self.name = name

    def init(self, run_config: RunConfig) -> None:
        """Nothing to set up: no model is called."""

    async def _single_turn_ascore(self, sample: SingleTurnSample, callbacks: Any) -> float:
        return self._score(sample.reference, sample.response, sample.user_input)[0]
