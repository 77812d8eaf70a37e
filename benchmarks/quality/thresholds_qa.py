"""Recommended pass thresholds: chosen on EVOUNA NQ, checked on the held-out EVOUNA TQ and NQ301.

For each metric (default settings), every answer is scored against its gold alternatives (the
best one, lexeval's multi-reference rule). The threshold is the score that maximises Cohen's
kappa between ``score >= threshold`` and the human correctness label on EVOUNA NQ (the tuning
set; ``lexeval.meta.calibrate``); the same threshold is then applied, unchanged, to EVOUNA TQ and
NQ301 (held out, never tuned on). NQ301's human label is ``Acceptable?`` of NQ301_human.tsv,
joined to the gold answers of NQ301_BEM.tsv row by row (``_qa.load_nq301``: the questions must
agree; the answers are NQ301_human.tsv's, which agree with NQ301_BEM.tsv's up to white space
except one, "US$1,499.00" / "US$1,499"). Each line:
``lexeval.meta.agreement`` (ROC AUC, kappa and accuracy at the threshold, 95% percentile
bootstrap intervals over answers, 1,000 resamples, seed 12345), the share of answers humans
accept and the share that pass.

Run: .venv/bin/python benchmarks/quality/thresholds_qa.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from statistics import mean

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import load_evouna, load_nq301

from lexeval import get_metric
from lexeval.meta import agreement, calibrate
from lexeval.metrics import BaseMetric


def main() -> None:
    datasets = {
        "EVOUNA NQ (tuning)": load_evouna("NQ"),
        "EVOUNA TQ (held out)": load_evouna("TQ"),
        "NQ301 (held out)": load_nq301(),
    }
    metrics: dict[str, BaseMetric] = {
        "keyword_coverage": get_metric("keyword_coverage"),
        "token_f1": get_metric("token_f1"),
        "rouge1": get_metric("rouge1"),
        "rouge1, score=recall": get_metric("rouge1", score="recall"),
        "rougeL": get_metric("rougeL"),
    }
    for name, metric in metrics.items():
        start = time.perf_counter()
        scores = {
            data: [
                r.score for r in metric.measure_many([i.golds for i in it], [i.answer for i in it])
            ]
            for data, it in datasets.items()
        }
        labels = {data: [i.human for i in it] for data, it in datasets.items()}
        tuning = next(iter(datasets))
        chosen = calibrate(scores[tuning], labels[tuning], objective="kappa")
        elapsed = time.perf_counter() - start
        print(f"{name}: {chosen} on {tuning} (scored in {elapsed:.0f}s)")
        for data in datasets:
            passed = sum(s >= chosen.value for s in scores[data]) / len(scores[data])
            found = agreement(scores[data], labels[data], threshold=chosen.value)
            print(f"  {data:22s} {found}  human yes {mean(labels[data]):.3f}  pass {passed:.3f}")


if __name__ == "__main__":
    main()
