"""Agreement of a score with binary human labels: ROC AUC, and kappa/accuracy/P/R/F1 at a threshold.

Every figure comes from :mod:`sklearn.metrics`; every interval from a seeded bootstrap over
rows (:mod:`lexeval.stats`). A row is predicted positive when ``score >= threshold``.

>>> scores = [0.9, 0.8, 0.7, 0.4, 0.35, 0.2, 0.6, 0.1]
>>> human = [1, 1, 1, 0, 1, 0, 0, 0]
>>> t = calibrate(scores, human)
>>> t.value, t.objective, round(t.in_sample_score, 3)
(0.7, 'kappa', 0.75)
>>> a = agreement(scores, human, threshold=t.value, n_resamples=200)
>>> a.auc, a.kappa, a.accuracy, a.confusion
(0.875, 0.75, 0.875, {'tn': 4, 'fp': 0, 'fn': 1, 'tp': 3})
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from lexeval.meta.inputs import as_binary, as_scores, check_resampling, same_length
from lexeval.meta.record import JsonRecord
from lexeval.stats import bootstrap_indices

__all__ = [
    "OBJECTIVES",
    "Agreement",
    "BinaryTable",
    "Threshold",
    "agreement",
    "binary_inputs",
    "calibrate",
]

Objective = Literal["kappa", "accuracy", "f1"]
OBJECTIVES: tuple[str, ...] = ("kappa", "accuracy", "f1")
FIGURES = ("auc", "kappa", "accuracy", "precision", "recall", "f1")


def _fmt(value: float) -> str:
    return f"{value:.3f}"


def _fmt_interval(interval: tuple[float, float]) -> str:
    return f"[{_fmt(interval[0])}, {_fmt(interval[1])}]"


class BinaryTable:
    """Scores and 0/1 labels collapsed to their distinct (score, label) pairs with counts.

    A bootstrap resample of rows is then a vector of weights over the distinct pairs, and
    scikit-learn's ``sample_weight`` gives exactly the figures of the resampled rows (each
    row repeated as often as drawn) at a fraction of the cost.

    >>> table = BinaryTable(np.array([0.2, 0.2, 0.9]), np.array([0, 0, 1]))
    >>> table.scores.tolist(), table.labels.tolist(), table.counts.tolist()
    ([0.2, 0.9], [0, 1], [2, 1])
    >>> table.auc(table.counts)
    1.0
    """

    def __init__(self, scores: npt.NDArray[np.float64], labels: npt.NDArray[np.int64]) -> None:
        pairs, inverse, counts = np.unique(
            np.stack([scores, labels.astype(float)], axis=1),
            axis=0,
            return_inverse=True,
            return_counts=True,
        )
        self.scores: npt.NDArray[np.float64] = pairs[:, 0]
        self.labels: npt.NDArray[np.int64] = pairs[:, 1].astype(np.int64)
        self.row_to_pair: npt.NDArray[np.intp] = np.asarray(inverse, dtype=np.intp).ravel()
        self.counts: npt.NDArray[np.int64] = counts

    def weights(self, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
        """How often each distinct pair occurs among ``rows`` (indices into the original rows)."""
        return np.bincount(self.row_to_pair[rows], minlength=self.scores.size)

    def auc(self, weights: npt.NDArray[np.int64]) -> float:
        """ROC AUC of the weighted rows (NaN when one class is absent)."""
        from sklearn.metrics import roc_auc_score

        if not (weights[self.labels == 1].any() and weights[self.labels == 0].any()):
            return float("nan")
        return float(roc_auc_score(self.labels, self.scores, sample_weight=weights))

    def at_threshold(self, weights: npt.NDArray[np.int64], threshold: float) -> dict[str, float]:
        """kappa, accuracy, precision, recall, f1 of ``score >= threshold`` on the weighted rows.

        Undefined figures (kappa with one class on both sides, precision with no positive
        prediction, recall with no positive label) are NaN.
        """
        from sklearn.metrics import (
            accuracy_score,
            cohen_kappa_score,
            precision_recall_fscore_support,
        )

        predicted = (self.scores >= threshold).astype(np.int64)
        keep = weights > 0
        y, p, w = self.labels[keep], predicted[keep], weights[keep]
        precision, recall, f1, _ = precision_recall_fscore_support(
            y, p, labels=[1], average=None, sample_weight=w, zero_division=np.nan
        )
        if np.unique(np.concatenate([y, p])).size < 2:
            kappa = float("nan")
        else:
            kappa = float(cohen_kappa_score(y, p, labels=[0, 1], sample_weight=w))
        return {
            "kappa": kappa,
            "accuracy": float(accuracy_score(y, p, sample_weight=w)),
            "precision": float(precision[0]),
            "recall": float(recall[0]),
            "f1": float(f1[0]),
        }

    def objective(self, weights: npt.NDArray[np.int64], threshold: float, name: str) -> float:
        """One of :data:`OBJECTIVES` at ``threshold``, with only the scikit-learn call it needs."""
        from sklearn.metrics import accuracy_score, cohen_kappa_score, f1_score

        predicted = (self.scores >= threshold).astype(np.int64)
        keep = weights > 0
        y, p, w = self.labels[keep], predicted[keep], weights[keep]
        if name == "accuracy":
            return float(accuracy_score(y, p, sample_weight=w))
        if name == "f1":
            return float(f1_score(y, p, sample_weight=w, zero_division=np.nan))
        if np.unique(np.concatenate([y, p])).size < 2:
            return float("nan")
        return float(cohen_kappa_score(y, p, labels=[0, 1], sample_weight=w))


def binary_inputs(
    scores: Iterable[Any], human: Iterable[Any]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Checked scores and binary labels of equal length, with both classes present."""
    s = as_scores(scores, "scores")
    y = as_binary(human, "human")
    same_length(scores=s, human=y)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(
            f"human has a single class ({int(classes[0])} on all {y.size} rows); "
            "agreement needs both 0 and 1"
        )
    return s, y


