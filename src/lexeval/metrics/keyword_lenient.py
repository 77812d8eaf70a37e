"""Lenient keyword matching: the rules that find a reference keyword in an output, and the
scoring of one reference against one output with a :class:`TaskProfile`'s knobs.

A reference keyword is found in the output when, after case folding and accent removal
("Röntgen" = "rontgen"), with English number words as digits ("four" = "4") and one spelling
of numbers ("1,000" = "1000", "09:15" = "9:15"):

1. it is one of the output's keys, or one of its keys with stopwords kept, hyphens ignored;
2. it has at least 4 characters and occurs inside the output text, or inside the output with
   everything but letters and digits removed (glued words and citation marks:
   "Massachusetts1", "byJohann Gutenbergin");
3. it shares a prefix of at least 5 characters and 80% of the longer word with an output key
   ("himalayas" / "himalaya");
4. otherwise a keyword made of parts ("1979–80", "six-year") earns the share of its parts found;
5. otherwise a keyword of at least 4 characters without digits that is close to an output
   keyword (rapidfuzz Indel similarity ``s`` of at least 0.5: "manchuria" / "manchu") earns
   ``near_credit`` times ``(s - 0.5) / 0.5`` of its weight (outputs of at most 1,000
   distinct keywords: the time stays linear in the length of long texts).

A reference number or (English) month name that no rule finds, where the output names another
one of the same kind (:func:`conflict_kind`: "September 14, 2004" for "September 12, 2004"),
counts against the answer: ``conflict_penalty`` times its weight is taken off the matched
weight (not below 0; ``info["conflicts"]``). The coverage is then multiplied by
``1 - extra_penalty * extra``, ``extra`` being the share of the output's keywords that match no
reference keyword.

>>> from lexeval.metrics.keyword_tasks import PROFILES
>>> from lexeval.metrics.weights import KeywordWeights
>>> from lexeval.normalize import Normalizer
>>> matcher = LenientMatcher(Normalizer())
>>> ref = matcher.reference("September 12, 2004")
>>> out = matcher.output("It was on September 14, 2004.")
>>> score, info = lenient_score(ref, matcher.weighted(ref, KeywordWeights("en")), out,
...                             PROFILES["short_answer"])
>>> info["conflicts"], round(score, 3)
({'12': ['14']}, 0.235)
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from rapidfuzz.distance import Indel, Prefix
from rapidfuzz.process import extractOne

from lexeval.metrics.keyword_info import coverage_info
from lexeval.metrics.substring import LONG_TEXT, SubstringIndex, find_all
from lexeval.text.base import KeywordAnalysis, TextProcessor, keyword_analysis, processor_language
from lexeval.text.lenient import (
    NUMBER_WORDS_EN,
    canonical_index_parts,
    canonical_key_set,
    canonical_keys,
    fold_accents,
    hyphenate_dashes,
    merge_number_words,
    repair_mojibake,
)

if TYPE_CHECKING:
    from lexeval.metrics.keyword_tasks import TaskProfile
    from lexeval.metrics.weights import KeywordWeights

__all__ = [
    "MONTHS_EN",
    "NEAR_MAX_OUTPUT_KEYWORDS",
    "NEAR_MIN",
    "LenientMatcher",
    "OutputKeys",
    "ReferenceKeys",
    "Weighted",
    "conflict_kind",
    "lenient_score",
]

_PARTS = re.compile(r"[-‐-―/ ]+")
_THOUSANDS_IN_TEXT = re.compile(r"(?<![\d,])\d{1,3}(?:,\d{3})+(?!\d)")
#: What every match of ``_THOUSANDS_IN_TEXT`` holds (a literal first: a fast search).
_COMMA_THOUSAND = re.compile(r",\d{3}").search
_NON_WORD = re.compile(r"\W+")
#: Typographic quotes and the ellipsis: not word characters (``_NON_WORD`` removes them).
_QUOTES = "\u2018\u2019\u201c\u201d\u2026"
#: What ``_NON_WORD`` removes from ASCII text: every character but letters, digits and "_".
_ASCII_NON_WORD = bytes([i for i in range(128) if not (chr(i).isalnum() or chr(i) == "_")])
_PREFIX_MIN = 5
_PREFIX_SHARE = 0.8
_SUBSTRING_MIN = 4
#: Least rapidfuzz Indel similarity of a near match (rule 5); it earns nothing at this value.
NEAR_MIN = 0.5
#: Rule 5 applies to outputs of at most this many distinct keywords (answers have far fewer:
#: at most 107 in EVOUNA); on longer texts it would cost missing keys x output keys.
NEAR_MAX_OUTPUT_KEYWORDS = 1000


#: Questions whose keys are kept per matcher.
_QUESTION_CACHE_SIZE = 4096
#: Prepared references kept per metric (an evaluation set's references are scored against
#: several answers each; EVOUNA NQ has 5,699 distinct gold alternatives).
_REFERENCE_CACHE_SIZE = 8192
#: Prepared outputs kept per metric: at most this many, and this many characters in all (an
#: evaluation set's answers are often scored against several references and several times).
_OUTPUT_CACHE_SIZE = 32768
_OUTPUT_CACHE_CHARS = 4_000_000
#: KeywordWeights whose references' weights are kept per metric (it has one or two).
_WEIGHTS_KEPT = 8

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
#: The conflict kind of an (English) month name.
_MONTH_KINDS: dict[str, str] = dict.fromkeys(MONTHS_EN, "month")
_YEAR = re.compile(r"[12]\d{3}")
_SMALL_NUMBER = re.compile(r"\d{1,2}")

_has_digit = re.compile(r"\d").search
_NUMBER_WORD_SET = frozenset(NUMBER_WORDS_EN)
#: ``bytes.translate`` table: every ASCII character but letters, digits and "_" as a space.
_ASCII_NON_WORD_SPACE = bytes([32 if i in _ASCII_NON_WORD else i for i in range(256)])


#: The number words as ASCII bytes (the words of ASCII text are compared as bytes).
_NUMBER_WORD_BYTES = frozenset([w.encode("ascii") for w in NUMBER_WORDS_EN if w.isascii()])


def _has_number_word(folded: str) -> bool:
    """Whether a folded text has an English number word as one of its words (the runs of
    letters, digits and "_" that ``_NON_WORD`` splits it into)."""
    if folded.isascii():  # the same words, split without the pattern
        spaced = folded.encode("ascii").translate(_ASCII_NON_WORD_SPACE).decode("ascii")
        words: list[str] = spaced.split()
    else:
        words = _NON_WORD.split(folded)
    return not _NUMBER_WORD_SET.isdisjoint(words)


def _names_number(text: str) -> bool:
    """``_has_number_word(fold_accents(text))``: ASCII text folded, split and compared as bytes
    (no str made of its words).

    >>> _names_number("Twenty-four hours"), _names_number("Paris, 1900"), _names_number("Röntgen")
    (True, False, False)
    """
    if text.isascii():  # fold_accents is the case fold (lower case) there
        words = text.encode("ascii").lower().translate(_ASCII_NON_WORD_SPACE).split()
        return not _NUMBER_WORD_BYTES.isdisjoint(words)
    return _has_number_word(fold_accents(text))


_NO_PARTS: frozenset[str] = frozenset()  # an output without hyphenated keywords
_NOTHING_ECHOED: frozenset[str] = frozenset()


def conflict_kind(key: str, english: bool = True) -> str | None:
    """The kind of a canonical key for conflicts: ``"year"`` (four digits from 1000 to 2999),
    ``"small"`` (one or two digits), ``"number"`` (any other key with a digit), ``"month"``
    (an English month name, when ``english``), else None.

    >>> [conflict_kind(k) for k in ("1998", "12", "2.18", "march", "paris")]
    ['year', 'small', 'number', 'month', None]
    """
    if key.isascii() and key.isdecimal():  # a plain number: the patterns by its length
        if len(key) == 4 and key[0] in "12":
            return "year"
        return "small" if len(key) <= 2 else "number"
    if not key.isalpha() and _has_digit(key):  # letters have no digit
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


class OutputKeys:
    """An output text prepared for lenient matching (from one analysis: its keywords and every
    key); the stopword-keeping keys and the prefix index are added only when a reference key is
    not found directly. On a long output substring queries go through :class:`SubstringIndex`,
    so their cost does not grow with it. (The matcher keeps an output as the plain tuple of
    its text, keywords and keys, which the garbage collector stops tracking, and fills an
    :class:`OutputKeys` from it again when it is scored.)"""

    __slots__ = (
        "_all_keys",
        "_english",
        "_every",
        "_found",
        "_indexes",
        "_keys",
        "_kinds",
        "_near",
        "_parts",
        "_plain_keys",
        "_sorted",
        "_text",
        "canonical",
        "keywords",
        "output",
    )

    output: str
    keywords: tuple[str, ...]
    canonical: tuple[str, ...]  # the canonical form of each keyword
    _all_keys: tuple[str, ...]  # every key, stopwords kept
    _english: bool
    # the canonical keywords and their forms without hyphens ("10-12" is also "1012"), and the
    # canonical parts of the hyphenated ones ("25th-largest": "25" and "largest"), sets as
    # dicts of None (a dict of strings is not tracked by the garbage collector)
    _keys: dict[str, None]
    _parts: frozenset[str] | dict[str, None]
    # built on first use
    _every: dict[str, None] | None  # the stopword-keeping keys
    _found: dict[str, bool] | None  # answers of has_word(), per reference key
    _near: dict[str, tuple[str, float] | None] | None  # answers of near()
    _plain_keys: tuple[str, ...] | None
    _text: tuple[str, str] | None  # _fold_texts()
    _indexes: tuple[SubstringIndex, SubstringIndex] | None
    _sorted: tuple[str, ...] | None
    _kinds: dict[str, tuple[str, ...]] | None

    def __init__(self, output: str, analysis: KeywordAnalysis, english: bool) -> None:
        self._fill(output, tuple(analysis.keywords), tuple(analysis.keys), english)

    def _fill(
        self, output: str, keywords: tuple[str, ...], keys: tuple[str, ...], english: bool
    ) -> None:
        """Sets every field: the canonical index in one call of the text layer
        (:func:`canonical_index_parts`), the other parts left to their first use."""
        self.output = output
        self.keywords = keywords
        self._all_keys = keys
        self._english = english
        self.canonical, self._keys, parts = canonical_index_parts(keywords, english)
        self._parts = _NO_PARTS if parts is None else parts
        self._every = self._found = self._near = self._plain_keys = None
        self._text = self._indexes = self._sorted = self._kinds = None

    def _fold_texts(self) -> tuple[str, str]:
        """The folded text (accents off, dashes as hyphens, numbers without thousands
        separators) and its letters and digits alone, for the substring rule (built once:
        stored in ``_text``)."""
        folded = hyphenate_dashes(fold_accents(self.output))
        numbers = folded
        if "," in folded and _COMMA_THOUSAND(folded):  # the pattern may match
            numbers = _THOUSANDS_IN_TEXT.sub(_drop_commas, folded)
        letters = folded
        if not letters.isascii():  # typographic quotes are not letters: off first
            for mark in _QUOTES:
                if mark in letters:
                    letters = letters.replace(mark, "")
        if letters.isascii():  # the same as the pattern on ASCII text, many times faster
            joined = letters.encode("ascii").translate(None, _ASCII_NON_WORD).decode("ascii")
        else:
            joined = _NON_WORD.sub("", letters)
        self._text = texts = (numbers, joined)
        return texts

    def every_key(self) -> frozenset[str]:
        """The canonical forms of all the text's keys, stopwords too (a question's words)."""
        return frozenset(self.canonical).union(canonical_keys(self._all_keys, self._english))

    def of_kind(self, kind: str) -> tuple[str, ...]:
        """The output's canonical keywords of a :func:`conflict_kind` (built once)."""
        kinds = self._kinds
        if kinds is None:
            found: dict[str, list[str]] = {}
            english = self._english
            # conflict_kind is None but for keys with a digit and (English) month names
            candidates = [
                key
                for key in dict.fromkeys(self.canonical)
                if (english and key in MONTHS_EN) or (not key.isalpha() and _has_digit(key))
            ]
            for key in candidates:
                k = conflict_kind(key, english)
                if k is not None:
                    found.setdefault(k, []).append(key)
            kinds = self._kinds = {k: tuple(v) for k, v in found.items()}
        return kinds.get(kind, ())

    def _extend(self) -> dict[str, None]:
        """The stopword-keeping keys, which the keys in ``_keys`` complete (built once; threads
        that race here build the same values in locals and publish them whole)."""
        keys = self._every
        if keys is None:
            english = self._english
            words = merge_number_words(self._all_keys, english)
            keys = self._every = canonical_key_set(words, english, joined=True)
        return keys

    def _in_every(self, key: str, plain: str) -> bool:
        """Whether ``key`` or its form without hyphens ``plain`` is one of the keys of
        :meth:`_extend`."""
        every = self._extend()
        return key in every or plain in every

    def _prefix_match(self, key: str) -> bool:
        """Rule 3: an output key without digits shares with ``key`` a prefix of at least
        ``_PREFIX_MIN`` characters and ``_PREFIX_SHARE`` of the longer word (the keys sorted
        once for these queries: a scan per missing key would be quadratic)."""
        ordered = self._sorted
        if ordered is None:
            ordered = self._sorted = tuple(sorted([*self._keys, *self._extend()]))
        head = key[:_PREFIX_MIN]
        for i in range(bisect_left(ordered, head), len(ordered)):
            other = ordered[i]
            if not other.startswith(head):
                return False
            if _prefix_close(key, other):
                return True  # "himalayas" / "himalaya", "eukarya" / "eukaryota"
        return False

    def _inside(self, key: str) -> bool:
        """The substring rule: ``key`` inside the output text or its letters and digits
        (a key with a digit only as a whole number)."""
        texts = self._text
        text, joined = self._fold_texts() if texts is None else texts
        if len(text) < LONG_TEXT:
            if key.isalpha() or not _has_digit(key):
                return key in text or key in joined
            found = (text, find_all(text, key)), (joined, find_all(joined, key))
        else:
            indexes = self._indexes
            if indexes is None:  # published whole (threads may build it twice, equal)
                indexes = self._indexes = SubstringIndex(text), SubstringIndex(joined)
            if key.isalpha() or not _has_digit(key):
                return indexes[0].contains(key) or indexes[1].contains(key)
            found = (text, indexes[0].positions(key)), (joined, indexes[1].positions(key))
        return any(_whole_number_at(t, start, key) for t, starts in found for start in starts)

    def has(self, key: str) -> bool:
        """Whether a (canonical) reference key is present in the output, as a word or as a
        part of a hyphenated word ("25" in "25th-largest")."""
        return self.has_word(key) or key in self._parts

    def has_missing(self, key: str) -> bool:
        """:meth:`has` of a (canonical) reference key that is not one of the output's
        keywords (rules 1 to 3 past the first look-up)."""
        return self._has_other(key) or key in self._parts

    def has_word(self, key: str) -> bool:
        """Whether a (canonical) reference key is present in the output other than as a part
        of a hyphenated word."""
        return key in self._keys or self._has_other(key)

    def _has_other(self, key: str) -> bool:
        """:meth:`has_word` of a key that is not one of the output's keywords (remembered per
        key): its form without hyphens is, or rules 1 to 3 find it."""
        answers = self._found
        if answers is None:
            answers = self._found = {}
        found = answers.get(key)
        if found is None:
            plain = key.replace("-", "")
            found = answers[key] = plain in self._keys or self._find_missing(key, plain)
        return found

    def near(self, key: str) -> tuple[str, float] | None:
        """The output keyword most similar to a (canonical) reference key without digits and
        its rapidfuzz Indel similarity, when at least :data:`NEAR_MIN` (rule 5), else None."""
        answers = self._near
        if answers is None:
            answers = self._near = {}
        elif key in answers:
            return answers[key]
        plain = self._plain_keys
        if plain is None:
            canonical = self.canonical
            if len(canonical) > NEAR_MAX_OUTPUT_KEYWORDS:
                plain = self._plain_keys = ()
            else:
                if _has_digit("".join(canonical)):
                    plain = tuple([k for k in canonical if k.isalpha() or not _has_digit(k)])
                else:  # no key has a digit (most texts): all of them
                    plain = canonical
                self._plain_keys = plain
        best = extractOne(key, plain, scorer=Indel.normalized_similarity, score_cutoff=NEAR_MIN)
        found = None if not best else (self.keywords[self.canonical.index(best[0])], best[1])
        answers[key] = found
        return found

    def _find_missing(self, key: str, plain: str) -> bool:
        """Rules 1 to 3 for a key that is not one of ``_keys``, nor its form without hyphens
        ``plain``."""
        if len(key) >= _SUBSTRING_MIN and self._inside(key):
            return True  # glued words and citation marks: "Massachusetts1", "byJohann"
        if self._in_every(key, plain):  # stopwords kept: "four", "no"
            return True
        if len(key) < _PREFIX_MIN or (not key.isalpha() and _has_digit(key)):
            return False
        return self._prefix_match(key)


