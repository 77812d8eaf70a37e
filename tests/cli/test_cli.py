"""The ``lexeval`` command line, run as a subprocess: outputs and exit codes 0/1/2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lexeval import _version
from lexeval.native import build_kind

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "flashcards"
DATASET = str(DATA / "dataset.yaml")
V1 = str(DATA / "outputs" / "prompt_v1.yaml")
V2 = str(DATA / "outputs" / "prompt_v2.jsonl")


def lexeval(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env["COLUMNS"] = "200"
    return subprocess.run(
        [sys.executable, "-m", "lexeval", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def assert_usage_error(proc: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr  # one readable line
    assert lines[0].startswith("lexeval: error: ")
    assert "Traceback" not in proc.stderr
    assert fragment in lines[0]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("reports")
    paths = {"v1": out / "v1.json", "v2": out / "v2.json", "plain": out / "plain.json"}
    for key, outputs, extra in (("v1", V1, []), ("v2", V2, []), ("plain", V1, ["--plain"])):
        proc = lexeval("cards", DATASET, outputs, "--json", str(paths[key]), *extra)
        assert proc.returncode == 0, proc.stderr
    return paths


def test_version_and_help() -> None:
    proc = lexeval("--version")
    assert (proc.returncode, proc.stdout.strip()) == (
        0,
        f"lexeval {_version.__version__} ({build_kind()})",
    )
    proc = lexeval("--help")
    assert proc.returncode == 0
    for command in ("cards", "compare", "score", "normalize", "metrics"):
        assert command in proc.stdout


@pytest.mark.parametrize("argv", [["cards", "--help"], ["--help"], ["judge", "--help"]])
def test_help_stays_light(argv: list[str]) -> None:
    """Help loads neither spaCy, rich, numpy nor the judge tier's modules."""
    heavy = ["spacy", "rich", "numpy", "lexeval.judge.cascade", "lexeval.judge.backend"]
    code = (
        f"import sys\nfrom lexeval.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', [m for m in {heavy!r} if m in sys.modules])"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.stdout.strip().endswith("LOADED []"), proc.stdout + proc.stderr


def test_cards_prints_table_and_writes_report(reports: dict[str, Path]) -> None:
    data = json.loads(reports["v2"].read_text(encoding="utf-8"))
    assert data["dataset"]["n_cases"] == 16
    assert data["settings"]["strategy"] == "greedy"
    proc = lexeval("cards", DATASET, V2, "--fail-under", "recall=0.5", "f1=0.5")
    assert proc.returncode == 0, proc.stderr
    assert "bio-photosynthesis" in proc.stdout
    assert "PASS micro.recall" in proc.stdout
    assert "PASS micro.f1" in proc.stdout


def test_failing_gate_exits_1_and_still_reports(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    proc = lexeval(
        "cards", DATASET, V1, "--fail-under", "recall=0.99", "--json", str(report), "--quiet"
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("FAIL micro.recall")
    gates = json.loads(report.read_text(encoding="utf-8"))["gates"]
    assert gates[0]["passed"] is False


def test_plain_and_optimal_flags_change_the_signature(reports: dict[str, Path]) -> None:
    plain = json.loads(reports["plain"].read_text(encoding="utf-8"))
    assert plain["signature"].endswith("norm:plain")
    proc = lexeval("cards", DATASET, V1, "--strategy", "optimal", "--threshold", "0.5", "--plain")
    assert proc.returncode == 0
    assert "strategy:optimal|threshold:0.5" in proc.stdout.replace("\n", "")


def test_data_errors_exit_2_without_report(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: d\ncases:\n  - id: c1\n    text: t\n    expected_cards: []\n")
    report = tmp_path / "r.json"
    proc = lexeval("cards", str(bad), V1, "--json", str(report))
    assert_usage_error(proc, f"{bad}:5: cases[0].expected_cards: the list is empty")
    assert not report.exists()
    proc = lexeval("cards", DATASET, str(tmp_path / "missing.jsonl"), "--json", str(report))
    assert_usage_error(proc, "cannot read file")
    proc = lexeval("cards", DATASET, V1, "--fail-under", "recall", "--json", str(report))
    assert_usage_error(proc, "must look like METRIC=MIN")
    proc = lexeval("cards", DATASET, V1, "--json", str(tmp_path / "no-dir" / "r.json"), "--plain")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == [bad]  # no report, no temporary file


def test_usage_errors_exit_2() -> None:
    assert_usage_error(lexeval("cards", DATASET), "required: OUTPUTS")
    assert_usage_error(lexeval("cards", DATASET, V1, "--threshold", "2"), "not in [0, 1]")
    assert_usage_error(lexeval("cards", DATASET, V1, "--strategy", "best"), "invalid choice")
    assert_usage_error(lexeval("frobnicate"), "invalid choice")
    assert lexeval().returncode == 2


def test_compare_improvement_regression_and_markdown(
    reports: dict[str, Path], tmp_path: Path
) -> None:
    markdown = tmp_path / "cmp.md"
    proc = lexeval("compare", str(reports["v1"]), str(reports["v2"]), "--markdown", str(markdown))
    assert proc.returncode == 0, proc.stderr
    assert "PASS" in proc.stdout
    assert "seed 12345" in proc.stdout
    text = markdown.read_text(encoding="utf-8")
    assert text.startswith("### lexeval cards: candidate vs baseline")
    assert "| micro.recall |" in text
    # swapping the runs makes the candidate worse: exit 1
    proc = lexeval("compare", str(reports["v2"]), str(reports["v1"]))
    assert proc.returncode == 1
    assert "FAIL regression beyond 0.02" in proc.stdout


def test_compare_refuses_different_signatures(reports: dict[str, Path], tmp_path: Path) -> None:
    markdown = tmp_path / "cmp.md"
    proc = lexeval(
        "compare", str(reports["plain"]), str(reports["v1"]), "--markdown", str(markdown)
    )
    assert_usage_error(proc, "signatures differ")
    assert not markdown.exists()
    proc = lexeval(
        "compare", str(reports["plain"]), str(reports["v1"]), "--allow-signature-mismatch"
    )
    assert proc.returncode in (0, 1)
    assert "Traceback" not in proc.stderr


def test_compare_bad_report(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    assert_usage_error(lexeval("compare", str(bad), str(bad)), "must be a JSON object")


def test_score_single_and_batch(tmp_path: Path) -> None:
    proc = lexeval(
        "score",
        "--metric",
        "token_f1",
        "--input",
        "the cat ran",
        "--output",
        "the dog sat",
        "--option",
        "compat=set",
    )
    assert proc.returncode == 0, proc.stderr
    # compat=set: {the, cat, ran} vs {the, dog, sat}: 1 shared -> P = R = F = 1/3
    assert json.loads(proc.stdout)["score"] == pytest.approx(1 / 3)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        '{"input": "a b", "output": "a b"}\n\n{"input": ["x y", "a"], "output": "a"}\n',
        encoding="utf-8",
    )
    proc = lexeval("score", str(pairs), "--metric", "token_f1", "--option", "compat=set")
    assert proc.returncode == 0, proc.stderr
    scores = [json.loads(line)["token_f1"]["score"] for line in proc.stdout.splitlines()]
    assert scores == [1.0, 1.0]  # the second takes the best of its two references


def test_score_errors(tmp_path: Path) -> None:
    assert_usage_error(
        lexeval("score", "--metric", "nope", "--input", "a", "--output", "b"), "unknown metric"
    )
    assert_usage_error(lexeval("score", "--metric", "token_f1", "--input", "a"), "--output")
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"input": "a", "output": "b"}\n{"input": "a"}\n', encoding="utf-8")
    proc = lexeval("score", str(pairs), "--metric", "token_f1")
    assert_usage_error(proc, f"{pairs}:2: output: missing")
    legacy = lexeval("score", "--metric", "token_f1", "--jsonl", str(pairs))
    assert legacy.returncode == 2 and "--jsonl" in legacy.stderr  # the unreleased older form
    assert proc.stdout == ""  # nothing printed before the error


def test_normalize_and_metrics() -> None:
    proc = lexeval("normalize", "Neural networks are state-of-the-art")
    assert proc.returncode == 0, proc.stderr
    assert "neural network" in proc.stdout
    assert "preset:default" in proc.stdout
    proc = lexeval("metrics")
    assert proc.returncode == 0
    assert "keyword_coverage" in proc.stdout.split()
    assert_usage_error(lexeval("normalize", "x", "--preset", "nope"), "unknown preset")


def test_judge_loads_every_name_it_exports() -> None:
    """``lexeval.judge`` loads its names on first use: each of ``__all__`` has a module in
    ``_LAZY`` and loads from it."""
    import lexeval.judge as judge

    assert set(judge.__all__) == set(judge._LAZY)
    for name in judge.__all__:
        assert getattr(judge, name).__module__.startswith("lexeval.judge.")
