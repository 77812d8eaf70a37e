"""Exact match (``"exact_match"``): 1.0 when the output equals a reference, else 0.0.

By default both sides are compared after the SQuAD v1.1 answer normalization (lower case,
punctuation and the articles a/an/the dropped, white space collapsed:
:func:`lexeval.compat.squad_exact_match`, the official script's exact match), so
``"The Broncos."`` matches ``"the Broncos"``; ``normalize=False`` compares the strings as
they are. With several references the best is kept (the maximum, as the SQuAD script takes
over gold answers). ``question=`` is accepted and ignored.

>>> ExactMatchMetric().measure("the Broncos", "The Broncos.").score
1.0
>>> ExactMatchMetric(normalize=False).measure("the Broncos", "The Broncos.").score
0.0
>>> r = ExactMatchMetric(threshold=1).measure(["Denver Broncos", "Broncos"], "broncos!")
>>> r.score, r.passed, r.info
(1.0, True, {'exact_match': 1.0, 'reference_index': 1})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexeval.compat import squad_exact_match
from lexeval.metrics.base import BaseMetric, MetricResult, register_metric
from lexeval.text.peers import SquadProcessor
from lexeval.text.signature import Signature

__all__ = ["ExactMatchMetric"]


class ExactMatchMetric(BaseMetric):
    """1.0 when the output equals the reference (SQuAD-normalized unless ``normalize=False``),
    else 0.0; ``info["exact_match"]`` repeats it (and ``reference_index`` names the matching
    reference when there are several).

    Empty texts: two texts that normalize to the same string, empty ones included, match
    (the SQuAD script's rule: ``""`` matches ``"The."``). Types are checked as for every metric.

    >>> ExactMatchMetric().signature
    'exact_match|norm:squad-v1.1'
    >>> ExactMatchMetric().measure("", "The.").score
    1.0
    """

    name = "exact_match"

    def __init__(
        self,
        *,
        normalize: bool = True,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        super().__init__(scale=scale, threshold=threshold)
        if not isinstance(normalize, bool):
            raise TypeError(f"normalize must be bool, not {type(normalize).__name__}")
        self.normalize = normalize
        self._signature: str | None = None

    @property
    def signature(self) -> str:
        if self._signature is None:  # fixed by the settings: built once (results carry it)
            parts = [self.name]
            if self.scale != 1.0:
                parts.append(f"scale:{self.scale:g}")
            parts.append(SquadProcessor().signature if self.normalize else "norm:none")
            self._signature = Signature.of(parts)
        return self._signature

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        if self.normalize:
            score = squad_exact_match(output, reference)
        else:
            score = 1.0 if output == reference else 0.0
        return score, {"exact_match": score}

    def _measure_pair(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        return self._measure_one(reference, output)

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """Score ``output`` against ``input`` (one reference or a list: a match with any
        counts); ``question`` is accepted and ignored."""
        if type(input) is str and type(output) is str:
            score, info = self._measure_one(input, output)
            return self.make_result(score, info)
        return super().measure(input, output)


def _make(**options: Any) -> ExactMatchMetric:
    return ExactMatchMetric(**options)


register_metric("exact_match", _make, "exact-match", "em")
