"""Pairwise preferences ("A", "B" or "tie"): a judge against people, and a judge against itself.

>>> judge = ["A", "B", "A", "tie", "B", "A"]
>>> human = ["A", "B", "B", "tie", "B", "tie"]
>>> p = pairwise_agreement(judge, human, n_resamples=200)
>>> round(p.agreement, 3), p.agreement_without_ties, p.n_without_ties
(0.667, 0.75, 4)
>>> c = position_consistency(["A", "B", "A", "tie"], ["B", "A", "A", "tie"], n_resamples=200)
>>> c.consistency, c.first_position, c.second_position
(0.75, 0.25, 0.0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from lexeval.meta.inputs import PREFERENCES, as_preferences, check_resampling, same_length
from lexeval.meta.record import JsonRecord
from lexeval.stats import bootstrap_indices, bootstrap_mean

__all__ = [
    "PairwiseAgreement",
    "PositionConsistency",
    "pairwise_agreement",
    "position_consistency",
]

_FIGURES = ("agreement", "agreement_without_ties", "kappa")


@dataclass(frozen=True)
class PairwiseAgreement(JsonRecord):
    """How often a judge's preference equals the human one, with and without ties, and Cohen's
    kappa over the three outcomes; intervals by a seeded bootstrap over rows."""

    agreement: float
    agreement_without_ties: float
    kappa: float
    n: int
    n_without_ties: int
    judge_ties: int
    human_ties: int
    intervals: dict[str, tuple[float, float]]
    seed: int
    n_resamples: int
    confidence: float

    def __str__(self) -> str:
        low, high = self.intervals["agreement"]
        return (
            f"agreement {self.agreement:.3f} [{low:.3f}, {high:.3f}], "
            f"without ties {self.agreement_without_ties:.3f}, kappa {self.kappa:.3f}, n={self.n}"
        )


class _Outcomes:
    """The 3 x 3 (judge, human) outcome pairs with counts, for weighted scikit-learn calls."""

    def __init__(self, judge: npt.NDArray[np.str_], human: npt.NDArray[np.str_]) -> None:
        codes = {p: i for i, p in enumerate(PREFERENCES)}
        self.row_to_pair = np.array(
            [3 * codes[j] + codes[h] for j, h in zip(judge, human, strict=True)], dtype=np.intp
        )
        self.judge = np.repeat(np.array(PREFERENCES), 3)
        self.human = np.tile(np.array(PREFERENCES), 3)
        self.tied = (self.judge == "tie") | (self.human == "tie")

    def figures(self, rows: npt.NDArray[np.intp]) -> list[float]:
        from sklearn.metrics import accuracy_score, cohen_kappa_score

        w = np.bincount(self.row_to_pair[rows], minlength=9)
        keep = w > 0
        j, h, weights = self.judge[keep], self.human[keep], w[keep]
        agreement = float(accuracy_score(h, j, sample_weight=weights))
        untied = keep & ~self.tied
        without = (
            float(accuracy_score(self.human[untied], self.judge[untied], sample_weight=w[untied]))
            if untied.any()
            else float("nan")
        )
        if len(set(j) | set(h)) < 2:
            kappa = float("nan")
        else:
            kappa = float(cohen_kappa_score(h, j, labels=list(PREFERENCES), sample_weight=weights))
        return [agreement, without, kappa]


def pairwise_agreement(
    judge: Iterable[Any],
    human: Iterable[Any],
    *,
    seed: int = 12345,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> PairwiseAgreement:
    """Agreement of a judge's pairwise preferences with the human ones (ties allowed).

    ``agreement`` counts a tie as agreeing only with a tie; ``agreement_without_ties`` is over
    the rows where neither side said tie; ``kappa`` is Cohen's over A/B/tie.
    """
    check_resampling(seed, n_resamples, confidence)
    j = as_preferences(judge, "judge")
    h = as_preferences(human, "human")
    n = same_length(judge=j, human=h)
    outcomes = _Outcomes(j, h)
    point = outcomes.figures(np.arange(n))
    untied = (j != "tie") & (h != "tie")
    if n < 2:
        intervals = [(value, value) for value in point]
    else:
        intervals = list(
            bootstrap_indices(
                outcomes.figures,
                [n],
                seed=seed,
                n_resamples=n_resamples,
                confidence=confidence,
            ).intervals
        )
    return PairwiseAgreement(
        agreement=point[0],
        agreement_without_ties=point[1],
        kappa=point[2],
        n=n,
        n_without_ties=int(np.count_nonzero(untied)),
        judge_ties=int(np.count_nonzero(j == "tie")),
        human_ties=int(np.count_nonzero(h == "tie")),
        intervals=dict(zip(_FIGURES, intervals, strict=True)),
        seed=seed,
        n_resamples=n_resamples,
        confidence=float(confidence),
    )


@dataclass(frozen=True)
class PositionConsistency(JsonRecord):
    """How often a judge keeps its verdict when the two answers swap places.

    ``first_position`` / ``second_position``: the share of rows where it picked the same
    *position* both times (the answer shown first, or second): position bias.
    """

    consistency: float
    interval: tuple[float, float]
    first_position: float
    second_position: float
    n: int
    seed: int
    n_resamples: int
    confidence: float

    def __str__(self) -> str:
        low, high = self.interval
        return (
            f"consistency {self.consistency:.3f} [{low:.3f}, {high:.3f}], n={self.n}, "
            f"first position {self.first_position:.3f}, second {self.second_position:.3f}"
        )


def position_consistency(
    first_pass: Iterable[Any],
    swapped_pass: Iterable[Any],
    *,
    seed: int = 12345,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> PositionConsistency:
    """Consistency of a judge asked twice, the second time with the answers swapped.

    Both passes are given as the judge said them ("A" = the answer shown first). Consistent
    means the same answer wins both times (``A`` then ``B``, ``B`` then ``A``) or both are ties.
    """
    from sklearn.metrics import accuracy_score

    check_resampling(seed, n_resamples, confidence)
    first = as_preferences(first_pass, "first_pass")
    swapped = as_preferences(swapped_pass, "swapped_pass")
    n = same_length(first_pass=first, swapped_pass=swapped)
    unswapped = np.array([{"A": "B", "B": "A"}.get(v, v) for v in swapped])
    consistency = float(accuracy_score(first, unswapped))
    if n < 2 or consistency in (0.0, 1.0):
        interval = (consistency, consistency)
    else:
        agree = (first == unswapped).astype(float).tolist()
        low, high, _ = bootstrap_mean(
            agree, seed=seed, n_resamples=n_resamples, confidence=confidence
        )
        interval = (low, high)
    return PositionConsistency(
        consistency=consistency,
        interval=interval,
        first_position=float(np.mean((first == "A") & (swapped == "A"))),
        second_position=float(np.mean((first == "B") & (swapped == "B"))),
        n=n,
        seed=seed,
        n_resamples=n_resamples,
        confidence=float(confidence),
    )
