"""Quality: ROC AUC of lexical scores against human correctness judgments of QA answers.

EVOUNA NQ (tuning set) and the held-out EVOUNA TQ and NQ301 (never tuned on). Each answer is
scored against the gold alternatives (EVOUNA: ``/``-separated; NQ301: `` | ``-separated), the
maximum over alternatives (lexeval's multi-reference rule), and the AUC of that score against
the human label is printed for: Mastra keyword coverage (compat), SQuAD token F1 and token
recall, and lexeval's default keyword coverage.

Run: .venv/bin/python benchmarks/quality_evouna.py
"""

from __future__ import annotations

import csv
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import shared_path

from lexeval.metrics import KeywordCoverageMetric, MetricResult, TokenF1Metric

SYSTEMS = ["fid", "gpt35", "chatgpt", "gpt4", "newbing"]
Item = tuple[list[str], str, bool]


def load_evouna(name: str) -> list[Item]:
    path = shared_path("data", "qa_human", "evouna", f"{name}.json")
    with open(path, encoding="utf-8") as fh:
        rows = json.load(fh)
    items: list[Item] = []
    for row in rows:
        if row.get("improper"):
            continue
        golds = [g.strip() for g in row["golden_answer"].split("/") if g.strip()]
        for system in SYSTEMS:
            answer = row.get(f"answer_{system}")
            judge = row.get(f"judge_{system}")
            if isinstance(answer, str) and isinstance(judge, bool) and golds:
                items.append((golds, answer, judge))
    return items


def load_nq301() -> list[Item]:
    path = shared_path("data", "qa_human", "openqa_eval", "NQ301_BEM.tsv")
    items: list[Item] = []
    with open(path, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            golds = [g.strip() for g in row["Gold answers"].split(" | ") if g.strip()]
            label = row["Acceptable?"].strip().lower()
            if golds and label in ("yes", "no"):
                items.append((golds, row["Model answer"], label == "yes"))
    return items


def auc(scores: list[float], labels: list[bool]) -> float:
    """ROC AUC = Mann-Whitney U / (n_pos * n_neg), ties counted half (scipy)."""
    from scipy.stats import mannwhitneyu

    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    u = mannwhitneyu(pos, neg, alternative="two-sided").statistic
    return float(u) / (len(pos) * len(neg))


def scorers() -> dict[str, Callable[[list[str], str], float]]:
    mastra = KeywordCoverageMetric(compat="mastra")
    squad = TokenF1Metric(variant="squad")
    lexeval_kw = KeywordCoverageMetric()

    def squad_recall(golds: list[str], answer: str) -> float:
        # token recall, max over the gold alternatives
        return max(float(squad.measure(g, answer).info["recall"]) for g in golds)

    def score_of(metric: KeywordCoverageMetric | TokenF1Metric) -> Callable[..., float]:
        def run(golds: list[str], answer: str) -> float:
            result: MetricResult = metric.measure(golds, answer)
            return result.score

        return run

    return {
        "Mastra keyword coverage (compat)": score_of(mastra),
        "SQuAD token F1": score_of(squad),
        "SQuAD token recall": squad_recall,
        "lexeval keyword coverage (default)": score_of(lexeval_kw),
    }


def main() -> None:
    datasets = {
        "EVOUNA NQ (tuning)": load_evouna("NQ"),
        "EVOUNA TQ (held out)": load_evouna("TQ"),
        "NQ301 (held out)": load_nq301(),
    }
    fns = scorers()
    header = f"{'metric':38s}" + "".join(f"{name:>24s}" for name in datasets)
    print(header)
    for metric_name, fn in fns.items():
        cells = []
        for items in datasets.values():
            start = time.perf_counter()
            scores = [fn(golds, answer) for golds, answer, _ in items]
            elapsed = time.perf_counter() - start
            value = auc(scores, [y for _, _, y in items])
            cells.append(f"{value:.3f} ({len(items)}, {elapsed:.1f}s)")
        print(f"{metric_name:38s}" + "".join(f"{c:>24s}" for c in cells))
    print("cells: ROC AUC (answers, scoring time)")


if __name__ == "__main__":
    main()