class ReferenceKeys(NamedTuple):
    """A reference prepared for lenient matching (the same for every profile)."""

    keys: tuple[str, ...]
    canonical: tuple[str, ...]
    numeric: tuple[bool, ...]  # whether each canonical key has a digit
    pieces: tuple[tuple[str, ...], ...]  # the parts of compound keys, else empty
    kinds: tuple[str | None, ...]  # conflict_kind of each canonical key


class Weighted(NamedTuple):
    """A reference's keyword weights under one :class:`KeywordWeights`."""

    weights: tuple[float, ...]
    total: float  # sum of weights
    part_weights: tuple[tuple[float, ...], ...]  # of each key's pieces


#: What a named tuple's ``__new__`` calls: ``_new_tuple(cls, fields)`` is ``cls(*fields)``.
_new_tuple = tuple.__new__
_new_object = object.__new__
#: ``(x,) * n`` for the n of short references, made once: fewer tuples for the collector.
_MADE = 17
_NO_PIECES: tuple[tuple[tuple[()], ...], ...] = tuple([((),) * n for n in range(_MADE)])
_NOT_NUMERIC: tuple[tuple[bool, ...], ...] = tuple([(False,) * n for n in range(_MADE)])
_NO_KINDS: tuple[tuple[None, ...], ...] = tuple([(None,) * n for n in range(_MADE)])


