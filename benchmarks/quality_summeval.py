"""Quality: SummEval summary-level Kendall tau-b of ROUGE with expert ratings, with intervals.

The G-Eval table (EMNLP 2023, Table 1) through ``lexeval.meta.correlation(level="summary")``:
tau-b per article across the 16 systems, averaged over the 100 articles (articles where a
score is constant are skipped and counted), the metric being the F-measure averaged over the
11 references. ``compat="rouge-score"`` with stemming reproduces the published figures;
the default mode (lexeval's normalization) is set beside it and ``lexeval.meta.compare`` tests
whether the two differ (paired bootstrap over articles). ROUGE-L is rougeLsum; compat mode gets
one sentence a line (split after a standalone ``. ! ?``), the default mode splits by itself.
A last line resamples articles and systems together (Deutsch et al. 2021) for ROUGE-1.

Run: .venv/bin/python benchmarks/quality_summeval.py [--resamples N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import shared_path

from lexeval.meta import compare, correlation
from lexeval.metrics import RougeMetric

DIMS = ("coherence", "consistency", "fluency", "relevance")
PUBLISHED = {
    "ROUGE-1": (0.126, 0.130, 0.094, 0.252),
    "ROUGE-2": (0.139, 0.155, 0.128, 0.219),
    "ROUGE-L": (0.099, 0.092, 0.084, 0.237),
}
TYPES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeLsum"}
_SENTENCE_END = re.compile(r"(?<=\s[.!?])\s+")


def _lines(text: str) -> str:
    return "\n".join(s for s in _SENTENCE_END.split(" " + text) if s.strip())


def _mean_f(
    rows: list[dict[str, object]], metric: RougeMetric, prep: Callable[[str], str]
) -> list[float]:
    out = []
    for row in rows:
        refs = [prep(str(r)) for r in row["references"]]  # type: ignore[attr-defined]
        decoded = prep(str(row["decoded"]))
        out.append(float(np.mean([metric.measure(ref, decoded).score for ref in refs])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    boot = {"n_resamples": args.resamples}
    start = time.perf_counter()
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    docs = [r["doc_id"] for r in rows]
    systems = [r["model_id"] for r in rows]
    human = {d: [r["expert_avg"][d] for r in rows] for d in DIMS}
    print(
        f"SummEval: {len(rows):,} summaries, {len(set(docs))} articles, {len(set(systems))} systems"
    )
    print(f"{'':34s}" + "".join(f"{d:>26s}" for d in DIMS))
    scores: dict[tuple[str, str], list[float]] = {}
    for label, rouge_type in TYPES.items():
        compat = RougeMetric(rouge_type, compat="rouge-score", use_stemmer=True)
        prep = _lines if rouge_type == "rougeLsum" else str
        scores[label, "compat"] = _mean_f(rows, compat, prep)
        scores[label, "default"] = _mean_f(rows, RougeMetric(rouge_type), str)
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
