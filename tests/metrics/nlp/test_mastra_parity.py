"""Mastra's NLP metrics beside keyword coverage: parity with the real @mastra/evals 0.14.4
(the full recorded oracle in ../shared when present, the committed fixture always), bad input,
the lexeval modes, threads and processes."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from lexeval import (
    CompletenessMetric,
    ContentSimilarityMetric,
    TextualDifferenceMetric,
    ToneConsistencyMetric,
    get_metric,
    list_metrics,
)
from lexeval.metrics import BaseMetric
from lexeval.metrics.nlp.completeness import mastra_elements
from lexeval.metrics.nlp.jsstring import MAX_TEXT_CHARS, utf16_units
from lexeval.metrics.nlp.sentiment import afinn, analyze, negators, sentiment_tokens
from lexeval.metrics.nlp.similarity import mastra_content_similarity

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "oracles"
FIXTURE = Path(__file__).resolve().parents[2] / "data" / "mastra_nlp_parity.jsonl"
EXACT = ["content_similarity", "content_similarity_case", "textual_difference", "tone"]
EXACT += ["tone_stability"]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _oracle_rows() -> list[dict[str, Any]]:
    cases, expected = SHARED / "mastra" / "cases.jsonl", SHARED / "mastra_nlp" / "expected.jsonl"
    if not expected.is_file():
        pytest.skip(f"../shared is absent ({expected} not found): full NLP oracle parity not run")
    rows = []
    for case, exp in zip(_jsonl(cases), _jsonl(expected), strict=True):
        assert case["id"] == exp["id"]
        rows.append({**case, **{k: v for k, v in exp.items() if k != "id"}})
    return rows


def _close(got: Any, want: Any) -> bool:
    """Equal, numbers within 1e-9 (a recorded JSON ``1`` equals ``1.0``)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys()
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        return isinstance(got, (int, float)) and abs(got - want) <= 1e-9
    return bool(got == want)


def _same(got: dict[str, Any], want: dict[str, Any]) -> bool:
    if not _close(got, want):
        return False
    return all(
        _same(got[k], v) if isinstance(v, dict) else _close(got[k], v) for k, v in want.items()
    )


COMPAT = {
    "content_similarity": ContentSimilarityMetric(compat="mastra"),
    "textual_difference": TextualDifferenceMetric(compat="mastra"),
    "tone": ToneConsistencyMetric(compat="mastra"),
}


