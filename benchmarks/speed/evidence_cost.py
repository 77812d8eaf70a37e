"""Evidence cost: ROUGE and token-F1 with and without the matched/missing lists, one process.

SummEval, 1,600 summaries against their first reference. Each metric is timed on the batch
path (``measure_many``) with ``evidence_limit=0`` (no lists, the default) and with
``evidence_limit=20``, new metric objects each run after one warm-up run (the normalizer's
token caches are warm, the metrics' prepared-text caches empty), best of 3 runs; the ratio is
the cost of the evidence. Prints the load average, since the machine is shared.

Run: .venv/bin/python benchmarks/speed/evidence_cost.py
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path, timed

from lexeval.metrics import BaseMetric, RougeMetric, TokenF1Metric

METRICS: dict[str, Callable[[int], BaseMetric]] = {
    "rouge1": lambda limit: RougeMetric("rouge1", evidence_limit=limit),
    "rouge2, compat": lambda limit: RougeMetric(
        "rouge2", compat="rouge-score", evidence_limit=limit
    ),
    "rougeL": lambda limit: RougeMetric("rougeL", evidence_limit=limit),
    "rougeLsum, compat": lambda limit: RougeMetric(
        "rougeLsum", compat="rouge-score", evidence_limit=limit
    ),
    "token_f1": lambda limit: TokenF1Metric(evidence_limit=limit),
    "token_f1, squad": lambda limit: TokenF1Metric(compat="squad", evidence_limit=limit),
}


def main() -> None:
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    refs = [r["references"][0] for r in rows]
    outs = [r["decoded"] for r in rows]
    print(f"SummEval: {len(rows)} pairs; best of 3 runs; load average {os.getloadavg()[0]:.1f}")
    for name, make in METRICS.items():
        make(0).measure_many(refs, outs)  # warm the normalizer's caches
        seconds = {}
        for limit in (0, 20):
            seconds[limit], _ = timed(
                lambda make=make, limit=limit: make(limit).measure_many(refs, outs)
            )
        print(
            f"{name:18s} no evidence {seconds[0]:.3f}s  evidence {seconds[20]:.3f}s  "
            f"ratio {seconds[20] / seconds[0]:.2f}"
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
