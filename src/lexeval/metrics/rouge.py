"""ROUGE-N, ROUGE-L and ROUGE-Lsum.

Two modes:

* default: tokens from the lexeval normalizer (preset ``"rouge"``: Unicode-aware, words split
  at every character that is not a letter, digit or mark, Porter stems of words of 4+ letters
  but not of stopwords, Snowball stems in other languages nltk knows), sentences for rougeLsum
  from its download-free splitter;
* ``compat="rouge-score"``: Google's rouge-score 0.1.2 exactly (its tokenizer, optional Porter
  stemming with ``use_stemmer=True``, rougeLsum's union-LCS over newline-separated sentences).

Not a mode but a counting choice, in either mode: ``counting="distinct"`` (ROUGE-N only)
counts each distinct n-gram once instead of every occurrence (the default,
``counting="occurrences"``). ``variant="set"`` is its deprecated name (a
``DeprecationWarning``; removed in the next release).

>>> m = RougeMetric("rouge1", compat="rouge-score")
>>> r = m.measure("the cat sat on the mat", "the cat sat")
>>> r.score, r.info["precision"], r.info["recall"]
(0.6666666666666666, 1.0, 0.5)
>>> RougeMetric("rouge2", compat="rouge-score", counting="distinct", score="recall").measure(
...     "the cat sat on", "the cat sat").score
0.6666666666666666
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack, cast

from lexeval.checks import check_references, check_text
from lexeval.compat import (
    NATIVE_ROUGE,
    rouge_score_sentences,
    rouge_score_stem_each,
    rouge_score_tokens,
)
from lexeval.metrics.base import BaseMetric, MetricResult, register_metric
from lexeval.metrics.evidence import (
    check_evidence_limit,
    ngrams,
    overlap_evidence,
    positions_evidence,
)
from lexeval.metrics.overlap import (
    clipped_overlap,
    lcs_indices,
    lcs_indices_any,
    lcs_length,
    ngram_counts,
    ngram_overlap,
    summary_lcs_hit_positions,
    summary_lcs_hits,
    unigram_bigram_overlap,
)
from lexeval.text.base import TextProcessor
from lexeval.text.peers import RougeScoreProcessor
from lexeval.text.signature import Signature

if NATIVE_ROUGE:
    from lexeval.native.rouge import BIGRAMS, LCS, SUMMARY, UNIGRAMS, counts

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = [
    "MAX_ROUGE_N",
    "RougeMetric",
    "RougeOptions",
    "RougeScorer",
    "clipped_overlap",
    "lcs_indices",
    "lcs_indices_any",
    "lcs_length",
    "ngram_counts",
    "ngram_overlap",
    "summary_lcs_hit_positions",
    "summary_lcs_hits",
]

#: What several types share for one pair (see ``RougeMetric._score``).
_Shared = dict[int | str, int] | None
#: A type's overlap, reference and output counts.
_Counts = tuple[int, int, int]

_CACHE_SIZE = 4096  # prepared texts kept per metric (references are often scored many times)
#: Largest n of ROUGE-N (``rouge<n>``): longer n-grams cost memory and match nothing useful.
MAX_ROUGE_N = 32
_TYPE = re.compile(r"rouge(?:([1-9][0-9]*)|(L)|(Lsum))")
ScoreKey = Literal["fmeasure", "precision", "recall"]
Counting = Literal["occurrences", "distinct"]


class RougeMetric(BaseMetric):
    """ROUGE-N (``"rouge1"``, ``"rouge2"``, any ``"rouge<n>"``), ROUGE-L and ROUGE-Lsum.

    The score is the F-measure (or ``score="precision"``/``"recall"``); ``info`` holds
    ``precision``, ``recall``, ``fmeasure``, ``counts`` (``overlap``, ``reference``,
    ``output``: n-grams, or LCS tokens and sequence lengths) and, when asked for with
    ``evidence_limit=N`` (N > 0; the default 0 leaves them out, so that a plain loop of
    ``measure`` calls pays only for the counting), the evidence ``matched`` and ``missing``:
    the reference's n-grams (ROUGE-N) or tokens (the LCS tokens for ROUGE-L/Lsum) that the
    output matched or missed, in reference order (ROUGE-N: of first occurrence), at most N of
    each (see :mod:`lexeval.metrics.evidence`). Scores and counts are the same either way.

    Prepared texts (tokens, sentences, n-gram counts) are kept in a bounded cache per metric
    (``functools.lru_cache``, safe under threads), keyed by the text.

    Empty inputs: in compat mode rouge-score's rules (0.0 when a side has no n-gram); in the
    default mode 0.0 as well, except 1.0 when both token sequences are equal (two empty texts,
    or "cat" against "cat" for rouge2).

    >>> RougeMetric("rougeL", compat="rouge-score").measure("a b c d", "a c d x").info["counts"]
    {'overlap': 3, 'reference': 4, 'output': 4}
    >>> r = RougeMetric("rouge1", evidence_limit=20).measure("a b c d", "a c x")
    >>> r.info["matched"], r.info["missing"]
    (['a', 'c'], ['b', 'd'])
    """

    def __init__(
        self,
        rouge_type: str = "rougeL",
        *,
        compat: Literal["rouge-score"] | None = None,
        use_stemmer: bool = False,
        counting: Counting = "occurrences",
        score: ScoreKey = "fmeasure",
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
        evidence_limit: int = 0,
        variant: Literal["default", "set"] | None = None,
    ) -> None:
        super().__init__(scale=scale, threshold=threshold)
        self.evidence_limit = check_evidence_limit(evidence_limit)
        check_text(rouge_type, "rouge_type")
        match = _TYPE.fullmatch(rouge_type)
        if match is None:
            raise ValueError(
                f"rouge_type must be 'rouge<n>', 'rougeL' or 'rougeLsum', not {rouge_type!r}"
            )
        self.name = rouge_type
        self.rouge_type = rouge_type
        self.n = int(match.group(1)) if match.group(1) else 0
        if self.n > MAX_ROUGE_N:
            raise ValueError(f"ROUGE-N takes n from 1 to {MAX_ROUGE_N}, not {self.n}")
        if compat not in (None, "rouge-score"):
            raise ValueError(f"compat must be None or 'rouge-score', not {compat!r}")
        if variant is not None:
            counting = _counting_of_variant(variant, counting)
        if counting not in ("occurrences", "distinct"):
            raise ValueError(f"counting must be 'occurrences' or 'distinct', not {counting!r}")
        if counting == "distinct" and not self.n:
            raise ValueError("counting='distinct' applies to ROUGE-N only")
        if score not in ("fmeasure", "precision", "recall"):
            raise ValueError(f"score must be 'fmeasure', 'precision' or 'recall', not {score!r}")
        if not isinstance(use_stemmer, bool):
            raise TypeError(f"use_stemmer must be bool, not {type(use_stemmer).__name__}")
        self.compat = compat
        self.use_stemmer = use_stemmer
        self.counting: Counting = counting
        self._set = counting == "distinct"
        self.score_key: ScoreKey = score
        if compat is not None:
            if normalizer is not None:
                raise ValueError("normalizer cannot be combined with compat='rouge-score'")
            self.normalizer: TextProcessor | None = None
            self._peer = RougeScoreProcessor(stemmer=use_stemmer)
        else:
            if use_stemmer:
                raise ValueError(
                    "use_stemmer applies to compat='rouge-score'; the default mode stems "
                    "already (its normalizer: the 'rouge' preset)"
                )
            from lexeval.normalize import resolve_normalizer  # lazy: compat loads no normalizer

            self.normalizer = resolve_normalizer(normalizer, "rouge")
        self._signature: str | None = None
        lsum = rouge_type == "rougeLsum"
        processor = self._peer if self.normalizer is None else self.normalizer
        self._texts = _PreparedTexts(_analyzer(processor, sentences=lsum, tokens=not lsum))
        # the counting and evidence methods of this type (plain functions: they pickle by name)
        self._counter: Callable[..., _Counts]
        self._evidence: Callable[[RougeMetric, _Analysis, _Analysis, int], dict[str, list[str]]]
        if not self.n:
            self._counter = RougeMetric._count_summary_lcs if lsum else RougeMetric._count_lcs
            self._evidence = (
                RougeMetric._summary_lcs_evidence if lsum else RougeMetric._lcs_evidence
            )
        elif self._set:
            self._counter, self._evidence = RougeMetric._count_set, RougeMetric._set_evidence
        else:
            self._counter, self._evidence = RougeMetric._count_ngrams, RougeMetric._ngram_evidence
        self._fmeasure = score == "fmeasure"
        #: what the compiled path counts for this type (compat mode; 0: the Python code)
        self._native = _native_want([self]) if compat is not None else 0

    @property
    def variant(self) -> str:
        """Deprecated (removed in the next release): ``"set"`` for ``counting="distinct"``,
        else ``"default"``; read :attr:`counting`."""
        warnings.warn(
            "RougeMetric.variant is deprecated and will be removed in the next release: "
            "read counting",
            DeprecationWarning,
            stacklevel=2,
        )
        return "set" if self._set else "default"

    @property
    def signature(self) -> str:
        if self._signature is None:  # fixed by the settings: built once (results carry it)
            self._signature = self._build_signature()
        return self._signature

    def _build_signature(self) -> str:
        # "variant:set" names distinct counting (the option's former name; signatures kept)
        counting = "set" if self._set else "default"
        parts = [self.rouge_type, f"mode:{self.compat or 'default'}", f"variant:{counting}"]
        parts.append(f"score:{self.score_key}")
        if self.scale != 1.0:
            parts.append(f"scale:{self.scale:g}")
        if self.normalizer is None:
            parts.append(self._peer.signature)
        else:
            parts.append(self.normalizer.signature)
        return Signature.of(parts)

    @property
    def recommended_threshold(self) -> float | None:
        """0.5 for ``rouge1`` with ``score="recall"`` in the default mode: the kappa-best
        threshold against human correctness labels of QA answers on EVOUNA NQ
        (``benchmarks/thresholds_qa.py``); None otherwise (F-measure makes a poor pass/fail gate
        for verbose answers, and summaries have no pass/fail labels to calibrate on).

        >>> RougeMetric("rouge1", score="recall").recommended_threshold
        0.5
        """
        plain = self.compat is None and not self._set and self.scale == 1.0
        if plain and self.rouge_type == "rouge1" and self.score_key == "recall":
            return 0.5
        return None

    # ---- analysis ------------------------------------------------------------------------
    def _tokens(self, text: str) -> Sequence[str]:
        """The text's tokens (all of its sentences' for rougeLsum)."""
        processor = self._peer if self.normalizer is None else self.normalizer
        return _analyzer(processor, sentences=False)(text).tokens

    # ---- scoring ---------------------------------------------------------------------------
    def _score(
        self,
        ref: _Analysis,
        out: _Analysis,
        count_output: bool = True,
        shared: _Shared = None,
    ) -> tuple[float, dict[str, Any]]:
        """Unscaled score and info of two analysed texts. ``count_output=False``: the output
        is scored against this one reference only, so its n-grams need not be counted (the
        overlap is found in one pass over its tokens). ``shared`` holds what several types
        share for one pair: ``"lcs"`` the LCS length of the two texts' tokens (rougeL and a
        one-sentence rougeLsum), ``n`` the clipped n-gram overlap (rouge1 and rouge2 counted
        together by :class:`RougeScorer`)."""
        overlap, n_ref, n_out = self._counter(self, ref, out, count_output, shared)
        if n_ref and n_out:  # rouge-score's F-measure (overlap 0: 0.0), bit for bit
            precision, recall = overlap / n_out, overlap / n_ref
            f = 2 * precision * recall / (precision + recall) if overlap else 0.0
        else:  # nothing to count on a side: rouge-score's 0.0; two equal texts in the default
            precision = recall = f = 0.0  # mode ("cat" against "cat" for rouge2): 1.0
            equal = not n_ref and not n_out and (not self.n or list(ref.tokens) == list(out.tokens))
            if equal and self.compat is None:
                precision = recall = f = 1.0
        info: dict[str, Any] = {
            "precision": precision,
            "recall": recall,
            "fmeasure": f,
            "counts": {"overlap": overlap, "reference": n_ref, "output": n_out},
        }
        if self.evidence_limit:
            info.update(self._evidence(self, ref, out, self.evidence_limit))
        return (f if self._fmeasure else info[self.score_key]), info

    # The counts (overlap, reference, output) of each type.

    def _count_ngrams(
        self, ref: _Analysis, out: _Analysis, count_output: bool, shared: _Shared
    ) -> _Counts:
        n = self.n
        n_ref = len(ref.tokens) - n + 1
        n_out = len(out.tokens) - n + 1
        if n_ref < 0:
            n_ref = 0
        if n_out < 0:
            n_out = 0
        if shared and n in shared:  # counted for rouge1 and rouge2 at once
            return shared[n], n_ref, n_out
        if count_output or n in out.counts:
            return ngram_overlap(ref.grams(n), out.grams(n)), n_ref, n_out
        return clipped_overlap(ref.grams(n), out.tokens, n), n_ref, n_out

    def _count_set(
        self, ref: _Analysis, out: _Analysis, count_output: bool, shared: _Shared
    ) -> _Counts:
        n = self.n
        ref_set, out_set = ref.gram_set(n), out.gram_set(n)
        return len(ref_set & out_set), len(ref_set), len(out_set)

    def _count_lcs(
        self, ref: _Analysis, out: _Analysis, count_output: bool, shared: _Shared
    ) -> _Counts:
        ref_tokens, out_tokens = ref.tokens, out.tokens
        n_ref, n_out = len(ref_tokens), len(out_tokens)
        overlap = _shared_lcs(ref_tokens, out_tokens, shared) if n_ref and n_out else 0
        return overlap, n_ref, n_out

    def _count_summary_lcs(
        self, ref: _Analysis, out: _Analysis, count_output: bool, shared: _Shared
    ) -> _Counts:
        ref_sents, out_sents = ref.sentences, out.sentences
        n_ref, n_out = sum(map(len, ref_sents)), sum(map(len, out_sents))
        if not n_ref or not n_out:
            return 0, n_ref, n_out
        if len(ref_sents) == 1 and len(out_sents) == 1:
            # one sentence each: every LCS token is a hit, so only its length matters
            if ref_sents[0] is ref.tokens and out_sents[0] is out.tokens:
                return _shared_lcs(ref.tokens, out.tokens, shared), n_ref, n_out
            return lcs_length(ref_sents[0], out_sents[0]), n_ref, n_out
        if shared and "lsum" in shared:  # counted by the compiled path
            return shared["lsum"], n_ref, n_out
        # compat: rouge-score's exact backtrack; default: any LCS, fast on long texts
        lcs = lcs_indices if self.compat else lcs_indices_any
        return len(summary_lcs_hit_positions(ref_sents, out_sents, lcs)), n_ref, n_out

    # The evidence of each type (asked for: ``evidence_limit`` > 0); without tokens on a side,
    # every reference token is missing.

    def _ngram_evidence(self, ref: _Analysis, out: _Analysis, limit: int) -> dict[str, list[str]]:
        return overlap_evidence(ref.grams(self.n), out.grams(self.n), limit=limit)

    def _set_evidence(self, ref: _Analysis, out: _Analysis, limit: int) -> dict[str, list[str]]:
        # in reference order (a set has none)
        return overlap_evidence(ngrams(ref.tokens, self.n), out.gram_set(self.n), limit=limit)

    def _lcs_evidence(self, ref: _Analysis, out: _Analysis, limit: int) -> dict[str, list[str]]:
        # one LCS: the reference tokens it matched
        positions = lcs_indices_any(ref.tokens, out.tokens)
        return positions_evidence(ref.tokens, set(positions), limit=limit)

    def _summary_lcs_evidence(
        self, ref: _Analysis, out: _Analysis, limit: int
    ) -> dict[str, list[str]]:
        ref_sents, out_sents = ref.sentences, out.sentences
        if not sum(map(len, ref_sents)) or not sum(map(len, out_sents)):
            return positions_evidence(ref.flat_sentences(), (), limit=limit)
        lcs = lcs_indices if self.compat else lcs_indices_any
        hit_set = set(summary_lcs_hit_positions(ref_sents, out_sents, lcs))
        flat = [(k, i) for k, sent in enumerate(ref_sents) for i in range(len(sent))]
        return positions_evidence(
            [ref_sents[k][i] for k, i in flat],
            {j for j, pos in enumerate(flat) if pos in hit_set},
            limit=limit,
        )

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        prepare = self._texts.get
        ref, out = prepare(reference), prepare(output)
        if self._native and NATIVE_ROUGE:  # (pickled where built, unpickled where not)
            return self._score(ref, out, False, _native_shared(self._native, ref, out))
        return self._score(ref, out, count_output=False)

    _measure_pair = _measure_one

    def _measure_refs(self, references: list[str], output: str) -> tuple[float, dict[str, Any]]:
        if len(references) == 1:  # one reference: the output's n-grams need not be counted
            return self._measure_one(references[0], output)
        return super()._measure_refs(references, output)

    def _prepare_output(self, output: str) -> _Analysis:
        return self._texts.get(output)

    def _score_prepared(
        self, reference: str, prepared_output: _Analysis
    ) -> tuple[float, dict[str, Any]]:
        ref = self._texts.get(reference)
        if self._native and NATIVE_ROUGE:
            return self._score(
                ref, prepared_output, True, _native_shared(self._native, ref, prepared_output)
            )
        return self._score(ref, prepared_output)

    def _reference_key(self, score: float, info: dict[str, Any]) -> float:
        # rouge-score's score_multi keeps the first reference with the highest F-measure
        fmeasure: float = info["fmeasure"]
        return fmeasure


def _counting_of_variant(variant: str, counting: str) -> Counting:
    """``counting`` for the deprecated ``variant=`` (``"set"`` is ``"distinct"``), with a
    ``DeprecationWarning``; a ``ValueError`` when both are given and differ."""
    warnings.warn(
        "RougeMetric(variant=...) is deprecated and will be removed in the next release: use "
        f"counting={'distinct' if variant == 'set' else 'occurrences'!r}",
        DeprecationWarning,
        stacklevel=3,
    )
    if variant not in ("default", "set"):
        raise ValueError(f"variant must be 'default' or 'set', not {variant!r}")
    given: Counting = "distinct" if variant == "set" else "occurrences"
    if counting != "occurrences" and counting != given:
        raise ValueError(f"variant={variant!r} contradicts counting={counting!r}; use counting")
    return given


def _native_want(metrics: Sequence[RougeMetric]) -> int:
    """What the compiled path counts for these compat-mode types (bits of
    ``lexeval.native.rouge``: the rouge1 and rouge2 overlaps, the LCS, rougeLsum's hits); 0
    when it is not built. Other types (``rouge<n>`` for n > 2, distinct counting) count in
    Python."""
    if not NATIVE_ROUGE:
        return 0
    want = 0
    for m in metrics:
        if m.n == 1 and not m._set:
            want |= UNIGRAMS
        elif m.n == 2 and not m._set:
            want |= BIGRAMS
        elif m.rouge_type == "rougeL":
            want |= LCS
        elif m.rouge_type == "rougeLsum":
            want |= SUMMARY
    return want


def _native_shared(want: int, ref: _Analysis, out: _Analysis) -> dict[int | str, int]:
    """``shared`` counts of a pair (see ``RougeMetric._score``) from the compiled path, for the
    ``want`` bits of :func:`_native_want`. rougeLsum of one sentence each is the LCS of the
    tokens; of more, rouge-score's union-LCS hits (left to the Python code past the compiled
    path's table size: -1)."""
    ref_sents, out_sents = ref.sentences, out.sentences
    ref_lengths: Sequence[int] = ()
    out_lengths: Sequence[int] = ()
    if want & SUMMARY:
        want &= ~SUMMARY
        if len(ref_sents) == 1 and len(out_sents) == 1:
            want |= LCS
        elif ref_sents and out_sents:
            want |= SUMMARY
            ref_lengths, out_lengths = list(map(len, ref_sents)), list(map(len, out_sents))
    o1, o2, lcs, hits = counts(ref.tokens, out.tokens, ref_lengths, out_lengths, want)
    shared: dict[int | str, int] = {}
    if o1 >= 0:
        shared[1] = o1
    if o2 >= 0:
        shared[2] = o2
    if lcs >= 0:
        shared["lcs"] = lcs
    if hits >= 0:
        shared["lsum"] = hits
    return shared


def _shared_lcs(ref_tokens: Sequence[str], out_tokens: Sequence[str], shared: _Shared) -> int:
    """The LCS length of a pair's tokens, computed once per pair when ``shared`` is given."""
    if shared is None:
        return lcs_length(ref_tokens, out_tokens)
    found = shared.get("lcs")
    if found is None:
        found = shared["lcs"] = lcs_length(ref_tokens, out_tokens)
    return found


class _Analysis:
    """One text analysed once for every ROUGE type: its tokens, its sentences' tokens (for
    rougeLsum; empty when not asked for) and its n-gram counts, per n, built when first
    asked for."""

    __slots__ = ("counts", "sentences", "tokens")

    def __init__(self, tokens: Sequence[str], sentences: Sequence[Sequence[str]]) -> None:
        self.tokens = tokens
        self.sentences = sentences
        self.counts: dict[int, Any] = {}

    def grams(self, n: int) -> Counter[Hashable]:
        """The n-gram counts."""
        counts: Counter[Hashable] | None = self.counts.get(n)
        if counts is None:
            counts = self.counts[n] = ngram_counts(self.tokens, n)
        return counts

    def gram_set(self, n: int) -> frozenset[Hashable]:
        """The distinct n-grams (``counting="distinct"``)."""
        grams: frozenset[Hashable] | None = self.counts.get(-n)
        if grams is None:
            grams = self.counts[-n] = frozenset(ngram_counts(self.tokens, n))
        return grams

    def flat_sentences(self) -> list[str]:
        """The sentences' tokens in one list."""
        return [t for sentence in self.sentences for t in sentence]


class _RougeScoreAnalyzer:
    """rouge-score's analysis of a text (``compat="rouge-score"``): its tokens and, for
    rougeLsum (``sentences``), its lines' tokens; a text's tokens are its lines' tokens joined,
    as ``"\\n"`` separates tokens.

    >>> _RougeScoreAnalyzer(stemmer=True, sentences=True)("Cats sat.\\nDogs ran.").sentences
    [['cat', 'sat'], ['dog', 'ran']]
    """

    __slots__ = ("sentences", "stemmer")

    def __init__(self, *, stemmer: bool, sentences: bool) -> None:
        self.stemmer = stemmer
        self.sentences = sentences

    def __call__(self, text: str) -> _Analysis:
        stemmer = self.stemmer
        if not self.sentences:
            return _Analysis(rouge_score_tokens(text, stemmer=stemmer), ())
        if "\n" not in text:  # one sentence (or none, for "")
            line = rouge_score_tokens(text, stemmer=stemmer)
            return _Analysis(line, (line,) if text else ())
        sents = [rouge_score_tokens(s, stemmer=stemmer) for s in rouge_score_sentences(text)]
        if len(sents) == 1:
            return _Analysis(sents[0], sents)
        return _Analysis([t for s in sents for t in s], sents)

    def many(self, texts: list[str]) -> list[_Analysis]:
        """Each text's analysis, as :meth:`__call__` gives it: the tokens of every one-line
        text stemmed in one pass (each new word once; the compiled path has each text's own)."""
        if not self.stemmer or NATIVE_ROUGE:
            return [self(text) for text in texts]
        lines = [t for t in texts if "\n" not in t] if self.sentences else texts
        raw = [rouge_score_tokens(t, stemmer=False) for t in lines]
        stems = rouge_score_stem_each([t for tokens in raw for t in tokens])
        found: dict[str, _Analysis] = {}
        start = 0
        for text, tokens in zip(lines, raw, strict=True):
            end = start + len(tokens)
            line = stems[start:end]
            start = end
            if "" in line:
                line = [s for s in line if s]
            if not self.sentences:
                found[text] = _Analysis(line, ())
            else:
                found[text] = _Analysis(line, (line,) if text else ())
        get = found.get
        return [get(text) or self(text) for text in texts]

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rouge_score_analyzer, (self.stemmer, self.sentences))


