"""The compiled paths of lenient keyword matching (lexeval.native.lenient): canonical keys read
and computed in C, rules 1 to 3 and the scoring loop with its evidence, equal to their
pure-Python references bit for bit (scores, info dicts and their order) on random and real
pairs, every task profile, both weightings, questions, threads; arguments checked, errors
propagated (that they are built, in use, and switched off by LEXEVAL_PURE_PYTHON=1:
tests/test_build.py)."""

from __future__ import annotations

import contextlib
import gc
import json
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel
from rapidfuzz.process import extractOne

import lexeval.metrics.keyword_lenient as kl
from lexeval.metrics import KeywordCoverageMetric
from lexeval.metrics.keyword_modes import LenientCoverage
from lexeval.metrics.keyword_tasks import PROFILES
from lexeval.metrics.substring import LONG_TEXT
from lexeval.metrics.weights import KeywordWeights
from lexeval.native import load
from lexeval.normalize import Normalizer
from lexeval.text import lenient
from tests.support.exact import same

native = load("lenient")
needs_native = pytest.mark.skipif(
    native is None, reason="lexeval.native.lenient not built, or LEXEVAL_PURE_PYTHON set"
)
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
NORMALIZER = Normalizer()
NORMALIZERS = {"en": NORMALIZER, "de": Normalizer(language="de")}  # English or not
WEIGHTS = {"frequency": KeywordWeights("en"), "uniform": KeywordWeights("en", frequency=False)}


