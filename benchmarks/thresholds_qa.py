"""Recommended pass thresholds: chosen on EVOUNA NQ, checked on the held-out EVOUNA TQ and NQ301.

For each metric (default settings), every answer is scored against its gold alternatives (the
best one, lexeval's multi-reference rule). The threshold is the score that maximises Cohen's
kappa between ``score >= threshold`` and the human correctness label on EVOUNA NQ (the tuning
set; ``lexeval.meta.calibrate``); the same threshold is then applied, unchanged, to EVOUNA TQ and
NQ301 (held out, never tuned on). NQ301's human label is ``Acceptable?`` of NQ301_human.tsv,
joined to the gold answers of NQ301_BEM.tsv row by row (the script checks that the questions
agree; the answers agree up to white space except one, "US$1,499.00" / "US$1,499"). Each line:
``lexeval.meta.agreement`` (ROC AUC, kappa and accuracy at the threshold, 95% percentile
bootstrap intervals over answers, 1,000 resamples, seed 12345), the share of answers humans
accept and the share that pass.

Run: .venv/bin/python benchmarks/thresholds_qa.py
"""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from statistics import mean

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import shared_path

from lexeval.meta import agreement, calibrate
from lexeval.metrics import BaseMetric, get_metric

SYSTEMS = ["fid", "gpt35", "chatgpt", "gpt4", "newbing"]
Item = tuple[list[str], str, bool]


def load_evouna(name: str) -> list[Item]:
    with open(shared_path("data", "qa_human", "evouna", f"{name}.json"), encoding="utf-8") as fh:
        rows = json.load(fh)
    items: list[Item] = []
    for row in rows:
        if row.get("improper"):
            continue
        golds = [g.strip() for g in row["golden_answer"].split("/") if g.strip()]
        for system in SYSTEMS:
            answer, judge = row.get(f"answer_{system}"), row.get(f"judge_{system}")
            if isinstance(answer, str) and isinstance(judge, bool) and golds:
                items.append((golds, answer, judge))
    return items


def load_nq301() -> list[Item]:
    folder = ("data", "qa_human", "openqa_eval")
    with open(shared_path(*folder, "NQ301_BEM.tsv"), encoding="utf-8", newline="") as fh:
        gold_rows = list(csv.DictReader(fh, delimiter="\t"))
    with open(shared_path(*folder, "NQ301_human.tsv"), encoding="utf-8", newline="") as fh:
        human_rows = list(csv.DictReader(fh, delimiter="\t"))
    if len(gold_rows) != len(human_rows):
        raise SystemExit(f"NQ301: {len(gold_rows)} gold rows but {len(human_rows)} human rows")
    items: list[Item] = []
    differ = 0
    for gold, human in zip(gold_rows, human_rows, strict=True):
        if gold["Question"].strip() != human["Question"].strip():
            raise SystemExit(f"NQ301: rows differ: {gold['id']} / {human['id']}")
        # the answers differ in white space ("20%" / "20 %") and once in "US$1,499(.00)"
        differ += "".join(gold["Model answer"].split()) != "".join(human["Model answer"].split())
        golds = [g.strip() for g in gold["Gold answers"].split(" | ") if g.strip()]
        label = human["Acceptable?"].strip().lower()
        if golds and label in ("yes", "no"):
            items.append((golds, gold["Model answer"], label == "yes"))
    if differ > 2:
        raise SystemExit(f"NQ301: {differ} answers differ between the two files")
    return items


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
                r.score for r in metric.measure_many([g for g, _, _ in it], [a for _, a, _ in it])
            ]
            for data, it in datasets.items()
        }
        labels = {data: [y for _, _, y in it] for data, it in datasets.items()}
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
