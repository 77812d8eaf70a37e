"""The lexical-first cascade: band choice against a brute force, routing by band, verdicts per
tier, kappa per tier, and a run on real data (EVOUNA NQ for tuning, NQ301 with GPT-4's recorded
verdicts, against the human label)."""

from __future__ import annotations

import csv
import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.judge import Cascade, RecordedJudge
from lexeval.judge.cascade import choose_band
from lexeval.judge.router import UncertaintyRouter
from lexeval.meta import cohen_kappa
from lexeval.metrics import KeywordCoverageMetric, TokenF1Metric
from tests.support.qa_data import QA, load_evouna_nq


def cascade_kappa(
    scores: list[float], human: list[bool], judge: list[bool], lo: float, hi: float
) -> float:
    predicted = [j if lo <= s < hi else s >= hi for s, j in zip(scores, judge, strict=True)]
    return cohen_kappa(predicted, human)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.booleans(), st.booleans()),
        min_size=4,
        max_size=30,
    ),
    st.sampled_from([0.0, 0.1, 0.3, 0.6]),
    st.booleans(),
)
def test_band_is_the_best_window_within_the_budget(
    rows: list[tuple[float, bool, bool]], budget: float, with_judge: bool
) -> None:
    scores = [r[0] for r in rows]
    human = [r[1] for r in rows]
    judge = [r[2] for r in rows] if with_judge else human
    if len(set(human)) < 2:
        with pytest.raises(ValueError, match="both classes"):
            choose_band(scores, human, budget)
        return
    band = choose_band(scores, human, budget, judge if with_judge else None)
    inside = sum(band.lo <= s < band.hi for s in scores)
    assert inside / len(scores) == band.share <= budget + 1e-12
    assert math.isclose(
        band.cascade_kappa, cascade_kappa(scores, human, judge, band.lo, band.hi), abs_tol=1e-9
    )
    # brute force over every window of the distinct scores
    bounds = [*sorted(set(scores)), math.inf]
    best = -math.inf
    for lo, hi in itertools.combinations_with_replacement(bounds, 2):
        if sum(lo <= s < hi for s in scores) <= budget * len(scores) + 1e-9:
            kappa = cascade_kappa(scores, human, judge, lo, hi)
            if not math.isnan(kappa):
                best = max(best, kappa)
    assert math.isclose(band.cascade_kappa, best, abs_tol=1e-9)
    alone = choose_band(scores, human, 0.0)
    assert math.isclose(band.lexical_kappa, alone.cascade_kappa, abs_tol=1e-9)
    assert band.cascade_kappa >= band.lexical_kappa - 1e-9


def test_routing_follows_the_band_and_any_metric_can_judge() -> None:
    lexical = TokenF1Metric(compat="squad")
    judge = KeywordCoverageMetric(threshold=0.5)  # any metric with a verdict
    cascade = Cascade(lexical=lexical, judge=judge, band=(0.3, 0.8))
    refs = ["Denver Broncos", "the river Thames in London", "Paris", "1969"]
    outs = ["Denver Broncos", "the Thames", "Berlin", "in July 1969 it happened"]
    results = cascade.measure_many(refs, outs)
    for ref, out, result in zip(refs, outs, results, strict=True):
        score = lexical.measure(ref, out).score
        assert result.info["lexical_score"] == score
        if 0.3 <= score < 0.8:
            verdict = judge.measure(ref, out)
            assert result.info["tier"] == "judge"
            assert result.passed is verdict.passed and result.score == verdict.score
            assert result.info["judge"]["signature"] == judge.signature
        else:
            assert result.info["tier"] == "lexical" and result.passed is (score >= 0.8)
        assert cascade.measure(ref, out) == result
    assert {r.info["tier"] for r in results} == {"lexical", "judge"}
    assert "band:0.3-0.8" in cascade.signature
    report = cascade.report(results)
    assert (report.n, report.judge_calls) == (4, sum(r.info["tier"] == "judge" for r in results))
    assert report.kappa is None