@contextmanager
def pure_python() -> Iterator[None]:
    """The reference path: the switches off for the block (the compiled weights too)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(kl, "NATIVE_SCORE", False)
        m.setattr(kl, "_NATIVE_WEIGHTS", None)
        m.setattr(lenient, "NATIVE_LENIENT", False)
        yield


# ---- canonical keys ---------------------------------------------------------------------------
KEY_PIECES = [
    *["a", "Z", "q", "0", "7", "00", "1,000", "-", "–", ".", ":", "'", " ", "th", "st", "ft"],
    *["é", "Ö", "ß", "\u0301", "ǅ", "٣", "Ⅸ", "東", "ｆ", "\u200b"],
    *["four", "Twenty", "sixth", "hundred", "feet", "km", "in", "May", "U.S.", "r.e.m", "/"],
    *["twenty-", "-four", "one-", "thousand", "x-", "O'"],
]
KEY = st.lists(st.sampled_from(KEY_PIECES), min_size=0, max_size=4).map("".join)


@needs_native
@settings(max_examples=400, deadline=None)
@given(st.lists(KEY, max_size=12), st.booleans(), st.booleans())
def test_canonical_keys_equal_the_reference(keys: list[str], english: bool, cold: bool) -> None:
    """Known keys from the memo, new plain words and numbers computed in C, the others by
    the Python code: the same keys as the plain formulation, as a tuple, a set, and a set
    with the hyphen-less forms."""
    if cold:
        lenient.clear_caches()
    with pure_python():
        want = tuple([lenient._canonical(k, english) for k in keys])
        want_set = lenient.canonical_key_set(keys, english)
        want_joined = lenient.canonical_key_set(tuple(keys), english, joined=True)
    if cold:
        lenient.clear_caches()
    assert same(lenient.canonical_keys(keys, english), want)
    assert same(lenient.canonical_key_set(keys, english), want_set)
    assert same(lenient.canonical_key_set(tuple(keys), english, joined=True), want_joined)
    assert same(lenient.canonical_keys(keys, english), want)  # from the memo now
    with pure_python():
        want_index = lenient.canonical_index(keys, english)
    assert same(lenient.canonical_index(keys, english), want_index)
    assert same(lenient.canonical_index(tuple(keys), english), want_index)


@needs_native
@settings(max_examples=400, deadline=None)
@given(st.lists(KEY, max_size=12), st.booleans(), st.booleans(), st.booleans())
def test_an_index_with_parts_equals_the_reference(
    keys: list[str], english: bool, cold: bool, as_tuple: bool
) -> None:
    """canonical_index_parts in one C call: the canonical keys, the index and the canonical
    parts of the hyphenated keys (or None) of the Python code, the memo cold or warm."""
    given_keys: list[str] | tuple[str, ...] = tuple(keys) if as_tuple else keys
    if cold:
        lenient.clear_caches()
    with pure_python():
        want = lenient.canonical_index_parts(given_keys, english)
    if cold:
        lenient.clear_caches()
    found = lenient.canonical_index_parts(given_keys, english)
    assert same(found, want), (found, want)
    assert (found[2] is None) == (want[2] is None) == all("-" not in k for k in found[0])
    assert same(lenient.canonical_index_parts(given_keys, english), want)  # memo warm


@needs_native
def test_keys_that_are_their_own_canonical_forms_and_repeated_compounds() -> None:
    """A tuple of keys that are their own canonical forms is its own canonical tuple (no copy);
    a compound met twice (the same canonical form) is one compound of the index."""
    assert native is not None
    memo, tables = lenient._CANONICAL[True], lenient._TABLES[True]
    lenient.clear_caches()  # (a memo that knew "cats" would give its own str of it)
    keys = ("cats", "six-year", "dogs")
    assert native.canonical_keys(keys, memo, tables, 0) is keys
    assert native.canonical_keys(keys, memo, tables, 3) is keys
    found = native.canonical_keys(keys, memo, tables, 4)
    assert found[0] is keys and found[2] == ("six-year",)
    assert list(found[1]) == ["cats", "six-year", "dogs", "sixyear"]
    assert native.canonical_keys(["cats"], memo, tables, 0) == ("cats",)  # a list: a tuple
    assert native.canonical_keys(("Cats", "cats"), memo, tables, 0) == ("cats", "cats")
    found = native.canonical_keys(("Six-Year", "10–12", "six-year", "10-12"), memo, tables, 4)
    assert found[0] == ("six-year", "10-12", "six-year", "10-12")
    assert found[2] == ("six-year", "10-12")
    assert list(found[1]) == ["six-year", "10-12", "sixyear", "1012"]
    with pure_python():
        want = lenient.canonical_index(("Six-Year", "10–12", "six-year", "10-12"), True)
    assert same(found, want)


@needs_native
def test_an_index_with_parts_checks_its_arguments_and_propagates_errors() -> None:
    assert native is not None
    memo, tables = lenient._CANONICAL[True], lenient._TABLES[True]
    assert native.index_parts(["Six-Year", "10–12"], memo, tables) == (
        ("six-year", "10-12"),
        dict.fromkeys(["six-year", "10-12", "sixyear", "1012"]),
        dict.fromkeys(["6", "year", "10", "12"]),
    )
    with pytest.raises(TypeError, match="3 arguments"):
        native.index_parts(["a"], memo)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        native.index_parts({"a"}, memo, tables)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        native.index_parts(["a"], memo, ([], {}, 10))  # type: ignore[arg-type]

    class Failing(dict[str, str]):
        """A memo that knows the hyphenated keys but not their parts."""

        def __missing__(self, key: str) -> str:
            raise LookupError(key)

    failing = Failing({"a-b.c": "a-b.c"})
    with pytest.raises(LookupError, match=r"b\.c"):  # a part's error, after the keys
        native.index_parts(["a-b.c"], failing, tables)


@needs_native
@settings(max_examples=300, deadline=None)
@given(st.lists(KEY, max_size=10), st.lists(KEY, max_size=10), st.booleans(), st.booleans())
def test_an_output_made_in_one_call_equals_the_reference(
    keywords: list[str], keys: list[str], english: bool, cold: bool
) -> None:
    """_thaw's compiled call (output_keys) sets every slot of an OutputKeys as its Python code
    does, the memo cold or warm."""
    state = ("the text", tuple(keywords), tuple(keys), english)
    if cold:
        lenient.clear_caches()
    with pure_python():
        want = kl._thaw(state)
    if cold:
        lenient.clear_caches()
    found = kl._thaw(state)
    for name in kl.OutputKeys.__slots__:
        assert same(getattr(found, name), getattr(want, name)), name
    assert (found._parts is kl._NO_PARTS) == (want._parts is kl._NO_PARTS)


@needs_native
def test_an_output_made_in_one_call_checks_its_arguments() -> None:
    assert native is not None
    members, tables = kl._OUTPUT_MEMBERS, kl._CANONICAL_TABLES[True]
    assert {m.__name__ for m in members} == set(kl.OutputKeys.__slots__)
    state = ("x", ("Four", "six-year"), ("Four", "six-year"), True)
    out = native.output_keys(kl.OutputKeys, members, state, tables, kl._NO_PARTS)
    assert type(out) is kl.OutputKeys and out.canonical == ("4", "six-year")
    assert out._parts == dict.fromkeys(["6", "year"]) and out._every is None
    # other shapes: the Python code decides
    for odd_state in [("x", ["a"], ("a",)), ("x", {"a"}, ("a",), True), ["x", ("a",), (), True]]:
        assert native.output_keys(kl.OutputKeys, members, odd_state, tables, kl._NO_PARTS) is None
    assert native.output_keys(kl.OutputKeys, members, state, (tables[0],), kl._NO_PARTS) is None
    with pytest.raises(TypeError, match="5 arguments"):
        native.output_keys(kl.OutputKeys, members, state, tables)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="member descriptor"):
        native.output_keys(kl.OutputKeys, (*members[:6], kl.OutputKeys.has), state, tables, 0)
    with pytest.raises(TypeError, match="at least 7"):
        native.output_keys(kl.OutputKeys, members[:6], state, tables, kl._NO_PARTS)
    with pytest.raises(TypeError, match="member descriptor"):  # another class's slots
        native.output_keys(kl._Missed, members, state, tables, kl._NO_PARTS)

    # the checked class and members are remembered: other ones are checked again, and every
    # call still sets each slot (a subclass with a __dict__ too)
    class Sub(kl.OutputKeys):
        pass

    for cls in [kl.OutputKeys, Sub, kl.OutputKeys, Sub]:
        made = native.output_keys(cls, members, state, tables, kl._NO_PARTS)
        assert type(made) is cls and made.canonical == ("4", "six-year") and made._text is None
        assert made.keywords is state[1] and made._all_keys is state[2] and made._english
        with pytest.raises(TypeError, match="member descriptor"):
            native.output_keys(cls, (*members[:6], kl.OutputKeys.has), state, tables, 0)
    text = "".join(["a new ", "text"])
    fresh = (text, ("Four",), (), True)
    before = sys.getrefcount(text)
    made = native.output_keys(kl.OutputKeys, members, fresh, tables, kl._NO_PARTS)
    held = sys.getrefcount(text)  # (assert statements keep their operands)
    assert held == before + 1  # the slot's reference
    del made
    after = sys.getrefcount(text)
    assert after == before

    class Failing(dict[str, str]):
        def __missing__(self, key: str) -> str:
            raise LookupError(key)

    dotted = ("x", ("Four", "x.y"), (), True)  # "x.y": a key the memo's __missing__ computes
    with pytest.raises(LookupError, match=r"x\.y"):
        native.output_keys(kl.OutputKeys, members, dotted, (Failing(), tables[1]), kl._NO_PARTS)


@needs_native
def test_hyphenated_and_punctuated_words_equal_the_reference() -> None:
    """The keys computed in C beyond plain words: number phrases ("twenty-four"), other
    hyphenated or punctuated ASCII words, for both languages."""
    keys = ["Twenty-Four", "one-hundred", "two-thousand", "ninety-9", "x-ray", "o'hara", "a-b-c"]
    keys += ["-four", "four-", "twenty--four", "six-Year", "it's", ",", ":", "first-second"]
    for english in (True, False):
        lenient.clear_caches()
        want = tuple([lenient._canonical(k, english) for k in keys])
        lenient.clear_caches()
        assert same(lenient.canonical_keys(keys, english), want)
    assert lenient.canonical_keys(["Twenty-Four", "x-ray"], True) == ("24", "x-ray")


@needs_native
def test_canonical_keys_check_their_arguments_and_propagate_errors() -> None:
    assert native is not None
    memo = lenient._CANONICAL[True]
    tables = lenient._TABLES[True]
    with pytest.raises(TypeError):
        native.canonical_keys({"a"}, memo, tables, 0)  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        native.canonical_keys(["a"], [], tables, 0)  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        native.canonical_keys(["a"], memo, ([], {}, 10), 0)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="0 to 4"):
        native.canonical_keys(["a"], memo, tables, 5)  # type: ignore[call-overload]

    class Failing(dict[str, str]):
        def __missing__(self, key: str) -> str:
            raise LookupError(key)

    with pytest.raises(LookupError, match=r"x\.y"):
        native.canonical_keys(["abc", "x.y"], Failing(), tables, 0)  # type: ignore[call-overload]
    # a full memo is emptied first, as __missing__ empties it
    small = Failing()
    assert native.canonical_keys(
        ["Ab", "cd", "EF"], small, ({}, {}, 2, {}, lenient.fold_accents), 1
    ) == dict.fromkeys(["ab", "cd", "ef"])
    assert small == {"EF": "ef"}

    class Odd(str):
        pass

    assert native.canonical_keys([Odd("Four")], lenient._CANONICAL[True], tables, 0) == ("4",)


NUMBER_KEYS = [
    *["twenty", "four", "two", "thousand", "one", "first", "hundred", "ninety", "ten", "zero"],
    *["6", "0", "12", "cats", "the", "²", "٣", "x"],
]


@needs_native
@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(NUMBER_KEYS), max_size=9), st.booleans())
def test_number_words_merge_as_the_reference(keys: list[str], as_tuple: bool) -> None:
    """Number words merged in C: the keys of the Python code (the same object when there
    is nothing to merge), or its error (int() of a digit that is not ASCII)."""
    given_keys: list[str] | tuple[str, ...] = tuple(keys) if as_tuple else keys
    with pure_python():
        try:
            want: object = lenient.merge_number_words(given_keys, True)
        except ValueError as error:
            want = error
    if isinstance(want, ValueError):
        with pytest.raises(ValueError):
            lenient.merge_number_words(given_keys, True)
        return
    got = lenient.merge_number_words(given_keys, True)
    assert same(list(got), list(want)) and (got is given_keys) == (want is given_keys)  # type: ignore[arg-type]


@needs_native
@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([*NUMBER_KEYS, "Four", "TWENTY", "4", "feet"]), max_size=9))
def test_canonical_forms_equal_the_reference(keys: list[str]) -> None:
    """The canonical forms of keys with number words merged, in C: the Python code's (or
    its error: int() of a digit that is not ASCII)."""
    want: object
    with pure_python():
        try:
            want = lenient.canonical_keys(lenient.merge_number_words(tuple(keys), True), True)
        except ValueError as error:
            want = error
    lenient.clear_caches()  # the C code computes the forms, not reads the reference's memo
    if isinstance(want, ValueError):
        with pytest.raises(ValueError):
            lenient.canonical_forms(tuple(keys), True)
    else:
        assert same(lenient.canonical_forms(tuple(keys), True), want)
    assert same(lenient.canonical_forms(tuple(keys), False), lenient.canonical_keys(keys, False))


@needs_native
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([*NUMBER_KEYS, "Four", "feet", "Six-Year", "cats"]), max_size=9),
    st.lists(st.booleans(), max_size=9),
    st.lists(st.sampled_from(["twentyfour", "new-york", "cats"]), max_size=3),
    st.booleans(),
    st.booleans(),
)
def test_canonical_forms_with_known_keys_equal_the_reference(
    keys: list[str], chosen: list[bool], others: list[str], english: bool, cold: bool
) -> None:
    """canonical_forms with some keys' canonical forms known (an output's keywords, in their
    order, with keys of their own among them such as merged compounds): the same forms as
    without them and as the Python code, the memo cold or warm."""
    given_keys = tuple([k.encode().decode() for k in keys])  # str objects of their own
    known_list: list[str] = []
    for i, key in enumerate(given_keys):
        if i < len(chosen) and chosen[i] and key not in known_list:
            known_list.append(key)
        if i < len(others) and others[i] not in known_list:
            known_list.append(others[i].encode().decode())  # another object than the keys'
    known = tuple(known_list)
    known_canonical = lenient.canonical_keys(known, english)
    with pure_python():
        try:
            want: object = lenient.canonical_forms(given_keys, english)
        except ValueError as error:
            want = error
    if cold:
        lenient.clear_caches()
    if isinstance(want, ValueError):
        with pytest.raises(ValueError):
            lenient.canonical_forms(given_keys, english, (known, known_canonical))
        return
    found = lenient.canonical_forms(given_keys, english, (known, known_canonical))
    assert same(found, want), (found, want)
    assert same(lenient.canonical_forms(given_keys, english), want)


@needs_native
def test_canonical_forms_with_known_keys_check_them() -> None:
    assert native is not None
    memo, tables = lenient._CANONICAL[True], lenient._TABLES[True]
    keys = ("Four", "cats")
    assert native.canonical_keys(keys, memo, tables, 3, keys[:1], ("4",)) == ("4", "cats")
    with pytest.raises(TypeError, match="4 or 6 arguments"):
        native.canonical_keys(keys, memo, tables, 3, keys)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="tuples of one size"):
        native.canonical_keys(keys, memo, tables, 3, keys, ("4",))
    with pytest.raises(TypeError, match="tuples of one size"):
        native.canonical_keys(keys, memo, tables, 3, list(keys), ("4", "cats"))  # type: ignore[call-overload]
    # an output's forms read its keywords' canonical forms: the same as without them
    out = kl.LenientMatcher(Normalizer()).output("Twenty four cats were born in New York.")
    assert out._every_forms() == lenient.canonical_forms(out._all_keys, True)


@needs_native
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"aZ09 ,_-.'\t\n()", "1,000", ",12", "é", "–", "’"])).map("".join))
def test_folded_texts_equal_the_reference(output: str) -> None:
    """An ASCII output's folded text and its word characters in C: _texts()'s values."""
    with pure_python():
        want = kl.LenientMatcher(NORMALIZER).output(output)._texts()
    assert kl.LenientMatcher(NORMALIZER).output(output)._texts() == want


# ---- the scoring loop -------------------------------------------------------------------------
WORDS = [
    *["paris", "France", "Röntgen", "rontgen", "café", "September", "march", "May", "12", "14"],
    *["2004", "1,000", "1000", "twenty", "four", "twenty-four", "1979–80", "1979", "80"],
    *["six-year", "six", "year", "25th-largest", "25", "largest", "himalaya", "himalayas"],
    *["manchuria", "manchu", "Massachusetts1", "byJohann", "Gutenberg", "the", "of", "no"],
    *["U.S.", "3.50", "09:15", "astatine-85", "85", "New", "York", "10-12", "1012", "eukarya"],
    *["eukaryota", "٣", "東京", "Tigris", "river", "Euphrates", "a", "1990", "1991", "feet"],
    *["6ft", "kilometers", "first", "1st", "second", "x-ray", "rays", "it’s", "“quoted”"],
    *["sixyears", "sixyear", "x-rays", "xrays", "twenty four", "no", "ten-year-old", "tenyear"],
]
GLUE = [" ", " ", " ", ", ", ". ", " — ", "-", "", " (", ") ", "\n"]
TEXT = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(GLUE)), max_size=14).map(
    lambda pieces: "".join(w + g for w, g in pieces)
)


def _scores(
    matcher: kl.LenientMatcher,
    references: list[str],
    output: str,
    profile: kl.TaskProfile,
    weights: KeywordWeights,
    question: str | None,
) -> list[tuple[float, dict[str, Any]]]:
    out = matcher.output(output)
    echoed = matcher.question_keys(question) if question is not None else frozenset()
    found = []
    for reference in references:
        ref = matcher.reference(reference)
        found.append(kl.lenient_score(ref, matcher.weighted(ref, weights), out, profile, echoed))
    return found


@needs_native
@settings(max_examples=500, deadline=None)
@given(
    st.lists(TEXT, min_size=1, max_size=3),
    TEXT,
    st.sampled_from(list(PROFILES)),
    st.sampled_from(list(WEIGHTS)),
    st.one_of(st.none(), TEXT),
    st.sampled_from(list(NORMALIZERS)),
)
def test_scores_equal_the_reference(
    references: list[str],
    output: str,
    task: str,
    weighting: str,
    question: str | None,
    language: str,
) -> None:
    """Random references and outputs (numbers, months, compounds, accents, number words,
    glued words), every profile, both weightings, with and without a question, English or
    not: the same score and info, bit for bit and in order, each path with its own prepared
    texts and canonical keys (the memo emptied before each)."""
    profile, weights = PROFILES[task], WEIGHTS[weighting]
    matchers = [kl.LenientMatcher(NORMALIZERS[language]) for _ in range(2)]
    lenient.clear_caches()
    with pure_python():
        want = _scores(matchers[0], references, output, profile, weights, question)
    lenient.clear_caches()
    got = _scores(matchers[1], references, output, profile, weights, question)
    assert same(got, want), (got, want)


@needs_native
@settings(max_examples=300, deadline=None)
@given(TEXT, st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
def test_rules_equal_the_reference(output: str, words: list[str]) -> None:
    """Rules 1 to 3 in C (has), the keys without digits, the candidates of conflict kinds and
    the prefix rule's scan: the answers of the Python methods."""
    assert native is not None
    with pure_python():
        slow = kl.LenientMatcher(NORMALIZER).output(output)
        keys = lenient.canonical_keys(words, True)
        want_has = [slow.has(k) for k in keys]
        want_near = [slow.near(k) for k in keys if len(k) >= 4]
        want_kinds = [slow.of_kind(kind) for kind in ("year", "small", "number", "month")]
        want_prefix = [slow._prefix_match(k) for k in keys]
    fast = kl.LenientMatcher(NORMALIZER).output(output)
    assert [native.has(fast, k, LONG_TEXT) for k in keys] == want_has
    assert [native.has(fast, k, LONG_TEXT) for k in keys] == want_has  # texts built now
    assert [fast.near(k) for k in keys if len(k) >= 4] == want_near
    assert [fast.of_kind(kind) for kind in ("year", "small", "number", "month")] == want_kinds
    assert [fast._prefix_match(k) for k in keys] == want_prefix
    # the forms the compiled rules scan are the stopword-keeping keys' dict without its build
    forms = fast._every_forms()
    assert set(slow._extend()) == set(forms) | {f.replace("-", "") for f in forms if "-" in f}


