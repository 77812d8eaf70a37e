"""Keyword coverage speed on the Mastra oracle cases (441 pairs of mixed length).

The peer (``@mastra/evals`` on Node) cannot run in this process; the issue's figure for it is
about 13,000 pairs/s. Targets: compat mode >= 13,000 pairs/s, default mode >= 5,000 pairs/s.
"cold": every lexeval cache emptied and new metric objects (spaCy already loaded, new
Normalizer instances); "warm": the same metric scoring the same pairs again. Best of 3 runs.
The exact-match default (``match="exact"``) is shown beside the lenient default.

Run: .venv/bin/python benchmarks/keyword_speed.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import shared_path, timed

from lexeval.compat import _mastra_word
from lexeval.metrics import KeywordCoverageMetric
from lexeval.metrics.keyword import _canon

MASTRA_NODE_PAIRS_PER_S = 13_000


def main() -> None:
    path = shared_path("oracles", "mastra", "cases.jsonl")
    with open(path, encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh]
    inputs = [c["input"] for c in cases]
    outputs = [c["output"] for c in cases]
    KeywordCoverageMetric().measure("load spaCy once", "load spaCy")
    print(f"Mastra oracle cases: {len(cases)} pairs; Mastra on Node ~{MASTRA_NODE_PAIRS_PER_S}/s")
    for label, options in [
        ("compat='mastra'", {"compat": "mastra"}),
        ("compat='mastra-scorer'", {"compat": "mastra-scorer"}),
        ("default (lenient)", {}),
        ("default match='exact'", {"match": "exact"}),
    ]:

        def cold(options: dict[str, str] = options) -> None:
            KeywordCoverageMetric(**options).measure_many(inputs, outputs)  # type: ignore[arg-type]

        def clear() -> None:
            _mastra_word.cache_clear()
            _canon.cache_clear()

        t_cold, _ = timed(lambda: cold() or 0, setup=clear)
        metric = KeywordCoverageMetric(**options)  # type: ignore[arg-type]
        metric.measure_many(inputs, outputs)
        t_warm, _ = timed(lambda m=metric: m.measure_many(inputs, outputs))
        cold_rate, warm_rate = len(cases) / t_cold, len(cases) / t_warm
        peer = MASTRA_NODE_PAIRS_PER_S
        print(
            f"{label:24s} cold {cold_rate:9.0f} pairs/s ({cold_rate / peer:.2f}x Mastra)"
            f"   warm {warm_rate:9.0f} pairs/s ({warm_rate / peer:.2f}x)"
        )


if __name__ == "__main__":
    main()