def test_the_question_reaches_the_lexical_tier_and_its_calibration() -> None:
    coverage = KeywordCoverageMetric()
    judge = TokenF1Metric(compat="squad", threshold=0.5)  # a judge that takes no question
    asked = "Which river flows through Baghdad?"
    refs = ["Tigris River", "Tigris River", "Tigris River", "Paris"]
    outs = ["the Euphrates River", "the Tigris", "Tigris River", "Paris, France"]
    questions: list[str | None] = [asked, asked, asked, None]
    cascade = Cascade(lexical=coverage, judge=judge, band=(0.3, 0.6))
    results = cascade.measure_many(refs, outs, questions=questions)
    blind = cascade.measure_many(refs, outs)
    for ref, out, q, result, without in zip(refs, outs, questions, results, blind, strict=True):
        expected = coverage.measure(ref, out, question=q) if q else coverage.measure(ref, out)
        assert result.info["lexical_score"] == expected.score
        assert without.info["lexical_score"] == coverage.measure(ref, out).score
        assert cascade.measure(ref, out, question=q) == result
    # the echoed "River" weighs less: the wrong river leaves the band and fails on its own
    assert blind[0].info["tier"] == "judge" and results[0].info["tier"] == "lexical"
    assert results[0].passed is False and results[1].passed is True
    with pytest.raises(ValueError, match="questions"):
        cascade.measure_many(refs, outs, questions=[asked])

    human = [False, True, True, True] * 3
    golds, answers, qs = refs * 3, outs * 3, questions * 3
    tuned = cascade.calibrate(golds, answers, human, budget=0.0, routing="band", questions=qs)
    untuned = cascade.calibrate(golds, answers, human, budget=0.0, routing="band")
    assert tuned.calibration is not None and untuned.calibration is not None
    assert tuned.calibration.questions and not untuned.calibration.questions
    asked_scores = [r.info["lexical_score"] for r in results] * 3
    blind_scores = [r.info["lexical_score"] for r in blind] * 3
    assert tuned.band == (choose_band(asked_scores, human, 0.0).lo,) * 2
    assert untuned.band == (choose_band(blind_scores, human, 0.0).lo,) * 2
    assert tuned.band != untuned.band
    with pytest.raises(ValueError, match="2 questions for 12 inputs"):
        cascade.calibrate(golds, answers, human, questions=[asked, asked])


def test_an_uncalibrated_cascade_says_so() -> None:
    cascade = Cascade(lexical=TokenF1Metric(), judge=RecordedJudge({"x": True}))
    with pytest.raises(ValueError, match="no band"):
        cascade.measure("a", "b")
    with pytest.raises(ValueError, match="lo <= hi"):
        Cascade(lexical=TokenF1Metric(), judge=RecordedJudge({}), band=(0.8, 0.2))


def load_nq301() -> tuple[list[list[str]], list[str], list[str], list[bool]]:
    def read(name: str) -> list[dict[str, str]]:
        with open(QA / "openqa_eval" / name, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh, delimiter="\t"))

    human_rows, bem_rows = read("NQ301_human.tsv"), read("NQ301_BEM.tsv")
    golds = [[g.strip() for g in b["Gold answers"].split(" | ")] for b in bem_rows]
    answers = [h["Model answer"] for h in human_rows]
    questions = [h["Question"] for h in human_rows]
    human = [h["Acceptable?"] == "Yes" for h in human_rows]  # the HUMAN label
    return golds, answers, questions, human


@pytest.mark.skipif(not QA.is_dir(), reason="../shared/data/qa_human is absent")
def test_cascade_on_nq301_with_recorded_gpt4_verdicts() -> None:
    lexical = TokenF1Metric(compat="squad")
    judge = RecordedJudge.from_openqa_eval(QA / "openqa_eval" / "NQ301_gpt-4.tsv")
    golds, answers, _, human = load_evouna_nq(400)
    tuning = (golds, answers, human)
    cascade = Cascade(lexical=lexical, judge=judge).calibrate(*tuning, budget=0.3)
    assert cascade.calibration is not None and cascade.calibration.share <= 0.3
    golds, answers, questions, human = load_nq301()
    results = cascade.measure_many(golds, answers, questions=questions)
    report = cascade.report(results, human)
    judged = [i for i, r in enumerate(results) if r.info["tier"] == "judge"]
    assert cascade.band is not None
    lo, hi = cascade.band
    routing = [r.info.get("routing_score", r.info["lexical_score"]) for r in results]
    assert ("routing_score" in results[0].info) is (cascade.router is not None)
    in_band = [lo <= s < hi for s in routing]
    assert report.judge_calls == len(judged) == sum(in_band) > 0
    assert report.judge_share == sum(in_band) / len(results)
    assert report.parse_errors == 0 and report.tokens == 0  # recorded verdicts cost nothing
    passed = [bool(r.passed) for r in results]
    assert report.kappa == pytest.approx(cohen_kappa(passed, human))
    assert report.kappa_judge_tier == pytest.approx(
        cohen_kappa([passed[i] for i in judged], [human[i] for i in judged])
    )
    # the judge tier holds GPT-4's verdicts, found by (question, answer)
    for i in judged[:50]:
        assert passed[i] is judge.lookup(answers[i], questions[i]).correct
    # the cascade agrees with people better than the lexical metric alone at its tuned threshold
    threshold = choose_band([r.score for r in lexical.measure_many(*tuning[:2])], tuning[2], 0.0)
    lexical_alone = [r.info["lexical_score"] >= threshold.lo for r in results]
    assert report.kappa > cohen_kappa(lexical_alone, human)


