"""ROUGE and token-F1 evidence: the matched and missing tokens / n-grams agree with the counts."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from lexeval.metrics import RougeMetric, TokenF1Metric

WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "to", "park", "and", "then", "slept"]


def _pairs(count: int = 40) -> list[tuple[str, str]]:
    rng = random.Random(7)
    pairs = []
    for _ in range(count):
        ref = " ".join(rng.choices(WORDS, k=rng.randint(0, 14)))
        out = " ".join(rng.choices(WORDS, k=rng.randint(0, 14)))
        pairs.append((ref, out))
    return pairs


def _multi_sentence(text: str) -> str:
    words = text.split()
    return "\n".join(" ".join(words[i : i + 4]) for i in range(0, len(words), 4))


ROUGE_N = [
    lambda **kw: RougeMetric("rouge1", compat="rouge-score", **kw),
    lambda **kw: RougeMetric("rouge2", compat="rouge-score", **kw),
    lambda **kw: RougeMetric("rouge1", **kw),
    lambda **kw: RougeMetric("rouge3", **kw),
]
LCS = [
    lambda **kw: RougeMetric("rougeL", compat="rouge-score", **kw),
    lambda **kw: RougeMetric("rougeL", **kw),
    lambda **kw: RougeMetric("rougeLsum", compat="rouge-score", **kw),
    lambda **kw: RougeMetric("rougeLsum", **kw),
]


@pytest.mark.parametrize("make", ROUGE_N)
def test_rouge_n_evidence_adds_up_to_the_counts(make: object) -> None:
    metric = make(evidence_limit=1000)  # type: ignore[operator]
    for ref, out in _pairs():
        info = metric.measure(ref, out).info
        counts = info["counts"]
        assert len(info["matched"]) == counts["overlap"]
        assert len(info["matched"]) + len(info["missing"]) == counts["reference"]
        n = metric.n
        out_tokens = metric._tokens(out)
        out_grams = Counter(" ".join(out_tokens[i : i + n]) for i in range(len(out_tokens) - n + 1))
        assert not Counter(info["matched"]) - out_grams  # matched n-grams occur in the output
        for gram in info["missing"]:  # missing ones are absent, or used up by the clipping
            assert Counter(info["matched"])[gram] == out_grams[gram]


@pytest.mark.parametrize("make", LCS)
def test_lcs_evidence_is_a_common_subsequence(make: object) -> None:
    metric = make(evidence_limit=1000)  # type: ignore[operator]
    for ref, out in _pairs():
        if metric.rouge_type == "rougeLsum":
            ref, out = _multi_sentence(ref), _multi_sentence(out)
        info = metric.measure(ref, out).info
        assert len(info["matched"]) == info["counts"]["overlap"]
        assert len(info["matched"]) + len(info["missing"]) == info["counts"]["reference"]
        if metric.rouge_type == "rougeL":
            out_tokens = iter(metric._tokens(out))
            assert all(token in out_tokens for token in info["matched"])  # a subsequence


def test_rouge_distinct_counting_lists_distinct_ngrams() -> None:
    metric = RougeMetric("rouge1", counting="distinct", evidence_limit=20)
    info = metric.measure("the cat the mat", "the dog").info
    assert info["matched"] == ["the"] and info["missing"] == ["cat", "mat"]


def test_token_f1_evidence_is_the_multiset_intersection() -> None:
    for compat in (None, "squad"):
        metric = TokenF1Metric(compat=compat, evidence_limit=1000)  # type: ignore[arg-type]
        for ref, out in _pairs():
            info = metric.measure(ref, out).info
            ref_tokens, out_tokens = metric._tokens(ref), metric._tokens(out)
            assert Counter(info["matched"]) == Counter(ref_tokens) & Counter(out_tokens)
            assert Counter(info["matched"]) + Counter(info["missing"]) == Counter(ref_tokens)
            assert len(info["matched"]) == info["counts"]["overlap"]
    info = TokenF1Metric(compat="set", evidence_limit=20).measure("a a b c", "a x").info
    assert info["matched"] == ["a"] and info["missing"] == ["b", "c"]


def test_evidence_follows_the_best_reference() -> None:
    result = TokenF1Metric(evidence_limit=20).measure(["dog park", "the cat sat"], "the cat")
    assert result.info["reference_index"] == 1
    # the evidence lists the compared tokens: lemmas in the default mode
    assert result.info["matched"] == ["the", "cat"] and result.info["missing"] == ["sit"]


@pytest.mark.parametrize("make", [*ROUGE_N, *LCS, lambda **kw: TokenF1Metric(**kw)])
def test_evidence_is_capped_and_only_when_asked_for(make: object) -> None:
    ref = " ".join(f"w{i}" for i in range(60)) + " shared words here"
    out = "shared words here " + " ".join(f"v{i}" for i in range(60))
    full = make(evidence_limit=1000).measure(ref, out).info  # type: ignore[operator]
    capped = make(evidence_limit=2).measure(ref, out).info  # type: ignore[operator]
    default = make().measure(ref, out).info  # type: ignore[operator]
    assert capped["matched"] == full["matched"][:2]
    assert capped["missing"] == full["missing"][:2]
    assert capped["counts"] == full["counts"]
    # by default (evidence_limit=0): no lists, the same numbers
    assert "matched" not in default and "missing" not in default
    assert {k: v for k, v in full.items() if k not in ("matched", "missing")} == default
    off = make(evidence_limit=0).measure(ref, out).info  # type: ignore[operator]
    assert off == default


def test_evidence_limit_is_checked() -> None:
    with pytest.raises(ValueError, match="evidence_limit"):
        TokenF1Metric(evidence_limit=-1)
    with pytest.raises(TypeError, match="evidence_limit"):
        RougeMetric("rouge1", evidence_limit=2.5)  # type: ignore[arg-type]
