"""Every field check of lexeval.records, number parsing and JSON extraction from replies."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexeval.records import CHECKS, extract_json, parse_number
from lexeval.records.checks import (
    MISSING,
    Check,
    ExactCheck,
    KeywordsCheck,
    MetricCheck,
    NumberCheck,
    OneOfCheck,
    RegexCheck,
    SetCheck,
)
from lexeval.records.keywords import KeywordIndex

PLAIN = KeywordIndex(None)


def score(check: Check, expected: Any, generated: Any, index: KeywordIndex = PLAIN) -> float:
    value = check.check_expected(expected)
    return check.score(
        check.prepare_expected(value, index), check.prepare_generated(generated, index)
    )


def test_the_checks_the_issue_names_are_registered() -> None:
    assert set(CHECKS) == {"keywords", "exact", "number", "set", "one_of", "regex", "metric"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,200", 1200.0),
        ("$4.25", 4.25),
        ("4.25 USD", 4.25),
        ("EUR 1.234.567", None),  # European grouping is ambiguous: refused
        ("€ 1,234,567.5", 1234567.5),
        ("-$3", -3.0),
        ("\u221212", -12.0),
        ("12%", 12.0),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("1,5", None),
        ("2 to 3", None),
        ("n/a", None),
        ("", None),
        (True, None),
        (None, None),
        (7, 7.0),
        (2.5, 2.5),
        (float("nan"), None),
        pytest.param(10**400, None, id="int-beyond-float"),  # not comparable, not a crash
        pytest.param(-(10**400), None, id="negative-int-beyond-float"),
        ("1e400", None),
        ([1], None),
    ],
)
def test_parse_number(text: Any, expected: float | None) -> None:
    assert parse_number(text) == expected


@given(st.decimals(min_value=-(10**9), max_value=10**9, places=2))
def test_parse_number_reads_formatted_amounts(amount: Any) -> None:
    value = float(amount)
    formatted = f"${abs(value):,.2f}"
    if value < 0:
        formatted = "-" + formatted
    parsed = parse_number(formatted)
    assert parsed is not None and math.isclose(parsed, value, abs_tol=1e-9)


def test_number_tolerance_is_absolute_and_inclusive() -> None:
    strict, loose = NumberCheck(), NumberCheck(tolerance=0.01)
    assert score(strict, 4.25, "$4.25") == 1.0
    assert score(strict, 4.25, 4.26) == 0.0
    assert score(loose, 4.25, 4.26) == 1.0
    assert score(loose, 4.25, "4.27") == 0.0
    assert score(strict, "1,200", 1200) == 1.0
    assert score(strict, 3, "three") == 0.0
    assert score(strict, 3, MISSING) == 0.0
    with pytest.raises(ValueError, match="tolerance"):
        NumberCheck(tolerance=-1)
    with pytest.raises(ValueError, match="expected a number"):
        strict.check_expected("lots")


def test_keywords_plain_and_normalized() -> None:
    check = KeywordsCheck()
    assert score(check, ["blue", "widget"], "Blue widgets") == 0.5  # plain: kw in text
    assert score(check, ["blue", "widget"], "a blue widget") == 1.0
    normalized = KeywordIndex("default")
    assert score(check, ["blue", "widget"], "Widgets, blue", normalized) == 1.0
    assert score(check, ["art"], "start", normalized) == 0.0
    assert score(check, "steel bolts", "Steel bolts (box of 100)", normalized) == 1.0
    assert score(check, ["a", "b"], MISSING) == 0.0
    assert score(check, ["3"], 3) == 1.0  # a number is read as its JSON text
    detail = check.detail(("blue", "red"), "blue", PLAIN)
    assert (detail.score, detail.passed, detail.info) == (0.5, False, {"missing": ["red"]})
    with pytest.raises(ValueError, match="the list is empty"):
        check.check_expected([])


def test_exact_folds_case_and_space_unless_plain() -> None:
    check = ExactCheck()
    normalized = KeywordIndex("default")
    assert score(check, "USD", " usd ", normalized) == 1.0
    assert score(check, "New  York", "new york", normalized) == 1.0
    assert score(check, "USD", "usd") == 0.0
    assert score(check, "USD", "EUR", normalized) == 0.0
    assert score(check, 42, "42") == 1.0
    assert score(check, 42, 42.0, normalized) == 1.0
    assert score(check, "007", 7, normalized) == 0.0  # leading zeros: a code, not a number
    assert score(check, 42, 42.5, normalized) == 0.0
    assert score(check, "x", None) == 0.0
    restricted = ExactCheck(values=["qa", "cloze"])
    with pytest.raises(ValueError, match="unknown value 'essay'"):
        restricted.check_expected("essay")


def test_one_of_accepts_any_listed_value() -> None:
    check = OneOfCheck()
    normalized = KeywordIndex("default")
    assert score(check, ["NY", "New York"], "new york", normalized) == 1.0
    assert score(check, ["NY", "New York"], "Boston", normalized) == 0.0
    assert score(check, "NY", "NY") == 1.0
    assert check.detail(("a", "b"), "c", PLAIN).info == {"expected": ["a", "b"], "got": "c"}


def test_set_is_item_f1() -> None:
    check = SetCheck()
    normalized = KeywordIndex("default")
    assert score(check, ["red", "blue"], ["Blue", "red"], normalized) == 1.0
    # 1 common item of 2 expected and 3 generated: F1 = 2 * 1 / (2 + 3)
    assert score(check, ["red", "blue"], ["red", "green", "black"], normalized) == pytest.approx(
        0.4
    )
    assert score(check, ["red", "blue"], "red; blue", normalized) == 1.0
    assert score(check, [], [], normalized) == 1.0
    assert score(check, ["red"], [], normalized) == 0.0
    assert score(check, ["red"], MISSING, normalized) == 0.0
    info = check.detail(("red", "blue"), ["red", "pink"], normalized).info
    assert info == {"missing": ["blue"], "extra": ["pink"]}


def test_regex_fullmatch_search_and_case() -> None:
    assert score(RegexCheck(), r"INV-\d{4}", "INV-2024") == 1.0
    assert score(RegexCheck(), r"INV-\d{4}", "see INV-2024") == 0.0
    assert score(RegexCheck(search=True), r"INV-\d{4}", "see INV-2024") == 1.0
    assert score(RegexCheck(ignore_case=True), r"inv-\d+", "INV-7") == 1.0
    assert score(RegexCheck(), r"\d+", MISSING) == 0.0
    with pytest.raises(ValueError, match="invalid regular expression"):
        RegexCheck().check_expected("(")


def test_metric_scores_with_a_registered_metric() -> None:
    check = MetricCheck(metric="rouge1")
    assert score(check, "the cat sat on the mat", "the cat sat on the mat") == 1.0
    partial = score(check, "the cat sat on the mat", "a cat on a mat")
    assert 0.0 < partial < 1.0
    assert check.pass_at == 0.5
    assert "rouge1" in check.signature and "|" not in check.signature
    with pytest.raises(ValueError, match="unknown metric"):
        MetricCheck(metric="no_such_metric")


def test_pass_threshold_decides_the_verdict() -> None:
    check = KeywordsCheck(pass_at=0.5)
    assert check.detail(("a", "b"), "a", PLAIN).passed
    assert not KeywordsCheck().detail(("a", "b"), "a", PLAIN).passed
    with pytest.raises(ValueError, match="pass"):
        KeywordsCheck(pass_at=2)


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('[{"a": 1}]', [{"a": 1}]),
        ('  {"a": 1}\n', {"a": 1}),
        ('Here:\n```json\n{"a": 1}\n```\nDone.', {"a": 1}),
        ('```\n[{"a": 2}]\n```', [{"a": 2}]),
        ('The result is {"a": 3} as requested.', {"a": 3}),
        ('Options {like this} aside, the data: [{"a": 4}]', [{"a": 4}]),
        # citation or count markers in prose are not the records
        ('According to the invoice [1], the items are: [{"a": 5}]', [{"a": 5}]),
        ('Found [2] items [3, 4]:\n{"a": 6}', {"a": 6}),
        ("Only markers [1] and [2] here.", [1]),  # nothing better: the first, as before
    ],
)
def test_extract_json_finds_the_json(reply: str, value: Any) -> None:
    assert extract_json(reply) == (value, None)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("No items found.", "no JSON object or array in the reply"),
        ("{description: beans, quantity: 4}", "invalid JSON: Expecting property name"),
        ('"just a string"', "no JSON object or array in the reply"),
        ("[" * 100_000, "invalid JSON"),
    ],
)
def test_extract_json_explains_a_failure(reply: str, reason: str) -> None:
    value, why = extract_json(reply)
    assert value is None and why is not None and why.startswith(reason)