def hedging_tuning_set() -> tuple[list[str], list[str], list[bool]]:
    """Every answer names its gold (lexical score 1.0), but the long, hedging ones are wrong: one
    band on the lexical score cannot separate them, a router that sees the length can."""
    cities = ["Paris", "Rome", "Oslo", "Bern", "Kyiv", "Riga", "Lima", "Doha", "Baku", "Sofia"]
    golds, answers, human = [], [], []
    for k, city in enumerate(cities * 4):
        hedge = k % 2 == 1
        golds.append(city)
        answers.append(
            f"it could be {city} or maybe one of several other cities, I am not sure at all"
            if hedge
            else city
        )
        human.append(not hedge)
    return golds, answers, human


def test_uncertainty_routing_separates_what_one_band_cannot() -> None:
    golds, answers, human = hedging_tuning_set()
    judge = RecordedJudge(dict(zip(answers, human, strict=True)))
    # coverage of the gold alone (no penalty for extra words): every answer scores 1.0
    base = Cascade(lexical=KeywordCoverageMetric(extra_penalty=0.0), judge=judge)
    assert {r.score for r in base.lexical.measure_many(golds, answers)} == {1.0}
    tuned = base.calibrate(golds, answers, human, budget=0.2)  # routing="auto"
    assert tuned.calibration is not None and tuned.calibration.cross_validated is not None
    cross = tuned.calibration.cross_validated
    assert cross["uncertainty"] > cross["band"]
    assert tuned.calibration.routing == "uncertainty" and tuned.router is not None
    banded = base.calibrate(golds, answers, human, budget=0.2, routing="band")
    assert banded.router is None and banded.calibration is not None
    assert banded.calibration.routing == "band" and banded.calibration.cross_validated is None
    results = tuned.measure_many(golds, answers)
    # the router decides every item right without the judge: long hedges fail, names pass
    assert [r.passed for r in results] == human
    assert cohen_kappa([bool(r.passed) for r in banded.measure_many(golds, answers)], human) < 1
    for gold, answer, result in zip(golds, answers, results, strict=True):
        p = result.info["routing_score"]
        assert p == tuned.router.probability(gold, answer, 1.0)
        lo, hi = result.info["band"]
        assert result.info["tier"] == ("judge" if lo <= p < hi else "lexical")
        assert tuned.measure(gold, answer) == result
    assert "routing:uncertainty-router" in tuned.signature


def test_auto_routing_keeps_the_band_when_the_lexical_score_separates() -> None:
    golds, answers, human = hedging_tuning_set()
    # the same answers, now judged by their lexical evidence alone: every hedge misses its gold
    answers = [
        a if h else f"somewhere else than {g[::-1]}"
        for a, g, h in zip(answers, golds, human, strict=True)
    ]
    base = Cascade(lexical=KeywordCoverageMetric(), judge=RecordedJudge({}))
    tuned = base.calibrate(golds, answers, human, budget=0.1)
    assert tuned.calibration is not None and tuned.calibration.cross_validated is not None
    assert tuned.calibration.cross_validated["band"] == 1.0
    assert tuned.router is None and tuned.calibration.routing == "band"
    with pytest.raises(ValueError, match="routing must be"):
        base.calibrate(golds, answers, human, routing="closest")
    with pytest.raises(ValueError, match="not fitted"):
        Cascade(
            lexical=KeywordCoverageMetric(), judge=RecordedJudge({}), router=UncertaintyRouter()
        )