@needs_native
@pytest.mark.parametrize(
    "output",
    [
        "It is in Massachusetts1 and byJohann Gutenbergin, 2004",  # ASCII: texts made in C
        "Born in Röntgen’s city—Massachusetts1",  # not ASCII: the method's Python code
        "It cost 1,500 dollars in Massachusetts1",  # a thousands separator: the Python code
    ],
)
def test_the_scoring_loop_keeps_the_texts_the_method_makes(output: str) -> None:
    """The compiled rules fill an output's folded texts (its _text slot) as _texts() does."""
    matcher = kl.LenientMatcher(NORMALIZER)
    out = matcher.output(output)
    assert out._text is None
    ref = matcher.reference("Massachusetts Johann Gutenberg")
    native_found = kl.lenient_score(
        ref, matcher.weighted(ref, WEIGHTS["frequency"]), out, PROFILES["short_answer"]
    )
    assert out._text is not None  # the substring rule ran
    with pure_python():
        python = kl.LenientMatcher(NORMALIZER)
        python_out = python.output(output)
        assert same(out._text, python_out._texts())
        python_ref = python.reference("Massachusetts Johann Gutenberg")
        python_found = kl.lenient_score(
            python_ref,
            python.weighted(python_ref, WEIGHTS["frequency"]),
            python_out,
            PROFILES["short_answer"],
        )
    assert same(native_found, python_found)
    assert "massachusetts" in native_found[1]["matched"]


