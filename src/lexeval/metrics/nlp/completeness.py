"""Completeness: the share of the input's elements (words, verbs as infinitives) the output
covers.

* ``compat="mastra"``: ``@mastra/evals`` 0.14.4 ``CompletenessMetric``. Mastra takes
  compromise's nouns, verbs turned to infinitives (which rewrites the document), topics and
  terms, folds them (NFD, combining marks dropped, lower case), splits them on anything but
  ``a-z0-9`` and keeps each element once; an input element is covered by an output element
  that is equal (elements of ≤ 3 characters) or that contains it, or is contained in it, at
  more than 60% of the longer one's length. The score is covered / input elements (1 when both
  sides have none, 0 when only the input has none). This mode reproduces the folding, splitting
  and coverage exactly and emulates compromise's tagger (:mod:`lexeval.metrics.nlp.compromise`:
  its lexicon, switches, suffix rules, a few of its post-tagger patterns, and its
  ``toInfinitive``); ``docs/metrics.md`` gives the measured agreement and the differences left.
* ``compat=None``: the same coverage rule on the lexeval normalizer's keywords (preset
  ``"default"``: lemmas, Unicode folding, stopwords dropped, negation kept). It does not agree
  with people better than the compat mode, so ``compat="mastra"`` is this metric's default.

>>> m = CompletenessMetric(compat="mastra")
>>> r = m.measure("The quick brown fox jumped", "a quick brown fox jumped")
>>> r.score, r.info["missingElements"]
(0.8, ['the'])
>>> CompletenessMetric(compat=None).measure("The cats were sleeping", "a cat sleeps").score
1.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from lexeval.metrics.base import register_metric
from lexeval.metrics.nlp.base import NlpMetric, NlpMode
from lexeval.metrics.nlp.compromise import elements
from lexeval.text.base import TextProcessor

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = [
    "CompletenessMetric",
    "MastraCompleteness",
    "NormalizedCompleteness",
    "covered",
    "mastra_elements",
]


def mastra_elements(text: str) -> list[str]:
    """The elements of ``text`` Mastra takes (compromise's words, verbs as infinitives), once each.

    >>> mastra_elements("She isn't running; it's Zoë's café")
    ['she', 'does', 'not', 'run', 'it', 's', 'be', 'zoe', 'cafe']
    """
    return elements(text)


def _covers(element: str, candidate: str) -> bool:
    if len(element) <= 3:
        return element == candidate
    longer, shorter = (
        (element, candidate) if len(element) > len(candidate) else (candidate, element)
    )
    return shorter in longer and len(shorter) / len(longer) > 0.6


def covered(reference: list[str], output: list[str]) -> list[bool]:
    """Whether each reference element is covered by some output element (Mastra's rule).

    >>> covered(["jump", "the", "lazy"], ["jumps", "a", "lazily"])
    [True, False, False]
    """
    outputs = set(output)
    return [e in outputs or any(_covers(e, o) for o in output) for e in reference]


def _coverage(reference: list[str], output: list[str]) -> tuple[float, list[str]]:
    if not reference:
        return (1.0 if not output else 0.0), []
    hits = covered(reference, output)
    missing = [e for e, hit in zip(reference, hits, strict=True) if not hit]
    return (len(reference) - len(missing)) / len(reference), missing


class MastraCompleteness:
    """The ``compat="mastra"`` mode; ``info`` is Mastra's (camelCase)."""

    signature = "tagger:lexeval-rules"

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        ref, out = mastra_elements(reference), mastra_elements(output)
        score, _ = _coverage(ref, out)
        outputs = set(out)
        info = {
            "inputElements": ref,
            "outputElements": out,
            "missingElements": [e for e in ref if e not in outputs],
            "elementCounts": {"input": len(ref), "output": len(out)},
        }
        return score, info


class NormalizedCompleteness:
    """The default mode: Mastra's coverage rule on the normalizer's keywords."""

    def __init__(self, processor: TextProcessor) -> None:
        self.processor = processor

    @property
    def signature(self) -> str:
        return f"match:mastra-substring|{self.processor.signature}"

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        ref = self.processor.keywords(reference)
        out = self.processor.keywords(output)
        score, missing = _coverage(ref, out)
        info = {
            "input_elements": ref,
            "output_elements": out,
            "missing_elements": missing,
            "counts": {
                "overlap": len(ref) - len(missing),
                "reference": len(ref),
                "output": len(out),
            },
        }
        return score, info


class CompletenessMetric(NlpMetric):
    """Share of the reference's elements the output covers (see the module).

    ``compat="mastra"`` is this metric's default: lexeval's mode (``compat=None``) does not
    agree with people better (``docs/metrics.md``), so it is there on request only.

    >>> CompletenessMetric().measure("", "").score
    1.0
    >>> CompletenessMetric().compat, CompletenessMetric(compat=None).compat
    ('mastra', None)
    """

    name = "completeness"
    preset = "default"

    def __init__(
        self,
        *,
        compat: Literal["mastra"] | None = "mastra",
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        super().__init__(compat=compat, normalizer=normalizer, scale=scale, threshold=threshold)

    def normalizer_with_mastra(self) -> str:
        return (
            "normalizer cannot be combined with compat='mastra' (the default of "
            "completeness); give compat=None for lexeval's mode"
        )

    def mastra_mode(self) -> NlpMode:
        return MastraCompleteness()

    def lexeval_mode(self, processor: TextProcessor) -> NlpMode:
        return NormalizedCompleteness(processor)


def _make(**options: Any) -> CompletenessMetric:
    return CompletenessMetric(**options)


register_metric("completeness", _make)
