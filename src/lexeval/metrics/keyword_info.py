"""The evidence of a keyword coverage result (``info``), in lexeval's snake_case or, for the
Mastra-compatible modes, with Mastra's ``matchedKeywords`` and ``totalKeywords``.

>>> info = coverage_info(["paris", "france"], ["paris"], ["paris"], {"paris"})
>>> info["matched_keywords"], info["total_keywords"], info["missing"], info["precision"]
(1, 2, ['france'], 1.0)
>>> sorted(coverage_info(["a"], [], [], set(), mastra=True))[:3]
['counts', 'fmeasure', 'input_keywords']
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from lexeval.metrics.overlap import fmeasure

__all__ = ["coverage_info"]


def coverage_info(
    ref_kw: list[str],
    out_kw: list[str],
    hit: list[str],
    used: Collection[str],
    *,
    mastra: bool = False,
) -> dict[str, Any]:
    """Counts, matched and missing keywords, both keyword lists, precision (share of the
    output's keywords in ``used``), recall (share of ``ref_kw`` in ``hit``), F-measure."""
    hit_set = set(hit)
    total = len(ref_kw)
    n_out = len(out_kw)
    out_hits = sum(map(used.__contains__, out_kw)) if used else 0
    recall = len(hit) / total if total else 0.0
    precision = out_hits / n_out if n_out else 0.0
    matched_key, total_key = (
        ("matchedKeywords", "totalKeywords") if mastra else ("matched_keywords", "total_keywords")
    )
    return {
        matched_key: len(hit),
        total_key: total,
        "matched": list(hit),
        "missing": [k for k in ref_kw if k not in hit_set],
        "input_keywords": list(ref_kw),
        "output_keywords": list(out_kw),
        "precision": precision,
        "recall": recall,
        "fmeasure": fmeasure(precision, recall),
        "counts": {"overlap": len(hit), "reference": total, "output": n_out},
    }