@pytest.mark.parametrize("python", [False, True])
def test_a_new_output_keys_equals_the_matchers(python: bool) -> None:
    """OutputKeys(text, analysis, english), the class called, has the fields of the output the
    matcher prepares without calling it (_thaw of its kept tuple), both paths."""
    texts = ["It was on September 14, 2004.", "The six-year 10–12 twenty-four", "Röntgen", ""]
    with pure_python() if python else contextlib.nullcontext():
        matcher = kl.LenientMatcher(NORMALIZER)
        for text in texts:
            made = kl.OutputKeys(text, NORMALIZER.keyword_analysis(text), True)
            prepared = matcher.output(text)
            for name in kl.OutputKeys.__slots__:
                assert same(getattr(made, name), getattr(prepared, name)), name


@needs_native
def test_long_outputs_search_through_their_index() -> None:
    """An output of LONG_TEXT characters or more: the substring rule goes to the Python code
    (its index), with the same answers."""
    assert native is not None
    output = " ".join(["filler text about rivers"] * (LONG_TEXT // 20)) + " byJohann 1990s"
    with pure_python():
        slow = kl.LenientMatcher(NORMALIZER).output(output)
        want = [slow.has(k) for k in ("johann", "1990", "rivers", "zzzz", "abou")]
    fast = kl.LenientMatcher(NORMALIZER).output(output)
    assert [
        native.has(fast, k, LONG_TEXT) for k in ("johann", "1990", "rivers", "zzzz", "abou")
    ] == (want)


def _real_pairs() -> list[tuple[list[str], str, str | None]]:
    pairs: list[tuple[list[str], str, str | None]] = []
    for name in ("NQ", "TQ"):
        path = SHARED / "data" / "qa_human" / "evouna" / f"{name}.json"
        if not path.exists():
            pytest.skip("../shared is absent: real pairs not run")
        rows = json.loads(path.read_text(encoding="utf-8"))[:150]
        for i, row in enumerate(rows):
            golds = [g.strip() for g in (row["golden_answer"] or "").split("/") if g.strip()]
            answer = row.get("answer_chatgpt")
            if golds and isinstance(answer, str):
                pairs.append((golds, answer, row.get("question") if i % 2 else None))
    summeval = SHARED / "data" / "summeval" / "summeval_expert_avg_11refs.jsonl"
    if summeval.exists():
        with open(summeval, encoding="utf-8") as lines:
            for _, line in zip(range(12), lines, strict=False):
                row = json.loads(line)
                pairs.append(([row["references"][0]], row["decoded"], None))
                pairs.append(([row["decoded"]], row["source"], None))
    return pairs


def _measure_all(pairs: list[tuple[list[str], str, str | None]], **options: Any) -> list[Any]:
    metric = KeywordCoverageMetric(normalizer=NORMALIZER, **options)
    results = [metric.measure(refs, out, question=q) for refs, out, q in pairs]
    return [(r.score, r.info) for r in results]


@needs_native
@pytest.mark.parametrize("task", [None, *PROFILES])
def test_real_pairs_equal_the_reference(task: str | None) -> None:
    """EVOUNA NQ and TQ (several golds, half with their question) and SummEval (relevance
    and source support): every result identical, with the task chosen per call or fixed."""
    pairs = _real_pairs()
    with pure_python():
        want = _measure_all(pairs, task=task)
    assert same(_measure_all(pairs, task=task), want)


@needs_native
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"task": "summary"},
        {"scale": 10.0, "threshold": 4.0},
        {"weighting": "uniform", "threshold": 0.3},
        {"compat": "mastra"},
        {"match": "exact"},
    ],
)
def test_one_reference_as_a_str_equals_a_list_of_one(options: dict[str, Any]) -> None:
    """measure(reference, output) with a str reference and no question (its lean path, and
    measure_many's) gives the results of [reference], both paths, info in the same order;
    again with every text kept (the caches), each pair twice in a row, and from threads."""
    if "compat" not in options:
        options = {"normalizer": NORMALIZER, **options}
    pairs = [(refs[0], out) for refs, out, _ in _real_pairs()]
    with pure_python():
        metric = KeywordCoverageMetric(**options)
        want = [metric.measure([r], o) for r, o in pairs]
        python = KeywordCoverageMetric(**options)
        found_python = [python.measure(r, o) for r, o in pairs]
    metric = KeywordCoverageMetric(**options)
    found = [metric.measure(r, o) for r, o in pairs]
    again = [metric.measure(r, o) for r, o in pairs]  # every text kept
    twice = [metric.measure(r, o) for r, o in pairs for _ in (0, 1)][1::2]
    refs, outs = [r for r, _ in pairs], [o for _, o in pairs]
    many = KeywordCoverageMetric(**options).measure_many(refs, outs)
    shared = KeywordCoverageMetric(**options)
    with ThreadPoolExecutor(4) as pool:
        threads = list(pool.map(lambda pair: shared.measure(*pair), pairs))
    for results in (found_python, found, again, twice, many, threads):
        assert same(
            [(x.score, x.info, x.passed, x.signature) for x in results],
            [(x.score, x.info, x.passed, x.signature) for x in want],
        )


