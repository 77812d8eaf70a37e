"""The compiled weights of a reference's keywords (lexeval.native.weights): equal to the
pure-Python reference bit for bit (weights, total, part weights) and writing the weight memos
as it does, on random keys, real EVOUNA and SummEval references, negations, numbers, parts,
other languages, empty and full memos (emptied at their size bound), and threads; arguments
checked, errors propagated (that it is built, in use, and switched off by
LEXEVAL_PURE_PYTHON=1: tests/test_build.py)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import threading
import tracemalloc
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import wordfreq
from hypothesis import given, settings
from hypothesis import strategies as st

import lexeval.metrics.keyword_lenient as kl
import lexeval.metrics.weights as weights
from lexeval.metrics import KeywordCoverageMetric
from lexeval.metrics.keyword_lenient import LenientMatcher, Weighted
from lexeval.metrics.weights import NEGATIONS_EN, KeywordWeights
from lexeval.native import load
from lexeval.normalize import Normalizer
from tests.support.exact import same
from tests.support.qa_data import evouna_golds

native = load("weights")
needs_native = pytest.mark.skipif(
    native is None, reason="lexeval.native.weights not built, or LEXEVAL_PURE_PYTHON set"
)
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
Found = tuple[tuple[float, ...], float, tuple[tuple[float, ...], ...]]


@contextmanager
def pure_python() -> Iterator[None]:
    """The reference path for the block."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(weights, "NATIVE_WEIGHTS", False)
        yield


def memos(language: str) -> tuple[dict[str, float], dict[float, float]]:
    """Copies of the weight memo of ``language`` and of the Zipf memo, in their order."""
    return dict(weights._weight_memo(language)), dict(weights._ZIPF_OF_FREQUENCY)


def restore(language: str, saved: tuple[dict[str, float], dict[float, float]]) -> None:
    memo = weights._weight_memo(language)
    memo.clear()
    memo.update(saved[0])
    weights._ZIPF_OF_FREQUENCY.clear()
    weights._ZIPF_OF_FREQUENCY.update(saved[1])


def both(
    w: KeywordWeights,
    references: list[tuple[tuple[str, ...], tuple[bool, ...], tuple[tuple[str, ...], ...]]],
) -> None:
    """Weighs ``references`` in turn with the compiled path, then from the same memos with the
    reference: the same values, and the same memos after each path."""
    saved = memos(w.language)
    fast = [w.of_reference(*r) for r in references]
    fast_memos = memos(w.language)
    restore(w.language, saved)
    with pure_python():
        slow = [w.of_reference(*r) for r in references]
    assert same(fast_memos, memos(w.language))
    for r, f, s in zip(references, fast, slow, strict=True):
        assert same(f, s), r
        if not any(r[2]):
            assert f[2] is r[2] and s[2] is r[2]  # pieces itself: no tuple of its own


# ---- random keys -------------------------------------------------------------------------
WORDS = [*wordfreq.top_n_list("en", 300), "hastings", "röntgen", "zzyzx", "manchuria"]
KEY = (
    st.sampled_from(WORDS)
    | st.sampled_from(sorted(NEGATIONS_EN))
    | st.integers(0, 3000).map(str)
    | st.text(alphabet="abqzAZéÉßı1²٣-., '\u2013", min_size=0, max_size=7)
    | st.sampled_from(["ǅ", "ǆ", "ͅ", "ª", "ﬁ", "日本", "x86", "12th", "off-road", "dr."])
    | st.text(alphabet="0123456789.,-az\u2013\u2212", min_size=1, max_size=10)
    | st.from_regex(r"[1-9][0-9]{0,5}([.,][0-9]{1,3})?(th|s)?", fullmatch=True)
)


@st.composite
def references(draw: st.DrawFn) -> tuple[tuple[str, ...], tuple[bool, ...], Any]:
    keys = tuple(draw(st.lists(KEY, min_size=0, max_size=6)))
    numeric = tuple(draw(st.lists(st.booleans(), min_size=len(keys), max_size=len(keys))))
    parts = st.tuples() | st.lists(KEY, min_size=1, max_size=3).map(tuple)
    pieces = tuple(draw(st.lists(parts, min_size=len(keys), max_size=len(keys))))
    return keys, numeric, pieces


