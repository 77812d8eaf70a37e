"""The lexical signals of a QA answer that both the judge router
(:class:`lexeval.judge.router.UncertaintyRouter`) and the lexical correctness metric
(:class:`lexeval.metrics.LexicalCorrectnessMetric`) read: the lexical score, whether it is 0 or
1, SQuAD token F1 and recall against the best gold, a gold verbatim in the answer, the best
character alignment of a gold inside the answer, and the lengths of answer and golds.

>>> row = router_features([["Paris", "City of Light"]], ["It is Paris."], [1.0])[0]
>>> dict(zip(FEATURES, row.round(3).tolist()))["gold_verbatim"]
1.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["FEATURES", "router_features"]

FEATURES = (
    "lexical_score",
    "lexical_is_0",
    "lexical_is_1",
    "token_f1",
    "token_recall",
    "gold_verbatim",
    "gold_alignment",
    "log_answer_words",
    "log_golds",
    "log_gold_words",
)


def _golds(reference: str | Sequence[str]) -> list[str]:
    golds = [reference] if isinstance(reference, str) else [str(g) for g in reference]
    return golds or [""]


def router_features(
    references: Sequence[str | Sequence[str]],
    outputs: Sequence[str],
    lexical_scores: Sequence[float],
) -> npt.NDArray[np.float64]:
    """One row of :data:`FEATURES` per (reference, output, lexical score).

    >>> row = router_features([["Paris", "City of Light"]], ["It is Paris."], [1.0])[0]
    >>> dict(zip(FEATURES, row.round(3).tolist()))["gold_verbatim"]
    1.0
    """
    from rapidfuzz import fuzz

    from lexeval.metrics.token_f1 import TokenF1Metric

    if not len(references) == len(outputs) == len(lexical_scores):
        raise ValueError(
            f"{len(references)} references, {len(outputs)} outputs and "
            f"{len(lexical_scores)} lexical scores"
        )
    squad = TokenF1Metric(compat="squad")
    rows: list[list[float]] = []
    for reference, output, score in zip(references, outputs, lexical_scores, strict=True):
        golds = _golds(reference)
        f1 = squad.measure(golds, output)
        folded = output.casefold()
        verbatim = any(g.strip() and g.strip().casefold() in folded for g in golds)
        alignment = max(fuzz.partial_ratio(g.casefold(), folded) for g in golds) / 100.0
        s = float(score)
        if math.isnan(s):
            raise ValueError("lexical scores must not hold NaN")
        rows.append(
            [
                s,
                float(s <= 0.0),
                float(s >= 1.0),
                float(f1.score),
                float(f1.info.get("recall", f1.score)),
                float(verbatim),
                alignment,
                math.log1p(len(output.split())),
                math.log1p(len(golds)),
                math.log1p(sum(len(g.split()) for g in golds) / len(golds)),
            ]
        )
    return np.asarray(rows, dtype=float).reshape(len(rows), len(FEATURES))
