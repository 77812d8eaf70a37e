"""Digests of every keyword-coverage result (score and ``info``) on the public sets, to show
that a change keeps results identical: run it on two trees and compare the lines.

Sets: EVOUNA NQ and TQ and NQ301 (every gold alternative as a reference list), SummEval
relevance (each reference against the summary) and consistency (input=summary,
output=source). Settings: the default, each task profile, the default with the question, and
``compat="mastra"``. A new metric per setting and set, as ``families.py`` builds them.

Run: PYTHONPATH=src nice .venv/bin/python benchmarks/diagnostics/keyword_digest.py [--quick]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import load_evouna, load_nq301
from _shared import exact_data
from _summeval import load

from lexeval.metrics import KeywordCoverageMetric

TASKS = ("short_answer", "summary", "source_support", "long_answer", "prompt")
SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    **{f"task={t}": {"task": t} for t in TASKS},
    "compat=mastra": {"compat": "mastra"},
}

Item = tuple[list[str], str, str | None]  # references, output, question


def sets(quick: bool) -> Iterator[tuple[str, list[Item]]]:
    step = 10 if quick else 1
    for name in ("NQ", "TQ"):
        items = load_evouna(name)[::step]
        yield f"EVOUNA {name}", [(i.golds, i.answer, i.question or None) for i in items]
    yield "NQ301", [(i.golds, i.answer, i.question or None) for i in load_nq301()[::step]]
    summeval = load()
    rows = summeval.rows[::step]
    yield "relevance", [([ref], r["decoded"], None) for r in rows for ref in r["references"]]
    yield "consistency", [([r["decoded"]], r["source"], None) for r in rows]


def digest(metric: KeywordCoverageMetric, items: list[Item], asked: bool) -> str:
    sha = hashlib.sha256()
    for refs, output, question in items:
        if asked and question is not None:
            result = metric.measure(refs, output, question=question)
        else:
            result = metric.measure(refs, output)
        line = json.dumps([float.hex(result.score), exact_data(result.info)], sort_keys=True)
        sha.update(line.encode("utf-8"))
    return sha.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every tenth item")
    args = parser.parse_args()
    data = list(sets(args.quick))
    runs: list[tuple[str, Callable[[], KeywordCoverageMetric], bool]] = [
        (name, lambda o=options: KeywordCoverageMetric(**o), False)
        for name, options in SETTINGS.items()
    ]
    runs.append(("default+question", KeywordCoverageMetric, True))
    for name, make, asked in runs:
        for set_name, items in data:
            start = time.process_time()
            value = digest(make(), items, asked)
            used = time.process_time() - start
            print(f"{name:18s} {set_name:12s} {len(items):6d} {value}  ({used:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
