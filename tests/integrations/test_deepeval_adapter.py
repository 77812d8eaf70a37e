"""lexeval.integrations.deepeval against the real DeepEval (``make test-integrations``: 4.3.1).

DeepEval and its pytest plugins live in ``.venv-integrations``, apart from the main suite's
venv; ``make test`` runs these tests there first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from deepeval import assert_test, evaluate
from deepeval.metrics import BaseMetric as DeepEvalBaseMetric
from deepeval.test_case import LLMTestCase

from lexeval.integrations.deepeval import LexicalMetric
from lexeval.metrics import KeywordCoverageMetric
from lexeval.registry import get_reporting_metric

REFERENCE = "Paris is the capital of France"
GOOD = "The capital of France is Paris"
BAD = "Lyon is a big town"


def case(output: str, **extra: object) -> LLMTestCase:
    return LLMTestCase(input="What is the capital of France?", actual_output=output, **extra)


def test_a_deepeval_metric_that_scores_like_lexeval() -> None:
    assert os.environ.get("DEEPEVAL_TELEMETRY_OPT_OUT"), "run through make test-integrations"
    metric = LexicalMetric("keyword_coverage", threshold=0.5)
    assert isinstance(metric, DeepEvalBaseMetric)
    expected = KeywordCoverageMetric().measure(REFERENCE, BAD)
    assert metric.measure(case(BAD, expected_output=REFERENCE)) == expected.score
    assert metric.is_successful() is False and metric.success is False
    assert metric.reason is not None and "missing: paris, capital, france" in metric.reason
    assert metric.score_breakdown is not None and metric.score_breakdown["recall"] == 0.0
    assert metric.__name__ == "lexeval keyword_coverage"
    rouge = LexicalMetric("rouge1", threshold=0.3, score="recall")
    rouge.measure(case(GOOD, expected_output=REFERENCE))
    assert (
        rouge.score == get_reporting_metric("rouge1", score="recall").measure(REFERENCE, GOOD).score
    )
    assert rouge.is_successful()


def test_assert_test_passes_and_fails_with_the_reason() -> None:
    assert_test(case(GOOD, expected_output=REFERENCE), [LexicalMetric(threshold=0.5)])
    with pytest.raises(AssertionError, match=r"keyword_coverage 0\.000 < threshold 0\.500"):
        assert_test(case(BAD, expected_output=REFERENCE), [LexicalMetric(threshold=0.5)])


def test_context_as_several_references() -> None:
    metric = LexicalMetric("token_f1", threshold=0.9, reference="context")
    test_case = case("Paris", context=["Lyon", "Paris"])
    assert metric.measure(test_case) == 1.0 and metric.is_successful()
    with pytest.raises(ValueError, match="expected_output"):
        LexicalMetric().measure(case(GOOD))
    with pytest.raises(ValueError, match="rouge2 has no recommended threshold"):
        LexicalMetric("rouge2")


def test_evaluate_reports_each_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # DeepEval may write its run files to the working directory
    cases = [case(GOOD, expected_output=REFERENCE), case(BAD, expected_output=REFERENCE)]
    result = evaluate(cases, [LexicalMetric(threshold=0.5)])
    assert [t.success for t in result.test_results] == [True, False]
    scores = [t.metrics_data[0].score for t in result.test_results]
    assert scores == [KeywordCoverageMetric().measure(REFERENCE, o).score for o in (GOOD, BAD)]


def test_the_input_is_the_question() -> None:
    question = "Which river flows through Baghdad?"
    metric = LexicalMetric()
    score = metric.measure(
        LLMTestCase(
            input=question, actual_output="the Euphrates River", expected_output="Tigris River"
        )
    )
    keyword = KeywordCoverageMetric()
    asked = keyword.measure("Tigris River", "the Euphrates River", question=question)
    assert score == asked.score < keyword.measure("Tigris River", "the Euphrates River").score
    assert metric.success is False  # "river" alone passed without the question
