"""ROUGE-N, ROUGE-L and ROUGE-Lsum.

Two modes:

* default: tokens from the lexeval normalizer (preset ``"rouge"``: Unicode-aware, words split
  at every character that is not a letter, digit or mark, Porter stems of words of 4+ letters
  but not of stopwords, Snowball stems in other languages nltk knows), sentences for rougeLsum
  from its download-free splitter;
* ``compat="rouge-score"``: Google's rouge-score 0.1.2 exactly (its tokenizer, optional Porter
  stemming with ``use_stemmer=True``, rougeLsum's union-LCS over newline-separated sentences).

``variant="set"`` (ROUGE-N only) counts distinct n-grams instead of occurrences.

>>> m = RougeMetric("rouge1", compat="rouge-score")
>>> r = m.measure("the cat sat on the mat", "the cat sat")
>>> r.score, r.info["precision"], r.info["recall"]
(0.6666666666666666, 1.0, 0.5)
>>> RougeMetric("rouge2", compat="rouge-score", variant="set", score="recall").measure(
...     "the cat sat on", "the cat sat").score
0.6666666666666666
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from lexeval.metrics.base import (
    BaseMetric,
    MetricResult,
    check_references,
    check_text,
    register_metric,
    resolve_normalizer,
)
from lexeval.metrics.evidence import (
    EVIDENCE_LIMIT,
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
)
from lexeval.text.base import TextProcessor
from lexeval.text.peers import RougeScoreProcessor
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = [
    "MAX_ROUGE_N",
    "RougeMetric",
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

_CACHE_SIZE = 4096  # prepared texts kept per metric (references are often scored many times)
#: Largest n of ROUGE-N (``rouge<n>``): longer n-grams cost memory and match nothing useful.
MAX_ROUGE_N = 32
_TYPE = re.compile(r"rouge(?:([1-9][0-9]*)|(L)|(Lsum))")
ScoreKey = Literal["fmeasure", "precision", "recall"]


class RougeMetric(BaseMetric):
    """ROUGE-N (``"rouge1"``, ``"rouge2"``, any ``"rouge<n>"``), ROUGE-L and ROUGE-Lsum.

    The score is the F-measure (or ``score="precision"``/``"recall"``); ``info`` holds
    ``precision``, ``recall``, ``fmeasure``, ``counts`` (``overlap``, ``reference``,
    ``output``: n-grams, or LCS tokens and sequence lengths) and the evidence ``matched`` and
    ``missing``: the reference's n-grams (ROUGE-N) or tokens (the LCS tokens for ROUGE-L/Lsum)
    that the output matched or missed, in reference order (ROUGE-N: of first occurrence), at
    most ``evidence_limit`` of each
    (see :mod:`lexeval.metrics.evidence`; 0 leaves them out).

    Empty inputs: in compat mode rouge-score's rules (0.0 when a side has no n-gram); in the
    default mode 0.0 as well, except 1.0 when both token sequences are equal (two empty texts,
    or "cat" against "cat" for rouge2).

    >>> RougeMetric("rougeL", compat="rouge-score").measure("a b c d", "a c d x").info["counts"]
    {'overlap': 3, 'reference': 4, 'output': 4}
    """

    _cache_attributes = ("_cache",)

    def __init__(
        self,
        rouge_type: str = "rougeL",
        *,
        compat: Literal["rouge-score"] | None = None,
        use_stemmer: bool = False,
        variant: Literal["default", "set"] = "default",
        score: ScoreKey = "fmeasure",
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
        evidence_limit: int = EVIDENCE_LIMIT,
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
        if variant not in ("default", "set"):
            raise ValueError(f"variant must be 'default' or 'set', not {variant!r}")
        if variant == "set" and not self.n:
            raise ValueError("variant='set' applies to ROUGE-N only")
        if score not in ("fmeasure", "precision", "recall"):
            raise ValueError(f"score must be 'fmeasure', 'precision' or 'recall', not {score!r}")
        if not isinstance(use_stemmer, bool):
            raise TypeError(f"use_stemmer must be bool, not {type(use_stemmer).__name__}")
        self.compat = compat
        self.use_stemmer = use_stemmer
        self.variant = variant
        self._set = variant == "set"
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
            self.normalizer = resolve_normalizer(normalizer, "rouge")
        self._cache: dict[str, Any] = {}

    @property
    def signature(self) -> str:
        parts = [self.rouge_type, f"mode:{self.compat or 'default'}", f"variant:{self.variant}"]
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
        plain = self.compat is None and self.variant == "default" and self.scale == 1.0
        if plain and self.rouge_type == "rouge1" and self.score_key == "recall":
            return 0.5
        return None

    # ---- tokenization --------------------------------------------------------------------
    def _tokens(self, text: str) -> Sequence[str]:
        if self.normalizer is None:
            return self._peer.token_tuple(text)
        return self.normalizer.tokens(text)

    def _sentences(self, text: str) -> Sequence[Sequence[str]]:
        if self.normalizer is None:
            return self._peer.sentence_tokens(text)
        norm = self.normalizer
        return [t for t in (norm.tokens(s) for s in norm.sentences(text)) if t]

    def _prepare(self, text: str) -> Any:
        cache = self._cache
        prepared = cache.get(text)
        if prepared is None:
            prepared = self._prepare_uncached(text)
            if len(cache) >= _CACHE_SIZE:
                cache.clear()
            cache[text] = prepared
        return prepared

    def _prepare_uncached(self, text: str) -> Any:
        if not self.n:
            return self._sentences(text) if self.rouge_type == "rougeLsum" else self._tokens(text)
        tokens = self._tokens(text)
        counts = ngram_counts(tokens, self.n)
        if self.variant == "set":
            return (tokens, frozenset(counts), len(counts))
        return (tokens, counts, max(len(tokens) - self.n + 1, 0))

    # ---- scoring ---------------------------------------------------------------------------
    def _score(self, ref: Any, out: Any) -> tuple[float, dict[str, Any]]:
        equal_fallback = False
        limit = self.evidence_limit
        evidence: dict[str, list[str]] | None = None
        if self.n:
            ref_tokens, ref_grams, n_ref = ref
            out_tokens, out_grams, n_out = out
            if self._set:
                overlap = len(ref_grams & out_grams)
            elif out_grams is None:  # output not counted: one pass over its tokens
                overlap = clipped_overlap(ref_grams, out_tokens, self.n)
            else:
                overlap = ngram_overlap(ref_grams, out_grams)
            if limit:  # the n-grams matched and missed
                if self._set:  # in reference order (a set has none)
                    evidence = overlap_evidence(ngrams(ref_tokens, self.n), out_grams, limit=limit)
                else:
                    if out_grams is None:
                        out_grams = ngram_counts(out_tokens, self.n)
                    evidence = overlap_evidence(ref_grams, out_grams, limit=limit)
            if n_ref and n_out:
                precision = overlap / n_out
                recall = overlap / n_ref
            else:  # rouge-score divides by max(count, 1)
                precision = overlap / max(n_out, 1)
                recall = overlap / max(n_ref, 1)
                equal_fallback = n_ref == n_out == 0 and list(ref_tokens) == list(out_tokens)
        elif self.rouge_type == "rougeL":
            n_ref, n_out = len(ref), len(out)
            if n_ref and n_out:
                if limit:  # one LCS: its length and the reference tokens it matched
                    positions = lcs_indices_any(ref, out)
                    overlap = len(positions)
                    evidence = positions_evidence(ref, set(positions), limit=limit)
                else:
                    overlap = lcs_length(ref, out)
                precision, recall = overlap / n_out, overlap / n_ref
            else:
                overlap, precision, recall = 0, 0.0, 0.0
                equal_fallback = n_ref == 0 and n_out == 0
        else:
            n_ref = sum(map(len, ref))
            n_out = sum(map(len, out))
            if n_ref and n_out:
                # compat: rouge-score's exact backtrack; default: any LCS, fast on long texts
                lcs = lcs_indices if self.compat else lcs_indices_any
                hits = summary_lcs_hit_positions(ref, out, lcs)
                overlap = len(hits)
                precision, recall = overlap / n_out, overlap / n_ref
                if limit:
                    hit_set = set(hits)
                    flat = [(k, i) for k, sent in enumerate(ref) for i in range(len(sent))]
                    evidence = positions_evidence(
                        [ref[k][i] for k, i in flat],
                        {j for j, pos in enumerate(flat) if pos in hit_set},
                        limit=limit,
                    )
            else:
                overlap, precision, recall = 0, 0.0, 0.0
                equal_fallback = n_ref == 0 and n_out == 0
        # rouge-score's F-measure formula, bit for bit
        f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        if equal_fallback and self.compat is None:
            precision = recall = f = 1.0
        info: dict[str, Any] = {
            "precision": precision,
            "recall": recall,
            "fmeasure": f,
            "counts": {"overlap": overlap, "reference": n_ref, "output": n_out},
        }
        if limit:
            if evidence is None:  # ROUGE-L/Lsum with a side without tokens: nothing matched
                evidence = self._unmatched(ref, limit)
            info.update(evidence)
        key = self.score_key
        return (f if key == "fmeasure" else info[key]), info

    def _unmatched(self, ref: Any, limit: int) -> dict[str, list[str]]:
        tokens = ref if self.rouge_type == "rougeL" else [t for sent in ref for t in sent]
        return positions_evidence(tokens, (), limit=limit)

    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        if self.n and not self._set:
            out = self._cache.get(output)
            if out is None:
                tokens = self._tokens(output)
                out = (tokens, None, max(len(tokens) - self.n + 1, 0))
            return self._score(self._prepare(reference), out)
        return self._score(self._prepare(reference), self._prepare(output))

    _measure_pair = _measure_one

    def _prepare_output(self, output: str) -> Any:
        return self._prepare(output)

    def _score_prepared(self, reference: str, prepared_output: Any) -> tuple[float, dict[str, Any]]:
        return self._score(self._prepare(reference), prepared_output)

    def _reference_key(self, score: float, info: dict[str, Any]) -> float:
        # rouge-score's score_multi keeps the first reference with the highest F-measure
        fmeasure: float = info["fmeasure"]
        return fmeasure


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


class _Analysis:
    """One text analysed once for every ROUGE type: its tokens, its sentences' tokens (for
    rougeLsum) and, per n, its n-gram counts (built when first asked for)."""

    __slots__ = ("_sentences", "counts", "sentences", "tokens")

    def __init__(
        self,
        tokens: Sequence[str],
        sentences: Callable[[], Sequence[Sequence[str]]] | Sequence[Sequence[str]] | None,
    ) -> None:
        self.tokens = tokens
        self._sentences = sentences
        self.sentences: Sequence[Sequence[str]] | None = None
        self.counts: dict[int, Any] = {}

    def prepared(self, metric: RougeMetric, output: bool = False) -> Any:
        """What ``metric._score`` takes for this text (the same as ``metric._prepare``); for an
        output, n-grams are not counted (the overlap is found in one pass over its tokens)."""
        n = metric.n
        if n:
            if output and metric.variant != "set" and n not in self.counts:
                return (self.tokens, None, max(len(self.tokens) - n + 1, 0))
            if metric.variant == "set":
                key = -n
                grams = self.counts.get(key)
                if grams is None:
                    grams = frozenset(ngram_counts(self.tokens, n))
                    self.counts[key] = grams
                return (self.tokens, grams, len(grams))
            counts = self.counts.get(n)
            if counts is None:
                counts = ngram_counts(self.tokens, n)
                self.counts[n] = counts
            return (self.tokens, counts, max(len(self.tokens) - n + 1, 0))
        if metric.rouge_type == "rougeL":
            return self.tokens
        if self.sentences is None:
            source = self._sentences
            self.sentences = source() if callable(source) else (source or ())
        return self.sentences


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

    def __init__(
        self,
        rouge_types: Sequence[str],
        *,
        compat: Literal["rouge-score"] | None = None,
        use_stemmer: bool = False,
        variant: Literal["default", "set"] = "default",
        score: ScoreKey = "fmeasure",
        normalizer: Normalizer | TextProcessor | str | None = None,
        scale: float = 1.0,
        threshold: float | None = None,
        evidence_limit: int = EVIDENCE_LIMIT,
    ) -> None:
        if isinstance(rouge_types, str) or not rouge_types:
            raise TypeError("rouge_types must be a non-empty list of ROUGE types, not a str")
        if len(set(rouge_types)) != len(rouge_types):
            raise ValueError(f"rouge_types has duplicates: {list(rouge_types)}")
        resolved = None if compat is not None else resolve_normalizer(normalizer, "rouge")
        self.metrics: dict[str, RougeMetric] = {
            t: RougeMetric(
                t,
                compat=compat,
                use_stemmer=use_stemmer,
                variant=variant if _TYPE.fullmatch(t) and t[5:].isdigit() else "default",
                score=score,
                normalizer=resolved,
                scale=scale,
                threshold=threshold,
                evidence_limit=evidence_limit,
            )
            for t in rouge_types
        }
        self.rouge_types = tuple(rouge_types)
        self.compat = compat
        self.use_stemmer = use_stemmer
        self.normalizer = resolved
        self._needs_sentences = "rougeLsum" in self.metrics

    def __repr__(self) -> str:
        return f"RougeScorer({list(self.rouge_types)!r}, compat={self.compat!r})"

    def _analyze(self, text: str) -> _Analysis:
        check_text(text, "text")
        if self.normalizer is None:
            peer = RougeScoreProcessor(stemmer=self.use_stemmer)
            if not self._needs_sentences:
                return _Analysis(peer.token_tuple(text), None)
            # rouge-score's tokens of a text are its sentences' tokens joined: "\n" separates
            sentences = peer.sentence_tokens(text)
            if len(sentences) == 1:
                return _Analysis(sentences[0], sentences)
            return _Analysis(tuple(t for s in sentences for t in s), sentences)
        norm = self.normalizer
        if not self._needs_sentences:
            return _Analysis(norm.tokens(text), None)
        return _Analysis(
            norm.tokens(text),
            lambda: [t for t in (norm.tokens(s) for s in norm.sentences(text)) if t],
        )

    def _score_pair(
        self, references: Sequence[_Analysis], output: _Analysis
    ) -> dict[str, MetricResult]:
        results: dict[str, MetricResult] = {}
        for rouge_type, metric in self.metrics.items():
            out = output.prepared(metric, output=len(references) == 1)
            if len(references) == 1:
                score, info = metric._score(references[0].prepared(metric), out)
            else:
                best: tuple[float, dict[str, Any]] | None = None
                best_index = 0
                for i, ref in enumerate(references):
                    candidate = metric._score(ref.prepared(metric), out)
                    if best is None or candidate[1]["fmeasure"] > best[1]["fmeasure"]:
                        best, best_index = candidate, i
                assert best is not None
                score, info = best
                info["reference_index"] = best_index
            results[rouge_type] = metric.make_result(score, info)
        return results

    def score(self, reference: str | Sequence[str], output: str) -> dict[str, MetricResult]:
        """Every type's result for one pair (a list of references: the best per type)."""
        references = check_references(reference, "reference")
        return self._score_pair([self._analyze(r) for r in references], self._analyze(output))

    def score_many(
        self, references: Sequence[str | Sequence[str]], outputs: Sequence[str]
    ) -> list[dict[str, MetricResult]]:
        """:meth:`score` of many pairs, in order; each distinct text is analysed once."""
        if isinstance(references, str) or isinstance(outputs, str):
            raise TypeError("references and outputs must be sequences of texts, not str")
        refs, outs = list(references), list(outputs)
        if len(refs) != len(outs):
            raise ValueError(f"{len(refs)} references but {len(outs)} outputs")
        if self.normalizer is not None:
            texts = [t for r in refs for t in ([r] if isinstance(r, str) else r)]
            self.normalizer.prefetch([t for t in [*texts, *outs] if isinstance(t, str)])
        cache: dict[str, _Analysis] = {}

        def analysis(text: str) -> _Analysis:
            found = cache.get(text)
            if found is None:
                found = self._analyze(text)
                if len(cache) >= _BATCH_CACHE:
                    cache.clear()
                cache[text] = found
            return found

        results = []
        for reference, output in zip(refs, outs, strict=True):
            group = [reference] if type(reference) is str else check_references(reference)
            results.append(self._score_pair([analysis(r) for r in group], analysis(output)))
        return results


_BATCH_CACHE = 50_000  # analysed texts kept by one score_many call
