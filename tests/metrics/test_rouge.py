"""RougeMetric: the issue's examples, default-mode properties, bounds."""

from __future__ import annotations

import random

import pytest

from lexeval import Normalizer
from lexeval.metrics import RougeMetric, RougeScorer

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")


def test_distinct_counting_issue_example() -> None:
    m1 = RougeMetric("rouge1", compat="rouge-score", counting="distinct", score="recall")
    m2 = RougeMetric("rouge2", compat="rouge-score", counting="distinct", score="recall")
    assert m1.measure("the cat sat on", "the cat sat").score == pytest.approx(3 / 4)
    assert m2.measure("the cat sat on", "the cat sat").score == pytest.approx(2 / 3)
    # distinct n-grams: "the the cat" has 2 distinct unigrams, both in the output
    assert m1.measure("the the cat", "cat the").score == 1.0


@pytest.mark.parametrize("rouge_type", ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"])
def test_compat_score_multi_equals_rouge_score(rouge_type: str) -> None:
    refs = ["the cat sat on the mat", "a dog sat\non a log", "cats sit"]
    pred = "the dog sat on the mat"
    theirs = rouge_scorer.RougeScorer([rouge_type]).score_multi(refs, pred)[rouge_type]
    ours = RougeMetric(rouge_type, compat="rouge-score").measure(refs, pred)
    assert ours.score == theirs.fmeasure
    assert (ours.info["precision"], ours.info["recall"]) == (theirs.precision, theirs.recall)


@pytest.mark.parametrize(
    "text",
    [
        "สวัสดีครับ ผมชื่อสมชาย วันนี้อากาศดีมาก",
        "Привет, как дела? Всё хорошо, спасибо.",
        "Ο γρήγορος καφέ αλεπού πηδάει.",
    ],
)
@pytest.mark.parametrize("rouge_type", ["rouge1", "rouge2", "rougeL", "rougeLsum"])
def test_default_mode_is_unicode_aware(text: str, rouge_type: str) -> None:
    assert RougeMetric(rouge_type).measure(text, text).score == 1.0
    compat = RougeMetric(rouge_type, compat="rouge-score").measure(text, text).score
    assert compat == 0.0  # rouge-score drops every non-ASCII letter


def test_default_mode_stems_like_rouge_score() -> None:
    """The default ('rouge' preset): Porter stems of words of 4+ letters but stopwords, words
    split at non-alphanumerics, numbers whole (measured better on SummEval than lemmas)."""
    m = RougeMetric("rouge1")
    assert m.measure("policies running", "policy runs").score == 1.0
    assert m.measure("the call-up", "the call up").score == 1.0  # split like rouge-score
    assert m.measure("10,000 fans", "10000 fans").score == 1.0  # one number, not "10", "000"
    assert m.measure("10,000", "10 000").score == 0.0
    # stopwords are not stemmed: "being" stays itself, not "be"
    assert m.measure("being", "be").score == 0.0
    assert (
        RougeMetric("rouge1", compat="rouge-score", use_stemmer=True).measure("being", "be").score
        == 1.0
    )
    # lemmas remain available through a normalizer
    assert RougeMetric("rouge1", normalizer="tokens").measure("mice ran", "mouse run").score == 1.0
    assert m.measure("mice ran", "mouse run").score == 0.0


def test_default_mode_keeps_marks_inside_words() -> None:
    # Thai and Devanagari vowel signs are combining marks: the word stays whole
    thai, hindi = "สวัสดีครับ", "नमस्ते दुनिया"
    assert Normalizer("rouge").tokens(thai) == [thai]
    assert Normalizer("rouge").tokens(hindi) == ["नमस्ते", "दुनिया"]
    assert RougeMetric("rouge1").measure(hindi, "नमस्ते").info["counts"]["overlap"] == 1


def test_empty_rules() -> None:
    assert RougeMetric("rouge1").measure("", "").score == 1.0
    assert RougeMetric("rouge2").measure("cat", "cat").score == 1.0
    assert RougeMetric("rouge2").measure("cat", "dog").score == 0.0
    assert RougeMetric("rouge1").measure("cat", "").score == 0.0
    assert RougeMetric("rouge1", compat="rouge-score").measure("", "").score == 0.0


def test_lcs_counts_by_hand() -> None:
    r = RougeMetric("rougeL", compat="rouge-score").measure("a b c d e", "a x c e")
    # LCS a c e = 3; P = 3/4, R = 3/5
    assert r.info["counts"] == {"overlap": 3, "reference": 5, "output": 4}
    assert r.info["precision"] == 3 / 4
    assert r.info["recall"] == 3 / 5


@pytest.mark.parametrize("rouge_type", ["rouge1", "rouge2", "rougeL"])
@pytest.mark.parametrize("compat", [None, "rouge-score"])
def test_long_inputs(rouge_type: str, compat: str | None) -> None:
    """20,000 words a side (their speed is measured in benchmarks/speed/rouge_speed.py)."""
    rng = random.Random(7)
    words = [f"w{rng.randrange(3000)}" for _ in range(40_000)]
    ref, out = " ".join(words[:20_000]), " ".join(words[20_000:])
    metric = RougeMetric(rouge_type, compat=compat)  # type: ignore[arg-type]
    result = metric.measure(ref, out)
    assert 0.0 < result.score < 1.0
    assert result.info["counts"]["reference"] == (20_000 if rouge_type != "rouge2" else 19_999)


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="rouge_type"):
        RougeMetric("rouge0")
    with pytest.raises(ValueError, match="rouge_type"):
        RougeMetric("bleu")
    with pytest.raises(TypeError, match="rouge_type"):
        RougeMetric(1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="counting='distinct' applies to ROUGE-N only"):
        RougeMetric("rougeL", counting="distinct")
    with pytest.raises(ValueError, match="counting must be"):
        RougeMetric("rouge1", counting="set")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="use_stemmer"):
        RougeMetric("rouge1", use_stemmer=True)
    with pytest.raises(ValueError, match="compat"):
        RougeMetric("rouge1", compat="pyrouge")  # type: ignore[arg-type]


