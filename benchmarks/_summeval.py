"""SummEval for the benchmarks: the rows, the expert ratings and ROUGE averaged over references.

Used by ``quality_summeval.py``, ``summeval_tau.py`` and ``rouge_defaults.py``: 1,600 summaries
(100 articles x 16 systems), each with 11 references and the experts' average rating on four
dimensions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from _shared import shared_path

from lexeval.metrics.rouge import RougeScorer

DIMS = ("coherence", "consistency", "fluency", "relevance")

#: Summary-level Kendall tau-b of rouge-score with Porter stemming, as published (G-Eval,
#: EMNLP 2023, Table 1), per dimension in the order of :data:`DIMS`.
PUBLISHED = {
    "ROUGE-1": (0.126, 0.130, 0.094, 0.252),
    "ROUGE-2": (0.139, 0.155, 0.128, 0.219),
    "ROUGE-L": (0.099, 0.092, 0.084, 0.237),
}

#: After a standalone ``. ! ?`` of the PTB-tokenized text: the sentence split used for rougeLsum.
SENTENCE_END = r"(?<=\s[.!?])\s+"


@dataclass(frozen=True)
class SummEval:
    """The rows and, per row, its article, its system and the experts' ratings per dimension."""

    rows: list[dict[str, Any]]
    docs: list[str]
    systems: list[str]
    human: dict[str, list[float]]


def load() -> SummEval:
    """SummEval from ``../shared`` (the benchmark exits with a message when it is absent)."""
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return SummEval(
        rows=rows,
        docs=[r["doc_id"] for r in rows],
        systems=[r["model_id"] for r in rows],
        human={d: [r["expert_avg"][d] for r in rows] for d in DIMS},
    )


def sentence_lines(text: str, pattern: str = SENTENCE_END) -> str:
    """``text`` with one sentence a line, split by ``pattern``."""
    return "\n".join(s for s in re.split(pattern, " " + text) if s.strip())


def mean_f(
    scorer: RougeScorer, rows: list[dict[str, Any]], lines: str | None = None
) -> dict[str, list[float]]:
    """Per summary, each of the scorer's types' F-measure averaged over the references.

    ``lines``: a sentence pattern to put one sentence a line on both sides first (rougeLsum).
    """
    refs: list[str] = []
    outs: list[str] = []
    for row in rows:
        decoded = str(row["decoded"])
        for ref in row["references"]:
            refs.append(sentence_lines(ref, lines) if lines else ref)
            outs.append(sentence_lines(decoded, lines) if lines else decoded)
    results = scorer.score_many(refs, outs)
    per_type: dict[str, list[float]] = {t: [] for t in scorer.rouge_types}
    k = 0
    for row in rows:
        n = len(row["references"])
        for t in scorer.rouge_types:
            per_type[t].append(float(np.mean([r[t].score for r in results[k : k + n]])))
        k += n
    return per_type
