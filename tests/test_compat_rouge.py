"""rouge-score 0.1.2 parity: always against the installed package, computed at test time."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.compat import rouge_score_sentences, rouge_score_tokens
from lexeval.metrics import RougeMetric
from lexeval.metrics.rouge import lcs_indices

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
rs_tokenize = pytest.importorskip("rouge_score.tokenize")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SUMMEVAL = SHARED / "data" / "summeval" / "summeval_expert_avg_11refs.jsonl"
ROUGE_TESTDATA = SHARED / "data" / "rouge_testdata"
TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]

HANDWRITTEN = [
    ("The quick brown fox jumps over the lazy dog", "The quick brown dog jumps on the log."),
    ("Running runners ran; the runner runs.", "A runner is running\nand runs"),
    ("one\ntwo three\n\nfour five six", "six five four\nthree two one"),
    ("", "something"),
    ("something", ""),
    ("Ça va? Très bien, merci. 123-456", "ca va tres bien merci 123 456"),
    ("a b c d e f g\nh i j a b\nc d", "a c e g\nb d f h\nj i"),
    ("generalizations generously generated", "general generation generic"),
    ("x", "x"),
    ("the the the cat", "the cat the"),
]


def _ours(rouge_type: str, stem: bool, target: str, prediction: str) -> dict[str, Any]:
    return (
        RougeMetric(rouge_type, compat="rouge-score", use_stemmer=stem)
        .measure(target, prediction)
        .info
    )


def _worst(pairs: list[tuple[str | list[str], str]], stem: bool) -> float:
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    metrics = {t: RougeMetric(t, compat="rouge-score", use_stemmer=stem) for t in TYPES}
    worst = 0.0
    for target, prediction in pairs:
        if isinstance(target, list):
            theirs = scorer.score_multi(target, prediction)
        else:
            theirs = scorer.score(target, prediction)
        for t in TYPES:
            info = metrics[t].measure(target, prediction).info
            s = theirs[t]
            worst = max(
                worst,
                abs(info["fmeasure"] - s.fmeasure),
                abs(info["precision"] - s.precision),
                abs(info["recall"] - s.recall),
            )
    return worst


@pytest.mark.parametrize("stem", [False, True])
def test_handwritten_parity(stem: bool) -> None:
    pairs: list[tuple[str | list[str], str]] = list(HANDWRITTEN)
    pairs += [(p, t) for t, p in HANDWRITTEN]
    pairs.append(([t for t, _ in HANDWRITTEN[:4]], HANDWRITTEN[1][1]))  # score_multi
    assert _worst(pairs, stem) == 0.0


@pytest.mark.parametrize("stem", [False, True])
def test_tokenizer_parity_handwritten(stem: bool) -> None:
    from nltk.stem import porter

    stemmer = porter.PorterStemmer() if stem else None
    for target, prediction in HANDWRITTEN:
        for text in (target, prediction):
            assert rouge_score_tokens(text, stemmer=stem) == rs_tokenize.tokenize(text, stemmer)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcAB 1\n.-éİ")), max_size=40), st.booleans())
def test_tokenizer_parity_property(text: str, stem: bool) -> None:
    from nltk.stem import porter

    stemmer = porter.PorterStemmer() if stem else None
    assert rouge_score_tokens(text, stemmer=stem) == rs_tokenize.tokenize(text, stemmer)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("abcd"), max_size=12),
    st.lists(st.sampled_from("abcd"), max_size=12),
)
def test_lcs_backtrack_matches_rouge_score(ref: list[str], can: list[str]) -> None:
    assert lcs_indices(ref, can) == rouge_scorer.lcs_ind(ref, can)


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("abc \n")), max_size=40),
    st.text(alphabet=st.sampled_from(list("abc \n")), max_size=40),
)
def test_summary_level_property(target: str, prediction: str) -> None:
    assert _worst([(target, prediction)], False) == 0.0


def test_sentences_split_on_newline_only() -> None:
    assert rouge_score_sentences("a. b\n\nc") == ["a. b", "c"]


def _summeval_rows() -> list[dict[str, Any]]:
    if not SUMMEVAL.is_file():
        pytest.skip(f"../shared is absent ({SUMMEVAL} not found): SummEval parity not run")
    with open(SUMMEVAL, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _one_sentence_per_line(text: str) -> str:
    return re.sub(r" ([.!?]) ", r" \1\n", text)


@pytest.mark.parametrize("stem", [False, True])
def test_summeval_parity(stem: bool) -> None:
    """All 1,600 summaries x 11 references when LEXEVAL_FULL_PARITY=1 (several minutes);
    otherwise every 20th summary. Half of the pairs are rewritten one sentence per line so
    that rougeLsum's union-LCS is exercised."""
    rows = _summeval_rows()
    step = 1 if os.environ.get("LEXEVAL_FULL_PARITY") == "1" else 20
    pairs: list[tuple[str | list[str], str]] = []
    for i, row in enumerate(rows[::step]):
        for ref in row["references"]:
            if i % 2:
                pairs.append((_one_sentence_per_line(ref), _one_sentence_per_line(row["decoded"])))
            else:
                pairs.append((ref, row["decoded"]))
    assert len(pairs) >= 11 * len(rows) // step
    assert _worst(pairs, stem) <= 1e-12


def test_rouge_testdata_parity() -> None:
    if not ROUGE_TESTDATA.is_dir():
        pytest.skip("../shared is absent: rouge-score test data parity not run")
    target = (ROUGE_TESTDATA / "target.txt").read_text("utf-8")
    prediction = (ROUGE_TESTDATA / "prediction.txt").read_text("utf-8")
    lines = target.split("\n") + prediction.split("\n")
    pairs: list[tuple[str | list[str], str]] = [(a, b) for a in lines for b in lines]
    pairs += [(target, prediction), (prediction, target)]  # multi-line texts for rougeLsum
    assert len(pairs) >= 10
    assert _worst(pairs, True) == 0.0
    assert _worst(pairs, False) == 0.0


def test_stems_equal_rouge_score_with_a_cache_that_fills_and_clears(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the stem cache is bounded: a cache cleared every few tokens must give the same tokens,
    # cold, warm and after clear_stem_cache()
    from nltk.stem import porter

    import lexeval.compat as compat

    text = "Generously running runners ran; dying flies ATE 1990s' cats, agreed-upon caresses x"
    expected = rs_tokenize.tokenize(text, porter.PorterStemmer())
    monkeypatch.setattr(compat, "_STEMS_MAX", 3)
    compat.clear_stem_cache()
    for _ in range(3):
        assert rouge_score_tokens(text, stemmer=True) == expected
    monkeypatch.undo()
    compat.clear_stem_cache()
    assert rouge_score_tokens(text, stemmer=True) == rouge_score_tokens(text, stemmer=True)
    assert rouge_score_tokens(text, stemmer=True) == expected