@needs_native
def test_threads_give_the_same_results() -> None:
    """Four threads scoring the same pairs with one metric (its caches shared and filled
    concurrently): the results of one thread alone."""
    pairs = _real_pairs()[:120]
    want = _measure_all(pairs)
    metric = KeywordCoverageMetric(normalizer=NORMALIZER)
    barrier = threading.Barrier(4)

    def run(offset: int) -> list[Any]:
        barrier.wait()
        order = pairs[offset:] + pairs[:offset]
        found = [metric.measure(r, o, question=q) for r, o, q in order]
        return [
            (x.score, x.info) for x in found[len(pairs) - offset :] + found[: len(pairs) - offset]
        ]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, [0, 30, 60, 90]))
    for found in results:
        assert same(found, want)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(TEXT, min_size=1, max_size=3),
    TEXT,
    st.sampled_from(list(PROFILES)),
    st.sampled_from(list(NORMALIZERS)),
    st.booleans(),
)
def test_a_kept_output_scores_as_a_new_one(
    references: list[str], output: str, task: str, language: str, python: bool
) -> None:
    """An output scored, set aside by another one (kept as a plain tuple) and scored again:
    the results of a matcher that never saw it, both paths."""
    profile, weights = PROFILES[task], WEIGHTS["frequency"]
    with pure_python() if python else contextlib.nullcontext():
        matcher = kl.LenientMatcher(NORMALIZERS[language])
        first = _scores(matcher, references, output, profile, weights, None)
        matcher.output(output + " and another one")  # output goes into the cache
        assert isinstance(matcher._outputs[output], tuple)
        again = _scores(matcher, references, output, profile, weights, None)
        new = _scores(
            kl.LenientMatcher(NORMALIZERS[language]), references, output, profile, weights, None
        )
    assert same(first, new) and same(again, new), (first, again, new)


