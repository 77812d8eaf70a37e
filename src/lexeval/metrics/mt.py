"""The machine-translation metrics: BLEU, chrF (chrF++ with ``word_order=2``) and TER.

Two modes, chosen with ``compat=``; each is a small class that turns a text into what the
n-gram statistics count (:class:`SacrebleuText`, :class:`NormalizedText`), one interface:

* ``compat="sacrebleu"`` (the default): sacrebleu 2.6 exactly, with its options (BLEU's
  ``tokenize`` and ``lowercase``, chrF's ``lowercase`` and ``whitespace``, TER's
  ``normalized``, ``no_punct``, ``asian_support``, ``case_sensitive``);
* ``compat=None``: lexeval's normalizer first (NFKC, case folding, punctuation dropped, Han
  and kana one unit each: ``Normalizer("tokens", lemmatize=False)`` unless ``normalizer=``
  names another preset or processor), its tokens feeding the same statistics and formulas
  (BLEU's smoothing, chrF's orders and beta, TER's edit distance). Measured against people
  on every task family in ``benchmarks/quality/mt_defaults.py`` (docs/metrics.md says where
  it wins and where it does not, and why sacrebleu's settings stay the default).

Every result carries sacrebleu's figure on its 0-100 scale under the metric's key
(``info["bleu"]``, ``info["chrf"]``, ``info["ter"]``) and lexeval's ``score`` in [0, 1],
higher is better: BLEU/100, chrF/100, max(0, 1 - TER/100). ``info["stats"]`` holds the pair's
sufficient statistics (:mod:`lexeval.metrics.mt_stats`): :meth:`~BaseMetric.corpus_score`
sums them into the corpus figure (equal to ``sacrebleu.corpus_bleu``, ``corpus_chrf``,
``corpus_ter``; not the mean of sentence scores), and ``lexeval compare`` resamples them to
bootstrap that figure from a stored run.

Several references are used as sacrebleu uses them: BLEU clips n-grams by their largest count
in any reference and takes the closest reference length; chrF keeps the reference with the
best chrF; TER the fewest edits over the average reference length.

>>> r = BleuMetric().measure("The cat sat on the mat.", "The cat sat on a mat.")
>>> round(r.info["bleu"], 2), round(r.score, 4)
(48.89, 0.4889)
>>> round(ChrfMetric(word_order=2).measure("The cat sat on the mat.", "The cat sat.").score, 4)
0.4941
>>> TerMetric().measure(["a b c d", "a b x d"], "a b x d").info["ter"]
0.0
>>> refs = ["the cat sat on the mat", "a dog ran in the park"]
>>> outs = ["the cat sat on the mat", "a dog ran"]
>>> round(BleuMetric().corpus_score(refs, outs).info["bleu"], 2)  # the corpus BLEU, not a mean
71.65
>>> [round(r.info["bleu"], 2) for r in BleuMetric().measure_many(refs, outs)]
[100.0, 36.79]
>>> BleuMetric(compat=None).measure("The cat sat on the mat.", "the cat sat on the mat").score
1.0
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from lexeval.checks import check_references, check_text
from lexeval.metrics.base import BaseMetric, MetricResult, register_metric
from lexeval.metrics.edits import EditCounts, error_rate
from lexeval.metrics.evidence import check_evidence_limit, overlap_evidence
from lexeval.metrics.mt_stats import (
    BLEU_TOKENIZERS,
    MAX_NGRAM_ORDER,
    SMOOTH_DEFAULTS,
    bleu_from_stats,
    bleu_statistics,
    bleu_tokenizer,
    chrf_from_stats,
    chrf_ngrams,
    chrf_statistics,
    chrf_token_ngrams,
    sacrebleu_version,
    sum_stats,
    ter_from_stats,
    ter_statistics,
    ter_tokenizer,
)
from lexeval.text.base import TextProcessor
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = [
    "BleuMetric",
    "ChrfMetric",
    "NormalizedText",
    "SacrebleuMetric",
    "SacrebleuText",
    "TerMetric",
    "TextMode",
    "corpus_scorer",
]

Compat = Literal["sacrebleu"]


# --------------------------------------------------------------------------------------------
# the modes: what the statistics count in a text
# --------------------------------------------------------------------------------------------


class TextMode(Protocol):
    """A mode of BLEU, chrF and TER: a text's words (joined by one space, for BLEU and TER)
    and its chrF n-grams."""

    def words(self, text: str) -> str: ...

    def chrf_ngrams(self, text: str, char_order: int, word_order: int) -> list[Counter[str]]: ...


class SacrebleuText:
    """sacrebleu's text handling (``compat="sacrebleu"``): lower-cased when asked, then its
    tokenizer (BLEU's, TER's; trailing white space stripped as sacrebleu strips it) or chrF's
    characters and punctuation-split words.

    >>> SacrebleuText(bleu_tokenizer("13a").call).words("The cat, it sat. ")
    'The cat , it sat .'
    >>> [sorted(c) for c in SacrebleuText(lowercase=True).chrf_ngrams("Ab c!", 1, 1)]
    [['!', 'a', 'b', 'c'], ['!', 'ab', 'c']]
    """

    __slots__ = ("_tokenize", "lowercase", "whitespace")

    def __init__(
        self,
        tokenize: Callable[[str], str] | None = None,
        lowercase: bool = False,
        whitespace: bool = False,
    ) -> None:
        self._tokenize = tokenize
        self.lowercase = lowercase
        self.whitespace = whitespace

    def words(self, text: str) -> str:
        if self.lowercase:
            text = text.lower()
        text = text.rstrip()
        return text if self._tokenize is None else self._tokenize(text)

    def chrf_ngrams(self, text: str, char_order: int, word_order: int) -> list[Counter[str]]:
        if self.lowercase:
            text = text.lower()
        return chrf_ngrams(text, char_order, word_order, self.whitespace)


class NormalizedText:
    """lexeval's text layer (``compat=None``): a text processor's tokens (lexeval's
    normalizer: NFKC, case folding, punctuation dropped, each Han or kana character a word),
    joined by one space for BLEU and TER; for chrF, characters of the tokens joined without
    space and word n-grams of the tokens.

    >>> mode = NormalizedText(default_normalizer())
    >>> mode.words("The CAT, it sat."), mode.words("東京タワー")
    ('the cat it sat', '東 京 タ ワ ー')
    >>> [sorted(c) for c in mode.chrf_ngrams("Ab c!", 1, 1)]
    [['a', 'b', 'c'], ['ab', 'c']]
    """

    __slots__ = ("processor",)

    def __init__(self, processor: TextProcessor) -> None:
        self.processor = processor

    @property
    def signature(self) -> str:
        return self.processor.signature

    def words(self, text: str) -> str:
        return " ".join(self.processor.tokens(text))

    def chrf_ngrams(self, text: str, char_order: int, word_order: int) -> list[Counter[str]]:
        return chrf_token_ngrams(self.processor.tokens(text), char_order, word_order)


@cache
def default_normalizer() -> Normalizer:
    """The normalizer of ``compat=None``, one per process: the ``tokens`` preset without
    lemmas (word forms kept, as BLEU and TER count them; the same as WER's default mode)."""
    from lexeval.normalize import Normalizer  # lazy: compat mode loads no normalizer

    return Normalizer("tokens", lemmatize=False)


def _text_mode(
    compat: Compat | None, normalizer: Normalizer | TextProcessor | str | None
) -> NormalizedText | None:
    """The normalized mode's text (None in compat mode), refusing a normalizer with compat."""
    if compat is not None:
        if normalizer is not None:
            raise ValueError(f"normalizer cannot be combined with compat={compat!r}")
        return None
    if normalizer is None:
        return NormalizedText(default_normalizer())
    from lexeval.normalize import resolve_normalizer  # lazy: compat loads no normalizer

    return NormalizedText(resolve_normalizer(normalizer, "tokens"))


def _sacrebleu_only(compat: Compat | None, **given: tuple[object, object]) -> None:
    """Refuse sacrebleu's text options (given differently from their defaults) in lexeval's
    mode: its normalizer decides case, punctuation and tokens there."""
    if compat is not None:
        return
    for name, (value, default) in given.items():
        if value != default:
            raise ValueError(
                f"{name} applies to compat='sacrebleu'; with compat=None the normalizer "
                "decides case, punctuation and tokens (pass normalizer= instead)"
            )


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be bool, not {type(value).__name__}")
    return value


def _check_order(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be {minimum} or more, not {value}")
    return value


class SacrebleuMetric(BaseMetric):
    """What BLEU, chrF and TER share: sacrebleu's references, ``question=`` accepted and
    ignored, sufficient statistics in ``info["stats"]`` and a corpus figure computed from
    them."""

    corpus_level: ClassVar[bool] = True
    #: the key of sacrebleu's figure in ``info``
    key: ClassVar[str] = "metric"

    def __init__(
        self,
        *,
        compat: Compat | None = "sacrebleu",
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        super().__init__(scale=scale, threshold=threshold)
        if compat not in ("sacrebleu", None):
            raise ValueError(f"compat must be 'sacrebleu' or None, not {compat!r}")
        self.compat: Compat | None = compat
        #: lexeval's text mode (``compat=None``), None in compat mode
        self._normalized = _text_mode(compat, normalizer)
        #: the normalizer of ``compat=None``; None in compat mode
        self.normalizer: TextProcessor | None = (
            None if self._normalized is None else self._normalized.processor
        )
        self._signature: Signature | None = None

    # ---- subclasses: sacrebleu's figure -------------------------------------------------------
    def _statistics(self, references: list[str], output: str) -> tuple[list[Any], dict[str, Any]]:
        """The pair's statistics and its info besides the figure."""
        raise NotImplementedError

    def _figure(self, stats: Sequence[float], corpus: bool) -> tuple[float, dict[str, Any]]:
        """sacrebleu's figure (0-100) from (summed) statistics, with what it adds to info."""
        raise NotImplementedError

    def _score_of(self, figure: float) -> float:
        """lexeval's score (0..1, higher is better) of sacrebleu's figure."""
        return min(1.0, max(0.0, figure / 100.0))

    def _sacrebleu_fields(self, corpus: bool = False) -> list[str]:
        """The metric's fields of sacrebleu's signature (between ``nrefs`` and ``version``),
        for sentences or for the corpus figure."""
        raise NotImplementedError

    def _mode_fields(self) -> list[str]:
        """The metric's fields of its signature in lexeval's mode (before the normalizer's)."""
        raise NotImplementedError

    def _build_signature(self) -> Signature:
        if self._normalized is not None:
            parts = [self.name, "mode:default", *self._mode_fields()]
            if self.scale != 1.0:
                parts.append(f"scale:{self.scale:g}")
            parts.append(self._normalized.signature)
            return Signature.of(parts)
        parts = [self.name, f"compat:{self.compat}", *self._sacrebleu_fields()]
        if self.scale != 1.0:
            parts.append(f"scale:{self.scale:g}")
        parts.append(f"version:{sacrebleu_version()}")
        return Signature.of(parts)

    # ---- the metric interface ------------------------------------------------------------------
    @property
    def signature(self) -> str:
        if self._signature is None:  # fixed by the settings: built once
            self._signature = self._build_signature()
        return self._signature

    def sacrebleu_signature(self, nrefs: int | str = 1, corpus: bool = False) -> str:
        """sacrebleu's own signature string for these settings (what ``metric.get_signature()``
        prints after scoring with ``nrefs`` references; ``"var"`` for a varying number).

        >>> BleuMetric().sacrebleu_signature(corpus=True)  # doctest: +ELLIPSIS
        'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2...'
        """
        fields = self._sacrebleu_fields(corpus=corpus)
        return "|".join([f"nrefs:{nrefs}", *fields, f"version:{sacrebleu_version()}"])

    def measure(
        self, input: str | Sequence[str], output: str, question: str | None = None
    ) -> MetricResult:
        """Score ``output`` against ``input`` (one reference or a list, used as sacrebleu
        uses several); ``question`` is accepted and ignored."""
        references = [input] if type(input) is str else check_references(input, "input")
        if type(output) is not str:
            check_text(output, "output")
        score, info = self._measure_refs(references, output)
        return self.make_result(score, info)

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        return self._measure_refs([reference], output)

    def _measure_refs(self, references: list[str], output: str) -> tuple[float, dict[str, Any]]:
        stats, info = self._statistics(references, output)
        figure, extra = self._figure(stats, corpus=False)
        info[self.key] = figure
        info.update(extra)
        info["stats"] = stats
        if len(references) > 1:
            info["nrefs"] = len(references)
        return self._score_of(figure), info

    def corpus_of(self, results: Sequence[MetricResult]) -> MetricResult:
        """The corpus figure of results this metric measured, from their summed statistics
        (sacrebleu's ``corpus_score``): ``info`` holds the figure, ``n``, the summed ``stats``
        and sacrebleu's signature."""
        if not results:
            raise ValueError("a corpus score needs at least one result")
        rows = []
        nrefs: set[int] = set()
        for i, result in enumerate(results):
            stats = result.info.get("stats")
            if not isinstance(stats, list):
                raise ValueError(f"results[{i}] has no statistics (info['stats']): not {self.name}")
            rows.append(stats)
            nrefs.add(int(result.info.get("nrefs", 1)))
        stats = sum_stats(rows)
        figure, extra = self._figure(stats, corpus=True)
        info: dict[str, Any] = {self.key: figure, **extra, "n": len(results), "stats": stats}
        if self.compat is not None:  # lexeval's mode has no sacrebleu signature
            count: int | str = nrefs.pop() if len(nrefs) == 1 else "var"
            info["sacrebleu_signature"] = self.sacrebleu_signature(count, corpus=True)
        return self.make_result(self._score_of(figure), info)


class BleuMetric(SacrebleuMetric):
    """BLEU (Papineni et al., 2002) as sacrebleu's ``sentence_bleu`` (sentences: effective
    order on by default) and ``corpus_bleu`` (:meth:`corpus_score`: effective order off, as
    ``corpus_bleu``'s default).

    Options as sacrebleu's: ``tokenize`` ("13a", "intl", "char", "zh", "none"; "ja-mecab" and
    "ko-mecab" with their packages) and ``lowercase`` (``compat="sacrebleu"`` only; with
    ``compat=None`` the ``normalizer`` makes the words), ``smooth_method`` ("exp", "floor",
    "add-k", "none") and ``smooth_value``, ``max_ngram_order``, ``effective_order``.

    ``info``: ``bleu`` (0-100), ``precisions`` (0-100 per order), ``bp``, ``hyp_len``,
    ``ref_len``, ``stats``; with ``evidence_limit=N`` (N > 0) ``matched`` and ``missing`` (the
    references' words the output matched or missed, clipped as BLEU clips them, at most N of
    each) and ``matched_ngrams``/``missing_ngrams`` (the same per n-gram order).

    Empty texts: as sacrebleu, BLEU 0 when nothing matches (two empty texts included).

    >>> m = BleuMetric(evidence_limit=5)
    >>> r = m.measure("the cat sat on the mat", "the cat sat")
    >>> r.info["matched"], r.info["missing"], round(r.info["bp"], 4)
    (['the', 'cat', 'sat'], ['the', 'on', 'mat'], 0.3679)
    >>> r.info["matched_ngrams"][2], r.info["missing_ngrams"][2]
    (['the cat sat'], ['cat sat on', 'sat on the', 'on the mat'])
    """

    name = "bleu"
    key = "bleu"

    def __init__(
        self,
        *,
        compat: Compat | None = "sacrebleu",
        normalizer: Normalizer | TextProcessor | str | None = None,
        tokenize: str = "13a",
        lowercase: bool = False,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = MAX_NGRAM_ORDER,
        effective_order: bool = True,
        scale: float = 1.0,
        threshold: float | None = None,
        evidence_limit: int = 0,
    ) -> None:
        super().__init__(compat=compat, normalizer=normalizer, scale=scale, threshold=threshold)
        _sacrebleu_only(compat, tokenize=(tokenize, "13a"), lowercase=(lowercase, False))
        if tokenize not in BLEU_TOKENIZERS:
            raise ValueError(
                f"tokenize must be one of {', '.join(BLEU_TOKENIZERS)}, not {tokenize!r}"
            )
        if smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(
                f"smooth_method must be one of {', '.join(SMOOTH_DEFAULTS)}, not {smooth_method!r}"
            )
        if smooth_value is not None and (
            isinstance(smooth_value, bool) or not isinstance(smooth_value, (int, float))
        ):
            raise TypeError(f"smooth_value must be a number, not {type(smooth_value).__name__}")
        self.tokenize = tokenize
        self.lowercase = _check_bool(lowercase, "lowercase")
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.max_ngram_order = _check_order(max_ngram_order, "max_ngram_order", 1)
        self.effective_order = _check_bool(effective_order, "effective_order")
        self.evidence_limit = check_evidence_limit(evidence_limit)
        self._tokenizer = bleu_tokenizer(tokenize)
        self._text: TextMode = self._normalized or SacrebleuText(
            self._tokenizer.call, self.lowercase
        )

    def _statistics(self, references: list[str], output: str) -> tuple[list[Any], dict[str, Any]]:
        prepare = self._text.words
        stats, (hyp, ref) = bleu_statistics(
            prepare(output), [prepare(r) for r in references], self.max_ngram_order
        )
        info: dict[str, Any] = {"hyp_len": stats[0], "ref_len": stats[1]}
        if self.evidence_limit:
            info.update(_ngram_evidence(ref, hyp, self.evidence_limit))
        return stats, info

    def _figure(self, stats: Sequence[float], corpus: bool) -> tuple[float, dict[str, Any]]:
        bleu, precisions, bp = bleu_from_stats(
            stats,
            smooth_method=self.smooth_method,
            smooth_value=self.smooth_value,
            effective_order=False if corpus else self.effective_order,
            max_order=self.max_ngram_order,
        )
        return bleu, {"precisions": precisions, "bp": bp}

    def _smooth(self, exact: bool) -> str:
        default = SMOOTH_DEFAULTS[self.smooth_method]
        if default is None:
            return self.smooth_method
        value = default if self.smooth_value is None else self.smooth_value
        return (
            f"{self.smooth_method}[{float(value)!r}]"
            if exact
            else (f"{self.smooth_method}[{value:.2f}]")
        )

    def _sacrebleu_fields(self, corpus: bool = False) -> list[str]:
        effective = False if corpus else self.effective_order
        fields = [
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{_yes(effective)}",
            f"tok:{self._tokenizer.signature}",
            f"smooth:{self._smooth(exact=False)}",
        ]
        return fields

    def _mode_fields(self) -> list[str]:
        parts = [f"eff:{_yes(self.effective_order)}", f"smooth:{self._smooth(exact=True)}"]
        if self.max_ngram_order != MAX_NGRAM_ORDER:
            parts.append(f"order:{self.max_ngram_order}")
        return parts

    def _build_signature(self) -> Signature:
        if self._normalized is not None:
            return super()._build_signature()
        parts = [
            self.name,
            f"compat:{self.compat}",
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{_yes(self.effective_order)}",
            f"tok:{self._tokenizer.signature}",
            f"smooth:{self._smooth(exact=True)}",
        ]
        if self.max_ngram_order != MAX_NGRAM_ORDER:
            parts.append(f"order:{self.max_ngram_order}")
        if self.scale != 1.0:
            parts.append(f"scale:{self.scale:g}")
        parts.append(f"version:{sacrebleu_version()}")
        return Signature.of(parts)


def _ngram_evidence(
    reference: Sequence[Mapping[Any, int]], output: Sequence[Mapping[Any, int]], limit: int
) -> dict[str, Any]:
    """Matched and missing reference n-grams per order (``matched_ngrams[0]``: order 1)."""
    matched: list[list[str]] = []
    missing: list[list[str]] = []
    for ref, out in zip(reference, output, strict=True):
        lists = overlap_evidence(ref, out, limit=limit)
        matched.append(lists["matched"])
        missing.append(lists["missing"])
    return {
        "matched": matched[0],
        "missing": missing[0],
        "matched_ngrams": matched,
        "missing_ngrams": missing,
    }


class ChrfMetric(SacrebleuMetric):
    """chrF (Popović, 2015) and chrF++ (``word_order=2``; Popović, 2017) as sacrebleu's
    ``sentence_chrf`` and ``corpus_chrf`` (:meth:`corpus_score`).

    Options as sacrebleu's: ``char_order`` (6), ``word_order`` (0; 2 for chrF++), ``beta`` (2),
    ``eps_smoothing``, and ``lowercase`` and ``whitespace`` (``compat="sacrebleu"`` only; with
    ``compat=None`` the ``normalizer``'s tokens make the characters and words).

    ``info``: ``chrf`` (0-100), ``stats`` (``[hyp, ref, match]`` per character order, then per
    word order), ``reference_index`` with several references; with ``evidence_limit=N``
    ``matched`` and ``missing`` (the best reference's character n-grams of the highest order
    it has, white space removed) and ``matched_ngrams``/``missing_ngrams`` (per order: characters
    1..char_order, then words 1..word_order).

    Empty texts: as sacrebleu, chrF 0 when either side is empty.

    >>> r = ChrfMetric(evidence_limit=3).measure("the cat", "the hat")
    >>> round(r.info["chrf"], 2), r.info["matched_ngrams"][1], r.info["missing_ngrams"][1]
    (28.06, ['th', 'he', 'at'], ['ec', 'ca'])
    """

    name = "chrf"
    key = "chrf"

    def __init__(
        self,
        *,
        compat: Compat | None = "sacrebleu",
        normalizer: Normalizer | TextProcessor | str | None = None,
        char_order: int = 6,
        word_order: int = 0,
        beta: float = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
        scale: float = 1.0,
        threshold: float | None = None,
        evidence_limit: int = 0,
    ) -> None:
        super().__init__(compat=compat, normalizer=normalizer, scale=scale, threshold=threshold)
        _sacrebleu_only(compat, lowercase=(lowercase, False), whitespace=(whitespace, False))
        self.char_order = _check_order(char_order, "char_order", 0)
        self.word_order = _check_order(word_order, "word_order", 0)
        if self.char_order + self.word_order == 0:
            raise ValueError("char_order and word_order cannot both be 0")
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta < 0:
            raise ValueError(f"beta must be a number of 0 or more, not {beta!r}")
        self.beta = beta
        self.lowercase = _check_bool(lowercase, "lowercase")
        self.whitespace = _check_bool(whitespace, "whitespace")
        self.eps_smoothing = _check_bool(eps_smoothing, "eps_smoothing")
        self.evidence_limit = check_evidence_limit(evidence_limit)
        self._order = self.char_order + self.word_order
        self._text: TextMode = self._normalized or SacrebleuText(
            lowercase=self.lowercase, whitespace=self.whitespace
        )

    def _ngrams(self, text: str) -> list[Counter[str]]:
        return self._text.chrf_ngrams(text, self.char_order, self.word_order)

    def _statistics(self, references: list[str], output: str) -> tuple[list[Any], dict[str, Any]]:
        hyp = self._ngrams(output)
        refs = [self._ngrams(r) for r in references]
        stats, index = chrf_statistics(hyp, refs, beta=self.beta, eps_smoothing=self.eps_smoothing)
        info: dict[str, Any] = {}
        if len(references) > 1:
            info["reference_index"] = index
        if self.evidence_limit:
            info.update(_ngram_evidence(refs[index], hyp, self.evidence_limit))
            if self.char_order:  # the longest character n-grams the reference has
                ref = refs[index]
                top = next((n for n in range(self.char_order, 0, -1) if ref[n - 1]), 1)
                info["matched"] = info["matched_ngrams"][top - 1]
                info["missing"] = info["missing_ngrams"][top - 1]
        return stats, info

    def _figure(self, stats: Sequence[float], corpus: bool) -> tuple[float, dict[str, Any]]:
        chrf = chrf_from_stats(
            stats, order=self._order, beta=self.beta, eps_smoothing=self.eps_smoothing
        )
        return chrf, {}

    def _sacrebleu_fields(self, corpus: bool = False) -> list[str]:
        return [
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{_yes(not self.eps_smoothing)}",
            f"nc:{self.char_order}",
            f"nw:{self.word_order}",
            f"space:{_yes(self.whitespace)}",
        ]

    def _mode_fields(self) -> list[str]:
        parts = [
            f"eff:{_yes(not self.eps_smoothing)}",
            f"nc:{self.char_order}",
            f"nw:{self.word_order}",
        ]
        if self.beta != 2:
            parts.append(f"beta:{float(self.beta)!r}")
        return parts

    def _build_signature(self) -> Signature:
        if self._normalized is not None:
            return super()._build_signature()
        parts = [self.name, f"compat:{self.compat}", *self._sacrebleu_fields()]
        if self.beta != 2:
            parts.append(f"beta:{float(self.beta)!r}")
        if self.scale != 1.0:
            parts.append(f"scale:{self.scale:g}")
        parts.append(f"version:{sacrebleu_version()}")
        return Signature.of(parts)


class TerMetric(SacrebleuMetric):
    """TER, the translation edit rate (Snover et al., 2006), as sacrebleu's ``sentence_ter``
    and ``corpus_ter`` (:meth:`corpus_score`), with sacrebleu's own Tercom edit distance.

    Options as sacrebleu's: ``normalized``, ``no_punct``, ``asian_support``,
    ``case_sensitive`` (``compat="sacrebleu"`` only; with ``compat=None`` the ``normalizer``'s
    tokens are the words, sacrebleu's edit distance the same). The score is
    max(0, 1 - TER/100): TER exceeds 100 when the output needs more edits than the reference
    has words.

    ``info``: ``ter`` (0-100+, lower is better), ``edits``, ``ref_length`` (the references'
    average length), ``stats``, ``reference_index`` with several references. With
    ``evidence_limit=N`` (N > 0) the edits of the best reference (the first with the fewest
    edits), as sacrebleu's search counted them (:mod:`lexeval.metrics.ter_edits`), on its
    tokens (lower-cased unless ``case_sensitive``): the counts ``shifts``, ``substitutions``,
    ``deletions``, ``insertions`` (``shifts`` plus the others is ``edits``) and at most N of
    each kind, in the shape of WER's evidence: ``shifted`` (words moved, joined by a space;
    their start in the output before the shift; their start after it; shifts apply in
    order), then, on the shifted output, ``substituted`` (reference word, output word),
    ``deleted`` reference words and ``inserted`` output words.

    Empty texts: as sacrebleu, TER 100 for an output against an empty reference, 0 for two
    empty texts.

    >>> r = TerMetric().measure("the cat sat on the mat", "the cat sat on mat")
    >>> r.info["edits"], r.info["ref_length"], round(r.info["ter"], 2), round(r.score, 4)
    (1, 6.0, 16.67, 0.8333)
    >>> r = TerMetric(evidence_limit=5).measure("the cat sat on the mat", "on the mat a cat sat")
    >>> r.info["edits"], r.info["shifts"], r.info["shifted"], r.info["substituted"]
    (2, 1, [('on the mat', 0, 3)], [('the', 'a')])
    """

    name = "ter"
    key = "ter"

    def __init__(
        self,
        *,
        compat: Compat | None = "sacrebleu",
        normalizer: Normalizer | TextProcessor | str | None = None,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
        scale: float = 1.0,
        threshold: float | None = None,
        evidence_limit: int = 0,
    ) -> None:
        super().__init__(compat=compat, normalizer=normalizer, scale=scale, threshold=threshold)
        self.evidence_limit = check_evidence_limit(evidence_limit)
        _sacrebleu_only(
            compat,
            normalized=(normalized, False),
            no_punct=(no_punct, False),
            asian_support=(asian_support, False),
            case_sensitive=(case_sensitive, False),
        )
        self.normalized = _check_bool(normalized, "normalized")
        self.no_punct = _check_bool(no_punct, "no_punct")
        self.asian_support = _check_bool(asian_support, "asian_support")
        self.case_sensitive = _check_bool(case_sensitive, "case_sensitive")
        self._tokenizer = ter_tokenizer(
            normalized=normalized,
            no_punct=no_punct,
            asian_support=asian_support,
            case_sensitive=case_sensitive,
        )
        self._text: TextMode = self._normalized or SacrebleuText(self._tokenizer.call)

    def _statistics(self, references: list[str], output: str) -> tuple[list[Any], dict[str, Any]]:
        words = self._text.words
        stats, index, trace = ter_statistics(words(output), [words(r) for r in references])
        info: dict[str, Any] = {"edits": stats[0], "ref_length": stats[1]}
        if len(references) > 1:
            info["reference_index"] = index
        if self.evidence_limit:
            _, substitutions, deletions, insertions = trace.counts
            info["shifts"] = len(trace.shifts)
            info["substitutions"] = substitutions
            info["deletions"] = deletions
            info["insertions"] = insertions
            info.update(trace.evidence(self.evidence_limit))
        return stats, info

    def _figure(self, stats: Sequence[float], corpus: bool) -> tuple[float, dict[str, Any]]:
        return ter_from_stats(stats), {}

    def _score_of(self, figure: float) -> float:
        return max(0.0, 1.0 - figure / 100.0)

    def _mode_fields(self) -> list[str]:
        return [f"edits:sacrebleu-{sacrebleu_version()}"]

    def _sacrebleu_fields(self, corpus: bool = False) -> list[str]:
        return [
            f"case:{'mixed' if self.case_sensitive else 'lc'}",
            f"tok:{self._tokenizer.signature}",
            f"norm:{_yes(self.normalized)}",
            f"punct:{_yes(not self.no_punct)}",
            f"asian:{_yes(self.asian_support)}",
        ]


def _bleu(**options: Any) -> BleuMetric:
    return BleuMetric(**options)


def _chrf(**options: Any) -> ChrfMetric:
    return ChrfMetric(**options)


def _ter(**options: Any) -> TerMetric:
    return TerMetric(**options)


register_metric("bleu", _bleu, "sacrebleu")
register_metric("chrf", _chrf)
register_metric("ter", _ter)


def corpus_scorer(signature: str) -> Callable[[Sequence[float]], float] | None:
    """For the signature of a BLEU, chrF or TER metric, the function from summed statistics
    (``info["stats"]`` of its results, added up) to its corpus score (0..1 times the scale, as
    :meth:`~SacrebleuMetric.corpus_of`); None for any other metric. ``lexeval compare`` uses it
    to bootstrap corpus figures from stored results without the metric.

    >>> metric = BleuMetric(smooth_method="floor", smooth_value=0.5)
    >>> results = metric.measure_many(["a b c d", "e f"], ["a b c", "e f g"])
    >>> scorer = corpus_scorer(metric.signature)
    >>> total = [a + b for a, b in zip(results[0].info["stats"], results[1].info["stats"])]
    >>> scorer(total) == metric.corpus_of(results).score
    True
    >>> corpus_scorer("token_f1|mode:set|norm:lower-split") is None
    True
    >>> metric = ChrfMetric(compat=None, word_order=2)
    >>> results = metric.measure_many(["a cat", "the dog"], ["A cat!", "a dog"])
    >>> corpus_scorer(metric.signature)(metric.corpus_of(results).info["stats"]) == (
    ...     metric.corpus_of(results).score)
    True
    """
    fields = Signature(signature).fields
    if fields.get("name") in ("wer", "cer"):  # stats: hits, substitutions, deletions, insertions
        rate_scale = float(fields.get("scale", "1"))

        def rate_score(stats: Sequence[float]) -> float:
            rate = error_rate(EditCounts(*(int(x) for x in stats)))
            return (1.0 - rate if rate < 1.0 else 0.0) * rate_scale

        return rate_score
    mode = fields.get("compat") == "sacrebleu" or fields.get("mode") == "default"
    if not mode or fields.get("name") not in ("bleu", "chrf", "ter"):
        return None
    scale = float(fields.get("scale", "1"))
    name = fields["name"]
    if name == "bleu":
        method, _, value = fields["smooth"].partition("[")
        smooth_value = float(value.rstrip("]")) if value else None
        order = int(fields.get("order", MAX_NGRAM_ORDER))

        def bleu(stats: Sequence[float]) -> float:
            figure = bleu_from_stats(
                stats, smooth_method=method, smooth_value=smooth_value, max_order=order
            )[0]
            return min(1.0, max(0.0, figure / 100.0)) * scale

        return bleu
    if name == "chrf":
        order = int(fields["nc"]) + int(fields["nw"])
        beta = float(fields.get("beta", "2"))
        eps = fields["eff"] == "no"

        def chrf(stats: Sequence[float]) -> float:
            figure = chrf_from_stats(stats, order=order, beta=beta, eps_smoothing=eps)
            return min(1.0, max(0.0, figure / 100.0)) * scale

        return chrf

    def ter(stats: Sequence[float]) -> float:
        return max(0.0, 1.0 - ter_from_stats(stats) / 100.0) * scale

    return ter
