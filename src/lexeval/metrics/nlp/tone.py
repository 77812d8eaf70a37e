"""Tone consistency: how close two texts' sentiment is.

* ``compat="mastra"``: ``@mastra/evals`` 0.14.4 ``ToneConsistencyMetric`` exactly: with an
  output, ``max(0, 1 − |c(input) − c(output)|)`` where ``c`` is the ``sentiment`` package's
  comparative score (AFINN-165 and emoji scores per token, see
  :mod:`lexeval.metrics.nlp.sentiment`), ``info`` ``responseSentiment`` (the input's, as
  Mastra names it), ``referenceSentiment`` (the output's) and ``difference``; with an empty
  output, the input's stability: ``max(0, 1 − variance)`` of the comparative scores of its
  sentences (``/[^.!?]+[.!?]+/g``, the whole input when there is none), ``info``
  ``avgSentiment`` and ``sentimentVariance``.
* default: the same scores over the normalizer's words (preset ``"tokens"``: lemmas, Unicode
  folding, "n't" kept as a negation), a word scored by its AFINN entry or else its lemma's,
  negated after ``not``/``no``/``never``/``without`` and the package's negators; the
  stability form the same way on the normalizer's sentences.

>>> m = ToneConsistencyMetric(compat="mastra")
>>> m.measure("I love this product!", "This product is fine.").score
0.75
>>> m.measure("Great. Awful.", "").info["sentimentVariance"]
9.0
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from lexeval.metrics.base import register_metric
from lexeval.metrics.nlp.base import NlpMetric, NlpMode
from lexeval.metrics.nlp.sentiment import afinn, analyze, negators, score_tokens
from lexeval.text.base import TextProcessor

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = ["MastraTone", "NormalizedTone", "ToneConsistencyMetric", "variance_stability"]

_SENTENCE = re.compile(r"[^.!?]+[.!?]+")
#: Negators of the default mode, beside the package's.
NEGATORS = frozenset({"not", "no", "never", "without", "nor", "neither", "cannot"})


def variance_stability(scores: list[float]) -> tuple[float, float, float]:
    """``(max(0, 1 − variance), mean, variance)`` of per-sentence scores, summed in order as
    JavaScript's ``reduce`` does.

    >>> variance_stability([1.0, -1.0])
    (0.0, 0.0, 1.0)
    """
    total = 0.0
    for s in scores:
        total += s
    mean = total / len(scores)
    spread = 0.0
    for s in scores:
        spread += (s - mean) * (s - mean)
    variance = spread / len(scores)
    return max(0.0, 1 - variance), mean, variance


class MastraTone:
    """The ``compat="mastra"`` mode; ``info`` is Mastra's (camelCase)."""

    signature = "lexicon:afinn165+emoji"

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        response = analyze(reference).comparative
        if output:
            other = analyze(output).comparative
            difference = abs(response - other)
            info = {
                "responseSentiment": response,
                "referenceSentiment": other,
                "difference": difference,
            }
            return max(0.0, 1 - difference), info
        sentences = _SENTENCE.findall(reference) or [reference]
        stability, mean, variance = variance_stability([analyze(s).comparative for s in sentences])
        return stability, {"avgSentiment": mean, "sentimentVariance": variance}


class NormalizedTone:
    """The default mode: AFINN scores of the normalizer's words, negation kept."""

    def __init__(self, processor: TextProcessor) -> None:
        self.processor = processor
        self.negating = negators() | NEGATORS

    @property
    def signature(self) -> str:
        return f"lexicon:afinn165+emoji|neg:{len(self.negating)}|{self.processor.signature}"

    def _comparative(self, text: str) -> float:
        tokens = self.processor.tokens(text)
        return score_tokens(tokens, afinn(), self.negating).comparative

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        response = self._comparative(reference)
        if output:
            other = self._comparative(output)
            difference = abs(response - other)
            info = {
                "input_sentiment": response,
                "output_sentiment": other,
                "difference": difference,
            }
            return max(0.0, 1 - difference), info
        sentences = self.processor.sentences(reference) or [reference]
        stability, mean, variance = variance_stability([self._comparative(s) for s in sentences])
        return stability, {"mean_sentiment": mean, "sentiment_variance": variance}


class ToneConsistencyMetric(NlpMetric):
    """Sentiment agreement of the output with the reference, or the reference's own tone
    stability when the output is ``""`` (see the module).

    >>> ToneConsistencyMetric(compat="mastra").measure("", "").score
    1.0
    """

    name = "tone_consistency"

    def __init__(
        self,
        *,
        compat: Literal["mastra"] | None = None,
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        super().__init__(compat=compat, normalizer=normalizer, scale=scale, threshold=threshold)

    def mastra_mode(self) -> NlpMode:
        return MastraTone()

    def lexeval_mode(self, processor: TextProcessor) -> NlpMode:
        return NormalizedTone(processor)


def _make(**options: Any) -> ToneConsistencyMetric:
    return ToneConsistencyMetric(**options)


register_metric("tone_consistency", _make, "tone-consistency", "tone")