@pytest.mark.parametrize("python", [False, True])
def test_kept_outputs_are_not_tracked_by_the_collector(python: bool) -> None:
    """The matcher's prepared outputs (real pairs scored through the metric) are plain tuples
    that the collector stops tracking at its next collections: they never make a full one
    come."""
    metric = KeywordCoverageMetric(normalizer=NORMALIZER)
    assert isinstance(metric._mode, LenientCoverage)
    matcher = metric._mode.matcher
    with pure_python() if python else contextlib.nullcontext():
        for refs, out, q in _real_pairs()[:200]:
            metric.measure(refs, out, question=q)
    kept = list(matcher._outputs.values())
    assert len(kept) > 100
    assert all(type(state) is tuple and len(state) == 4 for state in kept)
    gc.collect()
    gc.collect()  # (a tuple is untracked once its items are: some need a second pass)
    assert [state[0] for state in kept if gc.is_tracked(state)] == []


# ---- arguments and errors ---------------------------------------------------------------------
@needs_native
def test_score_takes_the_python_loop_for_other_types_and_propagates_errors() -> None:
    assert native is not None
    matcher = kl.LenientMatcher(NORMALIZER)
    ref = matcher.reference("Tigris River 1990")
    weighted = matcher.weighted(ref, WEIGHTS["frequency"])
    out = matcher.output("the Euphrates river in 1991, near Baghdad")
    profile = PROFILES["short_answer"]
    types = kl._SCORE_TYPES
    args = (ref, weighted, weighted.weights, weighted.total, out, profile, frozenset())
    assert native.score(types, *args) is not None
    # not the types the reference builds: None (the Python loop runs)
    assert native.score(types, tuple(ref), *args[1:]) is None
    assert native.score(types, ref, weighted, weighted.weights, 0.0, *args[4:]) is None
    assert native.score(types, ref, weighted, weighted.weights[:1], *args[3:]) is None
    assert native.score(types, *args[:-1], {"x"}) is None
    assert (
        native.score(types, *args[:5], profile.with_options(extra_penalty=2**2000), args[6]) is None
    )
    with pytest.raises(TypeError, match="tuple of 4"):
        native.score(types[:3], *args)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        native.score(types, *args[:-1])  # type: ignore[call-arg]
    with pytest.raises(AttributeError):
        native.score(types, *args[:5], object(), args[6])

    class Failing(kl._Missed):
        def __call__(self, *args: Any) -> float | None:
            raise LookupError("missed")

    class Wrong(kl._Missed):
        def __call__(self, *args: Any) -> float | None:
            return "x"  # type: ignore[return-value]

    with pytest.raises(LookupError, match="missed"):
        native.score((*types[:2], Failing, LONG_TEXT), *args)
    with pytest.raises(TypeError, match="float or None"):
        native.score((*types[:2], Wrong, LONG_TEXT), *args)
    assert native.has(out, 1, LONG_TEXT) is None  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        native.has(object(), "x", LONG_TEXT)


