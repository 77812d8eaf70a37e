"""Content similarity: the Dice coefficient of two texts' character bigrams.

* ``compat="mastra"``: ``@mastra/evals`` 0.14.4 ``ContentSimilarityMetric`` exactly: with
  ``ignore_case`` JavaScript's ``toLowerCase``, with ``ignore_whitespace`` white-space runs
  made one space and trimmed, then string-similarity 4.0.4's ``compareTwoStrings`` (white
  space deleted, bigrams of UTF-16 code units, multiset overlap; 1 for equal strings, 0 when
  either has fewer than two units).
* default: the same coefficient over the words of lexeval's normalizer (lemmas, Unicode
  folding, punctuation dropped; preset ``"tokens"``), joined.

>>> ContentSimilarityMetric(compat="mastra").measure("Hello World", "hello  world").score
1.0
>>> round(ContentSimilarityMetric(compat="mastra").measure("night", "nacht").score, 2)
0.25
>>> ContentSimilarityMetric().measure("The cats sat", "the cat sits").score
1.0
"""

from __future__ import annotations

from collections import Counter
from operator import add
from typing import TYPE_CHECKING, Any, Literal

from lexeval.metrics.base import register_metric
from lexeval.metrics.nlp.base import NlpMetric, NlpMode
from lexeval.metrics.nlp.jsstring import (
    js_collapse_space,
    js_remove_space,
    utf16_units,
)
from lexeval.text.base import TextProcessor

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = [
    "ContentSimilarityMetric",
    "MastraSimilarity",
    "NormalizedSimilarity",
    "compare_two_strings",
    "mastra_content_similarity",
]


def _overlap(first: Counter[str], second: Counter[str]) -> int:
    return (first & second).total()


def _bigrams(units: str) -> Counter[str]:
    return Counter(map(add, units, units[1:]))


def compare_two_strings(first: str, second: str) -> float:
    """string-similarity 4.0.4's ``compareTwoStrings``.

    >>> compare_two_strings("healed", "sealed")
    0.8
    >>> compare_two_strings("a", "a"), compare_two_strings("a", "b")
    (1.0, 0.0)
    """
    first, second = js_remove_space(first), js_remove_space(second)
    if first == second:
        return 1.0
    first, second = utf16_units(first), utf16_units(second)
    if len(first) < 2 or len(second) < 2:
        return 0.0
    overlap = _overlap(_bigrams(first), _bigrams(second))
    return 2.0 * overlap / (len(first) + len(second) - 2)


def mastra_content_similarity(
    input: str, output: str, *, ignore_case: bool = True, ignore_whitespace: bool = True
) -> float:
    """``new ContentSimilarityMetric({ignoreCase, ignoreWhitespace}).measure(input, output)``'s
    score.

    >>> mastra_content_similarity("ABC", "abc", ignore_case=False)
    0.0
    """
    if ignore_case:
        input, output = input.lower(), output.lower()
    if ignore_whitespace:
        input, output = js_collapse_space(input), js_collapse_space(output)
    return compare_two_strings(input, output)


class MastraSimilarity:
    """The ``compat="mastra"`` mode; ``info`` is Mastra's (``similarity``)."""

    def __init__(self, ignore_case: bool, ignore_whitespace: bool) -> None:
        self.ignore_case = ignore_case
        self.ignore_whitespace = ignore_whitespace

    @property
    def signature(self) -> str:
        return f"case:{'fold' if self.ignore_case else 'keep'}|space:" + (
            "collapse" if self.ignore_whitespace else "keep"
        )

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        value = mastra_content_similarity(
            reference,
            output,
            ignore_case=self.ignore_case,
            ignore_whitespace=self.ignore_whitespace,
        )
        return value, {"similarity": value}


class NormalizedSimilarity:
    """The default mode: string-similarity's coefficient over the normalizer's words (lemmas,
    Unicode folding), joined."""

    def __init__(self, processor: TextProcessor) -> None:
        self.processor = processor

    @property
    def signature(self) -> str:
        return f"bigrams:joined-words|{self.processor.signature}"

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        ref = " ".join(self.processor.tokens(reference))
        out = " ".join(self.processor.tokens(output))
        value = compare_two_strings(ref, out)
        return value, {"similarity": value}


class ContentSimilarityMetric(NlpMetric):
    """Character-bigram Dice similarity of the output to the reference (see the module).

    ``ignore_case`` and ``ignore_whitespace`` are Mastra's options (``compat="mastra"``); the
    default mode folds case and white space through its normalizer.

    >>> m = ContentSimilarityMetric(compat="mastra", ignore_case=False, ignore_whitespace=False)
    >>> m.measure("Night", "night").score
    0.75
    >>> ContentSimilarityMetric(compat="mastra").measure("", "").info
    {'similarity': 1.0}
    """

    name = "content_similarity"

    def __init__(
        self,
        *,
        compat: Literal["mastra"] | None = None,
        ignore_case: bool = True,
        ignore_whitespace: bool = True,
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        if compat is None and not (ignore_case and ignore_whitespace):
            raise ValueError(
                "ignore_case and ignore_whitespace are options of compat='mastra'; the "
                "default mode folds case and white space through its normalizer"
            )
        self.ignore_case, self.ignore_whitespace = bool(ignore_case), bool(ignore_whitespace)
        super().__init__(compat=compat, normalizer=normalizer, scale=scale, threshold=threshold)

    def mastra_mode(self) -> NlpMode:
        return MastraSimilarity(self.ignore_case, self.ignore_whitespace)

    def lexeval_mode(self, processor: TextProcessor) -> NlpMode:
        return NormalizedSimilarity(processor)


def _make(**options: Any) -> ContentSimilarityMetric:
    return ContentSimilarityMetric(**options)


register_metric("content_similarity", _make, "content-similarity")
