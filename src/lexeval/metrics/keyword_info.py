"""The evidence of a keyword coverage result (``info``), in lexeval's snake_case or, for the
Mastra-compatible modes, with Mastra's ``matchedKeywords`` and ``totalKeywords``.

>>> info = coverage_info(["paris", "france"], ["paris"], ["paris"], {"paris"})
>>> info["matched_keywords"], info["total_keywords"], info["missing"], info["precision"]
(1, 2, ['france'], 1.0)
>>> sorted(coverage_info(["a"], [], [], set(), mastra=True))[:3]
['counts', 'fmeasure', 'input_keywords']
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import filterfalse
from typing import Any

from lexeval.metrics.overlap import fmeasure

__all__ = ["coverage_info"]

#: Up to this many matched keywords, ``missing`` scans their list (no set is built).
_SCAN_MAX = 8


def coverage_info(
    ref_kw: Sequence[str],
    out_kw: Sequence[str],
    hit: list[str],
    used: Collection[str] = (),
    *,
    mastra: bool = False,
    output_hits: int | None = None,
    recall: float | None = None,
) -> dict[str, Any]:
    """Counts, matched and missing keywords, both keyword lists, precision (share of the
    output's keywords in ``used``, or ``output_hits`` of them when given), recall (share of
    ``ref_kw`` in ``hit``, unless given), F-measure. ``hit`` is the new dict's ``matched``.

    >>> coverage_info(["a", "b"], ["a", "c"], ["a"], output_hits=1, recall=0.75)["fmeasure"]
    0.6
    """
    total = len(ref_kw)
    n_out = len(out_kw)
    n_hit = len(hit)
    if output_hits is None:
        output_hits = sum(map(used.__contains__, out_kw)) if used else 0
    if recall is None:
        recall = n_hit / total if total else 0.0
    precision = output_hits / n_out if n_out else 0.0
    found = hit if n_hit <= _SCAN_MAX else set(hit)  # a short list: searched, no set built
    return {
        "matchedKeywords" if mastra else "matched_keywords": n_hit,
        "totalKeywords" if mastra else "total_keywords": total,
        "matched": hit,
        "missing": list(filterfalse(found.__contains__, ref_kw)),
        "input_keywords": list(ref_kw),
        "output_keywords": list(out_kw),
        "precision": precision,
        "recall": recall,
        "fmeasure": fmeasure(precision, recall),
        "counts": {"overlap": n_hit, "reference": total, "output": n_out},
    }
