"""TER's evidence cost: ``TerMetric`` with and without its edit operations, one process.

SummEval summary sentences (every 5th summary of ``summeval_abstractive_12sys.aligned.jsonl``),
each against the same-numbered sentence of the first two references (one or two references).
The pairs are cut into 4 chunks; each chunk is timed (``time.process_time``) with
``evidence_limit=0`` (the default: the count only) and ``evidence_limit=20`` (shifts,
substitutions, deletions and insertions listed), the order alternating per chunk, new metric
objects each time (TER keeps no cache across calls). Prints both CPU times, their ratio and the
load average; checks that the evidence changes no figure.

Run: nice .venv/bin/python benchmarks/speed/ter_evidence_cost.py [--step 5]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import load_average, shared_path

from lexeval.metrics import TerMetric

_SPLIT = re.compile(r"(?<=[.!?])\s+|\s+\.\s+").split


def sentence_pairs(step: int) -> list[tuple[str, list[str]]]:
    """(output sentence, reference sentences) of every ``step``-th SummEval summary."""
    path = shared_path("data", "summeval", "summeval_abstractive_12sys.aligned.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    pairs = []
    for row in rows[::step]:
        outputs = [s for s in _SPLIT(row["decoded"]) if s.strip()]
        references = [[s for s in _SPLIT(r) if s.strip()] for r in row["references"][:2]]
        for i, sentence in enumerate(outputs):
            refs = [r[i] for r in references if i < len(r)]
            if refs:
                pairs.append((sentence, refs))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step", type=int, default=5)
    args = parser.parse_args()
    pairs = sentence_pairs(args.step)
    chunks = [pairs[i::4] for i in range(4)]
    seconds = {0: 0.0, 20: 0.0}
    figures: dict[int, list[float]] = {0: [], 20: []}
    for k, chunk in enumerate(chunks):
        for limit in (0, 20) if k % 2 == 0 else (20, 0):
            metric = TerMetric(evidence_limit=limit)
            start = time.process_time()
            results = [metric.measure(refs, output) for output, refs in chunk]
            seconds[limit] += time.process_time() - start
            figures[limit] += [r.info["ter"] for r in results]
    print(f"{len(pairs)} SummEval sentence pairs (1-2 references)")
    print(
        f"TER CPU: no evidence {seconds[0]:.2f} s, evidence_limit=20 {seconds[20]:.2f} s, "
        f"ratio {seconds[20] / seconds[0]:.3f}; same figures: {figures[0] == figures[20]}; "
        f"{load_average()}"
    )


if __name__ == "__main__":
    main()
