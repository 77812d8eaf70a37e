"""The compiled path of LenientMatcher.reference (lexeval.native.lenient.reference): the same
prepared references as the Python code (LenientMatcher._prepare, the reference) bit for bit
(the fields, their types, the shared tuples, the cache's entries and their order) on random,
tricky and real references, cold and warm caches, a bounded cache, non-English normalizers
and threads; the common case never reaches the Python code; arguments checked, errors
propagated."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lexeval.metrics.keyword_lenient as kl
from lexeval.metrics.keyword_lenient import LenientMatcher, ReferenceKeys
from lexeval.native import load
from lexeval.normalize import Normalizer
from lexeval.text import lenient
from lexeval.text.base import KeywordAnalysis
from tests.support.exact import same
from tests.support.qa_data import evouna_golds

native = load("lenient")
pytestmark = pytest.mark.skipif(
    native is None, reason="lexeval.native.lenient not built, or LEXEVAL_PURE_PYTHON set"
)
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
NORMALIZERS = {"en": Normalizer(), "de": Normalizer(language="de")}


@contextmanager
def pure_python() -> Iterator[None]:
    """The reference path for the block: the Python code of reference(), of the canonical
    keys and of the weights (matchers made in the block have no compiled state)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(kl, "NATIVE_SCORE", False)
        m.setattr(kl, "_NATIVE_WEIGHTS", None)
        m.setattr(lenient, "NATIVE_LENIENT", False)
        yield


def python_matcher(language: str = "en") -> LenientMatcher:
    with pure_python():
        matcher = LenientMatcher(NORMALIZERS[language])
    assert matcher._native is None
    return matcher


def compiled_matcher(language: str = "en") -> LenientMatcher:
    matcher = LenientMatcher(NORMALIZERS[language])
    assert matcher._native is not None
    return matcher


def python_reference(matcher: LenientMatcher, reference: str) -> ReferenceKeys:
    with pure_python():
        return matcher.reference(reference)


SHARED_TUPLES = (kl._NOT_NUMERIC, kl._NO_PIECES, kl._NO_KINDS)


def sharing(ref: ReferenceKeys) -> tuple[bool, ...]:
    """Which fields are the shared tuples of plain words, and whether the canonical keys are
    the keys' tuple itself."""
    n = len(ref.keys)
    shared = tuple(
        n < kl._MADE and field is made[n]
        for field, made in zip(ref[2:], SHARED_TUPLES, strict=True)
    )
    return (*shared, ref.canonical is ref.keys)


def check(
    compiled: LenientMatcher,
    python: LenientMatcher,
    reference: str,
    caches: bool = True,
    cold: bool = False,
) -> None:
    """The compiled matcher prepares ``reference`` as the Python one does, and (``caches``)
    both caches hold the same entries in the same order; ``cold``: each with the canonical
    keys' memo emptied first (the compiled side computes its own)."""
    if cold:
        lenient.clear_caches()
    want = python_reference(python, reference)
    if cold:
        lenient.clear_caches()
    found = compiled.reference(reference)
    assert same(found, want), reference
    assert sharing(found) == sharing(want), reference
    entry = compiled._references.get(reference)
    assert type(entry) is tuple and same(entry, python._references.get(reference))
    if caches:
        same_caches(compiled, python)


def same_caches(compiled: LenientMatcher, python: LenientMatcher) -> None:
    assert same(compiled._references, python._references)
    assert all(type(e) is tuple for e in compiled._references.values())


def check_all(references: list[str], language: str = "en", cold: bool = False) -> None:
    compiled, python = compiled_matcher(language), python_matcher(language)
    for reference in references:  # cold: canonical keys computed again (in C for plain words)
        check(compiled, python, reference, caches=False, cold=cold)
    same_caches(compiled, python)
    for reference in references:  # from the caches
        check(compiled, python, reference, caches=False)
    same_caches(compiled, python)