def _rouge_score_analyzer(stemmer: bool, sentences: bool) -> _RougeScoreAnalyzer:
    return _RougeScoreAnalyzer(stemmer=stemmer, sentences=sentences)


class _NormalizerAnalyzer:
    """A normalizer's analysis of a text (the default mode): its tokens and, for rougeLsum
    (``sentences``), its sentences' tokens (``tokens=False``: only the sentences' are needed)."""

    __slots__ = ("norm", "sentences", "tokens")

    def __init__(self, norm: TextProcessor, *, sentences: bool, tokens: bool) -> None:
        self.norm = norm
        self.sentences = sentences
        self.tokens = tokens

    def many(self, texts: list[str]) -> list[_Analysis]:
        """Each text's analysis (the normalizer prepares them together first)."""
        self.norm.prefetch(texts)
        return [self(text) for text in texts]

    def __call__(self, text: str) -> _Analysis:
        norm = self.norm
        if not self.sentences:
            return _Analysis(norm.tokens(text), ())
        sents_tokens = [t for t in (norm.tokens(s) for s in norm.sentences(text)) if t]
        return _Analysis(norm.tokens(text) if self.tokens else (), sents_tokens)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_normalizer_analyzer, (self.norm, self.sentences, self.tokens))


def _normalizer_analyzer(norm: TextProcessor, sentences: bool, tokens: bool) -> _NormalizerAnalyzer:
    return _NormalizerAnalyzer(norm, sentences=sentences, tokens=tokens)