@needs_native
def test_small_helpers_check_their_arguments() -> None:
    assert native is not None
    assert native.without_digits(("a", "b2", "٣", "c")) == ("a", "c")
    assert native.without_digits(["a"]) is None  # type: ignore[arg-type]
    assert native.without_digits(("a", 1)) is None  # type: ignore[arg-type]
    assert native.kind_candidates(("may", "2004", "x", "2004", "june"), kl.MONTHS_EN) == [
        "may",
        "2004",
        "june",
    ]
    assert native.kind_candidates(("may", "2004"), None) == ["2004"]
    with pytest.raises(TypeError, match="frozenset"):
        native.kind_candidates(("may",), {"may"})  # type: ignore[arg-type]
    assert native.prefix_match("himalayas", {"himalaya": None}, {}, 5, 0.8) is True
    assert native.prefix_match("himalayas", {"himal2aya": None}, {}, 5, 0.8) is False
    assert native.prefix_match("himalayas", {1: None}, {}, 5, 0.8) is None  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        native.prefix_match("x", [], {}, 5, 0.8)  # type: ignore[arg-type]


NEAR_PIECES = ["a", "b", "ab", "ba", "abc", "x", "é", "ü", "ẞ", "😀", "-", "1", "abcdefghij" * 7]
NEAR_WORD = st.lists(st.sampled_from(NEAR_PIECES), min_size=0, max_size=6).map("".join)


