"""Meta-evaluation: how far does a score agree with human judgments?

Built on scipy.stats and scikit-learn's metrics, every figure with a seeded bootstrap interval
(:mod:`lexeval.stats`); see docs/meta.md for which statistic fits which kind of label.

- binary labels: :func:`agreement` (ROC AUC; kappa, accuracy, P/R/F1 at a threshold) and
  :func:`calibrate` (a threshold chosen on a tuning set, applied unchanged to held-out sets);
- two raters or an ordinal scale: :func:`cohen_kappa` (plain or weighted);
- scores: :func:`correlation` at the flat, summary or system level;
- A against B: :func:`compare` (paired bootstrap of the difference);
- pairwise preferences: :func:`pairwise_agreement` and :func:`position_consistency`.

>>> from lexeval.meta import agreement, calibrate
>>> tuning = calibrate([0.2, 0.9, 0.6, 0.1], [0, 1, 1, 0])
>>> held_out = agreement([0.3, 0.8, 0.7, 0.5], [0, 1, 1, 0], threshold=tuning.value,
...                      n_resamples=100)
>>> tuning.value, held_out.kappa, held_out.threshold_in_sample
(0.6, 1.0, False)
"""

from lexeval.meta.binary import Agreement, Threshold, agreement, calibrate
from lexeval.meta.comparison import MetricComparison, compare
from lexeval.meta.correlation import Correlation, correlation
from lexeval.meta.kappa import cohen_kappa
from lexeval.meta.pairwise import (
    PairwiseAgreement,
    PositionConsistency,
    pairwise_agreement,
    position_consistency,
)

__all__ = [
    "Agreement",
    "Correlation",
    "MetricComparison",
    "PairwiseAgreement",
    "PositionConsistency",
    "Threshold",
    "agreement",
    "calibrate",
    "cohen_kappa",
    "compare",
    "correlation",
    "pairwise_agreement",
    "position_consistency",
]