_Analyzer = _RougeScoreAnalyzer | _NormalizerAnalyzer


def _analyzer(
    processor: RougeScoreProcessor | TextProcessor, *, sentences: bool, tokens: bool = True
) -> _Analyzer:
    """The analyzer of a mode: rouge-score's (``processor`` a :class:`RougeScoreProcessor`) or
    a normalizer's."""
    if isinstance(processor, RougeScoreProcessor):
        return _RougeScoreAnalyzer(stemmer=processor.stemmer, sentences=sentences)
    return _NormalizerAnalyzer(processor, sentences=sentences, tokens=tokens)


class _PreparedTexts:
    """Analysed texts (an analyzer's) in a bounded, thread-safe cache keyed by the text
    (``functools.lru_cache``); it pickles as its analyzer, empty.

    >>> texts = _PreparedTexts(_analyzer(RougeScoreProcessor(), sentences=False))
    >>> texts.get("The cat.") is texts.get("The cat."), texts.get("The cat.").tokens
    (True, ['the', 'cat'])
    """

    __slots__ = ("_settings", "analyze", "get")

    def __init__(self, analyze: _Analyzer, size: int = _CACHE_SIZE) -> None:
        self._settings = (analyze, size)
        self.analyze = analyze  # uncached
        self.get: Callable[[str], _Analysis] = lru_cache(maxsize=size)(analyze)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_PreparedTexts, self._settings)