@needs_native
@settings(max_examples=400, deadline=None)
@given(
    NEAR_WORD,
    st.lists(NEAR_WORD, max_size=8).map(tuple),
    st.sampled_from([0.5, kl.NEAR_MIN, 0.0, 0.8, 1.0, 0.6, 2 / 3, 0.25, 0.75]),
)
def test_near_matches_equal_rapidfuzz(key: str, choices: tuple[str, ...], cutoff: float) -> None:
    """The compiled near match is extractOne's: the first of the most similar choices, its
    similarity bit for bit (ties, keys beyond 64 characters or not ASCII, empty strings)."""
    assert native is not None
    found = extractOne(key, choices, scorer=Indel.normalized_similarity, score_cutoff=cutoff)
    near = native.near(key, choices, cutoff)
    if near is None:  # a choice at the edge of a cutoff not exact in binary: extractOne decides
        sims = [Indel.normalized_similarity(key, c) for c in choices]
        assert any(abs(s - cutoff) <= 1e-9 for s in sims)
        assert cutoff * 64 != int(cutoff * 64)
    else:
        assert same(near, () if found is None else found[:2])


@needs_native
def test_near_matches_check_their_arguments() -> None:
    assert native is not None
    assert native.near("paris", ("pari", "parsi", "paris"), 0.5) == ("paris", 1.0)
    assert native.near("paris", ("parsi", "pari", "ipari"), 0.5) == ("pari", 8 / 9)
    assert native.near("paris", ("london",), 0.5) == ()
    assert native.near("abc", ("ab",), 0.8) is None  # at the cutoff: extractOne decides
    assert native.near("abcd", ("ab",), 2 / 3) is None
    assert native.near("abcd", ("xyab",), 0.5) == ("xyab", 0.5)  # taken at 0.5
    with pytest.raises(TypeError):
        native.near("paris", ["pari"], 0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        native.near("paris", ("pari", 1), 0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        native.near("paris", ("pari",), 1)  # type: ignore[arg-type]
