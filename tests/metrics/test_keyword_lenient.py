"""Lenient keyword matching's preparation and scoring (lexeval.metrics.keyword_lenient): what a
reference is prepared into (keys, canonical keys, digits, parts, conflict kinds) and weighed
into; the same results whatever the caches hold, the call's form (a str reference or a list of
one, measure_many) and the threads."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lexeval.metrics.weights as weights_module
from lexeval.metrics import KeywordCoverageMetric
from lexeval.metrics.keyword_lenient import LenientMatcher, lenient_score
from lexeval.metrics.keyword_tasks import PROFILES
from lexeval.metrics.weights import NUMBER_FACTOR, KeywordWeights
from lexeval.normalize import Normalizer
from tests.support.exact import same
from tests.support.qa_data import evouna_golds

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
NORMALIZER = Normalizer()
NORMALIZERS = {"en": NORMALIZER, "de": Normalizer(language="de")}  # English or not
WEIGHTS = {"frequency": KeywordWeights("en"), "uniform": KeywordWeights("en", frequency=False)}


SEPTEMBER = ("september", "1945")


# ---- references ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reference", "want"),
    [
        # keys, canonical, has a digit, parts, conflict kind
        ("Paris", (("paris",), ("paris",), (False,), ((),), (None,))),
        ("four", (("four",), ("4",), (True,), ((),), ("small",))),
        ("twenty four", (("twenty four",), ("24",), (True,), ((),), ("small",))),
        (
            "September 1945",
            (SEPTEMBER, SEPTEMBER, (False, True), ((), ()), ("month", "year")),
        ),
        (
            "10,000 km",
            (("10,000", "km"), ("10000", "kilometre"), (True, False), ((), ()), ("number", None)),
        ),
        ("1979–80", (("1979–80",), ("1979-80",), (True,), (("1979", "80"),), ("number",))),
        ("the", (("the",), ("the",), (False,), ((),), (None,))),
        ("", ((), (), (), (), ())),
    ],
)
def test_a_reference_is_prepared_into_its_keys_parts_and_kinds(
    reference: str, want: tuple[Any, ...]
) -> None:
    matcher = LenientMatcher(NORMALIZER)
    prepared = matcher.reference(reference)
    assert tuple(prepared) == want
    assert list(prepared.keys) == matcher.reference_keywords(reference)
    assert tuple(matcher.reference(reference)) == want  # again, from the cache


def test_a_non_english_reference_keeps_its_number_words() -> None:
    matcher = LenientMatcher(NORMALIZERS["de"])
    assert not matcher.english
    prepared = matcher.reference("vier Mai 1945")
    assert "4" not in prepared.canonical and prepared.kinds[-1] == "year"
    assert "month" not in prepared.kinds  # months are English names


def test_reference_weights_are_the_weights_of_keys_and_parts() -> None:
    matcher = LenientMatcher(NORMALIZER)
    w = WEIGHTS["frequency"]
    ref = matcher.reference("the six-year war of 1812, not lost")
    weighted = matcher.weighted(ref, w)
    assert list(weighted.weights) == w.weights(list(ref.keys), numeric=list(ref.numeric))
    assert weighted.total == sum(weighted.weights)
    for pieces, part_weights in zip(ref.pieces, weighted.part_weights, strict=True):
        assert part_weights == tuple(w.weight(p) for p in pieces)
    uniform = matcher.weighted(ref, WEIGHTS["uniform"])
    assert all(len(set(p)) <= 1 and set(p) <= {1.0} for p in uniform.part_weights)


def test_parts_with_digits_weigh_three_times() -> None:
    """A part weighs NUMBER_FACTOR times when it has a decimal digit (re's \\d: "٣" is one,
    "²" is not)."""
    w = KeywordWeights("en")
    values, total, parts = w.of_reference(("x²-٣", "b"), (False, False), (("x²", "٣"), ()))
    memo = weights_module._weight_memo("en")
    assert parts == ((memo["x²"], NUMBER_FACTOR * memo["٣"]), ())
    assert total == sum(values)
    assert w.of_reference(("a", "b"), (False, False), ((), ()))[2] == ((), ())


# ---- the same results whatever the caches, the call and the threads ---------------------------
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
    measure_many's) gives the results of [reference], info in the same order; again with every
    text kept (the caches), each pair twice in a row, and from threads."""
    if "compat" not in options:
        options = {"normalizer": NORMALIZER, **options}
    pairs = [(refs[0], out) for refs, out, _ in _real_pairs()]
    metric = KeywordCoverageMetric(**options)
    want = [metric.measure([r], o) for r, o in pairs]
    metric = KeywordCoverageMetric(**options)
    found = [metric.measure(r, o) for r, o in pairs]
    again = [metric.measure(r, o) for r, o in pairs]  # every text kept
    twice = [metric.measure(r, o) for r, o in pairs for _ in (0, 1)][1::2]
    refs, outs = [r for r, _ in pairs], [o for _, o in pairs]
    many = KeywordCoverageMetric(**options).measure_many(refs, outs)
    shared = KeywordCoverageMetric(**options)
    with ThreadPoolExecutor(4) as pool:
        threads = list(pool.map(lambda pair: shared.measure(*pair), pairs))
    for results in (found, again, twice, many, threads):
        assert same(
            [(x.score, x.info, x.passed, x.signature) for x in results],
            [(x.score, x.info, x.passed, x.signature) for x in want],
        )


