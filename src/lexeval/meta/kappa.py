"""Cohen's kappa between two raters, plain or weighted (scikit-learn's ``cohen_kappa_score``).

Weighted kappa weighs a disagreement by the distance between the two labels' *positions* in
``labels``, not by their values; so for an ordinal scale pass the whole scale in order, even
the values nobody used. Without it scikit-learn numbers only the labels it sees, and a 1-2-5
rating becomes 0-1-2 (the index-vs-value pitfall); ``cohen_kappa`` therefore requires
``labels`` whenever ``weights`` is given.

>>> cohen_kappa(["yes", "no", "yes", "yes"], ["yes", "no", "no", "yes"])
0.5
>>> round(cohen_kappa([1, 2, 5, 5], [1, 3, 4, 5], weights="linear", labels=[1, 2, 3, 4, 5]), 4)
0.7333
>>> cohen_kappa([1, 2], [1, 3], weights="linear")
Traceback (most recent call last):
ValueError: labels is required with weights='linear': the full ordinal scale in order ...
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from lexeval.meta.inputs import as_labels, same_length

__all__ = ["cohen_kappa"]

Weights = Literal["linear", "quadratic"]


def cohen_kappa(
    a: Iterable[Any],
    b: Iterable[Any],
    *,
    weights: Weights | None = None,
    labels: Sequence[Any] | None = None,
) -> float:
    """Cohen's kappa of two raters' labels ``a`` and ``b`` (row by row).

    ``weights`` "linear" or "quadratic" gives weighted kappa for ordinal labels and then needs
    ``labels``, the scale in order. Every label in ``a`` and ``b`` must be in ``labels`` when it
    is given. NaN when both raters use one and the same label throughout (kappa is 0/0).
    """
    from sklearn.metrics import cohen_kappa_score

    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', not {weights!r}")
    first = as_labels(a, "a")
    second = as_labels(b, "b")
    same_length(a=first, b=second)
    if weights is not None and labels is None:
        raise ValueError(
            f"labels is required with weights={weights!r}: the full ordinal scale in order "
            "(e.g. labels=[1, 2, 3, 4, 5])"
        )
    if labels is not None:
        scale = as_labels(labels, "labels")
        if len(set(scale)) != len(scale):
            raise ValueError(f"labels has a repeated value: {scale!r}")
        known = set(scale)
        for name, values in (("a", first), ("b", second)):
            for i, value in enumerate(values):
                if value not in known:
                    raise ValueError(f"{name}[{i}] is {value!r}, which is not in labels")
    else:
        scale = None
    if len(set(first) | set(second)) < 2:
        return float("nan")
    return float(cohen_kappa_score(first, second, labels=scale, weights=weights))
