"""A DeepEval metric scoring ``actual_output`` against ``expected_output`` lexically
(``pip install 'lexeval[deepeval]'``; tested with deepeval 4.3.1)::

    from deepeval import assert_test
    from deepeval.test_case import LLMTestCase
    from lexeval.integrations.deepeval import LexicalMetric

    case = LLMTestCase(input="Capital of France?", actual_output="The capital is Paris",
                       expected_output="Paris is the capital of France")
    assert_test(case, [LexicalMetric("keyword_coverage", threshold=0.5)])

The reference is ``expected_output``, or with ``reference="context"`` the test case's
``context`` list (several references, the best one scored); the test case's ``input`` is the
question (keyword coverage weighs the reference keywords it names less). ``reason`` gives the
score, the threshold, the missing and the matched keywords (tokens or n-grams for ROUGE and
token-F1);
``score_breakdown`` the precision, recall and counts. No model is called: ``measure`` and
``a_measure`` compute the same thing at once.
"""

from __future__ import annotations

from typing import Any, Literal

from deepeval.metrics import BaseMetric as DeepEvalBaseMetric

from lexeval.integrations.common import metric_and_threshold, reason
from lexeval.metrics.base import BaseMetric, verdict

__all__ = ["LexicalMetric"]


class LexicalMetric(DeepEvalBaseMetric):  # type: ignore[misc]
    """A lexeval metric as a DeepEval metric: ``score``, ``success``, ``reason``."""

    def __init__(
        self,
        metric: str | BaseMetric = "keyword_coverage",
        threshold: float | None = None,
        *,
        reference: Literal["expected_output", "context"] = "expected_output",
        **options: Any,
    ) -> None:
        if reference not in ("expected_output", "context"):
            raise ValueError(f"reference must be 'expected_output' or 'context', not {reference!r}")
        self.lexeval_metric, self.threshold = metric_and_threshold(metric, threshold, options)
        self.reference = reference
        self.include_reason = True
        self.async_mode = False
        self.strict_mode = False
        self.evaluation_model = None
        self.evaluation_cost = 0.0
        self.score: float | None = None
        self.success: bool | None = None
        self.reason: str | None = None
        self.error: str | None = None
        self.score_breakdown: dict[str, Any] | None = None

    def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        """Score the test case; sets ``score``, ``success``, ``reason``, ``score_breakdown``."""
        reference = getattr(test_case, self.reference)
        if reference is None or (isinstance(reference, list) and not reference):
            raise ValueError(f"LexicalMetric needs the test case's {self.reference}")
        output = test_case.actual_output
        if output is None:
            raise ValueError("LexicalMetric needs the test case's actual_output")
        question = getattr(test_case, "input", None)
        result = self.lexeval_metric.measure(
            reference, output, question if isinstance(question, str) else None
        )
        self.score = float(result.score)
        self.success = bool(verdict(self.score, self.threshold))
        self.reason = reason(self.lexeval_metric.name, result, self.threshold)
        self.score_breakdown = {
            key: value
            for key, value in result.info.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        }
        return self.score

    async def a_measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        """The same as :meth:`measure` (nothing to wait for)."""
        return self.measure(test_case, *args, **kwargs)

    def is_successful(self) -> bool:
        """Whether the last measured score reached the threshold."""
        return bool(self.success) and self.error is None

    @property
    def __name__(self) -> str:  # DeepEval names metrics by this property
        return f"lexeval {self.lexeval_metric.name}"
