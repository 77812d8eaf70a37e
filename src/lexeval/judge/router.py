"""``UncertaintyRouter``: how likely people are to call an answer correct, from lexical evidence,
so that a cascade sends the judge the answers it is least sure about.

One lexical score cannot tell a wrong answer that names the gold among three guesses from a
right one, nor a paraphrase from a miss: both sit at the same score. The router looks at a few
more signals of the same pair and fits a logistic regression (scikit-learn) of the human label
on them over a tuning set:

- the lexical metric's score, and whether it is exactly 0 or at least 1;
- token F1 and token recall against the best gold (the SQuAD v1.1 normalization);
- whether a gold answer appears verbatim in the answer (case folded), and the best character
  alignment of a gold inside the answer (``rapidfuzz`` partial ratio, 0..1);
- the answer's length, the number of gold answers and their mean length (in words, log scale).

:meth:`UncertaintyRouter.probability` gives P(people say correct), rounded to 3 decimals (the
routing score of :class:`~lexeval.judge.cascade.Cascade`); answers with a probability near 0.5
are the uncertain ones.

>>> router = UncertaintyRouter().fit(
...     ["Paris", "Paris", "1969", "1969", "Lyon", "Lyon"],
...     ["Paris", "Berlin", "in 1969", "1970 or 1969 or 1971, not sure", "Lyon", "Marseille"],
...     [1.0, 0.0, 1.0, 1.0, 1.0, 0.0],
...     [True, False, True, False, True, False],
... )
>>> router.probability("Rome", "Rome", 1.0) > 0.5 > router.probability("Rome", "Milan", 0.0)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from lexeval.metrics.answer_signals import FEATURES, router_features

__all__ = ["FEATURES", "UncertaintyRouter", "router_features"]


class UncertaintyRouter:
    """P(people call an answer correct | lexical evidence): a logistic regression on
    :data:`FEATURES` (standardized), fitted on a tuning set's human labels with :meth:`fit`.

    ``C`` is the inverse regularization strength (scikit-learn's). Deterministic: the same
    tuning data give the same model and the same probabilities, one item or a batch.
    """

    def __init__(self, C: float = 1.0) -> None:
        self.C = C
        self._model: Any = None

    @property
    def fitted(self) -> bool:
        """Whether :meth:`fit` has run."""
        return self._model is not None

    @property
    def signature(self) -> str:
        """``uncertainty-router:logistic,C=...`` plus a digest of the fitted coefficients."""
        digest = "unfitted"
        if self._model is not None:
            coef = self._model[-1].coef_.ravel().tolist() + self._model[-1].intercept_.tolist()
            digest = "coef:" + ",".join(f"{c:.3g}" for c in coef)
        return f"uncertainty-router:logistic,C={self.C:g},{digest}"

    def fit(
        self,
        references: Sequence[str | Sequence[str]],
        outputs: Sequence[str],
        lexical_scores: Sequence[float],
        human: Sequence[bool],
    ) -> UncertaintyRouter:
        """A new router fitted on a tuning set (``human``: people's verdicts)."""
        return self.fit_features(router_features(references, outputs, lexical_scores), human)

    def fit_features(
        self, features: npt.NDArray[np.float64], human: Sequence[bool]
    ) -> UncertaintyRouter:
        """:meth:`fit` on rows of :func:`router_features` already computed."""
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        labels = np.asarray([bool(h) for h in human])
        if labels.size != features.shape[0]:
            raise ValueError(f"{labels.size} human labels for {features.shape[0]} items")
        if labels.size == 0 or labels.all() or not labels.any():
            raise ValueError("fitting the router needs human labels of both classes")
        fitted = UncertaintyRouter(self.C)
        fitted._model = make_pipeline(
            StandardScaler(), LogisticRegression(C=self.C, max_iter=1000)
        ).fit(features, labels)
        return fitted

    def probabilities(
        self,
        references: Sequence[str | Sequence[str]],
        outputs: Sequence[str],
        lexical_scores: Sequence[float],
    ) -> list[float]:
        """P(people say correct) per item, rounded to 3 decimals."""
        if not outputs:
            return []
        return self.predict_features(router_features(references, outputs, lexical_scores))

    def predict_features(self, features: npt.NDArray[np.float64]) -> list[float]:
        """:meth:`probabilities` from rows of :func:`router_features` already computed."""
        if self._model is None:
            raise ValueError("the router is not fitted: call fit() on a tuning set first")
        if features.shape[0] == 0:
            return []
        return [round(float(p), 3) for p in self._model.predict_proba(features)[:, 1]]

    def probability(
        self, reference: str | Sequence[str], output: str, lexical_score: float
    ) -> float:
        """P(people say correct) for one item (the same value as in a batch)."""
        return self.probabilities([reference], [output], [lexical_score])[0]
