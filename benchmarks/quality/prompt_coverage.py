"""Prompt coverage (data-to-text): keyword coverage of the input data by the system's text,
``measure(input=MR, output=text)``, against people's quality ratings of the E2E NLG Challenge
(Dušek et al. 2020; github tuetschek/e2e-eval, ``human_ratings/quality.csv``: crowd workers
rank five systems' outputs for one meaning representation, 0-100 each; the file carries no
licence notice, so it is read for measurement only, never copied into the repository).

Each output's human figure is the mean of its ratings; the statistic is the per-MR Kendall
tau-b across the outputs rated together, averaged over MRs (as SummEval's summary level), with
a 95% bootstrap interval over MRs, and each row's paired difference against the default.
Rows: the default (``task`` chosen per call), each task profile, Mastra's mode.

The corpus is read from ``LEXEVAL_E2E_DIR`` (default ``/work/wt/data/e2e``, holding
``quality.csv``); the benchmark exits with a message when it is absent.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/quality/prompt_coverage.py [--resamples N]``
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from lexeval.meta import compare, correlation
from lexeval.metrics import KeywordCoverageMetric

DEFAULT_DIR = "/work/wt/data/e2e"
TASKS = ("prompt", "summary", "source_support", "short_answer", "long_answer")


def load_e2e() -> tuple[list[str], list[str], list[float], list[str]] | None:
    """(MRs, outputs, mean quality, group) per distinct (MR, output), or None when absent."""
    path = Path(os.environ.get("LEXEVAL_E2E_DIR", DEFAULT_DIR)) / "quality.csv"
    if not path.is_file():
        print(f"skipped: {path} not found (set LEXEVAL_E2E_DIR; see the docstring)")
        return None
    ratings: dict[tuple[str, str], list[float]] = defaultdict(list)
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            for k in range(1, 6):
                text, value = row[f"ref{k}"], row[f"quality{k}"]
                if text and value:
                    ratings[(row["mr"], text)].append(float(value))
    keys = sorted(ratings)
    return (
        [mr for mr, _ in keys],
        [text for _, text in keys],
        [sum(ratings[k]) / len(ratings[k]) for k in keys],
        [mr for mr, _ in keys],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    data = load_e2e()
    if data is None:
        return
    mrs, outputs, human, groups = data
    rows: dict[str, dict[str, Any]] = {"default": {}}
    rows.update({f"task={t}": {"task": t} for t in TASKS})
    rows["compat=mastra"] = {"compat": "mastra"}
    scores: dict[str, list[float]] = {}
    chosen: dict[str, int] = defaultdict(int)
    for label, options in rows.items():
        metric = KeywordCoverageMetric(**options)
        results = [metric.measure(mr, out) for mr, out in zip(mrs, outputs, strict=True)]
        scores[label] = [r.score for r in results]
        if label == "default":
            for r in results:
                chosen[str(r.info.get("task"))] += 1
    print(f"E2E quality: {len(outputs)} rated outputs of {len(set(groups))} MRs")
    print(f"the default's task per call: {dict(chosen)}", file=sys.stderr)
    print(f"{'row':22s} {'tau [95%]':>22s} {'minus default [95%]':>24s}")
    for label, values in scores.items():
        c = correlation(values, human, groups=groups, level="summary", n_resamples=args.resamples)
        line = f"{label:22s} {c.value:7.3f} [{c.interval[0]:.3f},{c.interval[1]:.3f}]"
        if label != "default":
            d = compare(
                values,
                scores["default"],
                human,
                statistic="correlation",
                groups=groups,
                level="summary",
                n_resamples=args.resamples,
            )
            line += f"   {d.difference:+.3f} [{d.interval[0]:+.3f},{d.interval[1]:+.3f}]"
        print(line, flush=True)


if __name__ == "__main__":
    main()
