"""Keyword coverage: the share of the reference's keywords that the output contains.

* default: keywords from the lexeval normalizer (preset ``"default"``: lemmas, stopwords
  removed, compound terms as one key), matched leniently (below); ``match="exact"`` compares
  keys only, ``fuzzy=True`` adds rapidfuzz matching of spelling variants;
* ``compat="mastra"``: ``@mastra/evals`` ``KeywordCoverageMetric`` exactly;
* ``compat="mastra-scorer"``: ``@mastra/evals`` ``createKeywordCoverageScorer`` exactly.

Lenient matching (the default; tuned on EVOUNA NQ only) finds a reference keyword in the
output when, after case folding and accent removal ("Röntgen" = "rontgen"), with English number
words as digits ("four" = "4") and one spelling of numbers ("1,000" = "1000", "09:15" = "9:15"):

1. it is one of the output's keys, or one of its keys with stopwords kept, hyphens ignored;
2. it has at least 4 characters and occurs inside the output text, or inside the output with
   everything but letters and digits removed (glued words and citation marks:
   "Massachusetts1", "byJohann Gutenbergin");
3. it shares a prefix of at least 5 characters and 80% of the longer word with an output key
   ("himalayas" / "himalaya");
4. otherwise a keyword made of parts ("1979–80", "six-year") earns the share of its parts found;
5. otherwise a keyword of at least 4 characters without digits that is close to an output
   keyword (rapidfuzz Indel similarity ``s`` of at least 0.5: "manchuria" / "manchu") earns
   ``near_credit`` (0.5) times ``(s - 0.5) / 0.5`` of its weight (outputs of at most 1,000
   distinct keywords: the time stays linear in the length of long texts).

A reference number or (English) month name that no rule finds, where the output names another
one of the same kind (a year for a year, a number of one or two digits for such a number,
another number for a number, a month for a month: "September 14, 2004" for "September 12,
2004"), counts against the answer: ``conflict_penalty`` (1.0) times its weight is taken off
the matched weight (not below 0; ``info["conflicts"]``).

The coverage is then multiplied by ``1 - extra_penalty * extra`` (``extra_penalty`` 0.05),
``extra`` being the share of the output's keywords that match no reference keyword: of two
answers that cover the reference equally, the one that says more besides ranks a little lower.
Both terms break the ties of plain coverage (many answers score exactly 0 or 1) in the
direction of human judgments (tuned on EVOUNA NQ: ROC AUC .944 to .957).

English number words count as reference keywords although spaCy lists them as stopwords, and a
reference made only of stopwords uses them as its keywords.

>>> m = KeywordCoverageMetric(compat="mastra")
>>> r = m.measure("The quick brown fox jumps over the lazy dog",
...               "A quick brown fox jumped over a lazy dog")
>>> r.score, r.info["matchedKeywords"], r.info["totalKeywords"], r.info["missing"]
(0.8333333333333334, 5, 6, ['jumps'])
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from rapidfuzz.distance import Indel, Prefix
from rapidfuzz.process import extractOne

from lexeval.metrics.base import (
    BaseMetric,
    MetricResult,
    check_references,
    check_scale,
    check_text,
    register_metric,
    resolve_normalizer,
)
from lexeval.metrics.overlap import fmeasure
from lexeval.metrics.substring import LONG_TEXT, SubstringIndex, find_all
from lexeval.metrics.weights import KeywordWeights
from lexeval.text.base import KeywordAnalysis, TextProcessor, keyword_analysis, processor_language
from lexeval.text.lenient import (
    DASHES,
    NUMBER_WORDS_EN,
    canonical_key,
    fold_accents,
    merge_number_words,
    repair_mojibake,
)
from lexeval.text.peers import MastraProcessor
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from lexeval.normalize import Normalizer

__all__ = ["KeywordCoverageMetric"]

Compat = Literal["mastra", "mastra-scorer"]
Match = Literal["lenient", "exact"]
Weighting = Literal["frequency", "uniform"]

_PARTS = re.compile(r"[-‐-―/ ]+")
_THOUSANDS_IN_TEXT = re.compile(r"(?<![\d,])\d{1,3}(?:,\d{3})+(?!\d)")
_NON_WORD = re.compile(r"\W+")
_PREFIX_MIN = 5
_PREFIX_SHARE = 0.8
_SUBSTRING_MIN = 4
#: Least rapidfuzz Indel similarity of a near match (rule 5); it earns nothing at this value.
NEAR_MIN = 0.5
#: Rule 5 applies to outputs of at most this many distinct keywords (answers have far fewer:
#: at most 107 in EVOUNA); on longer texts it would cost missing keys x output keys.
NEAR_MAX_OUTPUT_KEYWORDS = 1000


_CACHE_SIZE = 4096
#: Prepared references kept per metric (an evaluation set's references are scored against
#: several answers each; EVOUNA NQ has 5,699 distinct gold alternatives).
_REFERENCE_CACHE_SIZE = 8192
#: Prepared outputs kept per metric: at most this many, and this many characters in all (an
#: evaluation set's answers are often scored against several references and several times).
_OUTPUT_CACHE_SIZE = 32768
_OUTPUT_CACHE_CHARS = 4_000_000
_fold = fold_accents
_canon = canonical_key

#: English month names: a reference month contradicted by another month in the output is a
#: conflict (like a number contradicted by another number).
MONTHS_EN = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
)
_YEAR = re.compile(r"[12]\d{3}")
_SMALL_NUMBER = re.compile(r"\d{1,2}")

#: Pass thresholds of the default settings, by weighting: the kappa-best threshold on EVOUNA NQ
#: (human correctness of QA answers), to 4 decimals (``benchmarks/keyword_defaults.py``).
RECOMMENDED_THRESHOLDS: dict[str, float] = {"frequency": 0.3797, "uniform": 0.3539}
#: Defaults of the tie-breaking terms (the recommended thresholds hold for these values).
EXTRA_PENALTY = 0.05
NEAR_CREDIT = 0.5
CONFLICT_PENALTY = 1.0
#: With a question, a reference keyword that the question names weighs this share of its
#: weight (tuned on EVOUNA NQ's develop half: an answer that echoes "river" from "which river
#: ..." has not shown that it knows "Mississippi River").
QUESTION_WEIGHT = 0.25


_has_digit = re.compile(r"\d").search


def conflict_kind(key: str, english: bool = True) -> str | None:
    """The kind of a canonical key for conflicts: ``"year"`` (four digits from 1000 to 2999),
    ``"small"`` (one or two digits), ``"number"`` (any other key with a digit), ``"month"``
    (an English month name, when ``english``), else None.

    >>> [conflict_kind(k) for k in ("1998", "12", "2.18", "march", "paris")]
    ['year', 'small', 'number', 'month', None]
    """
    if _has_digit(key):
        if _YEAR.fullmatch(key):
            return "year"
        return "small" if _SMALL_NUMBER.fullmatch(key) else "number"
    return "month" if english and key in MONTHS_EN else None


def _whole_number_at(text: str, start: int, key: str) -> bool:
    """Whether ``key`` (which has a digit) found at ``start`` is a whole number there: no digit
    right before a leading digit ("5000" is not in "15000"), none right after a trailing digit,
    except one or two glued citation marks after a key of 4+ characters ("May 29, 20181").
    """
    if key[0].isdigit() and start > 0 and text[start - 1].isdigit():
        return False
    if key[-1].isdigit():
        end = start + len(key)
        extra = 0
        while end + extra < len(text) and text[end + extra].isdigit():
            extra += 1
        if extra and (len(key) < 4 or extra > 2):
            return False
    return True


class _Asked(NamedTuple):
    """An output with the canonical keys of its question (``KeywordCoverageMetric.measure``
    with ``question=``)."""

    output: str
    echoed: frozenset[str]


class _Reference(NamedTuple):
    """A reference prepared for lenient matching (see ``KeywordCoverageMetric._reference``)."""

    keys: tuple[str, ...]
    canonical: tuple[str, ...]
    weights: tuple[float, ...]
    total: float  # sum of weights
    parts: tuple[tuple[tuple[str, ...], tuple[float, ...]], ...]  # of compound keys, else empty
    kinds: tuple[str | None, ...]  # conflict_kind of each canonical key
    key_set: frozenset[str]  # the canonical keys


_NO_PARTS: tuple[tuple[str, ...], tuple[float, ...]] = ((), ())


class _OutputKeys:
    """An output text prepared for lenient matching (from one analysis: its keywords and every
    key); the stopword-keeping keys and the prefix index are added only when a reference key is
    not found directly. On a long output
    substring queries go through :class:`SubstringIndex`, so their cost does not grow with it.
    (Tuples, strings and the dict of answers only: few objects for the garbage collector.)"""

    __slots__ = (
        "_all_keys",
        "_english",
        "_found",
        "_indexes",
        "_keys",
        "_kinds",
        "_near",
        "_parts",
        "_plain_keys",
        "_sorted",
        "canonical",
        "joined",
        "keywords",
        "output",
        "text",
    )

    def __init__(self, output: str, analysis: KeywordAnalysis, english: bool) -> None:
        self.output = output
        keywords = self.keywords = analysis.keywords
        self._all_keys = analysis.keys
        self._english = english
        self.canonical = tuple([canonical_key(k, english) for k in keywords])
        keys = set(self.canonical)
        compounds = [k for k in keys if "-" in k]
        parts: frozenset[str] = frozenset()
        if compounds:  # "10-12" is also "1012"; "25th-largest" has the parts "25" and "largest"
            keys.update([k.replace("-", "") for k in compounds])
            parts = frozenset(
                [canonical_key(p, english) for k in compounds for p in k.split("-") if p]
            )
        self._keys = keys
        self._parts = parts
        self._found: dict[str, bool] = {}  # answers of has(), per reference key
        self._near: dict[str, tuple[str, float] | None] = {}  # answers of near()
        self._plain_keys: list[str] | None = None
        folded = fold_accents(output)
        if not folded.isascii():
            folded = folded.translate(DASHES)
        numbers = _THOUSANDS_IN_TEXT.sub(_drop_commas, folded) if "," in folded else folded
        self.text = numbers
        self.joined = _NON_WORD.sub("", folded)
        self._indexes: tuple[SubstringIndex, SubstringIndex] | None = None
        self._sorted: list[str] | None = None
        self._kinds: dict[str, tuple[str, ...]] | None = None

    def every_key(self) -> frozenset[str]:
        """The canonical forms of all the text's keys, stopwords too (a question's words)."""
        english = self._english
        return frozenset(self.canonical).union([canonical_key(k, english) for k in self._all_keys])

    def of_kind(self, kind: str) -> tuple[str, ...]:
        """The output's canonical keywords of a :func:`conflict_kind` (built once)."""
        kinds = self._kinds
        if kinds is None:
            found: dict[str, list[str]] = {}
            for key in dict.fromkeys(self.canonical):
                k = conflict_kind(key, self._english)
                if k is not None:
                    found.setdefault(k, []).append(key)
            kinds = self._kinds = {k: tuple(v) for k, v in found.items()}
        return kinds.get(kind, ())

    def _extend(self) -> list[str]:
        """Add the stopword-keeping keys and sort all keys for prefix queries (once; threads
        that race here build the same values in locals and publish them whole)."""
        ordered = self._sorted
        if ordered is None:
            every = merge_number_words(self._all_keys, self._english)
            extra = {canonical_key(k, self._english) for k in every}
            extra.update([k.replace("-", "") for k in extra if "-" in k])
            keys = self._keys | extra
            ordered = sorted(keys)
            self._keys = keys
            self._sorted = ordered
        return ordered

    def _prefix_match(self, key: str) -> bool:
        """Rule 3: an output key without digits shares with ``key`` a prefix of at least
        ``_PREFIX_MIN`` characters and ``_PREFIX_SHARE`` of the longer word."""
        ordered = self._extend()
        head = key[:_PREFIX_MIN]
        for i in range(bisect_left(ordered, head), len(ordered)):
            other = ordered[i]
            if not other.startswith(head):
                return False
            if len(other) >= _PREFIX_MIN and not _has_digit(other):
                n = Prefix.similarity(key, other)
                if n >= _PREFIX_SHARE * max(len(key), len(other)):
                    return True  # "himalayas" / "himalaya", "eukarya" / "eukaryota"
        return False

    def _inside(self, key: str) -> bool:
        """The substring rule: ``key`` inside the output text or its letters and digits
        (a key with a digit only as a whole number)."""
        text, joined = self.text, self.joined
        if len(text) < LONG_TEXT:
            if not _has_digit(key):
                return key in text or key in joined
            found = (text, find_all(text, key)), (joined, find_all(joined, key))
        else:
            indexes = self._indexes
            if indexes is None:  # published whole (threads may build it twice, equal)
                indexes = self._indexes = SubstringIndex(text), SubstringIndex(joined)
            if not _has_digit(key):
                return indexes[0].contains(key) or indexes[1].contains(key)
            found = (text, indexes[0].positions(key)), (joined, indexes[1].positions(key))
        return any(_whole_number_at(t, start, key) for t, starts in found for start in starts)

    def has(self, key: str) -> bool:
        """Whether a (canonical) reference key is present in the output, as a word or as a
        part of a hyphenated word ("25" in "25th-largest")."""
        return self.has_word(key) or key in self._parts

    def has_word(self, key: str) -> bool:
        """Whether a (canonical) reference key is present in the output other than as a part
        of a hyphenated word."""
        found = self._found.get(key)
        if found is None:
            found = self._find(key)
            self._found[key] = found
        return found

    def near(self, key: str) -> tuple[str, float] | None:
        """The output keyword most similar to a (canonical) reference key without digits and
        its rapidfuzz Indel similarity, when at least :data:`NEAR_MIN` (rule 5), else None."""
        if key in self._near:
            return self._near[key]
        plain = self._plain_keys
        if plain is None:
            if len(self.canonical) > NEAR_MAX_OUTPUT_KEYWORDS:
                plain = self._plain_keys = []
            else:
                plain = self._plain_keys = [k for k in self.canonical if not _has_digit(k)]
        best = extractOne(key, plain, scorer=Indel.normalized_similarity, score_cutoff=NEAR_MIN)
        found = None if best is None else (self.keywords[self.canonical.index(best[0])], best[1])
        self._near[key] = found
        return found

    def _find(self, key: str) -> bool:
        plain = key.replace("-", "")
        if key in self._keys or plain in self._keys:
            return True
        if len(key) >= _SUBSTRING_MIN and self._inside(key):
            return True  # glued words and citation marks: "Massachusetts1", "byJohann"
        self._extend()  # stopwords kept: "four", "no"
        if key in self._keys or plain in self._keys:
            return True
        return len(key) >= _PREFIX_MIN and not _has_digit(key) and self._prefix_match(key)


