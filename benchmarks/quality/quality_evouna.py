"""Quality: ROC AUC of lexical scores against human correctness judgments of QA answers.

EVOUNA NQ (tuning set) and the held-out EVOUNA TQ and NQ301 (never tuned on). Each answer is
scored against the gold alternatives (the maximum over them, lexeval's multi-reference rule)
and ``lexeval.meta.agreement`` gives the ROC AUC against the HUMAN label with a seeded 95%
bootstrap interval (NQ301: ``Acceptable?`` of NQ301_human.tsv; until 2026-11-23 this script
read BEM's decision from NQ301_BEM.tsv instead, which inflated every NQ301 figure).

Run: .venv/bin/python benchmarks/quality/quality_evouna.py [--resamples N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import load_evouna, load_nq301, scorers

from lexeval.meta import agreement


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    datasets = {
        "EVOUNA NQ (tuning)": load_evouna("NQ"),
        "EVOUNA TQ (held out)": load_evouna("TQ"),
        "NQ301 (held out)": load_nq301(),
    }
    print("answers: " + ", ".join(f"{k} {len(v):,}" for k, v in datasets.items()))
    print(f"{'metric':36s}" + "".join(f"{name:>28s}" for name in datasets))
    start_all = time.perf_counter()
    for metric_name, score in scorers().items():
        cells = []
        for items in datasets.values():
            scores = score(items)
            # AUC does not depend on the threshold; 0.5 only fills the confusion figures
            a = agreement(
                scores, [i.human for i in items], threshold=0.5, n_resamples=args.resamples
            )
            low, high = a.intervals["auc"]
            cells.append(f"{a.auc:.3f} [{low:.3f}, {high:.3f}]")
        print(f"{metric_name:36s}" + "".join(f"{c:>28s}" for c in cells))
    elapsed = time.perf_counter() - start_all
    print(
        f"cells: ROC AUC [95% bootstrap interval, {args.resamples} resamples, seed 12345]; "
        f"{elapsed:.0f} s, load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
