"""Reference preparation of lenient keyword matching (LenientMatcher.reference, .weighted and
reference_keywords) against a plain Python oracle (the straightforward code the fast path
replaced): equal keys, canonical keys, flags, pieces, kinds and weights on random text, real
gold answers (EVOUNA NQ and TQ) and summaries (SummEval), numbers, number words, stopword-only
references, negations and non-English normalizers; equal values whatever the cache state or the
threads; cached entries that the garbage collector stops tracking."""

from __future__ import annotations

import gc
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lexeval.metrics.weights as weights_module
from lexeval.metrics.keyword_lenient import LenientMatcher, conflict_kind
from lexeval.metrics.weights import KeywordWeights
from lexeval.normalize import Normalizer
from lexeval.text.base import keyword_analysis
from lexeval.text.lenient import (
    NUMBER_WORDS_EN,
    canonical_keys,
    fold_accents,
    merge_number_words,
    repair_mojibake,
)
from tests.support.qa_data import evouna_golds

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"

# ---- the oracle --------------------------------------------------------------------------------
_NON_WORD = re.compile(r"\W+")
_DIGIT = re.compile(r"\d")  # (a Unicode decimal digit; "²" is not one)
_PARTS = re.compile(r"[-‐-―/ ]+")
_MONTHS = {
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
}


def oracle_keywords(matcher: LenientMatcher, reference: str) -> list[str]:
    """Reference keywords: the keywords, with every key instead when the text names an English
    number word (number words merged) or has no keyword."""
    text = repair_mojibake(reference)
    analysis = keyword_analysis(matcher.normalizer, text)
    ref_kw = list(analysis.keywords)
    english = matcher.english
    words = set(_NON_WORD.split(fold_accents(text)))
    if ref_kw and not (english and words & set(NUMBER_WORDS_EN)):
        return ref_kw
    ref_all = list(analysis.keys)
    if english and ref_all and set(ref_all) & set(NUMBER_WORDS_EN):
        kept, in_all = set(ref_kw), set(ref_all)
        merged = merge_number_words(ref_all, english)
        chosen = [t for t in merged if t in kept or t in NUMBER_WORDS_EN or t not in in_all]
        ref_kw = list(dict.fromkeys(chosen + [k for k in ref_kw if k not in in_all]))
    if not ref_kw:
        ref_kw = list(dict.fromkeys(ref_all))
    return ref_kw


def oracle_pieces(canonical: str, english: bool) -> tuple[str, ...]:
    if not _PARTS.search(canonical):
        return ()
    split = canonical_keys([p for p in _PARTS.split(canonical) if p], english)
    return tuple(split) if len(split) >= 2 else ()


def oracle_reference(matcher: LenientMatcher, reference: str) -> tuple[Any, ...]:
    keys = tuple(oracle_keywords(matcher, reference))
    english = matcher.english
    canonical = canonical_keys(keys, english)
    return (
        keys,
        canonical,
        tuple(_DIGIT.search(ck) is not None for ck in canonical),
        tuple(oracle_pieces(ck, english) for ck in canonical),
        tuple(conflict_kind(ck, english) for ck in canonical),
    )


def oracle_weighted(reference: tuple[Any, ...], weights: KeywordWeights) -> tuple[Any, ...]:
    keys, _, numeric, pieces, _ = reference
    values = weights.weights(list(keys), numeric=list(numeric))
    parts = tuple(tuple(weights.weight(p) for p in ps) for ps in pieces)
    return tuple(values), sum(values), parts


def check(matcher: LenientMatcher, reference: str) -> None:
    prepared = matcher.reference(reference)
    expected = oracle_reference(matcher, reference)
    assert tuple(prepared) == expected, reference
    assert list(prepared.keys) == matcher.reference_keywords(reference)
    for weights in WEIGHTS:
        # the memos emptied before each side: the compiled weights do not read back the
        # oracle's, nor the oracle the compiled path's
        _empty_weight_memos()
        oracle = oracle_weighted(expected, weights)
        _empty_weight_memos()
        matcher._weighted.clear()
        assert tuple(matcher.weighted(prepared, weights)) == oracle


def _empty_weight_memos() -> None:
    weights_module.clear_caches()
    weights_module._ZIPF_OF_FREQUENCY.clear()


WEIGHTS = [KeywordWeights("en"), KeywordWeights("en", frequency=False)]
EN = LenientMatcher(Normalizer())