def _unit_number(value: float, name: str) -> float:
    """``value`` as a float, checked to be a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {value!r}")
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise ValueError(f"{name} must be in [0, 1], not {value!r}")
    return float(value)


def _drop_commas(match: re.Match[str]) -> str:
    return match.group().replace(",", "")


def _contains_phrase(tokens: Sequence[str], phrase: Sequence[str]) -> bool:
    k = len(phrase)
    first = phrase[0]
    for i in range(len(tokens) - k + 1):
        if tokens[i] == first and list(tokens[i : i + k]) == list(phrase):
            return True
    return False


class KeywordCoverageMetric(BaseMetric):
    """Keyword coverage; ``info`` holds Mastra's ``matchedKeywords`` and ``totalKeywords``,
    the ``matched`` and ``missing`` keywords, both keyword lists, ``precision`` (share of the
    output's keywords found in the reference), ``recall`` (the coverage), ``fmeasure`` and
    ``counts``.

    Options: ``keywords=[...]`` gives the expected keywords instead of extracting them from
    ``input`` (which is then ignored); ``fuzzy=True`` also accepts an output keyword whose
    rapidfuzz ratio with a missing keyword is at least ``fuzzy_threshold`` (keywords of at
    least ``fuzzy_min_length`` characters only).

    Empty inputs: in compat modes Mastra's rules (metric: 1.0 when both texts are ``""``, else
    0.0 when the input has no keyword; scorer: 1.0 when the input has no keyword). Default
    mode: when the input has no keyword, 1.0 if the output has none either, else 0.0.
    """

    name = "keyword_coverage"
    _cache_attributes = ("_kw_cache", "_out_cache", "_prepared_refs", "_question_keys")

    def __init__(
        self,
        *,
        compat: Compat | None = None,
        normalizer: Normalizer | TextProcessor | str | None = None,
        keywords: Sequence[str] | None = None,
        fuzzy: bool = False,
        fuzzy_threshold: float = 85.0,
        fuzzy_min_length: int = 5,
        match: Match = "lenient",
        weighting: Weighting = "frequency",
        extra_penalty: float = EXTRA_PENALTY,
        near_credit: float = NEAR_CREDIT,
        conflict_penalty: float = CONFLICT_PENALTY,
        question_weight: float = QUESTION_WEIGHT,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> None:
        super().__init__(scale=check_scale(scale), threshold=threshold)
        if compat not in (None, "mastra", "mastra-scorer"):
            raise ValueError(f"compat must be None, 'mastra' or 'mastra-scorer', not {compat!r}")
        if not isinstance(fuzzy, bool):
            raise TypeError(f"fuzzy must be bool, not {type(fuzzy).__name__}")
        if match not in ("lenient", "exact"):
            raise ValueError(f"match must be 'lenient' or 'exact', not {match!r}")
        if weighting not in ("frequency", "uniform"):
            raise ValueError(f"weighting must be 'frequency' or 'uniform', not {weighting!r}")
        self.compat = compat
        self.match: Match = match
        self.weighting: Weighting = weighting
        self._prepared_refs: dict[str, _Reference] = {}
        self._kw_cache: dict[str, list[str]] = {}
        self._out_cache: dict[str, _OutputKeys] = {}
        self._question_keys: dict[str, frozenset[str]] = {}
        self._out_chars = 0  # characters of the outputs in _out_cache
        self.fuzzy = fuzzy
        if isinstance(fuzzy_threshold, bool) or not isinstance(fuzzy_threshold, (int, float)):
            raise TypeError(f"fuzzy_threshold must be a number, not {fuzzy_threshold!r}")
        if not 0.0 <= fuzzy_threshold <= 100.0:  # a rapidfuzz ratio; NaN fails too
            raise ValueError(f"fuzzy_threshold must be in [0, 100], not {fuzzy_threshold!r}")
        if isinstance(fuzzy_min_length, bool) or not isinstance(fuzzy_min_length, int):
            raise TypeError(f"fuzzy_min_length must be an int, not {fuzzy_min_length!r}")
        if fuzzy_min_length < 1:
            raise ValueError(f"fuzzy_min_length must be at least 1, not {fuzzy_min_length!r}")
        self.extra_penalty = _unit_number(extra_penalty, "extra_penalty")
        self.near_credit = _unit_number(near_credit, "near_credit")
        self.conflict_penalty = _unit_number(conflict_penalty, "conflict_penalty")
        self.question_weight = _unit_number(question_weight, "question_weight")
        self.fuzzy_threshold = float(fuzzy_threshold)
        self.fuzzy_min_length = fuzzy_min_length
        if compat is not None:
            if normalizer is not None:
                raise ValueError(f"normalizer cannot be combined with compat={compat!r}")
            if fuzzy:
                raise ValueError(f"fuzzy cannot be combined with compat={compat!r}")
            self.normalizer: TextProcessor | None = None
        else:
            self.normalizer = resolve_normalizer(normalizer, "default")
        self._peer = MastraProcessor()  # the compat modes' keywords
        self._weights: KeywordWeights | None = None
        if self.normalizer is not None and match == "lenient":
            self._weights = KeywordWeights(
                processor_language(self.normalizer), frequency=weighting == "frequency"
            )
        if keywords is not None:
            if isinstance(keywords, str) or not isinstance(keywords, Sequence):
                raise TypeError("keywords must be a list of str")
            for k in keywords:
                check_text(k, "keywords")
        self.keywords: tuple[str, ...] | None = None if keywords is None else tuple(keywords)

    def __getstate__(self) -> dict[str, Any]:
        """The configuration without caches (the output cache's size too, so a metric pickles
        the same before and after use and pool workers keep their warm copy)."""
        state = super().__getstate__()
        state["_out_chars"] = 0
        return state

    @property
    def signature(self) -> str:
        parts = [self.name, f"mode:{self.compat or 'default'}"]
        if self.compat is None:
            parts.append(f"match:{self.match}")
        if self._weights is not None:
            parts.append(self._weights.signature)
            parts.append(f"extra:{self.extra_penalty:g},near:{self.near_credit:g}>={NEAR_MIN:g}")
            if self.conflict_penalty:
                parts.append(f"conflict:{self.conflict_penalty:g}")
            parts.append(f"question:{self.question_weight:g}")
        if self.fuzzy:
            parts.append(f"fuzzy:ratio>={self.fuzzy_threshold:g},len>={self.fuzzy_min_length}")
        else:
            parts.append("fuzzy:no")
        if self.keywords is not None:
            parts.append(f"keywords:{len(self.keywords)}")
        if self.scale != 1.0:
            parts.append(f"scale:{self.scale:g}")
        parts.append(self._processor.signature)
        return Signature.of(parts)

    @property
    def recommended_threshold(self) -> float | None:
        """The pass threshold for the default settings (lenient matching, no fuzzy, no compat,
        keywords from the reference): the kappa-best threshold against human correctness labels
        of QA answers on EVOUNA NQ (``benchmarks/keyword_defaults.py``), 0.3797 with
        ``weighting="frequency"`` (the default) and 0.3539 with ``"uniform"`` (both with the
        default ``extra_penalty``, ``near_credit`` and ``conflict_penalty``); None for other
        settings.

        >>> KeywordCoverageMetric().recommended_threshold, KeywordCoverageMetric(
        ...     compat="mastra").recommended_threshold
        (0.3797, None)
        """
        default = self.compat is None and self.match == "lenient" and not self.fuzzy
        tie_breaking = (
            self.extra_penalty,
            self.near_credit,
            self.conflict_penalty,
            self.question_weight,
        ) == (EXTRA_PENALTY, NEAR_CREDIT, CONFLICT_PENALTY, QUESTION_WEIGHT)
        if default and tie_breaking and self.keywords is None and self.scale == 1.0:
            return RECOMMENDED_THRESHOLDS[self.weighting]
        return None

    @property
    def _processor(self) -> TextProcessor:
        """The normalizer, or Mastra's keyword extractor in the compat modes."""
        return self._peer if self.normalizer is None else self.normalizer

    # ---- public extras ----------------------------------------------------------------------
    def measure_keywords(self, keywords: Sequence[str], output: str) -> MetricResult:
        """Coverage of an explicit list of expected ``keywords`` in ``output``.

        >>> m = KeywordCoverageMetric(compat="mastra")
        >>> m.measure_keywords(["React", "hooks", "state"], "React state and props").info["missing"]
        ['hooks']
        """
        if isinstance(keywords, str) or not isinstance(keywords, (list, tuple)):
            raise TypeError("keywords must be a list of str")
        for k in keywords:
            check_text(k, "keywords")
        check_text(output, "output")
        score, info = self._explicit(list(keywords), output)
        return self.make_result(score, info)

    # ---- with the question ------------------------------------------------------------------
    def measure(
        self, input: str | Sequence[str], output: str, *, question: str | None = None
    ) -> MetricResult:
        """Score ``output`` against ``input`` (one reference or a list: the best is kept).

        With a ``question`` (default lenient mode only; other modes ignore it), a reference
        keyword that the question names weighs ``question_weight`` times its weight
        (``info["echoed"]`` lists them): repeating the question's words is not knowing the
        answer.

        >>> m = KeywordCoverageMetric()
        >>> q = "Which river flows through Baghdad?"
        >>> round(m.measure("Tigris River", "the Euphrates River").score, 2)
        0.35
        >>> r = m.measure("Tigris River", "the Euphrates River", question=q)
        >>> round(r.score, 2), r.info["echoed"]
        (0.12, ['river'])
        >>> round(m.measure("Tigris River", "the Tigris", question=q).score, 2)
        0.88
        """
        if question is None:
            return super().measure(input, output)
        check_text(question, "question")
        echoed = self._echoed(question)
        if not echoed:  # nothing to weigh differently (or a mode without weights)
            return super().measure(input, output)
        references = [input] if type(input) is str else check_references(input, "input")
        check_text(output, "output")
        score, info = self._measure_refs(references, _Asked(output, echoed))  # type: ignore[arg-type]
        return self.make_result(score, info)

    def measure_many(
        self,
        inputs: Iterable[str | Sequence[str]],
        outputs: Iterable[str],
        progress: bool = False,
        *,
        questions: Iterable[str | None] | None = None,
    ) -> list[MetricResult]:
        """Score pairs in order, as :meth:`BaseMetric.measure_many`; ``questions`` (one per
        pair, or None for a pair without) as in :meth:`measure`."""
        if questions is None:
            return super().measure_many(inputs, outputs, progress)
        return self._measure_questions(inputs, outputs, questions, progress)

    def _echoed(self, question: str) -> frozenset[str]:
        """The canonical keys of ``question`` (every key, stopwords too), when a question
        changes weights (lenient default mode, ``question_weight`` below 1), else empty."""
        if self._weights is None or self.keywords is not None or self.question_weight == 1.0:
            return frozenset()
        cached = self._question_keys.get(question)
        if cached is None:
            cached = self._lenient_output(question).every_key()
            if len(self._question_keys) >= _CACHE_SIZE:
                self._question_keys.clear()
            self._question_keys[question] = cached
        return cached

    def _score_prepared(self, reference: str, prepared_output: Any) -> tuple[float, dict[str, Any]]:
        if type(prepared_output) is _Asked:
            return self._lenient(reference, prepared_output.output, prepared_output.echoed)
        return self._measure_one(reference, prepared_output)

    # ---- scoring ----------------------------------------------------------------------------
    def _measure_one(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        if self.keywords is not None:
            return self._explicit(list(self.keywords), output)
        if self.compat is not None:
            ref_kw = self._peer.keywords(reference)
            out_kw = self._peer.keywords(output)
            out_set = set(out_kw)
            hit = [k for k in ref_kw if k in out_set]
            if ref_kw:
                score = len(hit) / len(ref_kw)
            elif self.compat == "mastra":  # KeywordCoverageMetric: 1.0 only for two ""
                score = 1.0 if reference == "" and output == "" else 0.0
            else:  # createKeywordCoverageScorer: nothing to cover is full coverage
                score = 1.0
            return score, self._info(ref_kw, out_kw, hit, set(hit))
        assert self.normalizer is not None
        if self.match == "lenient":
            return self._lenient(reference, output)
        ref_kw = self._keywords(reference)
        out_kw = self._keywords(output)
        return self._cover([(k, (k,)) for k in ref_kw], out_kw, out_kw, both_empty_is_one=True)

    def _keywords(self, text: str) -> list[str]:
        cached = self._kw_cache.get(text)
        if cached is None:
            assert self.normalizer is not None
            cached = self.normalizer.keywords(text)
            if len(self._kw_cache) >= _CACHE_SIZE:
                self._kw_cache.clear()
            self._kw_cache[text] = cached
        return cached

    # ---- lenient matching (the default) -------------------------------------------------------
    def _lenient_reference(self, reference: str) -> list[str]:
        """Reference keywords, with English number words kept and a stopword-only fallback
        (cached by :meth:`_reference`)."""
        assert self.normalizer is not None
        text = repair_mojibake(reference)
        analysis = keyword_analysis(self.normalizer, text)
        ref_kw = analysis.keywords
        english = processor_language(self.normalizer) == "en"
        words = set(_NON_WORD.split(fold_accents(text)))
        if ref_kw and not (english and not words.isdisjoint(NUMBER_WORDS_EN)):
            ref_all: list[str] = []
        else:  # every key (number words and stopword-only inputs)
            ref_all = analysis.keys
        if english and any(t in NUMBER_WORDS_EN for t in ref_all):
            # spaCy lists number words as stopwords, but "four" can be the whole answer;
            # "twenty four" is one number
            kept = set(ref_kw)
            in_all = set(ref_all)
            merged = merge_number_words(ref_all, english)
            ref_kw = list(
                dict.fromkeys(
                    [t for t in merged if t in kept or t in NUMBER_WORDS_EN or t not in in_all]
                    + [k for k in ref_kw if k not in in_all]
                )
            )
        if not ref_kw:
            ref_kw = list(dict.fromkeys(ref_all))
        return ref_kw

    def _lenient_output(self, output: str) -> _OutputKeys:
        cached = self._out_cache.get(output)
        if cached is not None:
            return cached
        assert self.normalizer is not None
        english = processor_language(self.normalizer) == "en"
        text = repair_mojibake(output)
        prepared = _OutputKeys(text, keyword_analysis(self.normalizer, text), english)
        cache = self._out_cache
        if len(cache) >= _OUTPUT_CACHE_SIZE or self._out_chars > _OUTPUT_CACHE_CHARS:
            cache.clear()
            self._out_chars = 0
        cache[output] = prepared
        self._out_chars += len(output)  # approximate under threads: only bounds the cache
        return prepared

    def _reference(self, reference: str) -> _Reference:
        """The reference keywords prepared for lenient matching: canonical forms, the parts of
        compound keys, and weights (cached per reference)."""
        cached = self._prepared_refs.get(reference)
        if cached is not None:
            return cached
        assert self.normalizer is not None and self._weights is not None
        english = processor_language(self.normalizer) == "en"
        keys = self._lenient_reference(reference)
        canonical = tuple([canonical_key(k, english) for k in keys])
        weights = self._weights.weights(keys, numeric=[bool(_has_digit(c)) for c in canonical])
        parts: list[tuple[tuple[str, ...], tuple[float, ...]]] = []
        for ck in canonical:
            pieces = (
                [canonical_key(p, english) for p in _PARTS.split(ck) if p]
                if _PARTS.search(ck)
                else []
            )
            if len(pieces) < 2:
                parts.append(_NO_PARTS)
            elif self._weights.uniform:
                parts.append((tuple(pieces), (1.0,) * len(pieces)))
            else:
                parts.append((tuple(pieces), tuple([self._weights.weight(p) for p in pieces])))
        prepared = _Reference(
            tuple(keys),
            canonical,
            tuple(weights),
            sum(weights),
            tuple(parts),
            tuple([conflict_kind(ck, english) for ck in canonical]),
            frozenset(canonical),
        )
        if len(self._prepared_refs) >= _REFERENCE_CACHE_SIZE:
            self._prepared_refs.clear()
        self._prepared_refs[reference] = prepared
        return prepared

    def _lenient(
        self, reference: str, output: str, echoed: frozenset[str] = frozenset()
    ) -> tuple[float, dict[str, Any]]:
        ref = self._reference(reference)
        out = self._lenient_output(output)
        if not ref.keys:
            return self._cover([], out.keywords, out.keywords, both_empty_is_one=True)
        weights, total = ref.weights, ref.total
        echoed = echoed if echoed and not ref.key_set.isdisjoint(echoed) else frozenset()
        if echoed:  # keys the question names weigh less
            factor = self.question_weight
            weights = tuple(
                [
                    w * factor if ck in echoed else w
                    for w, ck in zip(weights, ref.canonical, strict=True)
                ]
            )
            total = sum(weights)
        hit: list[str] = []
        hit_keys: set[str] = set()
        partial: dict[str, float] = {}
        near: dict[str, dict[str, str | float]] = {}
        conflicts: dict[str, list[str]] = {}
        credit = 0.0
        against = 0.0
        near_credit = self.near_credit
        conflict_penalty = self.conflict_penalty
        ref_keys = ref.key_set
        for k, ck, weight, (parts, part_weights), kind in zip(
            ref.keys, ref.canonical, weights, ref.parts, ref.kinds, strict=True
        ):
            if out.has(ck):
                hit.append(k)
                hit_keys.add(ck)
                credit += weight
                continue
            if parts:
                found = sum(
                    w
                    for p, w in zip(parts, part_weights, strict=True)
                    if (out.has_word(p) if _has_digit(p) else out.has(p))
                )  # a number part is not found in another compound ("85" of "astatine-85")
                if found:
                    share = found / sum(part_weights)
                    partial[k] = share
                    credit += share * weight
                    continue
            if conflict_penalty and kind is not None:
                others = [o for o in out.of_kind(kind) if o not in ref_keys]
                if others:  # "September 14, 2004" for "September 12, 2004"
                    conflicts[k] = others
                    against += weight
                    continue
            if near_credit and not parts and len(ck) >= _SUBSTRING_MIN and not _has_digit(ck):
                close = out.near(ck)
                if close is not None:
                    near[k] = {"keyword": close[0], "similarity": close[1]}
                    credit += near_credit * (close[1] - NEAR_MIN) / (1.0 - NEAR_MIN) * weight
        coverage = max(0.0, credit - conflict_penalty * against) / total
        used = {k for k, ck in zip(out.keywords, out.canonical, strict=True) if ck in hit_keys}
        info = self._info(list(ref.keys), out.keywords, hit, used)
        extra = 1.0 - info["precision"] if out.keywords else 0.0
        score = coverage * (1.0 - self.extra_penalty * extra)
        info["partial"] = partial
        info["near"] = near
        info["conflicts"] = conflicts
        info["matchedWeight"] = credit
        info["totalWeight"] = total
        info["weights"] = dict(zip(ref.keys, weights, strict=True))
        if echoed:
            info["echoed"] = [
                k for k, ck in zip(ref.keys, ref.canonical, strict=True) if ck in echoed
            ]
        info["coverage"] = coverage
        info["extra"] = extra
        info["recall"] = coverage
        info["fmeasure"] = fmeasure(info["precision"], coverage)
        return score, info

    def _explicit(self, keywords: list[str], output: str) -> tuple[float, dict[str, Any]]:
        processor = self._processor
        expected: list[tuple[str, tuple[str, ...]]] = []
        for k in keywords:
            keys = tuple(processor.tokens(k))
            if keys:
                expected.append((" ".join(keys), keys))
        out_tokens = processor.tokens(output)
        out_kw = list(dict.fromkeys(out_tokens))
        seen: dict[str, tuple[str, ...]] = {}
        for key, keys in expected:
            seen.setdefault(key, keys)
        return self._cover(list(seen.items()), out_kw, out_tokens, both_empty_is_one=False)

    def _cover(
        self,
        expected: list[tuple[str, tuple[str, ...]]],
        out_kw: list[str],
        out_tokens: Sequence[str],
        *,
        both_empty_is_one: bool,
    ) -> tuple[float, dict[str, Any]]:
        out_set = set(out_kw)
        hit: list[str] = []
        used: set[str] = set()
        fuzzy_pairs: dict[str, str] = {}
        pending: list[str] = []
        for key, keys in expected:
            if len(keys) == 1:
                if keys[0] in out_set:
                    hit.append(key)
                    used.add(keys[0])
                    continue
            elif all(k in out_set for k in keys) and _contains_phrase(out_tokens, keys):
                hit.append(key)
                used.update(keys)
                continue
            pending.append(key)
        if self.fuzzy and pending and out_kw:
            from rapidfuzz import fuzz, process

            for key in pending:
                if len(key) < self.fuzzy_min_length:
                    continue
                best = process.extractOne(
                    key, out_kw, scorer=fuzz.ratio, score_cutoff=self.fuzzy_threshold
                )
                if best is not None:
                    fuzzy_pairs[key] = best[0]
                    used.add(best[0])
            hit = [k for k, _ in expected if k in set(hit) or k in fuzzy_pairs]
        ref_kw = [k for k, _ in expected]
        total = len(ref_kw)
        vacuous = 1.0 if (both_empty_is_one and not out_kw) else 0.0
        score = len(hit) / total if total else vacuous
        info = self._info(ref_kw, out_kw, hit, used)
        if self.fuzzy:
            info["fuzzy_matches"] = fuzzy_pairs
        return score, info

    @staticmethod
    def _info(
        ref_kw: list[str], out_kw: list[str], hit: list[str], used: set[str]
    ) -> dict[str, Any]:
        hit_set = set(hit)
        total = len(ref_kw)
        n_out = len(out_kw)
        out_hits = sum(1 for k in out_kw if k in used)
        recall = len(hit) / total if total else 0.0
        precision = out_hits / n_out if n_out else 0.0
        return {
            "matchedKeywords": len(hit),
            "totalKeywords": total,
            "matched": list(hit),
            "missing": [k for k in ref_kw if k not in hit_set],
            "input_keywords": list(ref_kw),
            "output_keywords": list(out_kw),
            "precision": precision,
            "recall": recall,
            "fmeasure": fmeasure(precision, recall),
            "counts": {"overlap": len(hit), "reference": total, "output": n_out},
        }


def _make(**options: Any) -> KeywordCoverageMetric:
    return KeywordCoverageMetric(**options)


register_metric("keyword_coverage", _make, "keyword-coverage", "keywords")