@needs_native
@settings(max_examples=200, deadline=None)
@given(st.lists(references(), min_size=1, max_size=4), st.booleans())
def test_random_keys_equal_the_reference(
    refs: list[tuple[tuple[str, ...], tuple[bool, ...], Any]], empty: bool
) -> None:
    """Words, negations, numbers, letters of every case (title-case, modifier letters),
    digits that are not decimal, dashes and dots, parts: from an emptied memo or the one the
    examples before filled."""
    if empty or len(weights._weight_memo("en")) > 5000:  # copied twice per example
        weights.clear_caches()
    both(KeywordWeights("en"), refs)


@needs_native
@pytest.mark.parametrize(
    ("language", "keys"),
    [
        ("de", ("straße", "über", "nicht", "Haus", "1990", "x-y")),
        ("fr", ("ne", "pas", "élève", "Œuvre")),
        ("zh", ("世界", "北京", "abc", "1990", "Ab")),  # every key looked up as it is
        ("ja", ("東京", "すし")),
    ],
)
def test_other_languages_equal_the_reference(language: str, keys: tuple[str, ...]) -> None:
    """Other languages' lists (no negations unless given); zh, ja and ko keys are looked up
    in the list as they are."""
    n = len(keys)
    refs = [
        (keys, (False,) * n, ((),) * n),
        (keys[::-1], (True,) * n, ((keys[0], keys[-1]),) * n),
    ]
    weights.clear_caches()
    both(KeywordWeights(language), refs)
    both(KeywordWeights(language, negations={keys[0]}), refs)


def test_uniform_weights_are_the_reference() -> None:
    """frequency=False and a language without a list: the Python code (every weight 1.0 but
    negations)."""
    for w in (KeywordWeights("en", frequency=False), KeywordWeights("xx", negations={"not"})):
        found = w.of_reference(("not", "a", "b-c"), (False, False, True), ((), (), ("b", "c")))
        assert same(found, ((2.0, 1.0, 1.0), 4.0, ((), (), (1.0, 1.0))))


# ---- English keys of tokens ---------------------------------------------------------------
def _token_keys() -> list[str]:
    rng = random.Random(7)
    keys = [str(i) for i in range(3000)] + ["0" * z + str(i) for z in (1, 2) for i in range(100)]
    keys += [f"{i}{end}" for i in range(0, 3000, 7) for end in ("st", "th", "s", "km", "x")]
    alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
    keys += ["".join(rng.choices(alnum, k=rng.randint(2, 7))) for _ in range(2000)]
    keys += [str(rng.randrange(10**n)) for n in range(5, 14) for _ in range(20)]
    words = [*wordfreq.top_n_list("en", 2000), "gutenberg", "zzyzx"]
    keys += ["-".join(rng.choices(words, k=rng.randint(2, 3))) for _ in range(1500)]
    keys += [f"{rng.randint(0, 2100)}\u2013{rng.randint(0, 99)}" for _ in range(500)]
    keys += ["".join(rng.choices(alnum + "--.,", k=rng.randint(1, 9))) for _ in range(3000)]
    keys += [f"{rng.randint(0, 99999):,}.{rng.randint(0, 99)}" for _ in range(500)]
    keys += ["dr.", "jr.", "inc.", "9,436", "36.0", "1,020\u20131,080", "a00", "00", "1.", "1..2"]
    keys += ["x" * 70 + "1", "1" * 65, "Ab-1", "a--b", "-1", "1-", "u.s", "\u00e9-1"]
    return list(dict.fromkeys(keys))


