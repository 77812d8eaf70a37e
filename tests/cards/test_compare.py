"""The A/B comparison: deltas, gates, the paired bootstrap with a fixed seed, Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexeval.cards import (
    DatasetError,
    RunSummary,
    SignatureMismatchError,
    compare_runs,
    load_report,
)
from lexeval.cards.compare import GATED_METRICS

METRICS = [
    f"{scope}.{m}"
    for scope in ("micro", "macro")
    for m in ("recall", "precision", "f1", "avg_similarity")
]


def summary(
    case_f1: dict[str, float], level: float = 0.8, signature: str = "sig", **overrides: float
) -> RunSummary:
    totals = dict.fromkeys(METRICS, level)
    totals.update({k.replace("_", ".", 1): v for k, v in overrides.items()})
    return RunSummary("run", signature, "d", totals, case_f1)


def test_constant_improvement_has_a_point_interval() -> None:
    base = summary({"a": 0.25, "b": 0.5, "c": 0.75})
    cand = summary({"a": 0.5, "b": 0.75, "c": 1.0})
    result = compare_runs(base, cand, n_resamples=999, seed=1)
    # every difference is exactly +0.25, so every resampled mean is 0.25: CI [0.25, 0.25];
    # no resampled mean is as far from 0.25 as 0.25 is from 0 -> p = 1 / (999 + 1)
    assert result.mean_delta == 0.25
    assert result.ci_low == pytest.approx(0.25)
    assert result.ci_high == pytest.approx(0.25)
    assert result.p_value == pytest.approx(1 / 1000)
    assert [c.case_id for c in result.improved] == ["a", "b", "c"]
    assert result.regressed == ()


def test_no_change_gives_p_one() -> None:
    base = summary({"a": 0.5, "b": 1.0})
    cand = summary({"a": 1.0, "b": 0.5})
    result = compare_runs(base, cand, n_resamples=500)
    # differences +0.5 and -0.5: observed mean 0, so every resampled mean is as extreme
    assert result.mean_delta == 0.0
    assert result.p_value == 1.0
    assert [c.case_id for c in result.improved] == ["a"]
    assert [c.case_id for c in result.regressed] == ["b"]


def test_bootstrap_with_fixed_seed() -> None:
    base = summary({"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.5})
    cand = summary({"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5})
    result = compare_runs(base, cand, seed=12345, n_resamples=10000)
    # differences [1, 1, 1, 0], mean 0.75. A resample of 4 holds k ones (k ~ Binomial(4, 3/4)),
    # mean k/4. P(k = 0) = 1/256 = 0.0039 < 0.025 <= P(k <= 1) = 13/256, so the 2.5th
    # percentile is 0.25; P(k = 4) = 81/256 > 0.025, so the 97.5th is 1.0.
    assert (result.ci_low, result.ci_high) == (0.25, 1.0)
    # only k = 0 is at least 0.75 from 0.75: p ~ 1/256 (binomial noise at B = 10000: +-0.0007)
    assert result.p_value is not None
    assert 0.0025 < result.p_value < 0.0055
    again = compare_runs(base, cand, seed=12345, n_resamples=10000)
    assert again.p_value == result.p_value  # the seed makes it reproducible
    assert result.to_dict()["bootstrap"]["seed"] == 12345


def test_single_case_has_no_bootstrap() -> None:
    result = compare_runs(summary({"a": 0.5}), summary({"a": 1.0}))
    assert (result.ci_low, result.ci_high, result.p_value) == (None, None, None)
    assert "too few cases" in result.interval_text


def test_max_drop_gate() -> None:
    cases = {"a": 0.5, "b": 0.6}
    base = summary(cases, micro_f1=0.80)
    assert compare_runs(base, summary(cases, micro_f1=0.78)).passed  # drop 0.02: tolerated
    failed = compare_runs(base, summary(cases, micro_f1=0.77))  # drop 0.03
    assert not failed.passed
    assert [m.name for m in failed.dropped_metrics] == ["micro.f1"]
    assert "micro.f1 -0.030" in failed.verdict
    # avg_similarity is shown but not gated
    assert "micro.avg_similarity" not in GATED_METRICS
    assert compare_runs(base, summary(cases, micro_avg_similarity=0.1)).passed
    # with alpha, a drop must also be significant; identical per-case F1 gives p = 1
    assert compare_runs(base, summary(cases, micro_f1=0.77), alpha=0.05).passed
    assert compare_runs(base, summary(cases, micro_f1=0.77), max_drop=0.05).passed


def test_signatures_must_match() -> None:
    base = summary({"a": 0.5}, signature="one")
    cand = summary({"a": 0.5}, signature="two")
    with pytest.raises(SignatureMismatchError, match="signatures differ"):
        compare_runs(base, cand)
    result = compare_runs(base, cand, allow_signature_mismatch=True)
    assert "baseline signature differs" in result.to_markdown()


def test_case_sets_and_markdown() -> None:
    base = summary({"a": 0.5, "b": 0.6, "old": 1.0})
    cand = summary({"a": 0.9, "b": 0.4, "new": 1.0})
    result = compare_runs(base, cand)
    assert (result.only_in_base, result.only_in_candidate) == (("old",), ("new",))
    assert len(result.cases) == 2
    md = result.to_markdown()
    assert "| micro.f1 | 0.800 | 0.800 | +0.000 |" in md
    assert "**Regressed (1):** `b` (0.60 → 0.40)" in md
    assert "**Improved (1):** `a` (0.50 → 0.90)" in md
    assert "seed 12345" in md
    with pytest.raises(ValueError, match="no case id in common"):
        compare_runs(summary({"x": 1.0}), summary({"y": 1.0}))


def test_load_report_validation(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(DatasetError, match="schema_version"):
        load_report(path)
    path.write_text('{"schema_version": 1, "signature": "s", "totals": {}}', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"totals\.micro"):
        load_report(path)
    path.write_text("{\n  oops", encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        load_report(path)
    assert info.value.line == 2
    good = {
        "schema_version": 1,
        "signature": "s",
        "totals": {
            s: dict.fromkeys(("recall", "precision", "f1", "avg_similarity"), 0.5)
            for s in ("micro", "macro")
        },
        "cases": [{"id": "a", "f1": 0.5}, {"id": "a", "f1": 0.1}],
    }
    path.write_text(json.dumps(good), encoding="utf-8")
    with pytest.raises(DatasetError, match="duplicate case id"):
        load_report(path)
