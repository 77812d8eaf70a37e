"""Default keyword coverage as a pass/fail judge: threshold calibrated on EVOUNA NQ, applied
unchanged to the held-out EVOUNA TQ and NQ301 (human label: ``Acceptable?`` of NQ301_human.tsv).

For each configuration: ROC AUC and Cohen's kappa with bootstrap intervals (lexeval.meta), the
threshold that maximises kappa on NQ (the recommended pass threshold), and on every set
``compare`` of the default against the previous default (``extra_penalty=0, near_credit=0``,
before the tie-breaking terms) and against ``weighting="uniform"``. Each answer is scored
against its gold alternatives (the best one counts).

Run: ``.venv/bin/python benchmarks/keyword_defaults.py`` (add ``--tuning-only`` to score EVOUNA
NQ alone, as while tuning; the held-out sets are for the final check).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _qa import QAItem, load_evouna, load_nq301

from lexeval.meta import agreement, calibrate, compare
from lexeval.metrics import KeywordCoverageMetric

CONFIGS: dict[str, dict[str, Any]] = {
    "previous": {"extra_penalty": 0.0, "near_credit": 0.0},
    "uniform": {"weighting": "uniform"},
    "default": {},
}
DEFAULT = "default"


def scores(options: dict[str, Any], items: list[QAItem]) -> list[float]:
    metric = KeywordCoverageMetric(**options)
    return [metric.measure(item.golds, item.answer).score for item in items]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tuning-only", action="store_true", help="score EVOUNA NQ only")
    args = parser.parse_args()
    sets = {"EVOUNA NQ (tuning)": load_evouna("NQ")}
    if not args.tuning_only:
        sets["EVOUNA TQ (held out)"] = load_evouna("TQ")
        sets["NQ301 (held out)"] = load_nq301()
    labels = {name: [item.human for item in items] for name, items in sets.items()}
    results: dict[str, dict[str, list[float]]] = {}
    thresholds: dict[str, float] = {}
    for config, options in CONFIGS.items():
        results[config] = {}
        for name, items in sets.items():
            start = time.perf_counter()
            results[config][name] = scores(options, items)
            print(f"scored {name} with {config} in {time.perf_counter() - start:.1f}s")
        tuned = calibrate(results[config]["EVOUNA NQ (tuning)"], labels["EVOUNA NQ (tuning)"])
        thresholds[config] = tuned.value
        print(f"{config}: {tuned}")
    for name in sets:
        print(f"\n== {name}")
        for config in CONFIGS:
            a = agreement(results[config][name], labels[name], threshold=thresholds[config])
            print(f"{config:10s} {a}  (auc {a.auc:.4f}, kappa {a.kappa:.4f})")
            recommended = KeywordCoverageMetric(**CONFIGS[config]).recommended_threshold
            if recommended is not None and recommended != thresholds[config]:
                r = agreement(results[config][name], labels[name], threshold=recommended)
                print(f"{'':10s} at the recommended {recommended}: {r}")
        for other in ("previous", "uniform"):
            c_auc = compare(results[DEFAULT][name], results[other][name], labels[name])
            c_kappa = compare(
                results[DEFAULT][name],
                results[other][name],
                labels[name],
                statistic="kappa",
                threshold_a=thresholds[DEFAULT],
                threshold_b=thresholds[other],
            )
            print(f"{DEFAULT} - {other}: {c_auc}")
            print(f"{DEFAULT} - {other}: {c_kappa}")
        if name.startswith("NQ301"):
            long_rows = [i for i, item in enumerate(sets[name]) if len(item.answer.split()) > 5]
            for config in CONFIGS:
                a = agreement(
                    [results[config][name][i] for i in long_rows],
                    [labels[name][i] for i in long_rows],
                    threshold=thresholds[config],
                )
                print(f"{config:10s} answers > 5 words: {a}")


if __name__ == "__main__":
    main()