# ---- tricky and random references ------------------------------------------------------------
TRICKY = [
    "",
    " ",
    "the",
    "it is what it is",
    "Paris",
    "Mississippi River",
    "four",
    "FOUR score",
    "four_",
    "x-four",
    "fourteen",
    "Fourth of July",
    "4th of July",
    "tw0",
    "one2one",
    "twenty four",
    "Twenty-four hours",
    "one hundred and five",
    "not guilty",
    "September 12, 2004",
    "september",
    "May",
    "May 1945",
    "March of the Penguins",
    "12 March",
    "1945",
    "007",
    "12",
    "123",
    "1,000,000",
    "3.50",
    "09:15",
    "2.5kg",
    "6ft",
    "1979–80",
    "1979-80",
    "x86-64",
    "the 25th-largest city",
    "state-of-the-art",
    "1/2",
    "a/b",
    "U.S.",
    "r.e.m",
    "Röntgen",
    "Wilhelm RÖNTGEN",
    "DÃ¡in",
    "cafÃ©",
    "São Paulo",
    "Ⅻ",
    "٣ apples",
    "१९९८",
    "1٩٩٨",
    "x²",
    "Kelvin \u212a",
    "ſix",
    "東京タワー",
    "It’s “done” – 1990…",
    "Straße",
    "vierundzwanzig",
    "vier und zwanzig",
    "Mai 1945",
    "fünf Jahre",
    "eighteen",
    "nineteen eighty-four",
    " ".join(f"word{i}" for i in range(20)),
    " ".join(f"city{chr(97 + i)}" for i in range(20)),
    " ".join(f"name{chr(97 + i)}x" for i in range(17)) + " may",
]
WORDS = [
    "four",
    "Twenty",
    "sixth",
    "hundred",
    "May",
    "march",
    "September",
    "the",
    "of",
    "not",
    "Paris",
    "river",
    "1,000",
    "1979–80",
    "25th-largest",
    "09:15",
    "3.5",
    "12",
    "1998",
    "x86",
    "U.S.",
    "Röntgen",
    "DÃ¡in",
    "café",
    "Straße",
    "x²",
    "٣",
    "a/b",
    "six-year",
    "’s",
    "—",
    "_",
    "ft",
]
ref_text = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join),
    st.lists(st.sampled_from([*WORDS, ",", "-", " ", "(", ")", "'"]), max_size=8).map("".join),
)


@pytest.mark.parametrize("cold", [False, True])
@pytest.mark.parametrize("language", ["en", "de"])
def test_tricky_references_equal_the_python_code(language: str, cold: bool) -> None:
    check_all(TRICKY, language, cold)


@settings(max_examples=300, deadline=None)
@given(st.lists(ref_text, min_size=1, max_size=4), st.sampled_from(["en", "de"]), st.booleans())
def test_random_references_equal_the_python_code(
    references: list[str], language: str, cold: bool
) -> None:
    check_all(references, language, cold)


def test_the_python_code_is_left_only_what_the_compiled_path_leaves() -> None:
    """Keywords, number words and stopword-only references never reach the Python code (its
    _prepare replaced by one that records them); a number word before a digit that is not
    ASCII (merge_number_words' Python code) does."""
    matcher = compiled_matcher()
    assert matcher._native is not None
    calls: list[str] = []

    def prepare(m: LenientMatcher, reference: str, text: str, analysis: KeywordAnalysis) -> Any:
        calls.append(reference)
        return LenientMatcher._prepare(m, reference, text, analysis)

    state = list(matcher._native)
    state[kl._REFERENCE_CONSTANTS.index(LenientMatcher._prepare)] = prepare
    matcher._native = tuple(state)
    compiled = ["Paris", "September 12, 2004", "1979–80", "Röntgen", "DÃ¡in", "x86-64", "tw0"]
    compiled += ["four", "the", "Twenty-four hours", "", "Fünf four", "one hundred and five"]
    for reference in compiled:
        matcher.reference(reference)
    assert calls == []
    matcher.reference("twenty \u0663")
    assert calls == ["twenty \u0663"]
    python = python_matcher()
    for reference in [*compiled, "twenty \u0663"]:
        assert same(matcher.reference(reference), python_reference(python, reference))


