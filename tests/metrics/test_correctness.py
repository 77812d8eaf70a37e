"""``lexical_correctness``: P(correct) from lexical evidence, with a model fitted on EVOUNA NQ's
human labels: the model file, the evidence, the question, batches and pools, and a check on
real data (EVOUNA NQ, the tuning set, against keyword coverage)."""

from __future__ import annotations

import json
import math
import pickle

import pytest
from sklearn.metrics import roc_auc_score

from lexeval import get_metric
from lexeval.cli import main
from lexeval.metrics import KeywordCoverageMetric, LexicalCorrectnessMetric
from lexeval.metrics.correctness import FEATURES, LexicalModel, load_model
from lexeval.run import MIN_CHUNK, measure_many
from tests.support.qa_data import QA, load_evouna_nq

QUESTION = "Which river flows through Baghdad?"
GOLDS = ["Tigris", "Tigris River"]


def test_the_shipped_model_is_whole_and_named_in_the_signature() -> None:
    model = load_model()
    assert model.trained_on.startswith("EVOUNA NQ")
    assert 0.0 < model.threshold < 1.0 and all(s > 0 for s in model.scale)
    assert LexicalModel.from_dict(model.to_dict()).digest == model.digest
    metric = LexicalCorrectnessMetric()
    assert f"model:{model.digest}" in metric.signature
    assert metric.recommended_threshold == model.threshold == metric.threshold
    with pytest.raises(ValueError, match="FEATURES"):
        LexicalModel.from_dict({**model.to_dict(), "features": list(reversed(FEATURES))})
    with pytest.raises(ValueError, match="20 means"):
        LexicalModel([0.0], [1.0], [0.0], 0.0, 0.5)


def test_the_score_is_the_logistic_of_the_contributions() -> None:
    metric = LexicalCorrectnessMetric()
    result = metric.measure("Tigris River", "It is the Tigris, I believe.", question=QUESTION)
    assert list(result.info["features"]) == list(FEATURES)
    logit = load_model().intercept + sum(result.info["contributions"].values())
    assert math.isclose(result.score, 1 / (1 + math.exp(-logit)), abs_tol=1e-5)
    assert result.info["matched"] == ["tigris"] and result.info["echoed"] == ["river"]
    assert result.passed is (result.score >= metric.threshold)


def test_right_answers_outrank_wrong_ones_and_the_question_counts() -> None:
    metric = LexicalCorrectnessMetric()
    right = [
        "The Tigris.",
        "Tigris River",
        "Baghdad lies on the Tigris River.",
    ]
    wrong = [
        "The Euphrates River.",
        "the Jordan river, I think",
        "Nile",
    ]
    scores = {a: metric.measure(GOLDS, a, question=QUESTION).score for a in right + wrong}
    assert min(scores[a] for a in right) > max(scores[a] for a in wrong)
    echoing = metric.measure(GOLDS, "The Euphrates River.", question=QUESTION)
    blind = metric.measure(GOLDS, "The Euphrates River.")
    assert echoing.score < blind.score and echoing.info["echoed"] == ["river"]
    assert blind.info["features"]["log_question_words"] == 0.0


def test_a_threshold_and_a_scale_apply_as_in_every_metric() -> None:
    result = LexicalCorrectnessMetric(threshold=0.999).measure("Paris", "Lyon")
    assert result.passed is False
    scaled = LexicalCorrectnessMetric(scale=10).measure("Paris", "Paris")
    assert 5 < scaled.score <= 10 and scaled.passed is True
    assert get_metric("lexical_correctness").signature == LexicalCorrectnessMetric().signature