class LenientMatcher:
    """Prepares texts for lenient matching with one normalizer and keeps them (bounded caches,
    safe under threads: racing threads build equal values)."""

    def __init__(self, normalizer: TextProcessor) -> None:
        self.normalizer = normalizer
        self.english = processor_language(normalizer) == "en"
        # a text's analysis: the processor's own method when it has one (keyword_analysis)
        self._analyze: Callable[[str], KeywordAnalysis] = getattr(
            normalizer, "keyword_analysis", None
        ) or partial(keyword_analysis, normalizer)
        # the caches hold the fields as plain tuples: the garbage collector stops tracking a
        # tuple of strings, numbers and such tuples (never a named tuple: a subclass instance)
        self._references: dict[str, tuple[Any, ...]] = {}
        # per weights object, the weights of references by their keys (a metric has one or
        # two weights objects; a few kept)
        self._weighted: dict[KeywordWeights, dict[tuple[str, ...], tuple[Any, ...]]] = {}
        # outputs as plain tuples (text, keywords, keys, english), which the collector stops
        # tracking (an OutputKeys it would walk in every full collection, and more of them
        # make full collections come sooner); the last one prepared as (key, OutputKeys), with
        # the parts its misses built: one output scored again at once is not made again
        self._outputs: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], bool]] = {}
        self._last: tuple[str, OutputKeys] | None = None
        self._questions: dict[str, frozenset[str]] = {}
        self._out_chars = 0  # characters of the outputs in _outputs

    def __getstate__(self) -> dict[str, Any]:
        """The normalizer only: caches are rebuilt in the new process."""
        return {"normalizer": self.normalizer}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["normalizer"])  # type: ignore[misc]

    def reference_keywords(self, reference: str) -> list[str]:
        """Reference keywords, with English number words kept and a stopword-only fallback."""
        text = repair_mojibake(reference)
        return self._keywords_of(text, self._analyze(text))

    def _keywords_of(self, text: str, analysis: KeywordAnalysis) -> list[str]:
        """:meth:`reference_keywords` of a (repaired) reference text from its analysis."""
        ref_kw = analysis.keywords
        english = self.english
        if ref_kw and not (english and _names_number(text)):
            return ref_kw
        ref_all = analysis.keys  # every key (number words and stopword-only inputs)
        if english and ref_all and not NUMBER_WORDS_EN.keys().isdisjoint(ref_all):
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

    def reference(self, reference: str) -> ReferenceKeys:
        """The reference's keywords prepared for matching (cached per reference)."""
        cached = self._references.get(reference)
        if cached is not None:
            return _new_tuple(ReferenceKeys, cached)  # ReferenceKeys(*cached), without its frame
        text = reference if reference.isascii() else repair_mojibake(reference)
        return self._prepare(reference, text, self._analyze(text))

    def _prepare(self, reference: str, text: str, analysis: KeywordAnalysis) -> ReferenceKeys:
        """The reference prepared from its (repaired) text's analysis, and cached."""
        english = self.english
        keys = tuple(self._keywords_of(text, analysis))
        canonical = canonical_keys(keys, english)
        if canonical == keys:
            canonical = keys  # one tuple fewer kept
        # canonical keys have "-" for every dash: parts are split at "-", "/" and " "
        fields: tuple[Any, ...]
        if "".join(canonical).isalpha():  # words: no digit, no part; a month is a kind
            n = len(canonical)
            if n >= _MADE:
                fields = (keys, canonical, (False,) * n, ((),) * n, (None,) * n)
            else:
                fields = (keys, canonical, _NOT_NUMERIC[n], _NO_PIECES[n], _NO_KINDS[n])
            if english and not _MONTH_KINDS.keys().isdisjoint(canonical):
                fields = (*fields[:4], tuple(map(_MONTH_KINDS.get, canonical)))
        else:
            fields = (
                keys,
                canonical,
                tuple([not ck.isalpha() and bool(_has_digit(ck)) for ck in canonical]),
                tuple([_pieces(ck, english) for ck in canonical]),
                tuple([conflict_kind(ck, english) for ck in canonical]),
            )
        if len(self._references) >= _REFERENCE_CACHE_SIZE:
            self._references.clear()
        self._references[reference] = fields
        return _new_tuple(ReferenceKeys, fields)

    def weighted(self, reference: ReferenceKeys, weights: KeywordWeights) -> Weighted:
        """The weights of a prepared reference's keywords and of their parts (cached)."""
        cache = self._weighted.get(weights)
        if cache is None:
            if len(self._weighted) >= _WEIGHTS_KEPT:
                self._weighted.clear()
            cache = self._weighted.setdefault(weights, {})
        keys = reference.keys
        cached = cache.get(keys)  # (by the keys: references with the same keys weigh the same)
        if cached is None:
            cached = weights.of_reference(keys, reference.numeric, reference.pieces)
            if len(cache) >= _REFERENCE_CACHE_SIZE:
                cache.clear()
            cache[keys] = cached
        return _new_tuple(Weighted, cached)  # Weighted(*cached)

    def output(self, output: str) -> OutputKeys:
        """The output prepared for matching (cached, bounded in count and characters)."""
        last = self._last
        if last is not None and last[0] == output:
            return last[1]
        cache = self._outputs
        state = cache.get(output)
        if state is None:
            text = output if output.isascii() else repair_mojibake(output)  # (ASCII: as is)
            analysis = self._analyze(text)
            state = (text, tuple(analysis.keywords), tuple(analysis.keys), self.english)
            if len(cache) >= _OUTPUT_CACHE_SIZE or self._out_chars > _OUTPUT_CACHE_CHARS:
                cache.clear()
                self._out_chars = 0
            cache[output] = state
            self._out_chars += len(output)  # approximate under threads: only bounds the cache
        prepared: OutputKeys = _new_object(OutputKeys)
        prepared._fill(*state)
        self._last = (output, prepared)  # published whole: threads see a key and its output
        return prepared

    def question_keys(self, question: str) -> frozenset[str]:
        """The canonical forms of every key of ``question``, stopwords too (cached)."""
        cached = self._questions.get(question)
        if cached is None:
            cached = self.output(question).every_key()
            if len(self._questions) >= _QUESTION_CACHE_SIZE:
                self._questions.clear()
            self._questions[question] = cached
        return cached


