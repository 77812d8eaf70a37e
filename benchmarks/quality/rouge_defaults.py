"""Default ROUGE against its rouge-score compat mode on SummEval, and the effect of each
difference between them (issue 10).

Summary-level Kendall tau-b with the expert ratings (tau-b per article across the 16 systems,
averaged over the 100 articles; ``lexeval.meta.correlation(level="summary")``), the metric being
the F-measure averaged over the 11 references, for rouge1, rouge2 and rougeLsum against
coherence, consistency, fluency and relevance: 12 cells.

1. ``compat="rouge-score"`` with Porter stemming (rougeLsum: one sentence a line, split after a
   standalone ``. ! ?``), the published setting, against the default mode (rougeLsum: its own
   sentence splitter on the raw text, and also given the same lines), with
   ``lexeval.meta.compare`` (paired bootstrap over articles) for each cell;
2. the effect of each difference: the default with one setting changed back (toward the
   default before issue 10, ``Normalizer("tokens")``), compared with the default.

Run: .venv/bin/python benchmarks/quality/rouge_defaults.py [--resamples N] [--ablation-resamples N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _summeval import DIMS, SENTENCE_END, load
from _summeval import mean_f as _mean_f

from lexeval import Normalizer
from lexeval.meta import compare, correlation
from lexeval.metrics.overlap import fmeasure, lcs_indices, summary_lcs_hits
from lexeval.metrics.rouge import RougeScorer

TYPES = ("rouge1", "rouge2", "rougeLsum")
Scores = dict[str, list[float]]


def mean_f(scorer: RougeScorer, rows: list[dict[str, object]], prep: bool) -> Scores:
    """Per summary, each type's F-measure averaged over the 11 references (``prep``: one
    sentence a line on both sides)."""
    return _mean_f(scorer, rows, SENTENCE_END if prep else None)


def lsum_exact_backtrack(norm: Normalizer, rows: list[dict[str, object]]) -> list[float]:
    """Default rougeLsum with rouge-score's LCS backtrack instead of rapidfuzz's LCS."""

    def sentences(text: str) -> list[list[str]]:
        return [t for t in (norm.tokens(s) for s in norm.sentences(text)) if t]

    out = []
    for row in rows:
        cand = sentences(str(row["decoded"]))
        n_out = sum(map(len, cand))
        fs = []
        for ref in row["references"]:  # type: ignore[attr-defined]
            sents = sentences(ref)
            n_ref = sum(map(len, sents))
            hits = summary_lcs_hits(sents, cand, lcs_indices) if n_ref and n_out else 0
            fs.append(fmeasure(hits / max(n_out, 1), hits / max(n_ref, 1)))
        out.append(float(np.mean(fs)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--ablation-resamples", type=int, default=200)
    args = parser.parse_args()
    start = time.perf_counter()
    data = load()
    rows, docs, human = data.rows, data.docs, data.human
    options = {"evidence_limit": 0}

    peer = {"compat": "rouge-score", "use_stemmer": True, **options}
    compat = mean_f(RougeScorer(["rouge1", "rouge2"], **peer), rows, prep=False)  # type: ignore[arg-type]
    compat |= mean_f(RougeScorer(["rougeLsum"], **peer), rows, prep=True)  # type: ignore[arg-type]
    default_norm = Normalizer("rouge")
    default = mean_f(RougeScorer(list(TYPES), normalizer=default_norm, **options), rows, False)
    default_lines = mean_f(
        RougeScorer(["rougeLsum"], normalizer=default_norm, **options), rows, True
    )

    def tau(scores: list[float], dim: str) -> float:
        return correlation(scores, human[dim], groups=docs, level="summary", n_resamples=1).value

    print(f"SummEval: {len(rows):,} summaries, {len(set(docs))} articles; tau-b per cell")
    print(f"{'':44s}" + "".join(f"{d:>30s}" for d in DIMS))
    wins = 0
    for t in TYPES:
        print(
            f"{t + ', compat (rouge-score, Porter)':44s}"
            + "".join(f"{tau(compat[t], d):30.4f}" for d in DIMS)
        )
        for label, scores in [("default", default[t])] + (
            [("default, given the same lines", default_lines[t])] if t == "rougeLsum" else []
        ):
            cells = []
            for d in DIMS:
                c = compare(
                    scores,
                    compat[t],
                    human[d],
                    groups=docs,
                    level="summary",
                    n_resamples=args.resamples,
                )
                wins += label == "default" and c.difference >= 0
                cells.append(
                    f"{c.a:.4f} {c.difference:+.4f} [{c.interval[0]:+.3f}, {c.interval[1]:+.3f}]"
                )
            print(f"{t + ', ' + label:44s}" + "".join(f"{x:>30s}" for x in cells))
    print(f"default >= compat in {wins} of 12 cells (cells: tau-b, default - compat [95% CI])")

    print(
        "\nEffect of each difference: the default with one setting changed back, minus the "
        f"default ({args.ablation_resamples} resamples)"
    )
    variants: dict[str, Scores] = {
        "before issue 10: Normalizer('tokens')": mean_f(
            RougeScorer(list(TYPES), normalizer="tokens", **options), rows, False
        ),
        "lemmas (lookup table) instead of stems": mean_f(
            RougeScorer(
                list(TYPES), normalizer=Normalizer("rouge", lemmatize=True, stemmer=None), **options
            ),
            rows,
            False,
        ),
        "technical tokens whole (no word split)": mean_f(
            RougeScorer(list(TYPES), normalizer=Normalizer("rouge", split_words=False), **options),
            rows,
            False,
        ),
        "stopwords stemmed too": mean_f(
            RougeScorer(
                list(TYPES), normalizer=Normalizer("rouge", stem_stopwords=True), **options
            ),
            rows,
            False,
        ),
        "words of 1-3 letters stemmed too": mean_f(
            RougeScorer(list(TYPES), normalizer=Normalizer("rouge", stem_min_length=1), **options),
            rows,
            False,
        ),
        "Snowball (Porter2) instead of Porter": mean_f(
            RougeScorer(list(TYPES), normalizer=Normalizer("rouge", stemmer="snowball"), **options),
            rows,
            False,
        ),
    }
    variants["rougeLsum: rouge-score's LCS backtrack"] = {
        "rougeLsum": lsum_exact_backtrack(default_norm, rows)
    }
    variants["rougeLsum: given one sentence a line"] = {"rougeLsum": default_lines["rougeLsum"]}
    for label, scores in variants.items():
        for t, values in scores.items():
            cells = []
            for d in DIMS:
                c = compare(
                    values,
                    default[t],
                    human[d],
                    groups=docs,
                    level="summary",
                    n_resamples=args.ablation_resamples,
                )
                cells.append(f"{c.difference:+.4f} [{c.interval[0]:+.3f}, {c.interval[1]:+.3f}]")
            print(f"{label + ', ' + t:58s}" + "".join(f"{x:>30s}" for x in cells))
    print(f"{time.perf_counter() - start:.0f} s, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