@needs_native
def test_english_keys_of_tokens_equal_the_reference_and_wordfreq() -> None:
    """Numbers, ordinals, years, hyphenated and dashed keys, digits with "." and ",", a final
    ".": the compiled weights are the reference's, and wordfreq's."""
    keys = _token_keys()
    refs = [((k,), (any(c.isdigit() for c in k),), ((),)) for k in keys]
    weights.clear_caches()
    both(KeywordWeights("en"), refs)
    memo = weights._weight_memo("en")
    for key in keys:
        assert memo[key] == max(0.5, 8.0 - wordfreq.zipf_frequency(key, "en")), key


# ---- numbers and negations ---------------------------------------------------------------
@needs_native
def test_numbers_and_negations_equal_the_reference() -> None:
    """The number factor, then a negation raised to twice the heaviest other key (numbers
    too), several negations, only negations, a negation heavier already."""
    n, f = (True, False)
    refs = [
        (("not", "guilty"), (f, f), ((), ())),
        (("never", "1901"), (f, n), ((), ())),
        (("no", "not", "none"), (f, f, f), ((), (), ())),
        (("nor", "the", "a"), (f, f, f), ((), (), ())),
        (("without", "röntgen", "4", "x86"), (f, f, n, n), ((), (), (), ())),
        (("not", "not"), (n, f), ((), ())),  # a numeric negation: the factor, then the rule
        (("1979-80", "not"), (n, f), (("1979", "80"), ())),
    ]
    weights.clear_caches()
    both(KeywordWeights("en"), refs)
    both(KeywordWeights("en"), refs)  # the memo full
    both(KeywordWeights("en", negations=()), refs)


@needs_native
def test_parts_with_digits_weigh_three_times() -> None:
    """A part weighs NUMBER_FACTOR times when it has a decimal digit (re's \\d: "٣" is one,
    "²" is not)."""
    refs = [
        (("a-1",), (True,), (("a", "1"),)),
        (("x²-٣",), (False,), (("x²", "٣"),)),
        (("six-year", "b"), (False, False), (("six", "year"), ())),
        (("a", "b"), (False, False), ((), ("b", "b2"))),
    ]
    weights.clear_caches()
    both(KeywordWeights("en"), refs)
    memo = weights._weight_memo("en")
    assert KeywordWeights("en").of_reference(*refs[1])[2][0] == (memo["x²"], 3 * memo["٣"])


