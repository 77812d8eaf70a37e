"""Properties of the record matcher: a perfect output scores 1, a dropped record costs recall
exactly one record, a junk record costs precision exactly one record, optimal never scores
less than greedy; and one matcher for cards and records."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.cards import ExpectedCard, GeneratedCard, match_cards
from lexeval.records import (
    Field,
    RecordCase,
    RecordDataset,
    RecordMatcher,
    Schema,
    assign,
    flashcard_schema,
    match_records,
)
from lexeval.records.checks import ExactCheck, KeywordsCheck, NumberCheck, SetCheck

SCHEMA = Schema(
    (
        Field("name", KeywordsCheck(), weight=2.0),
        Field("sku", ExactCheck()),
        Field("qty", NumberCheck()),
        Field("tags", SetCheck(), optional=True),
    )
)
WORDS = st.sampled_from(["red", "blue", "widget", "bolt", "steel", "cup", "oat", "milk"])
RECORD = st.fixed_dictionaries(
    {
        "name": st.lists(WORDS, min_size=1, max_size=3, unique=True).map(tuple),
        "sku": st.text("ABC123", min_size=1, max_size=4),
        "qty": st.integers(0, 50).map(float),
    },
    optional={"tags": st.lists(WORDS, max_size=3).map(tuple)},
)
RECORDS = st.lists(RECORD, min_size=1, max_size=6)
STRATEGY = st.sampled_from(["greedy", "optimal"])
THRESHOLD = st.sampled_from([0.3, 0.5, 0.8, 1.0])


def as_output(record: dict[str, Any]) -> dict[str, Any]:
    """What a model would write for ``record``: the name as text, numbers as strings."""
    out: dict[str, Any] = {
        "name": " ".join(record["name"]),
        "sku": record["sku"],
        "qty": f"{record['qty']:g}",
    }
    if "tags" in record:
        out["tags"] = list(record["tags"])
    return out


def run(expected: list[dict[str, Any]], generated: list[dict[str, Any]], **kw: Any) -> Any:
    matcher = RecordMatcher(SCHEMA, normalizer=None)
    return matcher.match(
        expected, generated, kw.get("threshold", 0.5), kw.get("strategy", "greedy")
    )


@settings(max_examples=150, deadline=None)
@given(RECORDS, STRATEGY, THRESHOLD)
def test_a_perfect_output_scores_one(
    records: list[dict[str, Any]], strategy: str, t: float
) -> None:
    case = run(records, [as_output(r) for r in records], strategy=strategy, threshold=t)
    assert (case.recall, case.precision, case.f1, case.avg_similarity) == (1.0, 1.0, 1.0, 1.0)
    assert all(r.passed and r.score == 1.0 for p in case.pairs for r in p.fields.values())


@settings(max_examples=150, deadline=None)
@given(RECORDS, STRATEGY, THRESHOLD, st.data())
def test_a_dropped_record_lowers_recall_by_exactly_one_record(
    records: list[dict[str, Any]], strategy: str, t: float, data: st.DataObject
) -> None:
    drop = data.draw(st.integers(0, len(records) - 1))
    outputs = [as_output(r) for k, r in enumerate(records) if k != drop]
    case = run(records, outputs, strategy=strategy, threshold=t)
    n = len(records)
    assert case.n_matched == n - 1
    assert case.recall == pytest.approx((n - 1) / n)
    assert case.precision == (1.0 if n > 1 else 0.0)


@settings(max_examples=150, deadline=None)
@given(RECORDS, STRATEGY, THRESHOLD, st.data())
def test_a_junk_record_lowers_precision_by_exactly_one_record(
    records: list[dict[str, Any]], strategy: str, t: float, data: st.DataObject
) -> None:
    outputs = [as_output(r) for r in records]
    at = data.draw(st.integers(0, len(outputs)))
    outputs.insert(at, {"name": "zzz", "sku": "junk-xyz", "qty": "n/a", "tags": ["zzz"]})
    case = run(records, outputs, strategy=strategy, threshold=t)
    n = len(records)
    assert case.n_matched == n and case.recall == 1.0
    assert case.precision == pytest.approx(n / (n + 1))
    assert at in case.extra_generated_indices


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from([0.0, 0.2, 0.35, 0.5, 0.6, 0.75, 0.9, 1.0]), min_size=3, max_size=3
        ),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from([0.0, 0.3, 0.5]),
)
def test_optimal_never_totals_less_than_greedy(grid: list[list[float]], t: float) -> None:
    greedy = assign(grid, t, "greedy")
    optimal = assign(grid, t, "optimal")
    total = lambda pairs: sum(grid[i][j] for i, j in pairs)  # noqa: E731
    assert total(optimal) >= total(greedy) - 1e-9
    for pairs in (greedy, optimal):
        assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
        assert all(grid[i][j] >= t and grid[i][j] > 0 for i, j in pairs)


def test_optimal_can_match_more_records_than_greedy_and_fewer() -> None:
    # Greedy lets the first expected record take what the second one needed.
    grid = [[0.6, 0.9], [0.0, 0.6]]
    assert assign(grid, 0.5, "greedy") == [(0, 1)]
    assert assign(grid, 0.5, "optimal") == [(0, 0), (1, 1)]
    # The assignment maximizes the total score, not the count: one strong pair beats two weak.
    grid = [[0.45, 0.0], [1.0, 0.45]]
    assert assign(grid, 0.3, "greedy") == [(0, 0), (1, 1)]
    assert assign(grid, 0.3, "optimal") == [(1, 0)]


def test_an_optional_field_left_out_is_not_scored() -> None:
    case = run(
        [{"name": ("cup",), "sku": "A", "qty": 1.0}], [{"name": "cup", "sku": "A", "qty": 1}]
    )
    assert set(case.pairs[0].fields) == {"name", "sku", "qty"}
    with_tags = run(
        [{"name": ("cup",), "sku": "A", "qty": 1.0, "tags": ("x",)}],
        [{"name": "cup", "sku": "A", "qty": 1}],
    )
    # weights 2/1/1/1, tags missing in the output: (2 + 1 + 1 + 0) / 5
    assert with_tags.pairs[0].score == pytest.approx(0.8)


def test_weights_are_a_weighted_mean() -> None:
    case = run(
        [{"name": ("cup",), "sku": "A", "qty": 1.0}], [{"name": "mug", "sku": "A", "qty": 1}]
    )
    assert case.best_scores == (pytest.approx(0.5),)  # (2 * 0 + 1 + 1) / 4


def test_parse_error_and_no_output_cases() -> None:
    ds = RecordDataset(
        "d",
        "1",
        SCHEMA,
        [
            RecordCase("ok", "t", [{"name": ("cup",), "sku": "A", "qty": 1.0}]),
            RecordCase("bad", "t", [{"name": ("cup",), "sku": "A", "qty": 1.0}] * 2),
            RecordCase("none", "t", [{"name": ("cup",), "sku": "A", "qty": 1.0}]),
        ],
        normalizer=None,
    )
    from lexeval.records import CaseOutput

    outputs = {
        "ok": [{"name": "cup", "sku": "A", "qty": 1}],
        "bad": CaseOutput((), "parse_error", "no JSON object or array in the reply"),
    }
    result = match_records(ds, outputs, threshold=0.5)
    assert [c.status for c in result.cases] == ["ok", "parse_error", "no_output"]
    assert result.cases[1].reason == "no JSON object or array in the reply"
    assert result.micro.n_expected == 4 and result.micro.n_matched == 1
    assert result.statuses == {"ok": 1, "parse_error": 1, "no_output": 1}


def test_flashcards_are_one_schema_of_the_same_matcher() -> None:
    expected = [ExpectedCard(["cell"], ["membrane", "nucleus"]), ExpectedCard(["wall"], ["plant"])]
    generated = [
        GeneratedCard("cell wall", "membrane of a plant"),
        GeneratedCard("cell", "nucleus"),
    ]
    records = RecordMatcher(flashcard_schema(), normalizer=None)
    want = [{"front": e.front_keywords, "back": e.back_keywords} for e in expected]
    got = [{"front": g.front, "back": g.back} for g in generated]
    for strategy in ("greedy", "optimal"):
        cards = match_cards(expected, generated, strategy=strategy, normalizer=None)
        case = records.match(want, got, 0.3, strategy)  # type: ignore[arg-type]
        assert [(p.expected_index, p.generated_index, p.score) for p in cards.pairs] == [
            (p.expected_index, p.generated_index, p.score) for p in case.pairs
        ]
        assert cards.best_scores == case.best_scores