def test_names_number_equals_the_python_code() -> None:
    """The number-word test of chosen texts in C: the answer of _names_number."""
    assert native is not None
    texts = ["Four", "fOuR.", "four_", "_four", "4four", "four4", "x-four", "(four)", "seventeenth"]
    texts += ["fourteen", "fourty", "onetwo", "one,two", "ONE", "Zero-Sum", "a b c", "Hundredth"]
    texts += ["millionth", "billions", "tHoUsAnD years", "first", "second place", "N/A", ""]
    texts += ["fïve", "ℌundred", "ＦＯＵＲ", "ﬁve", "f\u0301our", "f\u094dour", "twélve"]
    found = [
        native.names_number(f"Paris {t}", kl._NUMBER_WORD_SET, lenient.fold_accents) for t in texts
    ]
    assert found == [kl._names_number(f"Paris {t}") for t in texts]
    assert sum(found) >= 15
    # number words that are not ASCII letters in lower case: the Python code decides
    assert native.names_number("x 20", frozenset({"20"}), lenient.fold_accents) is None
    assert native.names_number("x vier", frozenset({"vier"}), lenient.fold_accents) is True
    assert native.names_number("x four", kl._NUMBER_WORD_SET, lenient.fold_accents) is True


NUMBER_TEXT_PIECES = [
    *["four", "Twenty", "HUNDRED", "sixth", "one", "tw", "o", "elve", "_", "4", " ", "-", ","],
    *["é", "ï", "\u0301", "\u0308", "\u094d", "\u00a0", "ℌ", "ǅ", "ﬁ", "ve", "²", "İ", "Ⅻ"],
    *["ＦＯＵＲ", "ß", "ſ", "\u212a", "ö", "Ω", "东", "а", "\u200b", "’", "–", "…", "🙂", "ı"],
]


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.text(max_size=20),
        st.lists(st.sampled_from(NUMBER_TEXT_PIECES), max_size=8).map("".join),
    )
)
def test_number_words_are_found_as_the_python_code_finds_them(text: str) -> None:
    """The compiled test of a text's number words (each character's fold_accents, kept): the
    answer of _names_number, or None for a text beyond the BMP."""
    assert native is not None
    found = native.names_number(text, kl._NUMBER_WORD_SET, lenient.fold_accents)
    if found is None:
        assert any(ord(c) > 0xFFFF for c in text)
    else:
        assert found is kl._names_number(text), text


NUMBER_KEY_PIECES = [
    *["0", "00", "1", "7", "12", "999", "2004", ".", ",", ":", "-", ",000", ".50", "0.", "'"],
    *["st", "nd", "rd", "th", "s", "x", "TH", "ft", "in", "km", "kg", "kgs", "feet", "mph"],
    *["twenty", "five", "hundred", "catch", "mid", "a", "b.", "/", "_", "é", " "],
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(NUMBER_KEY_PIECES), min_size=1, max_size=6).map("".join))
def test_canonical_keys_of_numbers_equal_the_python_code(key: str) -> None:
    """Keys with digits (ordinals, thousands, leading and trailing zeros, glued units, number
    phrases): computed in C, or by the Python code, as _canonical computes them."""
    for english in (True, False):
        lenient.clear_caches()
        assert lenient.canonical_keys([key], english) == (lenient._canonical(key, english),)
        assert lenient.canonical_keys([key], english) == (lenient._canonical(key, english),)


