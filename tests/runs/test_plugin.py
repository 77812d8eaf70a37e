"""The pytest plugin saves a session's assert_lexical scores in the run store when asked
(``--lexeval-save`` or the ini setting), run by a real pytest as in tests/test_testing.py."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from lexeval.cli import main
from lexeval.runs import RunStore

SAMPLE = """
    import pytest
    from lexeval.testing import assert_lexical

    def test_good():
        assert_lexical("Paris is the capital of France", "The capital of France is Paris",
                       metric="rouge1", threshold=0.5)
        assert_lexical("the cat sat", "the cat sat", metric="rouge1", threshold=0.5)

    def test_bad():
        assert_lexical("Water boils at 100 degrees", "It boils", metric="rouge1", threshold=0.8)

    @pytest.mark.parametrize("answer", ["blue sky", "red sky"])
    def test_sky(answer):
        assert_lexical("the sky is blue", answer, metric="token_f1", compat="squad",
                       threshold=0.5)
"""


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "LEXEVAL_STORE")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_a_session_is_saved_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SAMPLE), encoding="utf-8")
    plain = _pytest(tmp_path, "test_sample.py")
    assert plain.returncode == 1 and not (tmp_path / ".lexeval").exists()
    proc = _pytest(tmp_path, "test_sample.py", "--lexeval-save", "--lexeval-label", "nightly")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the failing test still fails
    assert "lexeval: saved run 1 (rouge1, 3 calls) to .lexeval/runs.sqlite" in proc.stdout
    assert "lexeval: saved run 2 (token_f1, 2 calls)" in proc.stdout
    with RunStore.open(tmp_path / ".lexeval" / "runs.sqlite") as store:
        runs = store.list()
        assert [(r.label, r.kind) for r in runs] == [
            ("nightly: rouge1", "score"),
            ("nightly: token_f1", "score"),
        ]
        rouge = store.load(1).data()
        assert [r["id"] for r in rouge["results"]] == [
            "test_sample.py::test_good",
            "test_sample.py::test_good#2",
            "test_sample.py::test_bad",
        ]
        assert [r["rouge1"]["passed"] for r in rouge["results"]] == [True, True, False]
        assert rouge["summary"]["rouge1"]["n"] == 3
        sky = store.load(2).data()
        assert [r["id"] for r in sky["results"]] == [
            "test_sample.py::test_sky[blue sky]",
            "test_sample.py::test_sky[red sky]",
        ]
        assert runs[0].command[0] == "pytest" and "--lexeval-save" in runs[0].command
    # the ini setting, another store; and two sessions' runs compare as two score runs
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nlexeval_save = true\nlexeval_store = other.sqlite\n", encoding="utf-8"
    )
    proc = _pytest(tmp_path, "test_sample.py")
    assert "saved run 1 (rouge1, 3 calls) to other.sqlite" in proc.stdout, proc.stdout
    store_path = str(tmp_path / ".lexeval" / "runs.sqlite")
    assert main(["runs", "diff", "1", "1", "--store", store_path]) == 0


def test_a_bad_store_stops_the_session_at_once(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SAMPLE), encoding="utf-8")
    bad = tmp_path / "bad.sqlite"
    bad.write_text("not a store\n" * 20, encoding="utf-8")
    before = bad.read_bytes()
    proc = _pytest(tmp_path, "test_sample.py", "--lexeval-save", "--lexeval-store", str(bad))
    assert proc.returncode == 4  # pytest's usage error, before any test ran
    assert "not a lexeval run store" in proc.stderr and "passed" not in proc.stdout
    assert bad.read_bytes() == before