def lenient_score(
    ref: ReferenceKeys,
    weighted: Weighted,
    out: OutputKeys,
    profile: TaskProfile,
    echoed: frozenset[str] = frozenset(),
) -> tuple[float, dict[str, Any]]:
    """The score of one output against one reference with ``profile``'s knobs (reference
    keys in ``echoed``, a question's keys, weigh ``profile.question_weight`` of their weight),
    and its evidence (rules 1 to 3 by :meth:`OutputKeys.has_missing`; parts, conflicts and
    near matches in :class:`_Missed`)."""
    keys, canonical = ref.keys, ref.canonical
    if not keys:
        return _empty_reference(out)
    weights, total = weighted.weights, weighted.total
    if echoed and not echoed.isdisjoint(canonical):  # keys the question names weigh less
        factor = profile.question_weight
        weights = tuple(
            [w * factor if ck in echoed else w for w, ck in zip(weights, canonical, strict=True)]
        )
        total = sum(weights)
    else:
        echoed = _NOTHING_ECHOED
    # a reference key among the output's keys is found by one look-up, the others go through
    # the rules of _Missed
    part_weights = weighted.part_weights
    hit: list[str] = []
    hit_keys: list[str] = []
    credit = 0.0
    missed: _Missed | None = None  # made at the first key that is not one of the output's
    out_keys = out._keys
    # the six tuples have one item per reference key (ReferenceKeys and Weighted build them so)
    for k, ck, weight, parts, part_ws, kind in zip(  # noqa: B905  (strict= costs a tenth)
        keys, canonical, weights, ref.pieces, part_weights, ref.kinds
    ):
        if ck not in out_keys and not out.has_missing(ck):
            if missed is None:
                missed = _Missed(out, canonical, profile)
            found = missed.credit(k, ck, weight, parts, part_ws, kind)
            if found is not None:
                credit += found
            continue
        hit.append(k)
        hit_keys.append(ck)
        credit += weight
    if missed is None:
        partial: dict[str, float] = {}
        near: dict[str, dict[str, str | float]] = {}
        conflicts: dict[str, list[str]] = {}
        against = 0.0
    else:
        partial, near, conflicts = missed.partial, missed.near, missed.conflicts
        against = missed.against
    coverage = max(0.0, credit - profile.conflict_penalty * against) / total
    # the output's keywords that match: those whose canonical form a found reference key has
    if not hit_keys:
        used = 0
    elif len(hit_keys) == 1:
        used = out.canonical.count(hit_keys[0])
    else:
        used = sum(map(frozenset(hit_keys).__contains__, out.canonical))
    info = coverage_info(keys, out.keywords, hit, output_hits=used, recall=coverage)
    extra = 1.0 - info["precision"] if out.keywords else 0.0
    info["partial"] = partial
    info["near"] = near
    info["conflicts"] = conflicts
    info["matched_weight"] = credit
    info["total_weight"] = total
    info["weights"] = dict(zip(keys, weights))  # noqa: B905  (one weight per key)
    if echoed:
        info["echoed"] = [k for k, ck in zip(keys, canonical, strict=True) if ck in echoed]
    info["coverage"] = coverage
    info["extra"] = extra
    return coverage * (1.0 - profile.extra_penalty * extra), info


