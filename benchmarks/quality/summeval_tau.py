"""SummEval summary-level Kendall tau-b of rouge-score-compatible ROUGE, to four decimals.

Run: ``.venv/bin/python benchmarks/quality/summeval_tau.py``. The same computation as the notebook
``01_metrics_tour.ipynb`` (F-measure averaged over the 11 references, tau-b per article across
the 16 systems, averaged over articles), printed with more digits so the published three-digit
figures (G-Eval, EMNLP 2023, Table 1) can be compared digit by digit; ROUGE-L (rougeLsum) is
shown with two sentence splitters, since the published one is not documented.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _summeval import DIMS, PUBLISHED, SENTENCE_END, load, mean_f

from lexeval.meta import correlation
from lexeval.metrics.rouge import RougeScorer


def main() -> None:
    data = load()
    print(f"{'':44s}" + "".join(f"{d:>13s}" for d in DIMS))
    for label, rouge_type, lines, published in [
        ("ROUGE-1", "rouge1", None, PUBLISHED["ROUGE-1"]),
        ("ROUGE-2", "rouge2", None, PUBLISHED["ROUGE-2"]),
        ("ROUGE-L, split after a standalone . ! ?", "rougeLsum", SENTENCE_END, None),
        ("ROUGE-L, split after a standalone .", "rougeLsum", r"(?<=\s\.)\s+", None),
    ]:
        scorer = RougeScorer([rouge_type], compat="rouge-score", use_stemmer=True)
        scores = mean_f(scorer, data.rows, lines)[rouge_type]
        values = [
            correlation(
                scores, data.human[d], groups=data.docs, level="summary", n_resamples=1
            ).value
            for d in DIMS
        ]
        print(f"{label:44s}" + "".join(f"{v:13.6f}" for v in values))
        diffs = [v - p for v, p in zip(values, published or PUBLISHED["ROUGE-L"], strict=True)]
        print(f"{'  minus published':44s}" + "".join(f"{d:+13.4f}" for d in diffs))


if __name__ == "__main__":
    main()
