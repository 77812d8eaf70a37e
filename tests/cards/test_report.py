"""Aggregation (micro, macro, per card type), gates, JSON reports and DataFrames."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from lexeval.cards import (
    SCHEMA_VERSION,
    EvalCase,
    EvalDataset,
    ExpectedCard,
    Gate,
    GeneratedCard,
    check_gates,
    evaluate,
    load_report,
    render_run,
)
from lexeval.cards.report import RunResult


def small_run() -> RunResult:
    """Three cases, plain matching; every number below is derived by hand in the tests."""
    ds = EvalDataset(
        "small",
        "2",
        [
            EvalCase(
                "a",
                "t",
                [ExpectedCard(["x"], ["y"], "qa"), ExpectedCard(["p"], ["q"], "definition")],
            ),
            EvalCase(
                "b",
                "t",
                [
                    ExpectedCard(["m"], ["n"], "qa"),
                    ExpectedCard(["r"], ["s"]),
                    ExpectedCard(["u"], ["v"]),
                ],
            ),
            EvalCase("c", "t", [ExpectedCard(["k"], ["l"], "qa"), ExpectedCard(["i"], ["j"])]),
        ],
    )
    outputs = {
        # a: both matched (scores 1.0 and 0.8: the second card has no type)
        "a": [GeneratedCard("x", "y", "qa"), GeneratedCard("p", "q")],
        # b: one of three matched (untyped card r/s scores 1.0)
        "b": [GeneratedCard("r", "s", "qa")],
        # c: no output at all
    }
    return evaluate(ds, outputs, normalizer=None)


def test_micro_macro_hand_checked() -> None:
    run = small_run()
    a, b, c = run.cases
    assert (a.recall, a.precision, a.f1) == (1.0, 1.0, 1.0)
    # b: recall 1/3, precision 1/1, F1 = 2 * (1/3) / (4/3) = 0.5
    assert (b.recall, b.precision, b.f1) == (pytest.approx(1 / 3), 1.0, pytest.approx(0.5))
    assert (c.recall, c.precision, c.f1, c.has_output) == (0.0, 0.0, 0.0, False)
    micro = run.micro
    # pooled: expected 2 + 3 + 2 = 7, generated 2 + 1 + 0 = 3, matched 3
    assert (micro.n_expected, micro.n_generated, micro.n_matched) == (7, 3, 3)
    assert micro.recall == pytest.approx(3 / 7)
    assert micro.precision == 1.0
    assert micro.f1 == pytest.approx(0.6)  # 2 * (3/7) / (10/7)
    assert micro.avg_similarity == pytest.approx((1.0 + 0.8 + 1.0) / 3)
    macro = run.macro
    assert macro.recall == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert macro.precision == pytest.approx(2 / 3)
    assert macro.f1 == pytest.approx(0.5)
    # per-case mean similarity: a 0.9, b 1.0, c 0.0 -> macro 1.9 / 3
    assert macro.avg_similarity == pytest.approx(1.9 / 3)


def test_per_card_type_breakdown() -> None:
    types = small_run().per_card_type
    assert list(types) == ["(untyped)", "definition", "qa"]
    qa = types["qa"]
    # expected qa: a/x (matched), b/m, c/k (not); generated qa: a/x, b/r (both matched)
    assert (qa.n_expected, qa.n_matched_expected, qa.n_generated, qa.n_matched_generated) == (
        3,
        1,
        2,
        2,
    )
    assert qa.recall == pytest.approx(1 / 3)
    assert qa.precision == 1.0
    definition = types["definition"]
    assert (definition.n_expected, definition.n_matched_expected, definition.n_generated) == (
        1,
        1,
        0,
    )
    assert definition.to_dict()["precision"] is None  # no generated definition cards


def test_gates() -> None:
    run = small_run()
    results = check_gates(run, [Gate.parse("recall=0.4"), Gate.parse("macro.f1=0.6")])
    # micro recall 3/7 = 0.43 >= 0.4 passes; macro F1 0.5 < 0.6 fails
    assert [g.passed for g in results] == [True, False]
    assert results[1].value == pytest.approx(0.5)
    for bad, fragment in [
        ("recall", "METRIC=MIN"),
        ("bleu=0.5", "unknown metric"),
        ("recall=high", "not a number"),
        ("recall=2", "in [0, 1]"),
        ("total.recall=0.5", "scope"),
    ]:
        with pytest.raises(ValueError, match=re.escape(fragment)):
            Gate.parse(bad)


def test_json_report_round_trip(tmp_path: Path) -> None:
    run = small_run()
    path = tmp_path / "report.json"
    run.write_json(path, check_gates(run, [Gate.parse("f1=0.5")]))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["signature"] == run.signature
    assert "norm:plain" in data["signature"]
    assert data["dataset"] == {"name": "small", "version": "2", "path": None, "n_cases": 3}
    assert [c["id"] for c in data["cases"]] == ["a", "b", "c"]
    assert data["cases"][2]["has_output"] is False
    assert data["cases"][1]["unmatched_expected"][0]["front_keywords"] == ["m"]
    assert data["gates"] == [{"gate": "micro.f1", "minimum": 0.5, "value": 0.6, "passed": True}]
    summary = load_report(path)
    assert summary.case_f1 == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert summary.totals["micro.recall"] == pytest.approx(3 / 7)
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left


def test_failed_write_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = small_run()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        run.write_json(tmp_path / "report.json")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OSError):
        run.write_json(tmp_path / "missing-dir" / "report.json")


def test_to_dataframe() -> None:
    frame = small_run().to_dataframe()
    assert list(frame.index) == ["a", "b", "c"]
    assert frame.loc["b", "f1"] == pytest.approx(0.5)
    assert not bool(frame.loc["c", "has_output"])
    assert frame["n_matched"].sum() == 3


def test_rich_table_lists_cases_totals_and_gates() -> None:
    from rich.console import Console

    run = small_run()
    console = Console(record=True, width=140)
    render_run(run, console, check_gates(run, [Gate.parse("recall=0.5")]))
    text = console.export_text()
    assert "no output" in text
    assert "micro" in text and "macro" in text
    assert "FAIL micro.recall = 0.429 (minimum 0.5)" in text
    assert "-2 missed" in text  # case b


def test_bundled_example_improves_from_v1_to_v2() -> None:
    from lexeval.cards import load_dataset, load_outputs

    root = Path(__file__).resolve().parents[2] / "examples" / "flashcards"
    ds = load_dataset(root / "dataset.yaml")
    v1 = evaluate(ds, load_outputs(root / "outputs" / "prompt_v1.yaml"))
    v2 = evaluate(ds, load_outputs(root / "outputs" / "prompt_v2.jsonl"))
    assert v1.micro.recall < v2.micro.recall
    assert v1.signature == v2.signature
    assert "preset:default" in v1.signature
