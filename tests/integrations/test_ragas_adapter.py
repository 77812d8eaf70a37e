"""lexeval.integrations.ragas against the real Ragas (``make test-integrations``: 0.4.3).

No LLM and no embeddings are configured: a lexical metric needs none, and Ragas must not ask
for one.
"""

from __future__ import annotations

import asyncio
import os

import pytest
from ragas import Dataset, EvaluationDataset, evaluate, experiment
from ragas.dataset_schema import SingleTurnSample
from ragas.metrics.base import SingleTurnMetric
from ragas.metrics.collections.base import BaseMetric as RagasBaseMetric
from ragas.metrics.result import MetricResult as RagasResult

from lexeval.integrations.ragas import LexicalMetric, LexicalSingleTurnMetric
from lexeval.metrics import KeywordCoverageMetric
from lexeval.registry import get_reporting_metric

REFERENCE = "Paris is the capital of France"
GOOD = "The capital of France is Paris"
BAD = "Lyon is a big town"
ROWS = [
    {"user_input": "Capital of France?", "reference": REFERENCE, "response": GOOD},
    {"user_input": "Capital of France?", "reference": REFERENCE, "response": BAD},
    {
        "user_input": "Boiling point?",
        "reference": "Water boils at 100 degrees Celsius",
        "response": "It boils at 90 degrees",
    },
]


def test_a_class_based_ragas_metric_that_scores_like_lexeval() -> None:
    assert os.environ.get("RAGAS_DO_NOT_TRACK") == "true", "run through make test-integrations"
    metric = LexicalMetric()
    assert isinstance(metric, RagasBaseMetric) and metric.name == "keyword_coverage"
    result = metric.score(reference=REFERENCE, response=BAD)
    assert isinstance(result, RagasResult)
    assert result.value == KeywordCoverageMetric().measure(REFERENCE, BAD).score == 0.0
    assert result.reason == (
        "keyword_coverage 0.000 < threshold 0.380; missing: paris, capital, france"
    )
    rouge = LexicalMetric("rouge1", name="rouge1_recall", score="recall")
    assert rouge.name == "rouge1_recall"
    rouge_result = asyncio.run(rouge.ascore(reference=REFERENCE, response="The capital is Paris"))
    expected = get_reporting_metric("rouge1", score="recall").measure(
        REFERENCE, "The capital is Paris"
    )
    assert rouge_result.value == expected.score
    assert rouge_result.reason == (  # rouge1 recall's recommended threshold, lexeval's evidence
        f"rouge1 {expected.score:.3f} >= threshold 0.500; "
        f"missing: {', '.join(expected.info['missing'])}; "
        f"matched: {', '.join(expected.info['matched'])}"
    )


def test_batch_scores_and_several_references() -> None:
    metric = LexicalMetric("token_f1", compat="squad")
    results = metric.batch_score(
        [
            {"reference": ["Denver Broncos", "Broncos"], "response": "the Broncos"},
            {"reference": "Denver Broncos", "response": "Carolina Panthers"},
        ]
    )
    assert [r.value for r in results] == [1.0, 0.0]
    assert results[0].reason == "token_f1 1.000; matched: broncos"  # no threshold for token-F1
    with pytest.raises(ValueError, match="needs a reference"):
        metric.score(reference="", response="x")


def test_evaluate_scores_a_dataset_without_a_model() -> None:
    dataset = EvaluationDataset.from_list(ROWS)
    keyword = LexicalSingleTurnMetric()
    rouge = LexicalSingleTurnMetric("rougeL", name="rougeL_lexeval")
    assert isinstance(keyword, SingleTurnMetric)
    frame = evaluate(dataset, metrics=[keyword, rouge], show_progress=False).to_pandas()
    references = [row["reference"] for row in ROWS]
    responses = [row["response"] for row in ROWS]
    kc, rl = KeywordCoverageMetric(), get_reporting_metric("rougeL")
    questions = [row["user_input"] for row in ROWS]  # keyword coverage reads the question
    assert list(frame["keyword_coverage"]) == [
        kc.measure(r, o, question=q).score
        for r, o, q in zip(references, responses, questions, strict=True)
    ]
    assert frame["keyword_coverage"][2] < kc.measure(references[2], responses[2]).score
    assert list(frame["rougeL_lexeval"]) == [
        rl.measure(r, o).score for r, o in zip(references, responses, strict=True)
    ]
    sample = SingleTurnSample(user_input="q", reference=REFERENCE, response=GOOD)
    assert keyword.single_turn_score(sample) == 1.0


def test_an_experiment_scores_each_row() -> None:
    dataset = Dataset(name="capitals", backend="inmemory")
    for row in ROWS:
        dataset.append(row)
    metric = LexicalMetric("rouge1", threshold=0.5)

    @experiment()
    async def lexical(row: dict[str, str]) -> dict[str, object]:
        result = await metric.ascore(reference=row["reference"], response=row["response"])
        return {**row, "rouge1": result.value, "reason": result.reason}

    rows = sorted(
        asyncio.run(lexical.arun(dataset)),
        key=lambda r: ROWS.index({k: r[k] for k in ("user_input", "reference", "response")}),
    )
    rouge = get_reporting_metric("rouge1")
    assert [r["rouge1"] for r in rows] == [
        rouge.measure(row["reference"], row["response"]).score for row in ROWS
    ]
    bad = rouge.measure(REFERENCE, BAD).score
    assert rows[1]["reason"].startswith(f"rouge1 {bad:.3f} < threshold 0.500; missing: ")


def test_the_user_input_is_the_question() -> None:
    question = "Which river flows through Baghdad?"
    keyword = KeywordCoverageMetric()
    asked = keyword.measure("Tigris River", "the Euphrates River", question=question).score
    assert asked < keyword.measure("Tigris River", "the Euphrates River").score
    result = asyncio.run(
        LexicalMetric().ascore(
            reference="Tigris River", response="the Euphrates River", user_input=question
        )
    )
    assert result.value == asked
    sample = SingleTurnSample(
        user_input=question, reference="Tigris River", response="the Euphrates River"
    )
    assert asyncio.run(LexicalSingleTurnMetric().single_turn_ascore(sample)) == asked
