"""TokenF1Metric: the issue's own examples and hand-computed cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.compat import squad_exact_match, squad_f1
from lexeval.metrics import TokenF1Metric


def test_set_mode_issue_example() -> None:
    r = TokenF1Metric(compat="set").measure("the cat ran", "the dog sat")
    assert r.score == pytest.approx(1 / 3)
    assert r.info["counts"] == {"overlap": 1, "reference": 3, "output": 3}


def test_set_mode_ignores_repeats_and_case() -> None:
    assert TokenF1Metric(compat="set").measure("The the THE", "the").score == 1.0
    assert TokenF1Metric(compat="set").measure("", "").score == 0.0
    assert TokenF1Metric(compat="set").measure("a", "").score == 0.0


def test_squad_mode_exact_match_is_max_over_golds() -> None:
    # gold "cat sat" and "sat cat" both give F1 = 1; exact match only for the second
    r = TokenF1Metric(compat="squad").measure(["cat sat", "sat cat"], "Sat, cat!")
    assert r.score == 1.0
    assert r.info["exact_match"] == 1.0
    r2 = TokenF1Metric(compat="squad").measure("the cat sat down", "cat sat")
    # P = 2/2, R = 2/3 -> F = 0.8
    assert r2.score == pytest.approx(0.8)
    assert r2.info["exact_match"] == 0.0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab c.,", max_size=12), min_size=1, max_size=3),
    st.text(alphabet="ab c.,", max_size=12),
)
def test_squad_mode_equals_compat_functions(golds: list[str], pred: str) -> None:
    r = TokenF1Metric(compat="squad").measure(golds, pred)
    assert r.score == squad_f1(pred, golds)
    assert r.info["exact_match"] == squad_exact_match(pred, golds)


def test_default_uses_lemmas() -> None:
    # tokens preset: "cats" -> "cat", "ran" -> "run"; the/cat/run all shared
    r = TokenF1Metric().measure("the cats ran", "the cat runs")
    assert r.score == 1.0


def test_default_empty_rules() -> None:
    m = TokenF1Metric()
    assert m.measure("", "").score == 1.0
    assert m.measure("", "cat").score == 0.0
    assert m.measure("cat", "").score == 0.0


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="compat must be None, 'squad' or 'set'"):
        TokenF1Metric(compat="bag")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="normalizer"):
        TokenF1Metric(compat="squad", normalizer="default")
    with pytest.raises(TypeError, match="normalizer"):
        TokenF1Metric(normalizer=3)  # type: ignore[arg-type]


def test_the_unreleased_variant_option_is_gone() -> None:
    with pytest.raises(TypeError, match="variant"):
        TokenF1Metric(variant="squad")  # type: ignore[call-arg]
    assert TokenF1Metric(compat="squad").signature.startswith("token_f1|mode:squad|")