FOLDED_KEY_PIECES = [
    *["é", "Ö", "ß", "ſ", "\u212a", "ℌ", "ǅ", "ﬁ", "²", "İ", "ı", "Ⅻ", "ｆ", "–", "—", "\u2212"],
    *["\u0301", "\u0308", "\u094d", "\u00a0", "Ω", "东", "а", "’", "🙂", "\u200e", "ñ"],
    *["four", "Twenty", "feet", "km", "a", "x", "-", "1", "12", "th", ".", " ", "5,000"],
]


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(FOLDED_KEY_PIECES), min_size=1, max_size=5).map("".join),
    st.booleans(),
)
def test_canonical_keys_of_folded_keys_equal_the_python_code(key: str, met: bool) -> None:
    """Non-ASCII keys: computed in C from the folds of the characters the number-word test has
    met (``met``: this key's, after a cold start), or by the Python code, as _canonical does."""
    assert native is not None
    for english in (True, False):
        lenient.clear_caches()
        if met:
            native.names_number(key, kl._NUMBER_WORD_SET, lenient.fold_accents)
        assert lenient.canonical_keys([key], english) == (lenient._canonical(key, english),)


# ---- real references ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["NQ", "TQ"])
def test_evouna_golds_equal_the_python_code(name: str) -> None:
    golds = evouna_golds(name, 800)
    check_all(golds)
    check_all(golds[:200], cold=True)


def test_summeval_references_equal_the_python_code() -> None:
    path = SHARED / "summeval" / "summeval_expert_avg_11refs.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not found (../shared beside the checkout)")
    with open(path, encoding="utf-8") as lines:
        rows = [json.loads(line) for _, line in zip(range(10), lines, strict=False)]
    references = [r for row in rows for r in row["references"][:4]]
    check_all(references + [row["decoded"] for row in rows])


# ---- the cache, threads, arguments -----------------------------------------------------------
def test_the_cache_is_bounded_as_the_python_code_bounds_it() -> None:
    """A cache of 5: emptied when full, then the new entry, in both paths alike."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(kl, "_REFERENCE_CACHE_SIZE", 5)
        compiled, python = compiled_matcher(), python_matcher()
        references = [f"City {chr(98 + i)}" for i in range(12)] + ["1998", "four", "City b"]
        for reference in references * 2:
            check(compiled, python, reference)
            assert 1 <= len(compiled._references) <= 5
        assert list(compiled._references) == list(python._references)


def test_threads_prepare_the_same_references() -> None:
    """Eight threads preparing the same references with one matcher (a small cache, emptied
    often while they race): each gets what the Python code prepares."""
    references = [*TRICKY, *(f"{w} {i}" for i, w in enumerate(WORDS)), *evouna_golds("NQ", 300)]
    python = python_matcher()
    want = {r: python_reference(python, r) for r in references}
    for size in (7, kl._REFERENCE_CACHE_SIZE):
        with pytest.MonkeyPatch.context() as m:
            m.setattr(kl, "_REFERENCE_CACHE_SIZE", size)
            matcher = compiled_matcher()
        barrier = threading.Barrier(8)

        def prepare(
            offset: int, matcher: LenientMatcher = matcher, barrier: Any = barrier
        ) -> list[ReferenceKeys]:
            barrier.wait()
            order = references[offset:] + references[:offset]
            return [matcher.reference(r) for r in order * 2]

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(prepare, range(0, 80, 10)))
        for offset, found in zip(range(0, 80, 10), results, strict=True):
            order = references[offset:] + references[:offset]
            for reference, ref in zip(order * 2, found, strict=True):
                assert same(ref, want[reference]), reference
        assert len(matcher._references) <= size


def test_processors_of_other_types_take_the_python_code() -> None:
    """A processor whose analysis is not a KeywordAnalysis, or whose keywords are a tuple or
    not strings: the same references as the Python code."""

    class Tuples:
        language = "en"

        def keyword_analysis(self, text: str) -> Any:
            words = text.lower().split()
            return KeywordAnalysis(tuple(words), list(words))  # type: ignore[arg-type]

    class Plain(Tuples):
        def keyword_analysis(self, text: str) -> Any:
            words = text.lower().split()
            return (words, words)  # a plain tuple: read as a KeywordAnalysis by the code

    class Subclass(str):
        pass

    class Subclassed(Tuples):
        def keyword_analysis(self, text: str) -> Any:
            words = [Subclass(w) for w in text.lower().split()]
            return KeywordAnalysis(words, list(words))

    for processor in (Tuples(), Plain(), Subclassed()):
        compiled = LenientMatcher(processor)  # type: ignore[arg-type]
        with pure_python():
            python = LenientMatcher(processor)  # type: ignore[arg-type]
        for reference in ["Paris France", "September 12 2004", "four", "x-ray 1979-80", ""]:
            if isinstance(processor, Plain):
                with pytest.raises(AttributeError):
                    python_reference(python, reference)
                with pytest.raises(AttributeError):
                    compiled.reference(reference)
                continue
            check(compiled, python, reference)


def test_a_subclass_takes_the_python_code() -> None:
    """A subclass's methods are called: its matchers have no compiled state."""

    class Upper(LenientMatcher):
        def _keywords_of(self, text: str, analysis: KeywordAnalysis) -> list[str]:
            return [k.upper() for k in super()._keywords_of(text, analysis)]

    matcher = Upper(NORMALIZERS["en"])
    assert matcher._native is None
    assert matcher.reference("Paris, France").keys == ("PARIS", "FRANCE")


