"""KeywordCoverageMetric: compat modes against the oracle, the default mode's promises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexeval.metrics import KeywordCoverageMetric

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ORACLE = SHARED / "oracles" / "mastra"


def test_compat_modes_match_every_oracle_case() -> None:
    if not ORACLE.is_dir():
        pytest.skip(f"../shared is absent ({ORACLE} not found): Mastra oracle parity not run")
    metric = KeywordCoverageMetric(compat="mastra")
    scorer = KeywordCoverageMetric(compat="mastra-scorer")
    bad = []
    for cases, expected in [
        ("cases.jsonl", "expected.jsonl"),
        ("docs_examples.jsonl", "docs_examples.expected.jsonl"),
    ]:
        with open(ORACLE / cases, encoding="utf-8") as fc, open(ORACLE / expected) as fe:
            for cline, eline in zip(fc, fe, strict=True):
                case, exp = json.loads(cline), json.loads(eline)
                m = metric.measure(case["input"], case["output"])
                s = scorer.measure(case["input"], case["output"])
                got = (
                    m.score,
                    m.info["matchedKeywords"],
                    m.info["totalKeywords"],
                    m.info["input_keywords"],
                    m.info["output_keywords"],
                    s.score,
                    s.info["matchedKeywords"],
                    s.info["totalKeywords"],
                )
                want = (
                    exp["score"],
                    exp["matched"],
                    exp["total"],
                    exp["input_keywords"],
                    exp["output_keywords"],
                    exp["scorer_score"],
                    exp["scorer_matched"],
                    exp["scorer_total"],
                )
                if got != want:
                    bad.append(case["id"])
    assert bad == []


def test_fox_example_default_keeps_the_documented_promise() -> None:
    inp = "The quick brown fox jumps over the lazy dog"
    out = "A quick brown fox jumped over a lazy dog"
    default = KeywordCoverageMetric().measure(inp, out)
    assert (default.info["matchedKeywords"], default.info["totalKeywords"]) == (6, 6)
    assert default.score == 1.0
    mastra = KeywordCoverageMetric(compat="mastra").measure(inp, out)
    assert (mastra.info["matchedKeywords"], mastra.info["totalKeywords"]) == (5, 6)
    assert mastra.info["missing"] == ["jumps"]


def test_compound_terms_are_one_keyword() -> None:
    r = KeywordCoverageMetric(match="exact").measure("machine learning", "learning about a machine")
    assert r.info["input_keywords"] == ["machine learning"]
    assert r.score == 0.0
    r2 = KeywordCoverageMetric(match="exact").measure("machine learning", "Machine-learning rocks")
    assert r2.score == 1.0


def test_lenient_matching_rules() -> None:
    m = KeywordCoverageMetric()
    assert m.measure("four", "There are 4 seasons").score == 1.0  # number words
    assert m.measure("Wilhelm Röntgen", "wilhelm rontgen").score == 1.0  # diacritics
    assert m.measure("Massachusetts", "filmed in Ipswich, Massachusetts1.").score == 1.0
    assert m.measure("1,000 users", "1000 users").score == 1.0
    half = m.measure("1979–80", "in 1979")
    assert half.score == 0.5  # one of the two parts of a dash compound
    assert half.info["partial"] == {"1979–80": 0.5}
    exact = KeywordCoverageMetric(match="exact")
    # "four" is a stopword: no input keyword while the output has some gives 0.0
    assert exact.measure("four", "There are 4 seasons").score == 0.0
    assert exact.measure("Massachusetts", "Massachusetts1").score == 0.0


def test_explicit_keywords() -> None:
    m = KeywordCoverageMetric(keywords=["React", "state management", "hooks"], match="exact")
    r = m.measure("", "React hooks help with state management")
    assert r.info["totalKeywords"] == 3
    assert r.score == 1.0
    r2 = KeywordCoverageMetric(match="exact").measure_keywords(
        ["gradient descent", "momentum"], "We use momentum."
    )
    assert r2.info["missing"] == ["gradient descent"]
    assert r2.score == 0.5
    with pytest.raises(TypeError, match="keywords"):
        KeywordCoverageMetric(keywords="React")  # type: ignore[arg-type]


def test_fuzzy_is_off_by_default_and_matches_spelling_variants() -> None:
    plain = KeywordCoverageMetric(match="exact")
    fuzzy = KeywordCoverageMetric(match="exact", fuzzy=True)
    assert plain.measure("Kubernetes", "Kubernets cluster").score == 0.0
    r = fuzzy.measure("Kubernetes", "Kubernets cluster")
    assert r.score == 1.0
    assert r.info["fuzzy_matches"] == {"kubernetes": "kubernets"}


def test_empty_rules() -> None:
    m = KeywordCoverageMetric()
    assert m.measure("", "").score == 1.0
    assert m.measure("", "fox").score == 0.0
    assert m.measure("fox", "").score == 0.0
    mastra = KeywordCoverageMetric(compat="mastra")
    assert mastra.measure("", "").score == 1.0
    assert mastra.measure(" ", " ").score == 0.0
    assert KeywordCoverageMetric(compat="mastra-scorer").measure("the", "x").score == 1.0


def test_scale_and_signature() -> None:
    r = KeywordCoverageMetric(compat="mastra", scale=100).measure("fox dog", "fox")
    assert r.score == 50.0
    sig = KeywordCoverageMetric().signature
    assert "keyword_coverage" in sig and "match:lenient" in sig and "preset:default" in sig


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="compat"):
        KeywordCoverageMetric(compat="ragas")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="normalizer"):
        KeywordCoverageMetric(compat="mastra", normalizer="default")
    with pytest.raises(ValueError, match="match"):
        KeywordCoverageMetric(match="loose")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="fuzzy"):
        KeywordCoverageMetric(fuzzy="yes")  # type: ignore[arg-type]