@dataclass(frozen=True)
class Threshold(JsonRecord):
    """A decision threshold (``score >= value`` is positive) chosen on a tuning set.

    ``in_sample_score`` is the objective on that tuning set: optimistic by construction; apply
    ``value`` unchanged to held-out sets (``agreement(..., threshold=t.value)``).
    """

    value: float
    objective: str
    in_sample_score: float
    n: int

    def __str__(self) -> str:
        return (
            f"threshold {self.value:.4g} ({self.objective} {_fmt(self.in_sample_score)} "
            f"in-sample, n={self.n})"
        )


def calibrate(
    scores: Iterable[Any], human: Iterable[Any], *, objective: Objective = "kappa"
) -> Threshold:
    """The threshold that maximises ``objective`` (kappa, accuracy or f1) on a tuning set.

    Candidates are the distinct scores; the smallest one among equal maxima wins. Choose it on
    a tuning set only and report held-out agreement with it.

    >>> calibrate([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1], objective="accuracy")
    Threshold(value=0.6, objective='accuracy', in_sample_score=1.0, n=4)
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, not {objective!r}")
    s, y = binary_inputs(scores, human)
    table = BinaryTable(s, y)
    best_value, best_score = float(table.scores[0]), float("-inf")
    for candidate in np.unique(table.scores):
        score = table.objective(table.counts, float(candidate), objective)
        if score > best_score:  # NaN never wins
            best_value, best_score = float(candidate), score
    return Threshold(best_value, objective, best_score, int(s.size))


@dataclass(frozen=True)
class Agreement(JsonRecord):
    """Agreement of a score with binary human labels, each figure with a bootstrap interval.

    ``intervals`` maps each of auc, kappa, accuracy, precision, recall, f1 to ``(low, high)``.
    ``threshold_in_sample`` is True when the threshold was chosen on these same rows (the
    figures at it are then optimistic).
    """

    auc: float
    kappa: float
    accuracy: float
    precision: float
    recall: float
    f1: float
    threshold: float
    n: int
    intervals: dict[str, tuple[float, float]]
    confusion: dict[str, int]
    threshold_in_sample: bool
    seed: int
    n_resamples: int
    confidence: float
    undefined_resamples: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        where = " in-sample" if self.threshold_in_sample else ""
        return (
            f"auc {_fmt(self.auc)} {_fmt_interval(self.intervals['auc'])}, "
            f"kappa {_fmt(self.kappa)} {_fmt_interval(self.intervals['kappa'])}, "
            f"accuracy {_fmt(self.accuracy)} {_fmt_interval(self.intervals['accuracy'])}, "
            f"n={self.n}, t={self.threshold:.4g}{where}"
        )


def agreement(
    scores: Iterable[Any],
    human: Iterable[Any],
    *,
    threshold: float | None = None,
    seed: int = 12345,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> Agreement:
    """ROC AUC of ``scores`` against binary ``human`` labels, and at ``threshold``: Cohen's
    kappa, accuracy, precision/recall/F1 of the positive class and the confusion counts.

    Without ``threshold`` the kappa-best one on these rows is used and flagged in-sample
    (``calibrate`` on a tuning set is the honest way). Intervals: percentile bootstrap over
    rows, ``n_resamples`` resamples from ``numpy.random.default_rng(seed)``.

    >>> a = agreement([0.9, 0.2, 0.7, 0.4], [True, False, True, True], n_resamples=100)
    >>> a.threshold, a.threshold_in_sample, a.kappa
    (0.4, True, 1.0)
    >>> agreement([0.9, 0.2], [1, 1])
    Traceback (most recent call last):
    ValueError: human has a single class (1 on all 2 rows); agreement needs both 0 and 1
    """
    check_resampling(seed, n_resamples, confidence)
    s, y = binary_inputs(scores, human)
    in_sample = threshold is None
    if threshold is None:
        t = calibrate(s, y, objective="kappa").value
    else:
        t = float(as_scores([threshold], "threshold")[0])
    table = BinaryTable(s, y)
    from sklearn.metrics import confusion_matrix

    point = {"auc": table.auc(table.counts), **table.at_threshold(table.counts, t)}
    tn, fp, fn, tp = confusion_matrix(y, (s >= t).astype(np.int64), labels=[0, 1]).ravel()

    def statistic(rows: npt.NDArray[np.intp]) -> list[float]:
        weights = table.weights(rows)
        figures = {"auc": table.auc(weights), **table.at_threshold(weights, t)}
        return [figures[name] for name in FIGURES]

    boot = bootstrap_indices(
        statistic, [s.size], seed=seed, n_resamples=n_resamples, confidence=confidence
    )
    return Agreement(
        auc=point["auc"],
        kappa=point["kappa"],
        accuracy=point["accuracy"],
        precision=point["precision"],
        recall=point["recall"],
        f1=point["f1"],
        threshold=t,
        n=int(s.size),
        intervals=dict(zip(FIGURES, boot.intervals, strict=True)),
        confusion={"tn": int(tn), "fp": int(fp), "fn": int(fn), "tp": int(tp)},
        threshold_in_sample=in_sample,
        seed=seed,
        n_resamples=n_resamples,
        confidence=float(confidence),
        undefined_resamples=dict(zip(FIGURES, boot.undefined, strict=True)),
    )