def test_batches_threads_and_processes_equal_one_at_a_time() -> None:
    from concurrent.futures import ThreadPoolExecutor

    copies = 2 * MIN_CHUNK // 5 + 1  # enough for workers=2 to use the pool
    golds = [["Tigris", "Tigris River"], "Paris", "1969", "George Washington", "oxygen"] * copies
    answers = ["the Tigris", "Lyon", "in 1969", "John Adams", "it is oxygen, or maybe nitrogen"]
    outputs = [f"{a} {k}" if k % 3 else a for k, a in enumerate(answers * copies)]
    questions: list[str | None] = [QUESTION, None, "When did Apollo 11 land?", None, None] * copies
    metric = LexicalCorrectnessMetric()
    expected = [
        metric.measure(g, o, question=q).to_dict()
        for g, o, q in zip(golds, outputs, questions, strict=True)
    ]
    batch = metric.measure_many(golds, outputs, questions=questions)
    assert [r.to_dict() for r in batch] == expected
    with ThreadPoolExecutor(8) as pool:
        threaded = list(
            pool.map(
                lambda t: metric.measure(t[0], t[1], question=t[2]).to_dict(),
                zip(golds, outputs, questions, strict=True),
            )
        )
    assert threaded == expected
    pooled = measure_many(
        LexicalCorrectnessMetric(), golds, outputs, questions=questions, workers=2
    )
    assert [r.to_dict() for r in pooled] == expected
    clone = pickle.loads(pickle.dumps(metric))
    assert clone.measure(golds[0], outputs[0], question=QUESTION).to_dict() == expected[0]
    with pytest.raises(ValueError, match="questions"):
        metric.measure_many(golds, outputs, questions=[QUESTION])
    with pytest.raises(TypeError, match="not str"):
        metric.measure_many("Paris", outputs)


def test_the_command_line_passes_the_question(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--input", "Tigris River", "--output", "the Euphrates River", "--question", QUESTION]
    code = main(["score", "--metric", "lexical_correctness", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    expected = LexicalCorrectnessMetric().measure(
        "Tigris River", "the Euphrates River", question=QUESTION
    )
    assert json.loads(out) == json.loads(json.dumps(expected.to_dict()))


@pytest.mark.skipif(not QA.is_dir(), reason="../shared/data/qa_human is absent")
def test_it_ranks_evouna_nq_better_than_keyword_coverage() -> None:
    """On the answers to EVOUNA NQ's first 300 questions (part of the tuning set: a check
    that the shipped model is the fitted one, not a held-out figure)."""
    golds, answers, questions, human = load_evouna_nq(300)
    ours = LexicalCorrectnessMetric().measure_many(golds, answers, questions=questions)
    coverage = KeywordCoverageMetric().measure_many(golds, answers, questions=questions)
    ours_auc = roc_auc_score(human, [r.score for r in ours])
    coverage_auc = roc_auc_score(human, [r.score for r in coverage])
    assert ours_auc > coverage_auc > 0.9


@pytest.mark.parametrize("gold", ["", "   ", "...", "?!", "\u2014"])
def test_a_blank_or_punctuation_gold_is_refused_naming_the_argument(gold: str) -> None:
    metric = LexicalCorrectnessMetric()
    with pytest.raises(ValueError, match=r"input\[0\] is blank or punctuation only"):
        metric.measure(gold, "anything at all")
    with pytest.raises(ValueError, match=r"every one of the 2 golds of input is blank"):
        metric.measure([gold, "..."], "Paris", question="Capital of France?")
    # an alternative without a letter or digit beside a real gold is kept (EVOUNA TQ: "🗾")
    assert metric.measure(["Paris", gold], "Paris").passed
    with pytest.raises(ValueError, match="blank"):
        metric.measure_many([gold], ["anything at all"])


def test_a_reference_longer_than_the_limit_is_refused() -> None:
    from lexeval.metrics.correctness import MAX_GOLD_CHARS

    metric = LexicalCorrectnessMetric()
    long_gold = " ".join(["the treaty was signed in the city of Paris"] * 30)
    assert len(long_gold) > MAX_GOLD_CHARS
    with pytest.raises(ValueError, match="judges short answers"):
        metric.measure(long_gold, "It was signed in Paris.")
    at_limit = ("Paris " * 60)[:MAX_GOLD_CHARS]
    assert 0.0 <= metric.measure(at_limit, "Paris").score <= 1.0
    assert f"golds:<={MAX_GOLD_CHARS}chars" in metric.signature