# ---- real references ---------------------------------------------------------------------
def _real_references() -> list[str]:
    texts = evouna_golds("NQ", 10**6) + evouna_golds("TQ", 10**6)
    summeval = SHARED / "data" / "summeval" / "summeval_expert_avg_11refs.jsonl"
    if summeval.exists():
        with open(summeval, encoding="utf-8") as lines:
            for _, line in zip(range(40), lines, strict=False):
                texts += json.loads(line)["references"][:3]
    texts = list(dict.fromkeys(texts))
    return texts[:: max(1, len(texts) // 6000)]  # about 6,000, across all sets (29,000 in all)


@needs_native
def test_real_references_equal_the_reference() -> None:
    """EVOUNA NQ and TQ golds and SummEval references, prepared by LenientMatcher: from
    emptied memos, then from the memos they filled."""
    matcher = LenientMatcher(Normalizer())
    refs = [matcher.reference(text) for text in _real_references()]
    args = [(r.keys, r.numeric, r.pieces) for r in refs]
    assert sum(map(any, (r.pieces for r in refs))) > 50 and sum(map(any, (a[1] for a in args)))
    weights.clear_caches()
    weights._ZIPF_OF_FREQUENCY.clear()
    both(KeywordWeights("en"), args)
    both(KeywordWeights("en"), args)


@needs_native
def test_memos_are_emptied_at_their_size_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a bound of 3 the memos are emptied as often, at the same keys, as the
    reference's; a memo still holds whole entries."""
    monkeypatch.setattr(weights, "_WEIGHT_CACHE_SIZE", 3)
    matcher = LenientMatcher(Normalizer())
    texts = _real_references()[:300]
    args = [(r.keys, r.numeric, r.pieces) for r in map(matcher.reference, texts)]
    weights.clear_caches()
    weights._ZIPF_OF_FREQUENCY.clear()
    w = KeywordWeights("en")  # its state reads the bound
    for a in args:
        both(w, [a])
        assert len(weights._weight_memo("en")) <= 3 and len(weights._ZIPF_OF_FREQUENCY) <= 3


@needs_native
def test_metric_results_equal_the_reference() -> None:
    """Default keyword coverage on EVOUNA NQ pairs, compiled weights or not: the same
    results."""
    path = SHARED / "data" / "qa_human" / "evouna" / "NQ.json"
    if not path.exists():
        pytest.skip("../shared is absent: real pairs not run")
    rows = json.loads(path.read_text(encoding="utf-8"))[:300]
    pairs = [(r["golden_answer"].split("/"), r["answer_chatgpt"]) for r in rows]
    weights.clear_caches()
    fast = [KeywordCoverageMetric().measure(g, a) for g, a in pairs]
    weights.clear_caches()
    with pure_python():
        slow = [KeywordCoverageMetric().measure(g, a) for g, a in pairs]
    for f, s in zip(fast, slow, strict=True):
        assert same((f.score, f.info), (s.score, s.info))


@needs_native
@pytest.mark.parametrize("bound", [3, 8192])
def test_matcher_weighted_equals_the_reference(bound: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """LenientMatcher.weighted, compiled (its cache look-up too) or not: the same Weighted
    tuples, the same cache (emptied at its bound), for both weightings and references without
    keys (the Python code weighs them)."""
    monkeypatch.setattr(kl, "_REFERENCE_CACHE_SIZE", bound)
    texts = [*_real_references()[:400], "", "the", "the"]
    for w in (KeywordWeights("en"), KeywordWeights("en", frequency=False)):
        fast_matcher = LenientMatcher(Normalizer())
        refs = [fast_matcher.reference(t) for t in texts]
        weights.clear_caches()
        fast = [fast_matcher.weighted(r, w) for r in refs + refs[::-1]]
        with pure_python():
            slow_matcher = LenientMatcher(Normalizer())
            weights.clear_caches()
            slow = [slow_matcher.weighted(r, w) for r in refs + refs[::-1]]
        assert all(type(f) is Weighted for f in fast)
        assert same(fast, slow)
        fast_cache = fast_matcher._weighted[w].args[0]  # type: ignore[attr-defined]
        slow_cache = slow_matcher._weighted[w].args[0]  # type: ignore[attr-defined]
        assert same(fast_cache, slow_cache) and len(fast_cache) <= bound
    assert not refs[-3].keys and fast[len(refs) - 3] == ((), 0, ())


# ---- threads -----------------------------------------------------------------------------
@needs_native
def test_threads_give_the_same_weights() -> None:
    """Four threads weighing the same references while one of them empties the memos now
    and then: the weights of one thread alone, with the reference."""
    matcher = LenientMatcher(Normalizer())
    texts = _real_references()[:1500]
    args = [(r.keys, r.numeric, r.pieces) for r in map(matcher.reference, texts)]
    w = KeywordWeights("en")
    with pure_python():
        want = [w.of_reference(*a) for a in args]
    barrier = threading.Barrier(4)

    def run(index: int) -> list[Found]:
        barrier.wait()
        found = []
        for i, a in enumerate(args):
            if index == 0 and i % 200 == 0:
                weights.clear_caches()
            found.append(w.of_reference(*a))
        return found

    with ThreadPoolExecutor(4) as pool:
        for got in pool.map(run, range(4)):
            assert same(got, want)


# ---- arguments and errors ----------------------------------------------------------------
def _state(memo: dict[str, float] | None = None) -> tuple[Any, ...]:
    state = KeywordWeights("en")._native_state()
    return state if memo is None else (memo, *state[1:])


@needs_native
def test_what_it_leaves_to_the_python_code() -> None:
    """Anything but exact tuples of exact str, numeric or pieces of another length, no key:
    None (the caller runs the Python code)."""
    assert native is not None
    state = _state()

    class Key(str):
        pass

    for keys, numeric, pieces in [
        (["a"], (False,), ((),)),
        ((Key("a"),), (False,), ((),)),
        (("a",), [False], ((),)),
        (("a",), (False, False), ((), ())),
        (("a",), (False,), ([],)),
        (("a",), (False,), ((Key("b"),),)),
        ((), (), ()),
    ]:
        assert native.weigh(keys, numeric, pieces, state) is None
    with pytest.raises(TypeError, match="state"):
        native.weigh(("a",), (False,), ((),), state[:-1])
    with pytest.raises(TypeError, match="state"):
        native.weigh(("a",), (False,), ((),), (*state[:6], {"not"}, *state[7:]))
    with pytest.raises(TypeError, match="4 arguments"):
        native.weigh(("a",), (False,), ((),))  # type: ignore[call-arg]


@needs_native
def test_weighted_checks_its_arguments() -> None:
    """A cache that is no dict, a result type that is no tuple class made by a class statement,
    a reference that is not a tuple of 5 items, a fallback giving something else than a tuple
    of 3: TypeError; the fallback's error propagates."""
    assert native is not None
    state = _state()
    ref = LenientMatcher(Normalizer()).reference("Battle of Hastings")
    good: list[Any] = [{}, 10, Weighted, state, KeywordWeights("en").of_reference, ref]
    assert type(native.weighted(*good)) is Weighted
    for i, bad in [(0, []), (1, 1.5), (2, int), (2, os.stat_result), (4, None), (5, (1, 2))]:
        with pytest.raises(TypeError):
            native.weighted(*good[:i], bad, *good[i + 1 :])
    empty = LenientMatcher(Normalizer()).reference("")

    def failing(*args: Any) -> Any:
        raise LookupError("fallback")

    with pytest.raises(LookupError, match="fallback"):
        native.weighted({}, 10, Weighted, state, failing, empty)
    with pytest.raises(TypeError, match="3 items"):
        native.weighted({}, 10, Weighted, state, lambda *a: (1, 2), empty)
    with pytest.raises(TypeError, match="6 arguments"):
        native.weighted(*good[:5])


@needs_native
def test_errors_of_the_memo_propagate() -> None:
    """A key the compiled code leaves to the memo's __missing__ (here one with a space): its
    error propagates; a memo value that is not a float is a TypeError."""
    assert native is not None

    class Failing(dict[str, float]):
        def __missing__(self, key: str) -> float:
            raise LookupError(key)

    memo = Failing()
    found = native.weigh(("battle",), (False,), ((),), _state(memo))
    assert found is not None and found[0] == (KeywordWeights("en").weight("battle"),)
    assert list(memo) == ["battle"]  # computed here, stored as __missing__ stores it
    with pytest.raises(LookupError, match="source code"):
        native.weigh(("battle", "source code"), (False, False), ((), ()), _state(memo))
    with pytest.raises(TypeError, match="float"):
        native.weigh(("x",), (False,), ((),), _state({"x": 1}))  # type: ignore[dict-item]


@needs_native
def test_no_references_leak() -> None:
    """Weighing again and again, the errors too, allocates nothing that stays (a reference
    count too many would keep every float or tuple made)."""
    assert native is not None
    matcher = LenientMatcher(Normalizer())
    refs = [matcher.reference(t) for t in ("not 1901", "off-road 9,436 rivers", "", "1979-80")]
    state = _state()
    good = KeywordWeights("en").of_reference

    def failing(*args: Any) -> Any:
        raise LookupError("fallback")

    def once() -> None:
        # the memos emptied: every key is weighed again (wordfreq's list, the rounding, the
        # memo's writes), not only read back
        state[0].clear()
        state[2].clear()
        for r in refs:
            native.weigh(r.keys, r.numeric, r.pieces, state)
            native.weighted({}, 2, Weighted, state, good, r)
            with contextlib.suppress(LookupError):
                native.weighted({}, 2, Weighted, state, failing, r)
        with contextlib.suppress(TypeError):
            native.weigh(("a",), (False,), ((),), state[:-1])

    once()
    tracemalloc.start()
    try:
        once()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(2000):
            once()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 20_000
