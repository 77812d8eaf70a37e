"""Textual difference: how much of two texts is one common subsequence.

* ``compat="mastra"``: ``@mastra/evals`` 0.14.4 ``TextualDifferenceMetric`` exactly. Its
  ``calculateRatio`` is not difflib's matching-blocks ratio but ``2 * LCS / (m + n)`` over
  UTF-16 code units (1 for equal texts, 0 when exactly one is empty); ``info`` holds that
  ``ratio``, ``changes`` (the longer text's word count minus the words the two share, on
  white-space words; when the texts differ only in white space, the difference of the word
  counts or 1), ``lengthDiff`` (|m − n| / max(m, n)) and ``confidence`` (1 − lengthDiff).
* default: the same ratio over the normalizer's words (lemmas, Unicode folding; preset
  ``"tokens"``), ``changes`` as the words of either side outside the common subsequence.

>>> r = TextualDifferenceMetric(compat="mastra").measure("The cat sat.", "The cat sat!")
>>> round(r.score, 4), r.info["changes"], r.info["lengthDiff"]
(0.9167, 1, 0.0)
>>> TextualDifferenceMetric().measure("The cats sat.", "the cat sits").score
1.0
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Literal

from rapidfuzz.distance import LCSseq

from lexeval.metrics.base import register_metric
from lexeval.metrics.nlp.base import NlpMetric, NlpMode
from lexeval.metrics.nlp.jsstring import js_collapse_space, js_split_words, utf16_units
from lexeval.text.base import TextProcessor

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = [
    "MastraDifference",
    "NormalizedDifference",
    "TextualDifferenceMetric",
    "mastra_changes",
    "mastra_ratio",
]


def mastra_ratio(input: str, output: str) -> float:
    """Mastra's ``calculateRatio``: ``2 * LCS / (m + n)`` over UTF-16 code units.

    >>> mastra_ratio("", ""), mastra_ratio("a", ""), mastra_ratio("ab", "ba")
    (1.0, 0.0, 0.5)
    """
    if input == output:
        return 1.0
    if not input or not output:
        return 0.0
    a, b = utf16_units(input), utf16_units(output)
    matches = LCSseq.similarity(a, b)
    return 2 * matches / (len(a) + len(b))


def mastra_changes(input: str, output: str) -> int:
    """Mastra's ``countChanges`` on white-space words.

    >>> mastra_changes("a b c", "a c d e"), mastra_changes("a  b", "a b")
    (2, 1)
    """
    input_normalized, output_normalized = js_collapse_space(input), js_collapse_space(output)
    if input_normalized == output_normalized:
        if input != output:
            difference = abs(len(js_split_words(input)) - len(js_split_words(output)))
            return difference or 1
        return 0
    input_words = js_split_words(input_normalized)
    output_words = js_split_words(output_normalized)
    if not input_words:
        return len(output_words)
    if not output_words:
        return len(input_words)
    shared = Counter(input_words) & Counter(output_words)
    return max(len(input_words), len(output_words)) - shared.total()


class MastraDifference:
    """The ``compat="mastra"`` mode; ``info`` is Mastra's (camelCase)."""

    signature = "ratio:lcs-utf16"

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        ratio = mastra_ratio(reference, output)
        changes = mastra_changes(reference, output)
        m, n = len(utf16_units(reference)), len(utf16_units(output))
        longest = max(m, n)
        length_diff = abs(m - n) / longest if longest > 0 else 0.0
        info = {
            "confidence": 1 - length_diff,
            "ratio": ratio,
            "changes": changes,
            "lengthDiff": length_diff,
        }
        return ratio, info


class NormalizedDifference:
    """The default mode: the common-subsequence ratio over the normalizer's words."""

    def __init__(self, processor: TextProcessor) -> None:
        self.processor = processor

    @property
    def signature(self) -> str:
        return f"unit:word|{self.processor.signature}"

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        ref, out = self.processor.tokens(reference), self.processor.tokens(output)
        common = LCSseq.similarity(ref, out) if ref and out else 0
        total = len(ref) + len(out)
        ratio = 2 * common / total if total else 1.0
        longest = max(len(ref), len(out))
        length_diff = abs(len(ref) - len(out)) / longest if longest else 0.0
        info = {
            "ratio": ratio,
            "changes": total - 2 * common,
            "length_diff": length_diff,
            "confidence": 1.0 - length_diff,
            "counts": {"overlap": common, "reference": len(ref), "output": len(out)},
        }
        return ratio, info


class TextualDifferenceMetric(NlpMetric):
    """Common-subsequence similarity of the output to the reference (see the module).

    >>> TextualDifferenceMetric(compat="mastra").measure("", "").info
    {'confidence': 1.0, 'ratio': 1.0, 'changes': 0, 'lengthDiff': 0.0}
    """

    name = "textual_difference"

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
        return MastraDifference()

    def lexeval_mode(self, processor: TextProcessor) -> NlpMode:
        return NormalizedDifference(processor)


def _make(**options: Any) -> TextualDifferenceMetric:
    return TextualDifferenceMetric(**options)


register_metric("textual_difference", _make, "textual-difference")
