"""SummEval summary-level Kendall tau-b of rouge-score-compatible ROUGE, to four decimals.

Run: ``.venv/bin/python benchmarks/summeval_tau.py``. The same computation as the notebook
``01_metrics_tour.ipynb`` (F-measure averaged over the 11 references, tau-b per article across
the 16 systems, averaged over articles), printed with more digits so the published three-digit
figures (G-Eval, EMNLP 2023, Table 1) can be compared digit by digit; ROUGE-L (rougeLsum) is
shown with two sentence splitters, since the published one is not documented.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import shared_path

from lexeval.metrics import RougeMetric

DIMS = ("coherence", "consistency", "fluency", "relevance")
PUBLISHED = {
    "ROUGE-1": (0.126, 0.130, 0.094, 0.252),
    "ROUGE-2": (0.139, 0.155, 0.128, 0.219),
    "ROUGE-L": (0.099, 0.092, 0.084, 0.237),
}


def _lines(pattern: str) -> Callable[[str], str]:
    split = re.compile(pattern)
    return lambda text: "\n".join(s for s in split.split(" " + text) if s.strip())


def main() -> None:
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    docs: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        docs[row["doc_id"]].append(i)
    human = {d: np.array([r["expert_avg"][d] for r in rows]) for d in DIMS}

    def taus(rouge_type: str, prep: Callable[[str], str]) -> list[float]:
        metric = RougeMetric(rouge_type, compat="rouge-score", use_stemmer=True)
        scores = np.array(
            [
                np.mean(
                    [metric.measure(prep(ref), prep(r["decoded"])).score for ref in r["references"]]
                )
                for r in rows
            ]
        )
        out = []
        for d in DIMS:
            per_doc = [
                kendalltau(scores[idx], human[d][idx], variant="b").statistic
                for idx in docs.values()
            ]
            out.append(float(np.nanmean(per_doc)))
        return out

    same = str
    print(f"{'':44s}" + "".join(f"{d:>13s}" for d in DIMS))
    for label, rouge_type, prep, published in [
        ("ROUGE-1", "rouge1", same, PUBLISHED["ROUGE-1"]),
        ("ROUGE-2", "rouge2", same, PUBLISHED["ROUGE-2"]),
        ("ROUGE-L, split after a standalone . ! ?", "rougeLsum", _lines(r"(?<=\s[.!?])\s+"), None),
        ("ROUGE-L, split after a standalone .", "rougeLsum", _lines(r"(?<=\s\.)\s+"), None),
    ]:
        values = taus(rouge_type, prep)
        print(f"{label:44s}" + "".join(f"{v:13.6f}" for v in values))
        if published is None:
            published = PUBLISHED["ROUGE-L"]
        diffs = [v - p for v, p in zip(values, published, strict=True)]
        print(f"{'  minus published':44s}" + "".join(f"{d:+13.4f}" for d in diffs))


if __name__ == "__main__":
    main()