def test_threads_give_the_same_results() -> None:
    """Four threads scoring the same pairs with one metric (its caches shared and filled
    concurrently), one of them emptying the canonical-key and weight memos now and then: the
    results of one thread alone."""
    from lexeval.text import lenient

    pairs = _real_pairs()[:120]
    want = _measure_all(pairs)
    metric = KeywordCoverageMetric(normalizer=NORMALIZER)
    barrier = threading.Barrier(4)

    def run(offset: int) -> list[Any]:
        barrier.wait()
        order = pairs[offset:] + pairs[:offset]
        found = []
        for i, (r, o, q) in enumerate(order):
            if offset == 0 and i % 40 == 0:
                lenient.clear_caches()
                weights_module.clear_caches()
            found.append(metric.measure(r, o, question=q))
        return [
            (x.score, x.info) for x in found[len(pairs) - offset :] + found[: len(pairs) - offset]
        ]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, [0, 30, 60, 90]))
    for found in results:
        assert same(found, want)


def test_golds_prepared_again_from_the_caches_are_the_same() -> None:
    matcher = LenientMatcher(NORMALIZER)
    golds = evouna_golds("NQ", 400)
    first = [tuple(matcher.reference(g)) for g in golds]
    weighted = [tuple(matcher.weighted(matcher.reference(g), WEIGHTS["frequency"])) for g in golds]
    again = LenientMatcher(NORMALIZER)
    assert [tuple(again.reference(g)) for g in golds[::-1]] == first[::-1]
    weights_module.clear_caches()
    assert [
        tuple(again.weighted(again.reference(g), WEIGHTS["frequency"])) for g in golds
    ] == weighted


TEXT = st.one_of(
    st.text(max_size=30),
    st.lists(
        st.sampled_from(
            [
                *["Paris", "four", "twenty", "May", "1,000", "1979–80", "six-year", "Röntgen"],
                *["not", "the", "himalaya", "Himalayas", "Massachusetts1", "12", "14", "2004"],
                *["September", "-", ","],
            ]
        ),
        max_size=8,
    ).map(" ".join),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(TEXT, min_size=1, max_size=3),
    TEXT,
    st.sampled_from(list(PROFILES)),
    st.sampled_from(list(NORMALIZERS)),
)
def test_a_kept_output_scores_as_a_new_one(
    references: list[str], output: str, task: str, language: str
) -> None:
    """An output scored, set aside by another one and scored again: the results of a matcher
    that never saw it."""
    profile, weights = PROFILES[task], WEIGHTS["frequency"]

    def scores(matcher: LenientMatcher) -> list[Any]:
        out = matcher.output(output)
        return [
            lenient_score(ref, matcher.weighted(ref, weights), out, profile)
            for ref in map(matcher.reference, references)
        ]

    matcher = LenientMatcher(NORMALIZERS[language])
    first = scores(matcher)
    matcher.output(output + " and another one")
    again = scores(matcher)
    new = scores(LenientMatcher(NORMALIZERS[language]))
    assert same(first, new) and same(again, new), (first, again, new)
