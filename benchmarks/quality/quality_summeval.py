"""Quality: SummEval summary-level Kendall tau-b of ROUGE with expert ratings, with intervals.

The G-Eval table (EMNLP 2023, Table 1) through ``lexeval.meta.correlation(level="summary")``:
tau-b per article across the 16 systems, averaged over the 100 articles (articles where a
score is constant are skipped and counted), the metric being the F-measure averaged over the
11 references. ``compat="rouge-score"`` with stemming reproduces the published figures;
the default mode (lexeval's normalization) is set beside it and ``lexeval.meta.compare`` tests
whether the two differ (paired bootstrap over articles). ROUGE-L is rougeLsum; compat mode gets
one sentence a line (split after a standalone ``. ! ?``), the default mode splits by itself.
A last line resamples articles and systems together (Deutsch et al. 2021) for ROUGE-1.

Run: .venv/bin/python benchmarks/quality/quality_summeval.py [--resamples N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _summeval import DIMS, PUBLISHED, SENTENCE_END, load, mean_f

from lexeval.meta import compare, correlation
from lexeval.metrics.rouge import RougeScorer

TYPES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeLsum"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    boot = {"n_resamples": args.resamples}
    start = time.perf_counter()
    data = load()
    rows, docs, systems, human = data.rows, data.docs, data.systems, data.human
    print(
        f"SummEval: {len(rows):,} summaries, {len(set(docs))} articles, {len(set(systems))} systems"
    )
    print(f"{'':34s}" + "".join(f"{d:>26s}" for d in DIMS))
    scores: dict[tuple[str, str], list[float]] = {}
    for label, rouge_type in TYPES.items():
        compat = RougeScorer([rouge_type], compat="rouge-score", use_stemmer=True)
        lines = SENTENCE_END if rouge_type == "rougeLsum" else None
        scores[label, "compat"] = mean_f(compat, rows, lines)[rouge_type]
        scores[label, "default"] = mean_f(RougeScorer([rouge_type]), rows)[rouge_type]
        for mode in ("compat", "default"):
            cells = []
            for d in DIMS:
                c = correlation(scores[label, mode], human[d], groups=docs, level="summary", **boot)
                skipped = f" s{c.skipped}" if c.skipped else ""
                cells.append(f"{c.value:.3f} [{c.interval[0]:.3f}, {c.interval[1]:.3f}]{skipped}")
            name = f"{label} {'rouge-score compat' if mode == 'compat' else 'default'}"
            print(f"{name:34s}" + "".join(f"{x:>26s}" for x in cells))
        print(f"{'  published (G-Eval)':34s}" + "".join(f"{p:>26.3f}" for p in PUBLISHED[label]))
        cells = []
        for d in DIMS:
            cmp = compare(
                scores[label, "default"],
                scores[label, "compat"],
                human[d],
                groups=docs,
                level="summary",
                **boot,
            )
            cells.append(f"{cmp.difference:+.3f} p={cmp.p_value:.2g}")
        print(f"{'  default - compat (compare)':34s}" + "".join(f"{x:>26s}" for x in cells))
    both = correlation(
        scores["ROUGE-1", "compat"],
        human["relevance"],
        groups=docs,
        systems=systems,
        level="summary",
        resample="both",
        **boot,
    )
    print(f"ROUGE-1 compat, relevance, resampling articles and systems: {both}")
    system = correlation(
        scores["ROUGE-1", "compat"],
        human["relevance"],
        groups=docs,
        systems=systems,
        level="system",
        **boot,
    )
    print(f"ROUGE-1 compat, relevance, system level (16 system means): {system}")
    print(
        f"cells: tau-b [95% CI over articles, {args.resamples} resamples, seed 12345]; "
        f"s<k>: articles skipped as constant; {time.perf_counter() - start:.0f} s, "
        f"load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