# ---- random and chosen references --------------------------------------------------------------
WORDS = [
    *sorted(NUMBER_WORDS_EN)[:20],
    "twenty four",
    "Twenty-Four",
    "not",
    "never",
    "no",
    "the",
    "of",
    "and",
    "it",
    "was",
    "September",
    "May",
    "1,000",
    "1979–80",
    "25th-largest",
    "09:15",
    "3.5",
    "x86",
    "U.S.",
    "Röntgen",
    "DÃ¡in",
    "café",
    "Paris",
    "Mississippi River",
    "state-of-the-art",
    "1/2",
    "’s",
    "—",
    "x²",
    "٣",
]
REFERENCES = [
    "",
    "   ",
    "the",
    "it is what it is",
    "four",
    "twenty four",
    "Twenty-four hours",
    "one hundred and five",
    "not guilty",
    "never married",
    "September 12, 2004",
    "May 1945",
    "1979–80",
    "the 25th-largest city",
    "1,000,000",
    "x86-64",
    "Röntgen",
    "DÃ¡in",
    "Ⅻ",
    "Kelvin \u212a",
    "ſix",
    "東京タワー",
]
ref_text = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join),
    st.lists(st.sampled_from([*WORDS, ",", "-", " ", "(", ")"]), max_size=8).map("".join),
)


@pytest.mark.parametrize("reference", REFERENCES)
def test_chosen_references_equal_the_oracle(reference: str) -> None:
    check(LenientMatcher(Normalizer()), reference)


@settings(max_examples=300, deadline=None)
@given(ref_text)
def test_random_references_equal_the_oracle(reference: str) -> None:
    check(EN, reference)  # a matcher whose caches fill across examples
    check(LenientMatcher(Normalizer()), reference)  # and a new one


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_non_english_normalizers_equal_the_oracle(language: str) -> None:
    matcher = LenientMatcher(Normalizer(language=language))
    assert not matcher.english
    for reference in [*REFERENCES, "vier und zwanzig", "quatre", "1979–80", "Mai 1945"]:
        check(matcher, reference)


@pytest.mark.parametrize("name", ["NQ", "TQ"])
def test_evouna_golds_equal_the_oracle(name: str) -> None:
    matcher = LenientMatcher(Normalizer())
    golds = evouna_golds(name, 800)
    for gold in golds:
        check(matcher, gold)
    for gold in golds[:200]:  # again: from the caches
        check(matcher, gold)


def test_summeval_references_equal_the_oracle() -> None:
    path = SHARED / "summeval" / "summeval_expert_avg_11refs.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not found (../shared beside the checkout)")
    with open(path, encoding="utf-8") as lines:
        rows = [json.loads(line) for _, line in zip(range(8), lines, strict=False)]
    matcher = LenientMatcher(Normalizer())
    for row in rows:
        for reference in row["references"][:3]:
            check(matcher, reference)


# ---- threads, caches and the collector -------------------------------------------------------
def test_racing_threads_prepare_equal_references() -> None:
    references = [*REFERENCES, *(f"{w} {i}" for i, w in enumerate(WORDS))]
    expected = {r: oracle_reference(EN, r) for r in references}
    for _ in range(3):
        matcher = LenientMatcher(Normalizer())

        def prepare(reference: str, matcher: LenientMatcher = matcher) -> tuple[Any, ...]:
            prepared = matcher.reference(reference)
            return tuple(prepared), tuple(matcher.weighted(prepared, WEIGHTS[0]))

        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(prepare, references * 4))
        for reference, (prepared, weighted) in zip(references * 4, results, strict=True):
            assert prepared == expected[reference]
            assert weighted == oracle_weighted(expected[reference], WEIGHTS[0])


def test_prepared_references_are_not_tracked_by_the_collector() -> None:
    """The caches hold plain tuples of strings, numbers and such tuples: once the collector has
    looked at them it stops tracking them (a named tuple would stay tracked: each cached
    reference would be walked by every full collection)."""
    matcher = LenientMatcher(Normalizer())
    for reference in REFERENCES:
        prepared = matcher.reference(reference)
        for weights in WEIGHTS:
            matcher.weighted(prepared, weights)
        del prepared
    for _ in range(3):  # a collection untracks a tuple whose items are untracked: one pass
        gc.collect()  # per level of nesting at most (entry, pieces, a key's parts)
    entries = [*matcher._references.values()]
    # each weights object's weighing function: a partial of its cache (and the rest)
    entries += [e for weigh in matcher._weighted.values() for e in weigh.args[0].values()]  # type: ignore[attr-defined]
    assert entries
    assert not [e for e in entries if gc.is_tracked(e)]