class _Missed:
    """The rules for the reference keys of one scoring call that rules 1 to 3 do not find
    (:meth:`OutputKeys.has_missing`): parts, conflicts and near matches (:meth:`credit`), with
    their evidence and the weight the conflicts take off."""

    __slots__ = (
        "against",
        "canonical",
        "conflict_penalty",
        "conflicts",
        "known",
        "near",
        "near_credit",
        "out",
        "partial",
        "rivals",
    )

    def __init__(self, out: OutputKeys, canonical: tuple[str, ...], profile: TaskProfile) -> None:
        self.out = out
        self.canonical = canonical  # the reference's canonical keys
        self.known: frozenset[str] | tuple[str, ...] | None = None  # reference_keys()
        self.near_credit = profile.near_credit
        self.conflict_penalty = profile.conflict_penalty
        self.partial: dict[str, float] = {}
        self.near: dict[str, dict[str, str | float]] = {}
        self.conflicts: dict[str, list[str]] = {}
        self.against = 0.0
        # per kind, the output's keys that are not in the reference
        self.rivals: dict[str, list[str]] | None = None

    def reference_keys(self) -> frozenset[str] | tuple[str, ...]:
        """The reference's canonical keys for membership tests (a set past a few keys)."""
        known = self.known
        if known is None:
            canonical = self.canonical
            known = self.known = frozenset(canonical) if len(canonical) > 8 else canonical
        return known

    def credit(
        self,
        k: str,
        ck: str,
        weight: float,
        parts: tuple[str, ...],
        part_weights: tuple[float, ...],
        kind: str | None,
    ) -> float | None:
        """The credit that the reference keyword ``k`` (canonical ``ck``), which the output
        does not have (:meth:`OutputKeys.has`), earns (a share of its parts, a near match), or
        None (none, or a conflict: its weight is added to ``against``)."""
        out = self.out
        if parts:
            found = sum(
                w
                for p, w in zip(parts, part_weights, strict=True)
                if (out.has_word(p) if _has_digit(p) else out.has(p))
            )  # a number part is not found in another compound ("85" of "astatine-85")
            if found:
                share = found / sum(part_weights)
                self.partial[k] = share
                return share * weight
        if self.conflict_penalty and kind is not None:
            rivals = self.rivals
            if rivals is None:
                rivals = self.rivals = {}
            others = rivals.get(kind)
            if others is None:  # once per kind: linear in the output's numbers
                canonical = self.reference_keys()
                others = rivals[kind] = [o for o in out.of_kind(kind) if o not in canonical]
            if others:  # "September 14, 2004" for "September 12, 2004"
                # one list per kind, shared by the keys it contradicts: a copy per key would
                # make the evidence (reference numbers x output numbers) long
                self.conflicts[k] = others
                self.against += weight
                return None
        near_credit = self.near_credit
        if (
            near_credit
            and not parts
            and len(ck) >= _SUBSTRING_MIN
            and (ck.isalpha() or not _has_digit(ck))
        ):
            close = out.near(ck)
            if close is not None:
                self.near[k] = {"keyword": close[0], "similarity": close[1]}
                return near_credit * (close[1] - NEAR_MIN) / (1.0 - NEAR_MIN) * weight
        return None


def _empty_reference(out: OutputKeys) -> tuple[float, dict[str, Any]]:
    """A reference without keywords: 1.0 when the output has none either, else 0.0."""
    info = coverage_info([], out.keywords, [], output_hits=0)
    return (0.0 if out.keywords else 1.0), info


def _prefix_close(key: str, other: str) -> bool:
    """Whether ``other`` (which begins with ``key``'s first ``_PREFIX_MIN`` characters) is a
    word without digits sharing ``_PREFIX_SHARE`` of the longer one with ``key`` (rule 3)."""
    if len(other) < _PREFIX_MIN or (not other.isalpha() and _has_digit(other)):
        return False
    return Prefix.similarity(key, other) >= _PREFIX_SHARE * max(len(key), len(other))


def _pieces(canonical: str, english: bool) -> tuple[str, ...]:
    """The canonical parts of a compound key ("1979-80": "1979", "80"), else ()."""
    if canonical.isalnum() or not _PARTS.search(canonical):  # (letters and digits: no part)
        return ()
    split = canonical_keys([p for p in _PARTS.split(canonical) if p], english)
    return tuple(split) if len(split) >= 2 else ()


def _drop_commas(match: re.Match[str]) -> str:
    return match.group().replace(",", "")
