"""The metric protocol: results, registry, argument checks, batches, scale, references."""

from __future__ import annotations

import dataclasses
import json

import pytest

from lexeval import get_metric, list_metrics
from lexeval.metrics import (
    KeywordCoverageMetric,
    Metric,
    MetricResult,
    RougeMetric,
    TokenF1Metric,
)

ALL_COMPAT = [
    lambda: KeywordCoverageMetric(compat="mastra"),
    lambda: KeywordCoverageMetric(compat="mastra-scorer"),
    lambda: TokenF1Metric(compat="squad"),
    lambda: TokenF1Metric(compat="set"),
    lambda: RougeMetric("rouge1", compat="rouge-score"),
    lambda: RougeMetric("rougeLsum", compat="rouge-score", use_stemmer=True),
]


def test_result_is_frozen_and_serializable() -> None:
    r = MetricResult(0.25, {"precision": 0.5, "counts": {"overlap": 1}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.score = 1.0  # type: ignore[misc]
    assert json.loads(json.dumps(r.to_dict())) == {
        "score": 0.25,
        "passed": None,
        "signature": None,
        "info": {"precision": 0.5, "counts": {"overlap": 1}},
    }


def test_new_result_is_the_same_frozen_result() -> None:
    from lexeval.metrics.base import new_result

    made = new_result(0.25, {"recall": 1.0}, True, "sig")
    built = MetricResult(0.25, {"recall": 1.0}, True, "sig")
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert dataclasses.asdict(made) == dataclasses.asdict(built)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.passed = False  # type: ignore[misc]


def test_new_result_sets_every_field() -> None:
    """new_result makes the same results as the constructor: every field the very object
    given, tracked by the collector, frozen."""
    import gc

    from lexeval.metrics.base import new_result

    for score, info, passed, signature in [
        (0.25, {"recall": 1.0, "matched": ["a"]}, True, "sig"),
        (float("nan"), {}, None, None),
        (-0.0, {"x": object()}, False, ""),
        (1, {}, None, "s" * 10_000),  # (any objects: the caller's types are not checked)
    ]:
        made = new_result(score, info, passed, signature)
        assert type(made) is MetricResult
        assert made.score is score and made.info is info
        assert made.passed is passed and made.signature is signature
        assert gc.is_tracked(made)
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.score = 0.5  # type: ignore[misc]


ALL_METRICS = [
    *ALL_COMPAT,
    lambda **kw: KeywordCoverageMetric(**kw),
    lambda **kw: KeywordCoverageMetric(match="exact", **kw),
    lambda **kw: TokenF1Metric(**kw),
    lambda **kw: RougeMetric("rouge2", **kw),
    lambda **kw: RougeMetric("rougeLsum", **kw),
]
ALL_COMPAT_KW = [
    lambda **kw: KeywordCoverageMetric(compat="mastra", **kw),
    lambda **kw: TokenF1Metric(compat="squad", **kw),
    lambda **kw: RougeMetric("rouge1", compat="rouge-score", **kw),
    *ALL_METRICS[len(ALL_COMPAT) :],
]


@pytest.mark.parametrize("make", ALL_COMPAT_KW)
def test_threshold_gives_a_verdict_and_results_carry_the_signature(make: object) -> None:
    ref, out = "the quick brown fox jumps over the lazy dog", "a quick brown fox sleeps"
    plain = make()  # type: ignore[operator]
    free = plain.measure(ref, out)
    assert free.passed is None and free.signature == plain.signature
    assert 0.0 < free.score < 1.0
    below = make(threshold=free.score)  # type: ignore[operator]
    above = make(threshold=min(1.0, free.score + 0.01))  # type: ignore[operator]
    assert below.measure(ref, out).passed is True  # score >= threshold passes
    assert above.measure(ref, out).passed is False
    assert below.signature == plain.signature  # the threshold changes the verdict only
    assert below.measure(ref, out).score == free.score
    many = above.measure_many([ref, ref], [out, ref])
    assert many == [above.measure(ref, out), above.measure(ref, ref)]
    assert [r.passed for r in many] == [False, True]
    assert many[1].to_dict()["passed"] is True
    assert many[0].to_dict()["signature"] == plain.signature


def test_threshold_is_checked_and_follows_the_scale() -> None:
    with pytest.raises(TypeError, match="threshold"):
        TokenF1Metric(threshold="0.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="threshold"):
        TokenF1Metric(threshold=True)  # type: ignore[arg-type]
    for bad in (-0.1, 1.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="threshold"):
            TokenF1Metric(threshold=bad)
    scaled = TokenF1Metric(compat="set", scale=100, threshold=50)
    result = scaled.measure("the cat ran", "the dog sat")  # F1 1/3 -> 33.3
    assert result.score == pytest.approx(100 / 3) and result.passed is False
    assert (
        TokenF1Metric(compat="set", scale=100, threshold=30)
        .measure("the cat ran", "the dog sat")
        .passed
    )
    assert get_metric("rouge1", threshold=0.5).threshold == 0.5


def test_measure_keywords_carries_the_verdict() -> None:
    metric = KeywordCoverageMetric(compat="mastra", threshold=0.6)
    result = metric.measure_keywords(["React", "hooks", "state"], "React state and props")
    assert result.score == pytest.approx(2 / 3) and result.passed is True
    assert result.signature == metric.signature


@pytest.mark.parametrize("make", ALL_COMPAT)
def test_every_metric_follows_the_protocol(make: object) -> None:
    metric = make()  # type: ignore[operator]
    assert isinstance(metric, Metric)
    assert isinstance(metric.signature, str) and metric.signature
    assert metric.name in metric.signature
    result = metric.measure("the cat sat on the mat", "the cat sat")
    assert 0.0 <= result.score <= 1.0
    for key in ("precision", "recall", "fmeasure"):
        assert 0.0 <= result.info[key] <= 1.0
    with pytest.raises(TypeError, match="input"):
        metric.measure(3, "x")
    with pytest.raises(TypeError, match="input"):
        metric.measure(["ok", None], "x")
    with pytest.raises(TypeError, match="output"):
        metric.measure("x", ["not", "a", "str"])
    with pytest.raises(ValueError, match="input"):
        metric.measure([], "x")


def test_registry_round_trip() -> None:
    names = list_metrics()
    assert {"keyword_coverage", "token_f1", "rouge1", "rouge2", "rougeL", "rougeLsum"} <= set(names)
    assert isinstance(get_metric("keyword_coverage", compat="mastra"), KeywordCoverageMetric)
    assert get_metric("rouge7", compat="rouge-score").name == "rouge7"
    assert get_metric("rougeN", n=4, compat="rouge-score").name == "rouge4"
    with pytest.raises(ValueError, match="rouge4"):
        get_metric("rougeN")  # n is required, and the message says how to give it
    with pytest.raises(ValueError, match="positive"):
        get_metric("rougeN", n=0)
    assert get_metric("token-f1", compat="set").name == "token_f1"
    with pytest.raises(ValueError, match="unknown metric"):
        get_metric("meteor")
    with pytest.raises(TypeError):
        get_metric(None)  # type: ignore[arg-type]


def test_scale_multiplies_the_score_only() -> None:
    plain = TokenF1Metric(compat="set").measure("the cat ran", "the dog sat")
    scaled = TokenF1Metric(compat="set", scale=10).measure("the cat ran", "the dog sat")
    assert scaled.score == pytest.approx(plain.score * 10)
    assert scaled.info == plain.info
    with pytest.raises(ValueError):
        TokenF1Metric(scale=0)
    with pytest.raises(TypeError):
        TokenF1Metric(scale="2")  # type: ignore[arg-type]


def test_several_references_keep_the_best() -> None:
    metric = TokenF1Metric(compat="set")
    refs = ["dog", "the cat sat", "cat"]
    best = metric.measure(refs, "the cat sat")
    assert best.score == 1.0
    assert best.info["reference_index"] == 1
    singles = [metric.measure(r, "the cat sat").score for r in refs]
    assert best.score == max(singles)


def test_measure_many_matches_measure_and_checks_lengths() -> None:
    metric = RougeMetric("rouge2", compat="rouge-score")
    inputs = ["a b c", ["x y", "a b"], "q"]
    outputs = ["a b", "a b c", "q"]
    many = metric.measure_many(inputs, outputs, progress=True)
    assert many == [metric.measure(i, o) for i, o in zip(inputs, outputs, strict=True)]
    with pytest.raises(ValueError, match="inputs"):
        metric.measure_many(["a"], ["a", "b"])
    with pytest.raises(TypeError):
        metric.measure_many("abc", "abc")


def test_compat_metrics_do_not_import_spacy() -> None:
    import subprocess
    import sys

    code = (
        "import sys, lexeval as m\n"
        "m.get_metric('rouge1', compat='rouge-score').measure('a b', 'a')\n"
        "m.get_metric('keyword_coverage', compat='mastra').measure('a b', 'a')\n"
        "m.get_metric('token_f1', compat='squad').measure('a b', 'a')\n"
        "print('spacy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