def test_references_that_are_not_str_and_errors() -> None:
    """A str subclass takes the Python code; the analysis' errors propagate; a state that is
    not the matcher's is a TypeError."""
    assert native is not None
    matcher = compiled_matcher()
    assert matcher._native is not None

    class Text(str):
        pass

    assert native.reference(matcher._native, matcher, Text("Paris")) is None
    assert same(matcher.reference(Text("Paris")), python_reference(python_matcher(), "Paris"))
    with pytest.raises(TypeError, match="state"):
        native.reference(matcher._native[:-1], matcher, "Paris")
    with pytest.raises(TypeError):
        native.reference(matcher._native, matcher)  # type: ignore[call-arg]

    def fail(text: str) -> KeywordAnalysis:
        raise ValueError(f"cannot analyze {text}")

    state = list(matcher._native)
    state[state.index(matcher._analyze)] = fail
    with pytest.raises(ValueError, match="cannot analyze Lyon"):
        native.reference(tuple(state), matcher, "Lyon")
    assert "Lyon" not in matcher._references


def test_names_number_reads_its_words_again_after_fold_runs_python() -> None:
    """fold runs Python code, which may test another set of number words (the same function
    called again, or another thread): the tables of C strings read from the first set were
    replaced by the other's, and "four" was no longer a number word."""
    assert native is not None

    def fold(text: str) -> str:
        native.names_number("x", frozenset({"vier"}), lenient.fold_accents)
        return lenient.fold_accents(text)

    assert native.names_number("\u01e3 four", kl._NUMBER_WORD_SET, fold) is True
    assert kl._names_number("\u01e3 four") is True


def test_the_table_of_folded_characters_holds_fold_accents_only() -> None:
    """names_number kept each character's fold in a process-wide table whatever the fold it was
    given, which fold_accents' calls and the canonical keys then read as fold_accents': "ǣ"
    folded by another function named "four" and was canonical "four"."""
    assert native is not None
    native.names_number("x \u00e9", kl._NUMBER_WORD_SET, lenient.fold_accents)  # the owner
    assert native.names_number("\u01e3", kl._NUMBER_WORD_SET, lambda s: "four") is True
    assert native.names_number("\u01e3", kl._NUMBER_WORD_SET, lenient.fold_accents) is False
    assert kl._names_number("\u01e3") is False
    lenient.clear_caches()
    assert lenient.canonical_keys(["\u01e3"], True) == (lenient._canonical("\u01e3", True),)
    assert lenient._canonical("\u01e3", True) == "\u00e6"
