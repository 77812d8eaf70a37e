"""``lexeval compare A.json B.json`` on two ``lexeval score --format json`` files, and the
smaller ``score`` items of issue 30: tidy CSV, the recommended threshold for
``--min-pass-rate``, ``--progress``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from lexeval import get_metric
from lexeval.cli import main
from lexeval.run.batch import parse_records, score_records
from lexeval.scored import ScoredRun, compare_scored, load_scored
from lexeval.stats import bootstrap_mean

REFERENCES = [
    "The capital of France is Paris",
    "Water boils at 100 degrees Celsius",
    "The cat sat on the mat",
    "Berlin is the capital of Germany",
    "Photosynthesis turns light into chemical energy",
    "The Nile is the longest river in Africa",
]
OLD = ["Paris", "It boils at 90", "a cat sat", "Germany's capital is Berlin", "light", "Nile"]
NEW = [
    "Paris is the capital of France",
    "It boils at 100 degrees",
    "the cat sat on the mat",
    "Berlin",
    "light becomes chemical energy",
    "The Nile, in Africa",
]


def _records(path: Path, outputs: list[str], ids: list[str] | None = None) -> Path:
    ids = ids or [f"r{i}" for i in range(len(outputs))]
    lines = [
        json.dumps({"id": i, "reference": r, "output": o})
        for i, r, o in zip(ids, REFERENCES, outputs, strict=False)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _score_json(
    capsys: pytest.CaptureFixture[str], records: Path, target: Path, *extra: str
) -> Path:
    code = main(["score", str(records), "--metric", "token_f1,rouge1", "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    target.write_text(out, encoding="utf-8")
    return target


@pytest.fixture
def runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    threshold = ("--threshold", "0.5")
    old = _score_json(
        capsys, _records(tmp_path / "old.jsonl", OLD), tmp_path / "a.json", *threshold
    )
    new = _score_json(
        capsys, _records(tmp_path / "new.jsonl", NEW), tmp_path / "b.json", *threshold
    )
    return old, new


def _compare(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["compare", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_deltas_and_paired_intervals_match_the_stats_module(runs: tuple[Path, Path]) -> None:
    a, b = (load_scored(p) for p in runs)
    result = compare_scored(a, b, n_resamples=2000, seed=7)
    metric = get_metric("token_f1")
    old = [metric.measure(r, o).score for r, o in zip(REFERENCES, OLD, strict=True)]
    new = [metric.measure(r, o).score for r, o in zip(REFERENCES, NEW, strict=True)]
    diffs = list(np.subtract(new, old))
    low, high, _ = bootstrap_mean(diffs, seed=7, n_resamples=2000, confidence=0.95)
    token_f1 = result.metrics[0]
    assert token_f1.name == "token_f1" and token_f1.n == len(REFERENCES)
    assert token_f1.delta == pytest.approx(float(np.mean(diffs)))
    assert (token_f1.ci_low, token_f1.ci_high) == (low, high)
    flipped_down = [f"r{i}" for i in range(len(old)) if old[i] >= 0.5 > new[i]]
    flipped_up = [f"r{i}" for i in range(len(old)) if new[i] >= 0.5 > old[i]]
    assert list(token_f1.regressed) == flipped_down and list(token_f1.improved) == flipped_up
    assert flipped_up  # the data moves some verdicts


def test_cli_exit_codes_follow_max_drop(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = runs
    code, out, err = _compare(capsys, str(old), str(new))
    assert code == 0, err
    assert "token_f1" in out and "paired bootstrap over 6 records" in out and "PASS" in out
    code, out, _ = _compare(capsys, str(new), str(old))  # the other way round: a drop
    assert code == 1 and "FAIL" in out and "regression beyond 0.02" in out
    code, _, _ = _compare(capsys, str(new), str(old), "--max-drop", "1")
    assert code == 0
    markdown = tmp_path / "cmp.md"
    code, _, _ = _compare(capsys, str(new), str(old), "--markdown", str(markdown))
    assert code == 1 and "| token_f1 |" in markdown.read_text(encoding="utf-8")


def test_refuses_other_records_metrics_and_settings(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, _ = runs
    fewer = _score_json(
        capsys,
        _records(tmp_path / "few.jsonl", NEW[:4]),
        tmp_path / "few.json",
        "--threshold",
        "0.5",
    )
    renamed = _score_json(
        capsys,
        _records(tmp_path / "ids.jsonl", NEW, [f"x{i}" for i in range(6)]),
        tmp_path / "ids.json",
    )
    options = _score_json(
        capsys,
        _records(tmp_path / "opt.jsonl", NEW),
        tmp_path / "opt.json",
        "--option",
        "rouge1.counting=distinct",
    )
    cases = [
        (fewer, "different records: 2 only in"),
        (renamed, "different records"),
        (options, "rouge1: signatures differ (variant"),
    ]
    for other, fragment in cases:
        code, out, err = _compare(capsys, str(old), str(other))
        assert code == 2 and out == "", err
        assert fragment in err and err.count("\n") == 1 and "Traceback" not in err
    code, out, _ = _compare(capsys, str(old), str(options), "--allow-signature-mismatch")
    assert code in (0, 1) and "warning: rouge1: signatures differ" in out


def test_refuses_a_card_report_beside_a_scored_file(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, _ = runs
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps({"schema_version": 1, "cases": []}), encoding="utf-8")
    code, _, err = _compare(capsys, str(old), str(cards))
    assert code == 2 and "compare two of the same kind" in err


def test_json_document_round_trips(runs: tuple[Path, Path]) -> None:
    old, _ = runs
    run = load_scored(old)
    assert [c.output for c in run.cases] == OLD and [c.reference for c in run.cases] == REFERENCES
    assert run.cases[0].results["token_f1"].info["matched"] == ["paris"]


def test_tidy_csv_has_three_columns_per_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _records(tmp_path / "r.jsonl", NEW)
    metrics = "keyword_coverage,token_f1,rougeL"
    code = main(["score", str(records), "--metric", metrics, "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == len(NEW) and len(rows[0]) == 2 + 3 * 3  # not one column per keyword
    assert rows[1]["keyword_coverage_evidence"].startswith("matched: boil, 100, degree; missing:")


def test_min_pass_rate_uses_the_recommended_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _records(tmp_path / "r.jsonl", NEW)
    recommended = get_metric("keyword_coverage").recommended_threshold
    assert recommended is not None
    code = main(
        ["score", str(records), "--metric", "keyword_coverage", "--min-pass-rate",
         "keyword_coverage=0.5"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert f"recommended threshold {recommended:g}" in err
    lines = [json.loads(line) for line in out.splitlines()]
    assert all(
        line["keyword_coverage"]["passed"] == (line["keyword_coverage"]["score"] >= recommended)
        for line in lines
    )


def test_progress_gives_the_same_results() -> None:
    text = "reference,output\n" + "".join(
        f'"{r}","{o}"\n' for r, o in zip(REFERENCES * 30, NEW * 30, strict=True)
    )
    records = parse_records("r.csv", text)
    metrics = {
        "token_f1": get_metric("token_f1"),
        "keyword_coverage": get_metric("keyword_coverage"),
    }
    assert score_records(metrics, records, progress=True) == score_records(metrics, records)


def test_from_results_keeps_ids_and_lines() -> None:
    records = parse_records("r.csv", "id,reference,output\n7,a b,a\n")
    metrics = {"token_f1": get_metric("token_f1")}
    run = ScoredRun.from_results(records, score_records(metrics, records), {"token_f1": "s"})
    assert [c.key for c in run.cases] == ["7"] and run.cases[0].line == 2


def test_a_damaged_scored_file_is_named_with_its_field(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = runs
    document = json.loads(new.read_text(encoding="utf-8"))
    document["results"][3]["token_f1"]["score"] = "high"
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(document), encoding="utf-8")
    code, out, err = _compare(capsys, str(old), str(damaged))
    assert code == 2 and out == ""
    assert err == f"lexeval: error: {damaged}: results[3].token_f1.score: expected a number\n"
    document["results"][3]["id"] = document["results"][2]["id"]
    damaged.write_text(json.dumps(document), encoding="utf-8")
    code, _, err = _compare(capsys, str(old), str(damaged))
    assert code == 2 and "results[3].id: duplicate record 'r2'" in err


def test_score_progress_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = _records(tmp_path / "r.jsonl", NEW)
    args = ["score", str(records), "--metric", "token_f1", "--format", "csv"]
    assert main(args) == 0
    quiet_out, quiet_err = capsys.readouterr()
    assert main([*args, "--progress"]) == 0
    out, err = capsys.readouterr()
    assert out == quiet_out  # stdout holds only the results
    assert "token_f1" in err and "100%" in err and "100%" not in quiet_err