def _rouge_factory(rouge_type: str) -> Any:
    def make(**options: Any) -> RougeMetric:
        return RougeMetric(rouge_type, **options)

    return make


for _t in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
    register_metric(_t, _rouge_factory(_t))


def _rouge_n(*, n: int | None = None, **options: Any) -> RougeMetric:
    if n is None:
        raise ValueError("rougeN needs n: name the metric rouge4 (any rouge<n>), or pass n=4")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"rougeN needs a positive int n, not {n!r}")
    return RougeMetric(f"rouge{n}", **options)


register_metric("rougeN", _rouge_n)


# --------------------------------------------------------------------------------------------
# several ROUGE types at once
# --------------------------------------------------------------------------------------------


class RougeOptions(TypedDict, total=False):
    """:class:`RougeMetric`'s options (all but the type), which :class:`RougeScorer` takes."""

    compat: Literal["rouge-score"] | None
    use_stemmer: bool
    counting: Counting
    score: ScoreKey
    normalizer: Normalizer | TextProcessor | str | None
    scale: float
    threshold: float | None
    evidence_limit: int
    variant: Literal["default", "set"]  # deprecated: counting


class RougeScorer:
    """Several ROUGE types scored together, each text analysed once (rouge-score's
    ``RougeScorer(rouge_types)``), with a batch path that analyses every distinct text once.

    Each type's result equals ``RougeMetric(type, **options)`` on the same pair, bit for bit
    (compat mode: rouge-score 0.1.2's numbers).

    >>> scorer = RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], compat="rouge-score")
    >>> scores = scorer.score("the cat sat on the mat", "the cat sat")
    >>> {t: round(r.score, 3) for t, r in scores.items()}
    {'rouge1': 0.667, 'rouge2': 0.571, 'rougeL': 0.667, 'rougeLsum': 0.667}
    >>> [round(s["rouge2"].score, 3) for s in scorer.score_many(["a b c", "a b c"], ["a b", "b c"])]
    [0.667, 0.667]
    """

    def __init__(self, rouge_types: Sequence[str], **options: Unpack[RougeOptions]) -> None:
        if isinstance(rouge_types, str) or not rouge_types:
            raise TypeError("rouge_types must be a non-empty list of ROUGE types, not a str")
        if len(set(rouge_types)) != len(rouge_types):
            raise ValueError(f"rouge_types has duplicates: {list(rouge_types)}")
        compat = options.get("compat")
        use_stemmer = options.get("use_stemmer", False)
        normalizer = options.get("normalizer")
        resolved = None
        if compat is None:
            from lexeval.normalize import resolve_normalizer  # lazy: compat loads no normalizer

            resolved = resolve_normalizer(normalizer, "rouge")
        counting = options.get("counting", "occurrences")
        variant = options.pop("variant", None)
        if variant is not None:
            counting = _counting_of_variant(variant, counting)
        self.metrics: dict[str, RougeMetric] = {}
        for t in rouge_types:
            # one normalizer for every type; counting applies to ROUGE-N only
            rouge_n = bool(_TYPE.fullmatch(t)) and t[5:].isdigit()
            each: RougeOptions = {
                **options,
                "normalizer": resolved,
                "counting": counting if rouge_n else "occurrences",
            }
            self.metrics[t] = RougeMetric(t, **each)
        self.rouge_types = tuple(rouge_types)
        self.compat = compat
        self.use_stemmer = use_stemmer
        self.normalizer = resolved
        processor: RougeScoreProcessor | TextProcessor = (
            RougeScoreProcessor(stemmer=use_stemmer) if resolved is None else resolved
        )
        self._processor = processor
        self._needs_sentences = "rougeLsum" in self.metrics
        self._texts = _PreparedTexts(_analyzer(processor, sentences=self._needs_sentences))
        self._items = tuple(self.metrics.items())
        # rouge1 and rouge2 counted (not as sets) in one pass over the output's tokens
        counted = {m.n for m in self.metrics.values() if m.n and not m._set}
        self._fuse_unigrams_bigrams = {1, 2} <= counted
        #: what the compiled path counts for every type at once (compat mode; 0: Python)
        self._native = _native_want(list(self.metrics.values())) if compat is not None else 0

    def __repr__(self) -> str:
        return f"RougeScorer({list(self.rouge_types)!r}, compat={self.compat!r})"

    def _score_pair(
        self, references: Sequence[_Analysis], output: _Analysis
    ) -> dict[str, MetricResult]:
        if len(references) == 1:
            return self._score_one(references[0], output)
        results: dict[str, MetricResult] = {}
        shared_per_ref: list[dict[int | str, int]]
        if self._native and NATIVE_ROUGE:  # (pickled where built, unpickled where not)
            shared_per_ref = [_native_shared(self._native, ref, output) for ref in references]
        else:
            shared_per_ref = [{} for _ in references]
        for rouge_type, metric in self.metrics.items():
            best: tuple[float, dict[str, Any]] | None = None
            best_index = 0
            for i, ref in enumerate(references):
                candidate = metric._score(ref, output, True, shared_per_ref[i])
                if best is None or candidate[1]["fmeasure"] > best[1]["fmeasure"]:
                    best, best_index = candidate, i
            assert best is not None
            score, info = best
            info["reference_index"] = best_index
            results[rouge_type] = metric.make_result(score, info)
        return results

    def _score_one(self, ref: _Analysis, output: _Analysis) -> dict[str, MetricResult]:
        """Every type's result for one reference (the common case): each type's own
        :meth:`RougeMetric._score`, with the LCS and the rouge1/rouge2 overlap counted once."""
        native = self._native and NATIVE_ROUGE  # (pickled where built, unpickled where not)
        shared = _native_shared(self._native, ref, output) if native else {}
        if self._fuse_unigrams_bigrams and 1 not in shared:
            shared[1], shared[2] = unigram_bigram_overlap(ref.grams(1), ref.grams(2), output.tokens)
        results: dict[str, MetricResult] = {}
        for rouge_type, metric in self._items:
            score, info = metric._score(ref, output, False, shared)
            results[rouge_type] = metric.make_result(score, info)
        return results

    def score(self, reference: str | Sequence[str], output: str) -> dict[str, MetricResult]:
        """Every type's result for one pair (a list of references: the best per type)."""
        prepare = self._texts.get
        if type(reference) is str and type(output) is str:
            return self._score_one(prepare(reference), prepare(output))
        references = check_references(reference, "reference")
        check_text(output, "output")
        return self._score_pair([prepare(r) for r in references], prepare(output))

    def score_many(
        self, references: Sequence[str | Sequence[str]], outputs: Sequence[str]
    ) -> list[dict[str, MetricResult]]:
        """:meth:`score` of many pairs, in order. The distinct outputs and single references of
        each stretch of pairs are analysed together first (rouge-score's stems: each new word
        once, in one pass); lists of references go through the scorer's cache of prepared
        texts (they recur across outputs); every pair is scored by :meth:`score`'s own path."""
        if isinstance(references, str) or isinstance(outputs, str):
            raise TypeError("references and outputs must be sequences of texts, not str")
        refs, outs = list(references), list(outputs)
        if len(refs) != len(outs):
            raise ValueError(f"{len(refs)} references but {len(outs)} outputs")
        results: list[dict[str, MetricResult]] = []
        for start in range(0, len(refs), _STRETCH):
            stop = start + _STRETCH
            results += self._score_stretch(refs[start:stop], outs[start:stop])
        return results

    def _score_stretch(
        self, refs: list[str | Sequence[str]], outs: list[str]
    ) -> list[dict[str, MetricResult]]:
        texts: dict[str, None] = {}
        groups: list[Sequence[str] | None] = []
        for reference in refs:
            if type(reference) is str:
                texts[reference] = None
                groups.append(None)
            else:  # several references: kept in the scorer's cache (they recur across outputs)
                groups.append(check_references(reference))
        for output in outs:
            texts[check_text(output, "output")] = None
        distinct = list(texts)
        analysis = dict(zip(distinct, self._texts.analyze.many(distinct), strict=True)).__getitem__
        score_one, prepare = self._score_one, self._texts.get
        results: list[dict[str, MetricResult]] = []
        append = results.append
        for reference, several, output in zip(refs, groups, outs, strict=True):
            if several is None:
                append(score_one(analysis(cast(str, reference)), analysis(output)))
            else:
                append(self._score_pair([prepare(r) for r in several], analysis(output)))
        return results


_STRETCH = 512  # pairs whose texts score_many analyses together (bounds the live objects)
