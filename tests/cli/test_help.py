"""``lexeval score --help`` lists each metric's real option keys: read from the constructors,
so a new keyword parameter shows up without anyone editing the help."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

from lexeval.metrics import KeywordCoverageMetric, RougeMetric, TokenF1Metric
from lexeval.registry import list_metrics, metric_options

ROOT = Path(__file__).resolve().parents[2]


def keyword_parameters(cls: type) -> list[str]:
    return [
        p.name
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "variant"
    ]


def test_the_options_are_the_constructors_keyword_parameters() -> None:
    for name, cls in (
        ("keyword_coverage", KeywordCoverageMetric),
        ("token_f1", TokenF1Metric),
        ("rougeL", RougeMetric),
        ("rouge7", RougeMetric),
    ):
        assert list(metric_options(name))[-len(keyword_parameters(cls)) :] == keyword_parameters(
            cls
        )
    assert metric_options("keyword_coverage")["task"][-1] == "auto"
    assert metric_options("rouge1")["score"] == ("fmeasure", "precision", "recall")


def test_score_help_lists_every_metrics_keys() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    proc = subprocess.run(
        [sys.executable, "-m", "lexeval", "score", "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    keys = proc.stdout.split("Option keys (--option KEY=VALUE), per metric:")[1]
    entries = {}
    for line in keys.splitlines():
        if line.startswith("  ") and not line.startswith("    "):
            current = line.split(": ", 1)[0].strip()
            entries[current] = line
        elif line.startswith("    "):
            entries[current] += " " + line.strip()
    assert set(entries) == set(list_metrics())
    for name, text in entries.items():
        for key in metric_options(name):
            assert f" {key}" in text or f"{key}," in text, (name, key)
    coverage = entries["keyword_coverage"]
    for key in ("task", "weighting (frequency, uniform)", "extra_penalty", "near_credit"):
        assert key in coverage
    for key in ("conflict_penalty", "question_weight", "match (lenient, exact)"):
        assert key in coverage
