"""WerMetric and CerMetric: parity with the real jiwer 4.0 (its own test cases, real text in
several languages and scripts, random strings), corpus rates, the default mode, evidence and
bad input."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval import get_metric
from lexeval.metrics import CerMetric, WerMetric
from lexeval.metrics.edits import EditCounts, count_edits, error_rate

jiwer = pytest.importorskip("jiwer")

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
WER = WerMetric(compat="jiwer")
CER = CerMetric(compat="jiwer")


def _jiwer_counts(reference: str, output: str, *, characters: bool) -> dict[str, Any]:
    process = jiwer.process_characters if characters else jiwer.process_words
    o = process(reference, output)
    return {
        "cer" if characters else "wer": o.cer if characters else o.wer,
        "hits": o.hits,
        "substitutions": o.substitutions,
        "deletions": o.deletions,
        "insertions": o.insertions,
    }


def _ours(reference: str, output: str, *, characters: bool) -> dict[str, Any]:
    info = (CER if characters else WER).measure(reference, output).info
    keys = ("cer" if characters else "wer", "hits", "substitutions", "deletions", "insertions")
    return {k: info[k] for k in keys}


def _mismatches(pairs: list[tuple[str, str]], *, characters: bool) -> list[tuple[str, str]]:
    return [
        (r, o)
        for r, o in pairs
        if _ours(r, o, characters=characters) != _jiwer_counts(r, o, characters=characters)
    ]


# ---- jiwer's own test cases (tests/test_measures.py, test_cer.py, test_empty_ref.py) ---------


@pytest.mark.parametrize(
    ("reference", "output", "wer"),
    [
        ("This is a test", "This is a test", 0.0),
        ("This is a test", "", 1.0),
        ("This is a test", "This test", 0.5),
        # "From WER and RIL to MER and WIL" (jiwer's known values)
        ("X", "X", 0.0),
        ("X", "X X Y Y", 3.0),
        ("X Y X", "X Z", 2 / 3),
        ("X", "Y", 1.0),
        ("X", "Y Z", 2.0),
        ("i am a short ground truth", "i am a considerably longer and very much incorrect "
         "hypothesis", 7 / 6),
    ],
)  # fmt: skip
def test_jiwer_known_word_error_rates(reference: str, output: str, wer: float) -> None:
    r = WER.measure(reference, output)
    assert r.info["wer"] == pytest.approx(wer, abs=1e-16) == jiwer.wer(reference, output)
    assert r.score == max(0.0, 1.0 - r.info["wer"])


@pytest.mark.parametrize(
    ("reference", "output", "cer"),
    [
        ("This is a test", "This is a test", 0 / 14),
        ("This is a test", "", 14 / 14),
        ("This is a test", "This test", 5 / 14),
        ("X", "X", 0.0),
        ("X", "X X Y Y", 6.0),
        ("X Y X", "X Z", 3 / 5),
        ("X", "Y", 1.0),
        ("X", "Y Z", 3.0),
    ],
)
def test_jiwer_known_character_error_rates(reference: str, output: str, cer: float) -> None:
    r = CER.measure(reference, output)
    assert r.info["cer"] == pytest.approx(cer, abs=1e-16) == jiwer.cer(reference, output)


def test_jiwer_permutations_are_corpus_rates() -> None:
    # jiwer's test_permutations_invariance (CER) and the default transform's WER
    assert CER.corpus_score(["i", "am i good"], ["i am", "i good"]).info["cer"] == 0.6
    assert CER.corpus_score(["am i good", "i"], ["i good", "i am"]).info["cer"] == 0.6
    refs, outs = ["i", "am i good"], ["i am", "i good"]
    assert WER.corpus_score(refs, outs).info["wer"] == jiwer.wer(refs, outs)


def test_jiwer_empty_references() -> None:
    # jiwer 4.0 does not raise on an empty reference: the rate is the number of insertions
    for i in range(10):
        refs, outs = ([""], [""]) if i == 0 else ([""] * i, [""] * i)
        corpus = WER.corpus_score(refs, outs)
        assert corpus.info["wer"] == 0 == jiwer.wer(refs, outs)
        assert corpus.info["hits"] == corpus.info["insertions"] == 0
    assert WER.measure("", "hello").info["insertions"] == 1
    assert WER.measure("", "hello").info["wer"] == 1 == jiwer.wer("", "hello")
    for i in range(2, 11):
        output = " ".join(str(j) for j in range(i))
        r = WER.measure("", output)
        assert r.info["insertions"] == i and r.info["wer"] == i == jiwer.wer("", output)
        assert r.score == 0.0
    r = WER.measure("hello", "")
    assert r.info["deletions"] == 1 and r.info["wer"] == 1.0 and r.score == 0.0
    corpus = WER.corpus_score(["hello world", ""], ["hello world", "done"])
    assert corpus.info["insertions"] == 1 and corpus.info["wer"] == pytest.approx(1 / 2)
    with_empty = WER.corpus_score(["hello world", ""], ["hello world", ""]).info
    without = WER.corpus_score(["hello world"], ["hello world"]).info
    assert {k: v for k, v in with_empty.items() if k != "pairs"} == {
        k: v for k, v in without.items() if k != "pairs"
    }
    for reference, output, cer in [("", "", 0), ("", "a", 1), ("", "abd", 3), ("a", "", 1)]:
        assert CER.measure(reference, output).info["cer"] == cer == jiwer.cer(reference, output)
    assert CER.measure("abc", "").info["cer"] == 1 == jiwer.cer("abc", "")
    assert WER.measure("", "").score == 1.0 and WER.measure("  ", "").score == 1.0


def test_jiwer_error_counts_are_the_evidence() -> None:
    # jiwer's tests/test_count_errors.py: the substitutions, insertions and deletions listed
    refs = ["sub", "sub", "sub", "sub", "sub", "this was", "del", "hit"]
    outs = ["bus", "bus", "bus", "usb", "bsu", "this was ins", "", "hit"]
    m = WerMetric(compat="jiwer", evidence_limit=20)
    results = [m.measure(r, o).info for r, o in zip(refs, outs, strict=True)]
    substituted = [pair for info in results for pair in info["substituted"]]
    inserted = [word for info in results for word in info["inserted"]]
    deleted = [word for info in results for word in info["deleted"]]
    assert sorted(substituted) == sorted([("sub", "bus")] * 3 + [("sub", "usb"), ("sub", "bsu")])
    assert inserted == ["ins"] and deleted == ["del"]
    o = jiwer.process_words(refs, outs)
    corpus = m.corpus_score(refs, outs).info
    assert (corpus["substitutions"], corpus["insertions"], corpus["deletions"]) == (
        o.substitutions,
        o.insertions,
        o.deletions,
    )


def test_jiwer_character_error_counts() -> None:
    refs = ["sub", "sub", "sub", "sub", "sub", "this was", "del", "hit"]
    outs = ["bus", "bus", "bus", "usb", "bsu", "this was ins", "", "hit"]
    o = jiwer.process_characters(refs, outs)
    corpus = CER.corpus_score(refs, outs).info
    assert corpus["cer"] == o.cer
    assert (corpus["hits"], corpus["substitutions"]) == (o.hits, o.substitutions)
    assert (corpus["insertions"], corpus["deletions"]) == (o.insertions, o.deletions)


def test_jiwer_large_vocabulary() -> None:
    # jiwer's test_large_vocab, smaller: every word distinct, half of them replaced
    reference = [f"word{i}" for i in range(20_000)]
    output = reference[:10_000] + [f"other{i}" for i in range(10_000)]
    r = WER.measure(" ".join(reference), " ".join(output))
    assert r.info["wer"] == 0.5 == jiwer.wer(" ".join(reference), " ".join(output))
    assert r.info["hits"] == 10_000


# ---- real text ------------------------------------------------------------------------------


def _evouna_pairs() -> list[tuple[str, str]]:
    path = SHARED / "qa_human" / "evouna" / "NQ.json"
    if not path.is_file():
        pytest.skip(f"../shared is absent ({path} not found): jiwer parity on EVOUNA not run")
    rows = json.loads(path.read_text(encoding="utf-8"))
    pairs = []
    for row in rows:
        golds = [g for g in (row.get("golden_answer") or "").split("/") if g.strip()]
        for system in ("fid", "gpt35", "chatgpt", "gpt4", "newbing"):
            answer = row.get(f"answer_{system}")
            if golds and isinstance(answer, str):
                pairs.append((golds[0], answer))
                pairs.append((answer, golds[-1]))  # the long text as the reference too
    return pairs


def _summeval_pairs() -> list[tuple[str, str]]:
    path = SHARED / "summeval" / "summeval_abstractive_12sys.aligned.jsonl"
    if not path.is_file():
        pytest.skip(f"../shared is absent ({path} not found): jiwer parity on SummEval not run")
    pairs = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            pairs += [(ref, row["decoded"]) for ref in row["references"][:2]]
    return pairs


def test_word_parity_on_evouna_answers() -> None:
    pairs = _evouna_pairs()
    assert len(pairs) > 30_000
    assert _mismatches(pairs, characters=False) == []


def test_character_parity_on_evouna_answers() -> None:
    pairs = _evouna_pairs()[::3]
    assert len(pairs) > 10_000
    assert _mismatches(pairs, characters=True) == []


def test_parity_on_summeval_summaries() -> None:
    pairs = _summeval_pairs()
    assert len(pairs) > 2000
    assert _mismatches(pairs, characters=False) == []
    assert _mismatches(pairs[::4], characters=True) == []


def test_corpus_rates_on_real_text() -> None:
    pairs = _evouna_pairs()[:4000] + _summeval_pairs()[:400]
    refs, outs = [r for r, _ in pairs], [o for _, o in pairs]
    nonempty = [(r, o) for r, o in pairs if r.strip()]
    for metric, peer in ((WER, jiwer.wer), (CER, jiwer.cer)):
        key = metric.rate_key
        assert metric.corpus_score(refs, outs).info[key] == peer(refs, outs)
        r2, o2 = [r for r, _ in nonempty[:999]], [o for _, o in nonempty[:999]]
        assert metric.corpus_score(r2, o2).info[key] == peer(r2, o2)
    # jiwer's corpus rate is not the mean of the pairs' rates
    mean = sum(WER.measure(r, o).info["wer"] for r, o in nonempty[:999]) / 999
    assert mean != WER.corpus_score(r2, o2).info["wer"]


#: wordfreq's most frequent words (real words, several scripts) built into sentences with
#: the errors an ASR system or a model makes: words dropped, replaced, added, case changed,
#: white space runs, tabs and no-break spaces.
LANGUAGES = ("en", "de", "fr", "ru", "ar", "hi", "zh", "ja", "ko", "el", "he", "fa", "bn", "tr")


def _sentences(language: str, n: int, seed: int) -> list[tuple[str, str]]:
    wordfreq = pytest.importorskip("wordfreq")
    words = wordfreq.top_n_list(language, 2000)
    rng = random.Random(f"{language}:{seed}")
    spaced = language not in ("zh", "ja")
    pairs = []
    for _ in range(n):
        reference = [rng.choice(words) for _ in range(rng.randint(1, 25))]
        output = []
        for word in reference:
            roll = rng.random()
            if roll < 0.08:
                continue
            if roll < 0.18:
                output.append(rng.choice(words))
            elif roll < 0.24:
                output += [word, rng.choice(words)]
            elif roll < 0.28:
                output.append(word.upper())
            else:
                output.append(word)
        glue = " " if spaced else ""
        out = glue.join(output)
        if rng.random() < 0.3:
            out = out.replace(" ", rng.choice(["  ", "\t", " \t", "\u00a0", " \u3000 "]), 2)
        if rng.random() < 0.2:
            out = f" {out}\n"
        pairs.append((glue.join(reference), out))
    return pairs


@pytest.mark.parametrize("language", LANGUAGES)
def test_parity_in_many_languages(language: str) -> None:
    pairs = _sentences(language, 300, seed=1)
    assert _mismatches(pairs, characters=False) == []
    assert _mismatches(pairs, characters=True) == []
    refs, outs = [r for r, _ in pairs], [o for _, o in pairs]
    assert WER.corpus_score(refs, outs).info["wer"] == jiwer.wer(refs, outs)
    assert CER.corpus_score(refs, outs).info["cer"] == jiwer.cer(refs, outs)


_TEXT = st.text(alphabet=st.sampled_from("ab \t\n\u00a0\u3000Ab.é東京"), max_size=30)


@settings(max_examples=400, deadline=None)
@given(_TEXT, _TEXT)
def test_parity_on_random_strings(reference: str, output: str) -> None:
    assert _ours(reference, output, characters=False) == _jiwer_counts(
        reference, output, characters=False
    )
    assert _ours(reference, output, characters=True) == _jiwer_counts(
        reference, output, characters=True
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT), max_size=6))
def test_corpus_parity_on_random_strings(pairs: list[tuple[str, str]]) -> None:
    refs, outs = [r for r, _ in pairs], [o for _, o in pairs]
    assert WER.corpus_score(refs, outs).info["wer"] == jiwer.wer(refs, outs)
    assert CER.corpus_score(refs, outs).info["cer"] == jiwer.cer(refs, outs)


# ---- the core ---------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcd", max_size=12), st.text(alphabet="abcd", max_size=12))
def test_counts_add_up(reference: str, output: str) -> None:
    counts = count_edits(reference, output)
    assert counts.reference_length == len(reference)
    assert counts.output_length == len(output)
    assert counts == count_edits(list(reference), list(output))  # characters or words alike
    if reference:
        assert error_rate(counts) == counts.errors / len(reference)


def test_error_rate_rule() -> None:
    assert error_rate(EditCounts(0, 0, 0, 0)) == 0.0
    assert error_rate(EditCounts(0, 0, 0, 4)) == 4.0
    assert error_rate(EditCounts(2, 1, 1, 0)) == 0.5


# ---- the metric -----------------------------------------------------------------------------


def test_several_references_keep_the_lowest_rate() -> None:
    r = WER.measure(["completely different words here", "the cat sat"], "the cat sat down")
    assert r.info["reference_index"] == 1 and r.info["wer"] == pytest.approx(1 / 3)
    # rates above 1 all score 0.0: the lowest rate still decides
    r = WER.measure(["x", "x y"], "a b c d")
    assert r.info["reference_index"] == 1 and r.info["wer"] == 2.0 and r.score == 0.0
    c = CER.corpus_score([["abc", "abd"]], ["abd"])
    assert c.info["cer"] == 0.0


def test_threshold_scale_signature_and_registry() -> None:
    m = get_metric("wer", compat="jiwer", threshold=0.5)
    assert isinstance(m, WerMetric)
    assert m.measure("a b c d", "a b c x").passed is True
    assert m.measure("a b c d", "a x y z").passed is False
    assert m.signature == "wer|mode:jiwer|tok:jiwer-4.0-wer_default"
    assert get_metric("cer", compat="jiwer").signature == "cer|mode:jiwer|tok:jiwer-4.0-cer_default"
    scaled = WerMetric(compat="jiwer", scale=100).measure("a b c d", "a b c x")
    assert scaled.score == 75.0 and "scale:100" in scaled.signature
    assert CerMetric().signature.endswith("units:chars-joined")
    assert "lemma:no" in WerMetric().signature and "case:fold" in WerMetric().signature
    corpus = WerMetric(compat="jiwer", threshold=0.9).corpus_score(["a b"], ["a c"])
    assert corpus.passed is False and corpus.signature == WER.signature


def test_measure_many_equals_measure_and_pickles() -> None:
    refs = ["the cat sat", ["a b", "a c"], "", "東京タワー"]
    outs = ["the cat", "a c", "x", "東京"]
    for metric in (WER, CER, WerMetric(), CerMetric(evidence_limit=3)):
        many = metric.measure_many(refs, outs)
        assert many == [metric.measure(r, o) for r, o in zip(refs, outs, strict=True)]
        clone = pickle.loads(pickle.dumps(metric))
        assert clone.signature == metric.signature
        assert clone.measure_many(refs, outs) == many


def test_question_is_accepted_and_ignored() -> None:
    plain = WER.measure("a b", "a c")
    assert WER.measure("a b", "a c", question="what?") == plain
    assert WER.measure("a b", "a c", "what?") == plain
    assert WER.measure_many(["a b"], ["a c"], ["what?"]) == [plain]


def test_evidence_is_limited() -> None:
    m = CerMetric(compat="jiwer", evidence_limit=2)
    info = m.measure("abcdef", "xyzdefgh").info
    assert info["substituted"] == [("a", "x"), ("b", "y")]
    assert info["inserted"] == ["g", "h"] and info["deleted"] == []
    assert info["substitutions"] == 3  # the counts are complete
    assert "substituted" not in CER.measure("abcdef", "xyzdefgh").info


def test_default_mode_normalizes() -> None:
    m = WerMetric()
    assert m.measure("The cat, it SAT.", "the cat it sat").info["wer"] == 0.0
    assert m.measure("ﬁne café", "fine CAFÉ").info["wer"] == 0.0  # NFKC and case folding
    assert m.measure("the cats ran", "the cat run").info["wer"] == pytest.approx(2 / 3)
    # Han and kana: one word each, and no space between them for CER
    assert m.measure("東京タワー", "東京タワ").info["wer"] == pytest.approx(1 / 5)
    c = CerMetric()
    assert c.measure("東京タワー!", "東京タワ").info["cer"] == pytest.approx(1 / 5)
    assert c.measure("Hello,   World!", "hello world").info["cer"] == 0.0
    assert c.measure("Hello World", "hello word").info["reference_length"] == 11
    assert c.measure("...", "").score == 1.0  # no unit on either side


def test_bad_input() -> None:
    for metric in (WER, CER, WerMetric()):
        with pytest.raises(TypeError, match="input"):
            metric.measure(None, "x")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="output"):
            metric.measure("x", None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="input"):
            metric.measure(["x", 3], "x")  # type: ignore[list-item]
        with pytest.raises(ValueError, match="input"):
            metric.measure([], "x")
        with pytest.raises(ValueError, match="2 inputs but 1 outputs"):
            metric.corpus_score(["a", "b"], ["a"])
        with pytest.raises(TypeError, match=r"outputs\[1\]"):
            metric.corpus_score(["a", "b"], ["a", None])  # type: ignore[list-item]
        with pytest.raises(TypeError, match="not str"):
            metric.corpus_score("ab", "ab")
    with pytest.raises(ValueError, match="compat"):
        WerMetric(compat="sacrebleu")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="normalizer"):
        WerMetric(compat="jiwer", normalizer="tokens")
    assert WER.corpus_score([], []).info["wer"] == 0 == jiwer.wer([], [])
    # iterables are read once, as by the other metrics' corpus_score and measure_many
    for metric in (WER, CER):
        refs, outs = ["a b", "c"], ["a b", "d"]
        listed = metric.corpus_score(refs, outs).info
        assert metric.corpus_score(iter(refs), (o for o in outs)).info == listed
        assert listed["pairs"] == 2


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT)
def test_evidence_changes_no_count(reference: str, output: str) -> None:
    for plain, listed in ((WER, WerMetric(compat="jiwer", evidence_limit=50)),
                          (CER, CerMetric(compat="jiwer", evidence_limit=50))):  # fmt: skip
        info, evidence = plain.measure(reference, output).info, listed.measure(reference, output)
        assert {k: v for k, v in evidence.info.items() if k in info} == info
        assert len(evidence.info["substituted"]) == min(50, info["substitutions"])
        assert len(evidence.info["deleted"]) == min(50, info["deletions"])
        assert len(evidence.info["inserted"]) == min(50, info["insertions"])
