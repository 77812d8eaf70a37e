"""Word and character error rates: :class:`WerMetric` (``"wer"``) and :class:`CerMetric`
(``"cer"``).

The error rate is the edit distance between the reference's units and the output's, per
reference unit: ``(S + D + I) / (H + S + D)`` (:mod:`lexeval.metrics.edits`). It can exceed 1
(an output longer than its reference). ``info["wer"]`` (``info["cer"]``) is that rate; the
score follows lexeval's convention, in [0, 1] and higher is better: ``max(0, 1 - rate)``.

Two modes, chosen with ``compat=``; each is a small class that turns a text into the units
compared (:class:`JiwerWords`, :class:`JiwerCharacters`, :class:`NormalizedWords`,
:class:`NormalizedCharacters`), whose signature the metric's includes:

* ``compat="jiwer"``: jiwer 4.0's ``wer`` and ``cer`` exactly, with their default transforms
  (``wer_default``: words split on spaces; ``cer_default``: the stripped text's characters,
  spaces included), nothing else changed (case and punctuation count);
* default (``compat=None``): lexeval's normalization first (NFKC, case folding, punctuation
  dropped, Han and kana one unit each; the ``tokens`` preset without lemmas, so a wrong word
  form still counts as an error): the words are its tokens, the characters those of its
  tokens joined by one space (no space between two Han or kana characters).
  ``normalizer=`` takes a preset name or any text processor instead.

Several references: the one with the lowest error rate is kept (``info["reference_index"]``
says which). :meth:`ErrorRateMetric.corpus_score` gives the rate of a corpus as jiwer gives it
for lists of texts: total errors over total reference units, not a mean of rates.

>>> r = WerMetric(compat="jiwer").measure("the cat sat on the mat", "the cat sit on mat")
>>> r.info["wer"], r.score, r.info["substitutions"], r.info["deletions"]
(0.3333333333333333, 0.6666666666666667, 1, 1)
>>> WerMetric().measure("The cat sat.", "the cat sat").info["wer"]
0.0
>>> CerMetric(compat="jiwer").measure("kitten", "sitting").info["cer"]
0.5
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from lexeval.checks import check_references, check_text
from lexeval.compat import jiwer_characters, jiwer_words
from lexeval.metrics.base import BaseMetric, MetricResult, register_metric
from lexeval.metrics.edits import (
    EditCounts,
    Units,
    align,
    count_edits,
    edit_evidence,
    error_rate,
    pool_counts,
)
from lexeval.metrics.evidence import check_evidence_limit
from lexeval.text.base import TextProcessor
from lexeval.text.signature import Signature
from lexeval.text.steps import CJK_RE

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = [
    "CerMetric",
    "ErrorRateMetric",
    "JiwerCharacters",
    "JiwerWords",
    "NormalizedCharacters",
    "NormalizedWords",
    "WerMetric",
]

Compat = Literal["jiwer"]


# --------------------------------------------------------------------------------------------
# the modes: how a text becomes the units compared
# --------------------------------------------------------------------------------------------


class UnitSplitter(Protocol):
    """A mode of the error rates: a text's units (a ``str`` of characters, or a list of
    words) and the signature of that choice."""

    @property
    def signature(self) -> str: ...

    def __call__(self, text: str) -> Units: ...


class JiwerWords:
    """jiwer 4.0's ``wer_default`` (:func:`lexeval.compat.jiwer_words`).

    >>> JiwerWords()("The  cat sat.")
    ['The', 'cat', 'sat.']
    """

    __slots__ = ()
    signature = "tok:jiwer-4.0-wer_default"

    def __call__(self, text: str) -> Units:
        return jiwer_words(text)


class JiwerCharacters:
    """jiwer 4.0's ``cer_default`` (:func:`lexeval.compat.jiwer_characters`).

    >>> JiwerCharacters()(" The cat. ")
    'The cat.'
    """

    __slots__ = ()
    signature = "tok:jiwer-4.0-cer_default"

    def __call__(self, text: str) -> Units:
        return jiwer_characters(text)


class NormalizedWords:
    """A text processor's tokens (lexeval's normalizer by default).

    >>> NormalizedWords(_default_normalizer())("The cat, it SAT.")
    ['the', 'cat', 'it', 'sat']
    """

    __slots__ = ("processor",)

    def __init__(self, processor: TextProcessor) -> None:
        self.processor = processor

    @property
    def signature(self) -> str:
        return self.processor.signature

    def __call__(self, text: str) -> Units:
        return self.processor.tokens(text)


class NormalizedCharacters:
    """The characters of a text processor's tokens joined by one space, none between two Han
    or kana characters (the normalizer makes each of them a token; the text had no space there).

    >>> NormalizedCharacters(_default_normalizer())("The CAT, 東京タワー!")
    'the cat 東京タワー'
    """

    __slots__ = ("processor",)

    def __init__(self, processor: TextProcessor) -> None:
        self.processor = processor

    @property
    def signature(self) -> str:
        return Signature.of([self.processor.signature, "units:chars-joined"])

    def __call__(self, text: str) -> Units:
        return join_tokens(self.processor.tokens(text))


def join_tokens(tokens: Sequence[str]) -> str:
    """``tokens`` joined by one space, except between two single Han or kana characters.

    >>> join_tokens(["東", "京", "tower", "タ", "ワ"])
    '東京 tower タワ'
    """
    joined = " ".join(tokens)
    if CJK_RE.search(joined) is None:
        return joined
    parts: list[str] = []
    previous = False
    for token in tokens:
        cjk = len(token) == 1 and CJK_RE.match(token) is not None
        if parts and not (cjk and previous):
            parts.append(" ")
        parts.append(token)
        previous = cjk
    return "".join(parts)


@cache
def _default_normalizer() -> Normalizer:
    """The default mode's normalizer, one per process: the ``tokens`` preset without lemmas."""
    from lexeval.normalize import Normalizer  # lazy: compat mode loads no normalizer

    return Normalizer("tokens", lemmatize=False)


