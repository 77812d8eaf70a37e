"""WER, CER and exact match against people: jiwer's transforms (``compat="jiwer"``) against
lexeval's normalization (the default), and SQuAD-normalized against strict exact match.

Short answers: ROC AUC against the human correctness label, each answer scored against its
gold alternatives (the best counts: lowest error rate, any exact match), on EVOUNA NQ (the
set a choice is made on), EVOUNA TQ and NQ301 (label: ``Acceptable?`` of NQ301_human.tsv),
held out. Summaries: SummEval relevance, per-article Kendall tau-b across the 16 systems,
averaged over the 100 articles, each summary's score the mean over its 11 references. 95%
bootstrap intervals (``lexeval.meta``, seed 12345) and, per metric, the paired difference of
the default against compat on each set (``lexeval.meta.compare``).

The score is lexeval's ``max(0, 1 - rate)``: every answer with more errors than reference
words ties at 0. ``--rate`` ranks by ``-rate`` instead (no tie), for comparison.

Run: PYTHONPATH=src .venv/bin/python benchmarks/wer_quality.py [--resamples N] [--rate]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import QAItem, load_evouna, load_nq301
from _summeval import load

from lexeval.meta import agreement, compare, correlation
from lexeval.metrics import CerMetric, ExactMatchMetric, WerMetric
from lexeval.metrics.base import BaseMetric

SEED = 12345


def _values(metric: BaseMetric, refs: list[list[str]] | list[str], outs: list[str], rate: bool):
    results = metric.measure_many(refs, outs)
    key = getattr(metric, "rate_key", None)
    if rate and key is not None:
        return [-float(r.info[key]) for r in results]
    return [r.score for r in results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--rate", action="store_true", help="rank by -rate, not the score")
    args = parser.parse_args()
    qa: dict[str, list[QAItem]] = {
        "EVOUNA NQ": load_evouna("NQ"),
        "EVOUNA TQ (held out)": load_evouna("TQ"),
        "NQ301 (held out)": load_nq301(),
    }
    summeval = load()
    summary_refs = [ref for row in summeval.rows for ref in row["references"]]
    summary_outs = [str(row["decoded"]) for row in summeval.rows for _ in row["references"]]
    metrics: dict[str, Callable[[], BaseMetric]] = {
        "wer, compat=jiwer": lambda: WerMetric(compat="jiwer"),
        "wer, default": WerMetric,
        "cer, compat=jiwer": lambda: CerMetric(compat="jiwer"),
        "cer, default": CerMetric,
        "exact_match, normalize=False": lambda: ExactMatchMetric(normalize=False),
        "exact_match (SQuAD normalization)": ExactMatchMetric,
    }
    start = time.perf_counter()
    columns = [*qa, "SummEval relevance tau"]
    print(f"{'metric':36s}" + "".join(f"{c:>26s}" for c in columns))
    kept: dict[str, dict[str, list[float]]] = {}
    for name, build in metrics.items():
        metric = build()
        cells, kept[name] = [], {}
        for set_name, items in qa.items():
            values = _values(metric, [i.golds for i in items], [i.answer for i in items], args.rate)
            kept[name][set_name] = values
            a = agreement(
                values, [i.human for i in items], threshold=0.5, n_resamples=args.resamples
            )
            low, high = a.intervals["auc"]
            cells.append(f"{a.auc:.3f} [{low:.3f}, {high:.3f}]")
        flat = _values(metric, summary_refs, summary_outs, args.rate)
        per_summary, k = [], 0
        for row in summeval.rows:
            n = len(row["references"])
            per_summary.append(sum(flat[k : k + n]) / n)
            k += n
        kept[name]["relevance"] = per_summary
        try:
            c = correlation(
                per_summary,
                summeval.human["relevance"],
                groups=summeval.docs,
                level="summary",
                n_resamples=args.resamples,
                seed=SEED,
            )
            cells.append(f"{c.value:.3f} [{c.interval[0]:.3f}, {c.interval[1]:.3f}]")
        except ValueError:  # exact match: every summary scores 0, no ranking at all
            cells.append("n/a (constant)")
        print(f"{name:36s}" + "".join(f"{cell:>26s}" for cell in cells), flush=True)
    print("\npaired difference, default minus compat (AUC; tau on SummEval) [95% interval]:")
    pairs = (
        ("wer, default", "wer, compat=jiwer"),
        ("cer, default", "cer, compat=jiwer"),
        ("exact_match (SQuAD normalization)", "exact_match, normalize=False"),
    )
    for better, base in pairs:
        cells = []
        for set_name, items in qa.items():
            d = compare(
                kept[better][set_name],
                kept[base][set_name],
                [i.human for i in items],
                statistic="auc",
                n_resamples=args.resamples,
                seed=SEED,
            )
            cells.append(f"{d.difference:+.3f} [{d.interval[0]:+.3f}, {d.interval[1]:+.3f}]")
        print(f"{better:36s}" + "".join(f"{cell:>26s}" for cell in cells))
    print(
        f"\n{args.resamples} resamples, seed {SEED}; {time.perf_counter() - start:.0f} s, "
        f"load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
