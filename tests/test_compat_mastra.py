"""Mastra keyword coverage: exact parity with the recorded outputs of the real @mastra/evals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.compat import (
    MASTRA_WHITESPACE,
    mastra_keyword_coverage,
    mastra_keywords,
    mastra_stopwords,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ORACLE = SHARED / "oracles" / "mastra"


def _load(name: str) -> list[dict[str, Any]]:
    if not ORACLE.is_dir():
        pytest.skip(f"../shared is absent ({ORACLE} not found): Mastra oracle parity not run")
    with open(ORACLE / name, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _pairs() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    out = []
    for cases, expected in [
        ("cases.jsonl", "expected.jsonl"),
        ("docs_examples.jsonl", "docs_examples.expected.jsonl"),
    ]:
        cs, ex = _load(cases), _load(expected)
        assert len(cs) == len(ex)
        for c, e in zip(cs, ex, strict=True):
            assert c["id"] == e["id"]
            out.append((c, e))
    return out


def test_oracle_metric_and_scorer_exact() -> None:
    pairs = _pairs()
    assert len(pairs) >= 450
    mismatches = []
    for case, exp in pairs:
        got = mastra_keyword_coverage(case["input"], case["output"], mode="metric")
        want = (
            exp["score"],
            exp["matched"],
            exp["total"],
            exp["input_keywords"],
            exp["output_keywords"],
        )
        got_s = mastra_keyword_coverage(case["input"], case["output"], mode="scorer")[:3]
        want_s = (exp["scorer_score"], exp["scorer_matched"], exp["scorer_total"])
        if got != want or got_s != want_s:
            mismatches.append(case["id"])
    assert mismatches == []


def test_oracle_stopwords_identical_to_bundled() -> None:
    if not ORACLE.is_dir():
        pytest.skip("../shared is absent: stopword list comparison not run")
    words = (ORACLE / "stopwords_en.txt").read_text("utf-8").split("\n")
    assert mastra_stopwords() == frozenset(w for w in words if w)


def test_documented_fox_example_is_five_of_six() -> None:
    # Mastra's own documentation example; its code gives 5/6 ("jumps" vs "jumped").
    score, matched, total, _, _ = mastra_keyword_coverage(
        "The quick brown fox jumps over the lazy dog", "A quick brown fox jumped over a lazy dog"
    )
    assert (matched, total) == (5, 6)
    assert score == 5 / 6


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fox < b and c > dog", ["fox", "dog"]),  # the tag rule spans words
        ("''x''", ["'x'"]),  # one apostrophe removed at each end of the original token
        ("don’t stop", ["dont", "stop"]),
        ("v1.2.3 1,000 3.14", ["v123"]),
        ("# & @ _ x#", ["x#"]),
        ("https://Example.com/A. Fox", ["https://Example.com/A.", "fox"]),
        ("a\u200bb", ["a\u200bb"]),  # U+200B is not JavaScript white space
        ("a\u0085b", ["a\u0085b"]),  # nor U+0085
        ("<>x", ["<>x"]),  # "<>" is not a tag
        ("fox <dog", ["fox", "<dog"]),  # an unclosed "<" stays
    ],
)
def test_extraction_rules(text: str, expected: list[str]) -> None:
    assert mastra_keywords(text) == expected


def test_empty_rules() -> None:
    assert mastra_keyword_coverage("", "")[0] == 1.0
    assert mastra_keyword_coverage(" ", " ")[0] == 0.0
    assert mastra_keyword_coverage("", "", mode="scorer")[0] == 1.0
    assert mastra_keyword_coverage("the", "fox", mode="scorer")[0] == 1.0


def test_type_errors_name_the_argument() -> None:
    with pytest.raises(TypeError, match="input"):
        mastra_keyword_coverage(None, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="output"):
        mastra_keyword_coverage("x", 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text"):
        mastra_keywords(b"x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mode"):
        mastra_keyword_coverage("x", "x", mode="other")  # type: ignore[arg-type]


def test_long_tag_heavy_input() -> None:
    # A naive regex is quadratic on many "<" without ">" (this would take minutes); speed itself
    # is measured in benchmarks/speed/keyword_speed.py.
    assert mastra_keywords("<a " * 200_000) == ["<a"]


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_keywords_are_unique_and_free_of_js_whitespace(text: str) -> None:
    kws = mastra_keywords(text)
    assert len(kws) == len(set(kws))
    for k in kws:
        assert k
        assert not any(ch in MASTRA_WHITESPACE for ch in k)
        assert k not in mastra_stopwords()