# --------------------------------------------------------------------------------------------
# the metrics
# --------------------------------------------------------------------------------------------


class ErrorRateMetric(BaseMetric):
    """An edit-distance error rate (the shared class of :class:`WerMetric` and
    :class:`CerMetric`).

    ``info`` holds the rate (under the subclass's ``rate_key``: ``"wer"``, ``"cer"``), the
    counts of the alignment (``hits``, ``substitutions``, ``deletions``, ``insertions``,
    ``reference_length``, ``output_length``; a corpus's counts are their sums) and, when asked
    for with ``evidence_limit=N`` (N > 0; the default 0 leaves them out), the errors
    themselves: ``substituted`` (reference unit, output unit) pairs, ``deleted`` reference
    units and ``inserted`` output units, in reference order, at most N of each.

    Empty texts follow jiwer 4.0 in both modes: an empty reference (no unit once
    transformed) has a rate equal to the number of output units (0.0 when the output is empty
    too, so two empty texts score 1.0); an empty output has rate 1.0. Types are checked as for
    every metric (``TypeError`` naming ``input`` or ``output``).
    """

    name: str = "error_rate"
    #: The key of the rate in ``info`` (jiwer's name of the measure).
    rate_key: ClassVar[str] = "error_rate"
    #: the corpus rate is the rate of the summed counts, not a mean (``lexeval score``'s summary
    #: shows it, ``lexeval compare`` bootstraps it from the results' ``stats``)
    corpus_level: ClassVar[bool] = True

    def __init__(
        self,
        *,
        compat: Compat | None = None,
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
        evidence_limit: int = 0,
    ) -> None:
        super().__init__(scale=scale, threshold=threshold)
        self.evidence_limit = check_evidence_limit(evidence_limit)
        if compat not in (None, "jiwer"):
            raise ValueError(f"compat must be None or 'jiwer', not {compat!r}")
        self.compat: Compat | None = compat
        #: the normalizer given (or the default one); None in compat mode
        self.normalizer: TextProcessor | None = None
        if compat is not None:
            if normalizer is not None:
                raise ValueError("normalizer cannot be combined with compat='jiwer'")
        elif normalizer is None:
            self.normalizer = _default_normalizer()
        else:
            from lexeval.normalize import resolve_normalizer  # lazy: compat loads no normalizer

            self.normalizer = resolve_normalizer(normalizer, "tokens")
        self.units: UnitSplitter = self._splitter()
        self._signature: str | None = None

    @abstractmethod
    def _splitter(self) -> UnitSplitter:
        """The mode's units (words or characters, jiwer's or the normalizer's)."""

    @property
    def signature(self) -> str:
        if self._signature is None:  # fixed by the settings: built once (results carry it)
            parts = [self.name, f"mode:{self.compat or 'default'}"]
            if self.scale != 1.0:
                parts.append(f"scale:{self.scale:g}")
            parts.append(self.units.signature)
            self._signature = Signature.of(parts)
        return self._signature

    # ---- one pair -------------------------------------------------------------------------
    def _score(self, reference: Units, output: Units) -> tuple[float, dict[str, Any]]:
        """Unscaled score and info of two texts' units."""
        # with evidence, the counts and the evidence come from one alignment
        blocks = align(reference, output) if self.evidence_limit else None
        counts = count_edits(reference, output, blocks)
        hits, substitutions, deletions, insertions = counts
        rate = error_rate(counts)
        info: dict[str, Any] = {
            self.rate_key: rate,
            "hits": hits,
            "substitutions": substitutions,
            "deletions": deletions,
            "insertions": insertions,
            "reference_length": hits + substitutions + deletions,
            "output_length": hits + substitutions + insertions,
            # what a corpus figure sums (lexeval compare's bootstrap reads it)
            "stats": [hits, substitutions, deletions, insertions],
        }
        if self.evidence_limit:
            info.update(edit_evidence(reference, output, limit=self.evidence_limit, blocks=blocks))
        return (1.0 - rate if rate < 1.0 else 0.0), info

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        return self._score(self.units(reference), self.units(output))

    def _measure_pair(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        units = self.units
        return self._score(units(reference), units(output))

    def _prepare_output(self, output: str) -> Any:
        return self.units(output)

    def _score_prepared(self, reference: str, prepared_output: Any) -> tuple[float, dict[str, Any]]:
        return self._score(self.units(reference), prepared_output)

    def _reference_key(self, score: float, info: dict[str, Any]) -> float:
        """The best reference has the lowest rate (scores of rates above 1 all clip to 0)."""
        rate: float = info[self.rate_key]
        return -rate

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """Score ``output`` against ``input`` (one reference or a list: the lowest rate is
        kept); ``question`` is accepted and ignored."""
        if type(input) is str and type(output) is str:
            score, info = self._measure_pair(input, output)
            return self.make_result(score, info)
        return super().measure(input, output)

    # ---- a corpus -------------------------------------------------------------------------
    def corpus_counts(
        self, inputs: Sequence[str | Sequence[str]], outputs: Sequence[str]
    ) -> list[EditCounts]:
        """Each pair's counts (of its best reference, when it has several)."""
        if isinstance(inputs, str) or isinstance(outputs, str):
            raise TypeError("inputs and outputs must be sequences of texts, not str")
        ins, outs = list(inputs), list(outputs)
        if len(ins) != len(outs):
            raise ValueError(f"{len(ins)} inputs but {len(outs)} outputs")
        units = self.units
        found: list[EditCounts] = []
        append = found.append
        for i, (references, output) in enumerate(zip(ins, outs, strict=True)):
            if type(output) is not str:
                check_text(output, f"outputs[{i}]")
            if type(references) is str:  # the common case, without the checks' cost
                append(count_edits(units(references), units(output)))
                continue
            out = units(output)
            best: EditCounts | None = None
            best_rate = 0.0
            for ref in check_references(references, f"inputs[{i}]"):
                counts = count_edits(units(ref), out)
                rate = error_rate(counts)
                if best is None or rate < best_rate:
                    best, best_rate = counts, rate
            assert best is not None
            append(best)
        return found

    def corpus_score(
        self, inputs: Sequence[str | Sequence[str]], outputs: Sequence[str]
    ) -> MetricResult:
        """The rate of a corpus, as jiwer's ``wer``/``cer`` give it for lists of texts: the
        pairs' counts summed, then ``(S + D + I) / (H + S + D)`` (with no reference unit at
        all, the number of insertions). A pair with several references counts its best one.
        ``info`` holds the rate, the summed counts and ``pairs``; the score is
        ``max(0, 1 - rate)`` with the metric's scale and threshold.

        >>> m = WerMetric(compat="jiwer")
        >>> r = m.corpus_score(["a b c d", "e f"], ["a b c d", "x"])
        >>> r.info["wer"], r.info["reference_length"], r.info["pairs"]
        (0.3333333333333333, 6, 2)
        """
        counts = self.corpus_counts(inputs, outputs)  # any iterables: counted once read
        return self._corpus_result(pool_counts(counts), len(counts))

    def corpus_of(self, results: Sequence[MetricResult]) -> MetricResult:
        """The corpus figure of results this metric measured: the rate of their summed counts
        (what :meth:`corpus_score` gives for the same pairs).

        >>> m, refs, outs = WerMetric(compat="jiwer"), ["a b c d", "e f"], ["a b c d", "x"]
        >>> m.corpus_of(m.measure_many(refs, outs)).info == m.corpus_score(refs, outs).info
        True
        """
        if not results:
            raise ValueError("a corpus score needs at least one result")
        counts = pool_counts(EditCounts(*r.info["stats"]) for r in results)
        return self._corpus_result(counts, len(results))

    def _corpus_result(self, counts: EditCounts, pairs: int) -> MetricResult:
        rate = error_rate(counts)
        hits, substitutions, deletions, insertions = counts
        info: dict[str, Any] = {
            self.rate_key: rate,
            "hits": hits,
            "substitutions": substitutions,
            "deletions": deletions,
            "insertions": insertions,
            "reference_length": counts.reference_length,
            "output_length": counts.output_length,
            "pairs": pairs,
        }
        return self.make_result(1.0 - rate if rate < 1.0 else 0.0, info)


class WerMetric(ErrorRateMetric):
    """Word error rate (``info["wer"]``); the score is ``max(0, 1 - WER)``.

    ``compat="jiwer"`` equals ``jiwer.wer`` (and ``jiwer.process_words``' counts) exactly; the
    default mode compares lexeval's normalized words.

    >>> m = WerMetric(compat="jiwer", evidence_limit=5)
    >>> r = m.measure("the cat sat on the mat", "cat sit on the mat today")
    >>> r.info["substituted"], r.info["deleted"], r.info["inserted"]
    ([('sat', 'sit')], ['the'], ['today'])
    >>> WerMetric(compat="jiwer").measure("", "two words").info["wer"]
    2.0
    """

    name = "wer"
    rate_key = "wer"

    def _splitter(self) -> UnitSplitter:
        if self.normalizer is None:
            return JiwerWords()
        return NormalizedWords(self.normalizer)


class CerMetric(ErrorRateMetric):
    """Character error rate (``info["cer"]``); the score is ``max(0, 1 - CER)``.

    ``compat="jiwer"`` equals ``jiwer.cer`` (and ``jiwer.process_characters``' counts)
    exactly: the stripped texts' characters, spaces included. The default mode compares the
    characters of lexeval's normalized words, one space between words (none between Han or
    kana characters), so case, punctuation and runs of spaces cost nothing.

    >>> CerMetric().measure("Hello, World!", "hello world").score
    1.0
    >>> CerMetric(compat="jiwer").measure("Hello, World!", "hello world").info["cer"]
    0.3076923076923077
    """

    name = "cer"
    rate_key = "cer"

    def _splitter(self) -> UnitSplitter:
        if self.normalizer is None:
            return JiwerCharacters()
        return NormalizedCharacters(self.normalizer)


def _make_wer(**options: Any) -> WerMetric:
    return WerMetric(**options)


def _make_cer(**options: Any) -> CerMetric:
    return CerMetric(**options)


register_metric("wer", _make_wer)
register_metric("cer", _make_cer)