def test_the_unreleased_variant_option_is_gone() -> None:
    with pytest.raises(TypeError, match="variant"):
        RougeMetric("rouge1", variant="set")  # type: ignore[call-arg]
    assert not hasattr(RougeMetric("rouge1"), "variant")


def test_scorer_takes_counting() -> None:
    pair = ("the cat the cat sat", "the cat sat the")
    new = RougeScorer(["rouge1", "rouge2", "rougeL"], compat="rouge-score", counting="distinct")
    assert new.metrics["rouge2"].counting == "distinct"
    assert new.metrics["rougeL"].counting == "occurrences"  # ROUGE-N only
    assert new.score(*pair)["rouge1"].score == 1.0  # {the, cat, sat} both sides
    assert new.metrics["rouge2"].signature.split("|")[2] == "variant:set"  # signatures kept


def test_default_lsum_on_one_long_sentence() -> None:
    rng = random.Random(11)
    words = [f"w{rng.randrange(3000)}" for _ in range(20_000)]
    ref, out = " ".join(words[:10_000]), " ".join(words[10_000:])
    result = RougeMetric("rougeLsum").measure(ref, out)
    assert 0.0 < result.score < 1.0
    assert result.info["counts"]["reference"] == 10_000


def test_default_lsum_union_length_equals_exact_backtrack_length() -> None:
    from lexeval.metrics.rouge import lcs_indices, lcs_indices_any

    rng = random.Random(3)
    for _ in range(200):
        a = [rng.choice("abcd") for _ in range(rng.randrange(12))]
        b = [rng.choice("abcd") for _ in range(rng.randrange(12))]
        fast, exact = lcs_indices_any(a, b), lcs_indices(a, b)
        assert len(fast) == len(exact)
        assert [a[i] for i in fast] == [a[i] for i in sorted(fast)]  # in order