def _exact_mismatches(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    mismatches = []
    for row in rows:
        for field in EXACT:
            want = row[field]
            if field == "content_similarity_case":
                score = mastra_content_similarity(
                    row["input"], row["output"], ignore_case=False, ignore_whitespace=False
                )
                ok = _close(score, want["score"])
            else:
                metric = COMPAT["tone" if field == "tone_stability" else field]
                output = "" if field == "tone_stability" else row["output"]
                result = metric.measure(row["input"], output)
                ok = _same({"score": result.score, "metrics": result.info}, want)
            if not ok:
                mismatches.append((row["id"], field))
    return mismatches


def _completeness(rows: list[dict[str, Any]]) -> tuple[float, float]:
    metric = CompletenessMetric(compat="mastra")
    exact, total = 0, 0.0
    for row in rows:
        diff = abs(metric.measure(row["input"], row["output"]).score - row["completeness"]["score"])
        exact += diff <= 1e-9
        total += diff
    return exact / len(rows), total / len(rows)


def test_oracle_exact_metrics() -> None:
    rows = _oracle_rows()
    assert len(rows) >= 441
    assert _exact_mismatches(rows) == []


def test_fixture_exact_metrics() -> None:
    rows = _jsonl(FIXTURE)
    assert len(rows) >= 100
    assert _exact_mismatches(rows) == []


def test_unicode_fixture_exact_metrics() -> None:
    """Our own cases of JavaScript's string semantics, recorded on the real package."""
    rows = _jsonl(FIXTURE.with_name("mastra_nlp_unicode.jsonl"))
    assert len(rows) >= 70
    assert any("\ud83d" in r["input"] + r["output"] for r in rows)  # a lone surrogate
    assert _exact_mismatches(rows) == []


def test_oracle_completeness_agreement() -> None:
    # Measured: 428/441 exact (97.1%), mean |diff| .0013; docs/metrics.md lists the differences.
    share, mean = _completeness(_oracle_rows())
    assert share >= 0.95
    assert mean <= 0.01


def test_fixture_completeness_agreement() -> None:
    share, mean = _completeness(_jsonl(FIXTURE))
    assert share >= 0.93
    assert mean <= 0.01


def test_fresh_generated_completeness_agreement() -> None:
    """80 generated technical pairs (URLs, versions, code identifiers, numbers, money, dates,
    non-English words, contractions, every verb form) recorded fresh on the real package by
    benchmarks/diagnostics/completeness_parity.py (seed 13, never used while porting): 72 exact
    (90.0%), mean |diff| .0043 when recorded; 78 (97.5%), .0019 after the port of compromise's
    tokenizer, acronyms, regexNumbers and more."""
    rows = _jsonl(FIXTURE.with_name("mastra_completeness_fresh.jsonl"))
    assert len(rows) == 80
    metric = CompletenessMetric(compat="mastra")
    diffs = [abs(metric.measure(r["input"], r["output"]).score - r["score"]) for r in rows]
    assert sum(d <= 1e-9 for d in diffs) >= 78
    assert sum(diffs) / len(diffs) <= 0.0025


def test_completeness_elements_of_our_sentences() -> None:
    """compromise's elements of 40 sentences of our own, recorded on the real package: the
    emulation takes the same set from 38 (the 2 others are listed in docs/metrics.md)."""
    rows = _jsonl(FIXTURE.with_name("mastra_completeness_elements.jsonl"))
    assert len(rows) == 40
    wrong = [r["text"] for r in rows if set(mastra_elements(r["text"])) != set(r["elements"])]
    assert len(wrong) <= 2, wrong


@pytest.mark.parametrize(
    ("text", "elements"),
    [  # what compromise 14.17.0 does (checked on the real package)
        ("They don't know.", ["they", "do", "not", "know"]),
        ("It doesn't work.", ["it", "does", "not", "work"]),
        ("It's working", ["it", "s", "work"]),
        ("He has been there.", ["he", "be", "there"]),
        ("What can be seen?", ["what", "see"]),
        ("the first wedding to be held", ["the", "first", "wedding", "to", "be", "held"]),
        ("The processing of caching data.", ["the", "processing", "of", "cach", "data"]),
        ("He never runs.", ["he", "does", "not", "never", "run"]),
    ],
)
def test_completeness_compromise_rules(text: str, elements: list[str]) -> None:
    # the same elements; Mastra lists the nouns first, lexeval in the order of the text
    assert sorted(mastra_elements(text)) == sorted(elements)


def test_registry_and_exports() -> None:
    names = {"completeness", "content_similarity", "textual_difference", "tone_consistency"}
    assert names <= set(list_metrics())
    assert isinstance(get_metric("content_similarity", compat="mastra"), ContentSimilarityMetric)
    assert get_metric("tone", compat="mastra").name == "tone_consistency"


@pytest.mark.parametrize(
    "metric",
    [CompletenessMetric, ContentSimilarityMetric, TextualDifferenceMetric, ToneConsistencyMetric],
)
@pytest.mark.parametrize("compat", [None, "mastra"])
def test_bad_input(metric: type[BaseMetric], compat: str | None) -> None:
    m = metric(compat=compat)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="input"):
        m.measure(None, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="output"):
        m.measure("x", 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="output"):
        m.measure("x", None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="input"):
        m.measure(b"x", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at most"):
        m.measure("x", "x" * (MAX_TEXT_CHARS + 1))
    with pytest.raises(ValueError, match="at most"):
        m.measure("x" * (MAX_TEXT_CHARS + 1), "x")
    with pytest.raises(ValueError, match="compat"):
        metric(compat="other")  # type: ignore[call-arg]


def test_empty_strings_follow_mastra() -> None:
    # @mastra/evals 0.14.4 on "" and "" (recorded): completeness 1, similarity 1, ratio 1,
    # tone stability of "" 1 (one empty sentence scoring 0).
    for metric in COMPAT.values():
        assert metric.measure("", "").score == 1.0
    assert CompletenessMetric(compat="mastra").measure("", "").score == 1.0
    assert CompletenessMetric(compat="mastra").measure("", "fox").score == 0.0
    assert COMPAT["textual_difference"].measure("fox", "").score == 0.0
    assert COMPAT["content_similarity"].measure("a", "b").score == 0.0
    # recorded on the real package: white space alone, and an empty output
    assert CompletenessMetric(compat="mastra").measure("  ", "").score == 1.0
    assert CompletenessMetric(compat="mastra").measure("fox", "").score == 0.0
    assert COMPAT["content_similarity"].measure("  ", "").score == 1.0
    assert COMPAT["textual_difference"].measure("  ", "").score == 0.0
    assert COMPAT["tone"].measure("", "fox").info == {
        "responseSentiment": 0.0,
        "referenceSentiment": 0.0,
        "difference": 0.0,
    }
    assert COMPAT["tone"].measure("fox", "").info == {"avgSentiment": 0.0, "sentimentVariance": 0.0}


def test_javascript_string_rules() -> None:
    assert len(utf16_units("😀")) == 2
    # an emoji is two UTF-16 units, one bigram: string-similarity compares code units
    assert mastra_content_similarity("😀", "😀x") == 2 / 3
    r = COMPAT["textual_difference"].measure("😀", "😀!")
    assert r.info["lengthDiff"] == 1 / 3
    assert sentiment_tokens("Good\u00a0\u00a0day") == ["good", "day"]  # two NBSPs are one space
    assert sentiment_tokens("good\u00a0day") == ["good\u00a0day"]  # one is not a separator
    assert "constructor" in negators()  # an inherited property of a JavaScript object
    assert analyze("not good").score == -afinn()["good"]


def test_default_modes_use_the_normalizer() -> None:
    assert ContentSimilarityMetric().measure("The cats sat", "the cat sits").score == 1.0
    assert TextualDifferenceMetric().measure("The cats sat.", "the cat sits").score == 1.0
    assert CompletenessMetric(compat=None).measure("\ufb01le Owners", "file owner").score == 1.0
    assert CompletenessMetric().compat == "mastra"  # lexeval's mode does not beat it
    tone = ToneConsistencyMetric()
    assert tone.measure("I don't like it", "I do not like it").score == 1.0  # "n't" is "not"
    assert COMPAT["tone"].measure("I don't like it", "I do not like it").score == 0.9
    assert tone.measure("This is good", "This is not good").score < 1.0
    for metric in (ContentSimilarityMetric(), ToneConsistencyMetric()):
        assert "norm" in metric.signature or "lemma" in metric.signature
    with pytest.raises(ValueError, match="ignore_case"):
        ContentSimilarityMetric(ignore_case=False)
    with pytest.raises(ValueError, match="normalizer"):
        TextualDifferenceMetric(compat="mastra", normalizer="tokens")


def _all_metrics() -> list[BaseMetric]:
    kinds = [CompletenessMetric, ContentSimilarityMetric, TextualDifferenceMetric]
    kinds += [ToneConsistencyMetric]
    return [kind(compat=c) for kind in kinds for c in (None, "mastra")]  # type: ignore[call-arg]


def _pairs() -> tuple[list[str], list[str]]:
    rows = _jsonl(FIXTURE)[:40]
    return [r["input"] for r in rows], [r["output"] for r in rows]


def test_completeness_same_under_any_hash_seed() -> None:
    """The tagger's choices do not hang on the order of a set (Python's string hashing)."""
    texts = [r["text"] for r in _jsonl(FIXTURE.with_name("mastra_completeness_elements.jsonl"))]
    texts += [r["input"] for r in _jsonl(FIXTURE)]
    # *his* is a Possessive and a Pronoun, equally deep: its clue once hung on a set's order
    texts += ["Pasteur developed vaccination and his proposed germ theory of disease."]
    code = (
        "import json, sys; from lexeval.metrics.nlp.compromise import elements; "
        "print(json.dumps([elements(t) for t in json.load(sys.stdin)]))"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("0", "3", "5")  # the old tie-break gave two answers among these
    ]
    assert runs[0] == runs[1] == runs[2]
    assert json.loads(runs[0]) == [mastra_elements(t) for t in texts]


def test_eight_threads_equal_serial() -> None:
    ins, outs = _pairs()
    for metric in _all_metrics():
        serial = [r.to_dict() for r in metric.measure_many(ins, outs)]
        with ThreadPoolExecutor(8) as pool:
            futures = [pool.submit(metric.measure, i, o) for i, o in zip(ins, outs, strict=True)]
            threaded = [f.result().to_dict() for f in futures]
        assert threaded == serial, metric.signature


def test_pickled_metrics_in_a_process_pool_equal_serial() -> None:
    ins, outs = _pairs()
    metrics = _all_metrics()
    serial = [[r.to_dict() for r in m.measure_many(ins, outs)] for m in metrics]
    copies = [pickle.loads(pickle.dumps(m)) for m in metrics]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        futures = [pool.submit(m.measure_many, ins, outs) for m in copies]
        parallel = [[r.to_dict() for r in f.result(timeout=300)] for f in futures]
    assert parallel == serial
