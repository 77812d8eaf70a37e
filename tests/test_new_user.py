"""What a new user hits first: help texts list the choices, the signature is never wrapped,
``lexeval.cards`` works as an attribute, ``make test`` prints skip reasons."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lexeval
from lexeval.cli import main
from lexeval.cli.common import PRESET_NAMES

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "flashcards"


def test_subpackages_are_attributes() -> None:
    assert lexeval.cards.evaluate is not None
    assert lexeval.metrics.RougeMetric("rouge1").name == "rouge1"
    with pytest.raises(AttributeError):
        _ = lexeval.nothing_here


def test_help_lists_presets_metrics_and_option_keys(capsys: pytest.CaptureFixture[str]) -> None:
    from lexeval.normalize import PRESETS

    assert tuple(PRESETS) == PRESET_NAMES
    for command in (["normalize"], ["cards"], ["score"], ["metrics"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        if command[0] in ("normalize", "cards"):
            assert ", ".join(PRESET_NAMES) in text
        if command[0] == "score":
            for key in ("keyword_coverage", "rouge<n>", "fuzzy_threshold", "use_stemmer"):
                assert key in text, key
        if command[0] == "metrics":
            assert "rougeN stands for any rouge<n>" in text


def test_the_signature_is_one_line_without_a_terminal(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="60")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lexeval",
            "cards",
            str(DATA / "dataset.yaml"),
            str(DATA / "outputs" / "prompt_v2.jsonl"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("signature: "))
    assert line.endswith("|v:" + lexeval.__version__)  # the whole signature on its line
    assert len(line) > 120


def test_make_test_prints_skip_reasons_and_runs_the_adapter_tests() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest: ", 1)[1].split("\n\n", 1)[0]
    assert "pytest -rs" in recipe
    assert "test-integrations" in recipe.splitlines()[0].split()  # a prerequisite of make test
