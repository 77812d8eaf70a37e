"""Objects promoted to the collector's oldest generation per default keyword call on unseen
pairs (observing only: ``gc.get_objects(2)`` and a ``gc.callbacks`` entry that counts full
collections; thresholds and the collector stay as they are).

A full collection comes when the objects promoted since the last one reach a quarter of the
oldest generation, so promotions per call set how often a call pays for one. A metric is
warmed on the first 1,500 of ``keyword_gc.py``'s unseen pairs (EVOUNA NQ then TQ; spaCy
loads), a collection empties the young generations, then 3,000 new pairs are scored; the
figure is the growth of the oldest generation per call (net of what died there; no full
collection should come meanwhile, the count is printed).

Run: PYTHONPATH=src nice .venv/bin/python benchmarks/diagnostics/keyword_promoted.py
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "speed"))
from per_call import evouna_unseen

from lexeval.metrics import KeywordCoverageMetric


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    pairs = evouna_unseen(("NQ", "TQ"))  # keyword_gc.py's pairs
    full = [0]

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 2:
            full[0] += 1

    metric = KeywordCoverageMetric()
    for reference, output in pairs[:1000]:
        metric.measure(reference, output)
    metric = KeywordCoverageMetric()
    for reference, output in pairs[1000:1500]:
        metric.measure(reference, output)
    gc.collect()
    gc.callbacks.append(count)
    try:
        before = len(gc.get_objects(generation=2))
        scored = pairs[1500:4500]
        for reference, output in scored:
            metric.measure(reference, output)
        after = len(gc.get_objects(generation=2))
    finally:
        gc.callbacks.remove(count)
    print(
        f"oldest generation {before} -> {after} objects: "
        f"{(after - before) / len(scored):.2f} promoted net per call over {len(scored)} calls "
        f"(full collections meanwhile: {full[0]}; one comes at about {before // 4} promoted)"
    )


if __name__ == "__main__":
    main()
