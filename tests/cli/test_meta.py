"""``lexeval meta``: tables, JSON figures equal to lexeval.meta's, one-line exit 2 on bad input.

Run in-process through ``lexeval.cli.main`` (fast), plus one subprocess for the real exit code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from lexeval.cli import main
from lexeval.meta import correlation

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--resamples", "30"]


def _binary_rows(n: int = 60, seed: int = 0) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        correct = bool(rng.random() < 0.5)
        rows.append(
            {
                "id": i,
                "recall": round(float(np.clip(0.4 * correct + 0.6 * rng.random(), 0, 1)), 2),
                "f1": round(float(rng.random()), 2),
                "human": "yes" if correct else "no",
            }
        )
    return rows


def _write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _write_csv(path: Path, rows: list[dict[str, object]]) -> Path:
    keys = list(rows[0])
    lines = [",".join(keys)] + [",".join(str(r[k]) for k in keys) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lexeval: error: "), err
    return err[0]


def test_binary_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _binary_rows()
    data = _write_jsonl(tmp_path / "qa.jsonl", rows)
    out = tmp_path / "meta.json"
    argv = [
        "meta",
        str(data),
        "--score",
        "recall,f1",
        "--human",
        "human",
        "--threshold",
        "0.5",
        "--json",
        str(out),
        *FAST,
    ]
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert "recall" in table and "ROC AUC" in table and "0.5 (given)" in table
    report = json.loads(out.read_text(encoding="utf-8"))
    human = [r["human"] == "yes" for r in rows]
    recall = [float(r["recall"]) for r in rows]  # type: ignore[arg-type]
    figures = report["results"]["recall"]
    assert report["kind"] == "binary" and report["rows"] == 60 and report["seed"] == 12345
    assert figures["auc"] == pytest.approx(roc_auc_score(human, recall))
    assert figures["kappa"] == pytest.approx(cohen_kappa_score(human, np.array(recall) >= 0.5))
    assert figures["threshold_in_sample"] is False
    assert len(figures["intervals"]["auc"]) == 2


def test_tune_on_another_file_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tune = _write_csv(tmp_path / "tune.csv", _binary_rows(seed=1))
    test = _write_csv(tmp_path / "test.csv", _binary_rows(seed=2))
    out = tmp_path / "meta.json"
    argv = ["meta", str(test), "--score", "recall", "--human", "human", "--tune", str(tune)]
    assert main([*argv, "--json", str(out), *FAST]) == 0
    assert "tuned on" in capsys.readouterr().out
    report = json.loads(out.read_text(encoding="utf-8"))
    tuned = report["tuning"]["recall"]
    assert report["results"]["recall"]["threshold"] == tuned["value"]
    assert tuned["objective"] == "kappa"
    assert main(["meta", str(test), "--score", "recall", "--human", "human", *FAST]) == 0
    assert "in-sample" in capsys.readouterr().out


def test_graded_levels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    rows = [
        {"doc": d, "sys": f"s{s}", "rouge": round(float(rng.random()), 3), "rating": int(x)}
        for d in range(8)
        for s, x in enumerate(rng.integers(1, 6, 4))
    ]
    data = _write_jsonl(tmp_path / "sum.jsonl", rows)
    out = tmp_path / "corr.json"
    argv = ["meta", str(data), "--score", "rouge", "--human", "rating", "--group", "doc"]
    assert main([*argv, "--system", "sys", "--json", str(out), *FAST]) == 0
    printed = capsys.readouterr().out
    assert "summary" in printed and "system" in printed and "tau-b" in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    summary = report["results"]["rouge"]["summary"]
    expected = correlation(
        [r["rouge"] for r in rows],
        [r["rating"] for r in rows],
        groups=[str(r["doc"]) for r in rows],
        level="summary",
        n_resamples=30,
    )
    assert summary["value"] == pytest.approx(expected.value)
    assert summary["interval"] == pytest.approx(list(expected.interval))
    assert set(report["results"]["rouge"]) == {"flat", "summary", "system"}


def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _binary_rows(n=6)
    data = _write_jsonl(tmp_path / "qa.jsonl", rows)
    base = ["meta", str(data), "--human", "human", *FAST]
    assert "qa.jsonl:1: no column 'score' (columns:" in _error(capsys, [*base, "--score", "score"])
    bad = [dict(r) for r in rows]
    bad[3]["recall"] = "high"
    text = _write_jsonl(tmp_path / "bad.jsonl", bad)
    message = _error(capsys, ["meta", str(text), "--human", "human", "--score", "recall"])
    assert "bad.jsonl:4: recall: 'high' is not a finite number" in message
    graded = [dict(r, human=i % 3) for i, r in enumerate(rows)]
    three = _write_jsonl(tmp_path / "graded.jsonl", graded)
    message = _error(
        capsys, ["meta", str(three), "--human", "human", "--score", "recall", "--threshold", "0.5"]
    )
    assert "graded.jsonl:3: human: 2 is not a binary label" in message
    single = _write_jsonl(tmp_path / "one.jsonl", [dict(r, human="yes") for r in rows])
    message = _error(capsys, ["meta", str(single), "--human", "human", "--score", "recall"])
    assert "a single class" in message
    (tmp_path / "dir.json").mkdir()
    message = _error(capsys, [*base, "--score", "recall", "--json", str(tmp_path / "dir.json")])
    assert "--json" in message and "a directory, not a regular file" in message
    message = _error(capsys, [*base, "--score", "recall", "--json", str(data)])
    assert "is the run's FILE" in message
    assert data.read_text(encoding="utf-8").count("\n") == 6  # the input is untouched
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"recall": 0.5, "human": "yes"}\n{"recall": \n', encoding="utf-8")
    message = _error(capsys, ["meta", str(broken), "--human", "human", "--score", "recall"])
    assert "broken.jsonl:2" in message and "invalid JSON" in message


def test_json_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write_jsonl(tmp_path / "qa.jsonl", _binary_rows(n=20))
    argv = ["meta", str(data), "--score", "recall", "--human", "human", "--json", "-"]
    assert main([*argv, "--threshold", "0.5", *FAST]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["results"]["recall"]["n"] == 20
    assert "ROC AUC" in captured.err


def test_failed_run_leaves_no_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write_jsonl(tmp_path / "qa.jsonl", _binary_rows(n=6))
    out = tmp_path / "out.json"
    _error(capsys, ["meta", str(data), "--human", "human", "--score", "nope", "--json", str(out)])
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qa.jsonl"]


def test_real_exit_code(tmp_path: Path) -> None:
    data = _write_jsonl(tmp_path / "qa.jsonl", _binary_rows(n=6))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run(
        [sys.executable, "-m", "lexeval", "meta", str(data), "--score", "x", "--human", "human"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "no column 'x'" in proc.stderr
