"""Keyword weights: how much a reference keyword says about the answer.

A keyword's weight is its information content from word frequency, on the Zipf scale of the
``wordfreq`` package (log10 of occurrences per billion words; "the" 7.7, "battle" 4.9,
"Röntgen" 1.6): ``weight = max(0.5, 8 - zipf)``. A generic word that many wrong answers share
with the gold ("Battle of ...", "... River") counts less than the rare name or the number that
carries the answer. Keys with a digit weigh three times their frequency weight, and a negation
("not", "never", ...) weighs at least twice the heaviest other keyword, so an answer that drops
it falls below the keywords it kept. The constants were chosen on EVOUNA NQ only.

With ``frequency=False``, and for languages that wordfreq does not list, every keyword weighs
1.0 but negations keep their rule.

>>> w = KeywordWeights("en")
>>> round(w.weight("battle"), 2), round(w.weight("hastings"), 2)
(3.06, 4.3)
>>> w.weights(["not", "guilty"])[0] > 2 * w.weight("guilty") - 1e-9
True
>>> KeywordWeights("xx").weights(["a", "b"]), KeywordWeights(frequency=False).weights(["no", "a"])
([1.0, 1.0], [2.0, 1.0])
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Collection, Sequence
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version
from typing import Any

from lexeval.metrics.wordlists import frequency_dict, wordlist_languages
from lexeval.normalize import KEEP_WORDS

__all__ = [
    "NEGATION_FACTOR",
    "NUMBER_FACTOR",
    "WEIGHT_FLOOR",
    "ZIPF_CEILING",
    "KeywordWeights",
]

#: The Zipf frequency whose words weigh nothing above the floor; a word wordfreq does not know
#: (Zipf 0) weighs this much.
ZIPF_CEILING = 8.0
#: The least weight of any keyword (the most frequent words still count a little).
WEIGHT_FLOOR = 0.5
#: Keys with a digit ("1901", "26th", "x86") weigh this many times their frequency weight.
NUMBER_FACTOR = 3.0
#: A negation weighs at least this many times the heaviest other keyword of its reference.
NEGATION_FACTOR = 2.0

_DIGIT = re.compile(r"\d")
#: A number whose digit runs "." or "," join: one token for wordfreq's tokenizer ("9,436").
_DIGIT_GROUPS = re.compile(r"[0-9]+(?:[.,][0-9]+)+")
#: Hyphens, dashes and the minus sign: wordfreq's tokenizer splits words at them, as at "-".
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))

# wordfreq tokenizes these languages with optional packages (jieba, MeCab) that lexeval does not
# install; their keys are already tokens, so they are looked up in the frequency list directly.
_DIRECT_LOOKUP = frozenset({"zh", "ja", "ko"})

#: English negations: the words lexeval's normalizer never removes, but its ``n't`` forms (which
#: become ``not``).
NEGATIONS_EN = frozenset(w for w in KEEP_WORDS if "'" not in w and "‘" not in w and "’" not in w)


def _wordfreq_languages() -> frozenset[str]:
    return wordlist_languages()


@functools.cache
def _frequency_dict(language: str) -> dict[str, float]:
    found = frequency_dict(language)  # wordfreq's files read directly: no import of wordfreq
    if found is not None:
        return found
    import wordfreq

    # called as wordfreq calls it itself, so that its cache holds the list once
    frequencies: dict[str, float] = wordfreq.get_frequency_dict(language, "best")
    return frequencies  # wordfreq's own cached dict: read, never modified


#: Frequency weights remembered per language (a word's is computed once per process); each
#: memo is emptied when it reaches this size.
_WEIGHT_CACHE_SIZE = 65536


class _WeightMemo(dict[str, float]):
    """``max(WEIGHT_FLOOR, ZIPF_CEILING - zipf)`` by key, for one language: a keyword's weight
    before the number factor. A known key is one C-level look-up (``memo[key]``, also through
    ``map``); an unknown one is computed by ``__missing__``."""

    __slots__ = ("language",)

    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def __missing__(self, key: str) -> float:
        weight = max(WEIGHT_FLOOR, ZIPF_CEILING - _zipf(key, self.language))
        if len(self) >= _WEIGHT_CACHE_SIZE:
            self.clear()
        self[key] = weight  # one whole entry: threads that race here store equal values
        return weight


_WEIGHTS: dict[str, _WeightMemo] = {}
#: The Zipf value of a frequency in wordfreq's lists (which hold a few hundred distinct values:
#: their frequencies are whole centibels), rounded as wordfreq rounds it: ``round`` to two
#: decimals costs a decimal conversion, a dictionary look-up does not.
_ZIPF_OF_FREQUENCY: dict[float, float] = {}


def _weight_memo(language: str) -> _WeightMemo:
    """The memo of ``language`` (made on first use)."""
    memo = _WEIGHTS.get(language)
    if memo is None:
        memo = _WEIGHTS.setdefault(language, _WeightMemo(language))
    return memo


def clear_caches() -> None:
    """Forget the weights computed so far (results never depend on it: tests and benchmarks
    of unseen words call it).

    >>> clear_caches(); round(KeywordWeights("en").weight("battle"), 2)
    3.06
    """
    for memo in list(_WEIGHTS.values()):
        memo.clear()


def _zipf(key: str, language: str) -> float:
    """wordfreq's Zipf frequency of ``key`` (0.0 when unknown), rounded as wordfreq rounds it.

    A lower-case word of letters is looked up in the frequency list directly (what wordfreq's
    tokenizer would do with it, ten times faster), and so is an English key of lower-case ASCII
    letters and digits, or of such parts joined by hyphens or dashes ("1901", "12th",
    "off-road", "2001–2002", "9,436", "dr.": :func:`_english_tokens`, whose frequencies
    wordfreq's own rules combine); anything else goes through wordfreq.

    >>> import wordfreq
    >>> keys = ("1901", "12th", "007", "off-road", "2001-2002", "1979–80", "9,436", "jr.")
    >>> all(_zipf(k, "en") == wordfreq.zipf_frequency(k, "en") for k in keys)
    True
    """
    if language in _DIRECT_LOOKUP or (key.isalpha() and key.islower()):
        freq = _frequency_dict(language).get(key, 0.0)
        zipf = _ZIPF_OF_FREQUENCY.get(freq)
        if zipf is None:  # the same computation, once per distinct frequency
            zipf = round(math.log10(freq) + 9.0, 2) if freq > 0 else 0.0
            if len(_ZIPF_OF_FREQUENCY) >= _WEIGHT_CACHE_SIZE:
                _ZIPF_OF_FREQUENCY.clear()
            _ZIPF_OF_FREQUENCY[freq] = zipf
        return zipf
    if language == "en":
        tokens = _english_tokens(key)
        if tokens is not None:
            return _tokens_zipf(tokens, language)
    import wordfreq

    return float(wordfreq.zipf_frequency(key, language))


def _english_tokens(key: str) -> list[str] | None:
    """The tokens wordfreq's English tokenizer makes of ``key`` when they are plain (else
    None): parts joined by hyphens or dashes, each of lower-case ASCII letters and digits or a
    number with "." or "," between its digits ("9,436", "36.0": one token); a final "." after
    a letter or digit is dropped ("dr.", "1979-80.").

    >>> _english_tokens("1,020–1,080"), _english_tokens("dr."), _english_tokens("u.s")
    (['1,020', '1,080'], ['dr'], None)
    """
    if not key.isascii():
        key = key.translate(_DASHES)
        if not key.isascii():
            return None
    if key[-1:] == "." and key[-2:-1].isalnum():
        key = key[:-1]
    tokens = key.split("-")
    for token in tokens:
        if not (
            (token.isalnum() and (token.islower() or token.isdigit()))
            or _DIGIT_GROUPS.fullmatch(token)
        ):
            return None
    return tokens


@functools.cache
def _number_rules() -> tuple[
    Callable[[str], float],
    Callable[[str], float],
    Callable[[str], str],
    Callable[[str], float],
    float,
]:
    """wordfreq's number rules (``benford_freq``, ``digit_freq``, ``smash_numbers``,
    ``year_freq``) and its least frequency (``zipf_to_freq(0.0)``), imported once."""
    from wordfreq import zipf_to_freq
    from wordfreq.numbers import benford_freq, digit_freq, smash_numbers, year_freq

    return benford_freq, digit_freq, smash_numbers, year_freq, zipf_to_freq(0.0)


def _tokens_zipf(tokens: list[str], language: str) -> float:
    """``wordfreq.zipf_frequency`` of a key that wordfreq's tokenizer splits into ``tokens``
    (unchanged): its computation, step by step (the same floating-point operations;
    ``tests/metrics/test_keyword.py`` compares them)."""
    benford_freq, digit_freq, smash_numbers, year_freq, minimum = _number_rules()
    freqs = _frequency_dict(language)
    one_over_result = 0.0
    for token in tokens:
        number = token.isdecimal()  # ASCII digits: wordfreq's number rules without patterns
        smashed = (
            ("0" * len(token) if len(token) > 1 else token) if number else smash_numbers(token)
        )
        if smashed not in freqs:  # a token wordfreq does not know: the minimum
            return round(math.log(minimum, 10) + 9, 2)
        freq = freqs[smashed]
        if smashed != token:  # digits: their own frequency estimate
            if not number:
                freq *= digit_freq(token)
            else:  # digit_freq of one run of digits
                freq *= year_freq(token) if len(token) == 4 else benford_freq(token)
        one_over_result += 1.0 / freq
    unrounded = max(1.0 / one_over_result, minimum)
    freq = round(unrounded, math.floor(-math.log(unrounded, 10)) + 3)
    return round(math.log(freq, 10) + 9, 2)


@functools.cache
def _wordfreq_version() -> str:
    try:
        return dist_version("wordfreq")
    except PackageNotFoundError:  # pragma: no cover - a declared dependency
        return "unknown"


def _frequency_weight(key: str, language: str, numeric: bool) -> float:
    """A keyword's weight from its wordfreq Zipf frequency: rarer words weigh more, numbers
    ``NUMBER_FACTOR`` times more."""
    weight = _weight_memo(language)[key]
    return weight * NUMBER_FACTOR if numeric else weight


class KeywordWeights:
    """Informativeness weights of keywords in one language (see the module doc).

    ``frequency=False`` gives every keyword 1.0 (negations still weigh more). ``negations``:
    the keys that count as negations (English: :data:`NEGATIONS_EN`; none for other languages
    unless given). The configuration is read-only once made: the signature and the uniform
    flag are derived from it once.

    >>> w = KeywordWeights("en", frequency=False)
    >>> w.frequency = True
    Traceback (most recent call last):
    ...
    AttributeError: KeywordWeights' configuration is read-only: make new weights
    """

    __slots__ = (
        "_frequency",
        "_language",
        "_memo",
        "_negations",
        "_signature",
        "_uniform",
    )

    def __init__(
        self,
        language: str = "en",
        negations: Collection[str] | None = None,
        *,
        frequency: bool = True,
    ) -> None:
        if not isinstance(language, str):
            raise TypeError(f"language must be a str, not {type(language).__name__}")
        if negations is None:
            negations = NEGATIONS_EN if language == "en" else frozenset()
        self._configure(language, frozenset(negations), bool(frequency))

    def _configure(self, language: str, negations: frozenset[str], frequency: bool) -> None:
        self._language = language
        self._negations = negations
        self._frequency = frequency
        self._uniform: bool | None = None
        self._signature: str | None = None
        self._memo = _weight_memo(language)

    @property
    def language(self) -> str:
        """The language of the frequency list."""
        return self._language

    @property
    def negations(self) -> frozenset[str]:
        """The keys that count as negations."""
        return self._negations

    @property
    def frequency(self) -> bool:
        """Whether keywords are weighed by their frequency (else 1.0 each)."""
        return self._frequency

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("language", "negations", "frequency"):
            raise AttributeError("KeywordWeights' configuration is read-only: make new weights")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"KeywordWeights({self.language!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {
            "language": self.language,
            "negations": self.negations,
            "frequency": self.frequency,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._configure(state["language"], state["negations"], state["frequency"])

    @property
    def uniform(self) -> bool:
        """True when every keyword weighs 1.0 (but negations): ``frequency=False``, or no
        wordfreq list for the language."""
        if self._uniform is None:
            self._uniform = not self.frequency or self.language not in _wordfreq_languages()
        return self._uniform

    @property
    def signature(self) -> str:
        """``weights:...`` with the source and constants (part of the metric's signature).

        >>> KeywordWeights("en").signature
        'weights:wordfreq...-en(z8,floor0.5,num3,neg2)'
        >>> KeywordWeights("en", frequency=False).signature
        'weights:uniform(neg2)'
        """
        if self._signature is None:  # built once: the metric's caches are keyed by it
            self._signature = self._build_signature()
        return self._signature

    def _build_signature(self) -> str:
        if not self.frequency:
            return f"weights:uniform(neg{NEGATION_FACTOR:g})"
        if self.uniform:
            return f"weights:uniform(neg{NEGATION_FACTOR:g},no-wordfreq-list-{self.language})"
        return (
            f"weights:wordfreq{_wordfreq_version()}-{self.language}"
            f"(z{ZIPF_CEILING:g},floor{WEIGHT_FLOOR:g},num{NUMBER_FACTOR:g},"
            f"neg{NEGATION_FACTOR:g})"
        )

    def weight(self, key: str, *, numeric: bool | None = None) -> float:
        """The weight of one keyword on its own (no negation rule); ``numeric`` says whether
        it is a number (default: whether it has a digit; pass True for "four").

        >>> w = KeywordWeights("en")
        >>> w.weight("the"), round(w.weight("1901"), 2), round(w.weight("four", numeric=True), 2)
        (0.5, 12.78, 7.41)
        """
        if self.uniform:
            return 1.0
        if numeric is None:
            numeric = _DIGIT.search(key) is not None
        return _frequency_weight(key, self.language, numeric)

    def weights(self, keys: Sequence[str], *, numeric: Sequence[bool] | None = None) -> list[float]:
        """The weight of each of a reference's keywords (``numeric``: which are numbers, as in
        :meth:`weight`), negations raised to ``NEGATION_FACTOR`` times the heaviest other
        keyword.

        >>> w = KeywordWeights("en")
        >>> ws = w.weights(["never", "married"])
        >>> ws[0] == 2 * ws[1]
        True
        """
        if numeric is None:
            numeric = [_DIGIT.search(k) is not None for k in keys]
        elif len(numeric) != len(keys):
            raise ValueError(f"numeric has {len(numeric)} items but keys has {len(keys)}")
        uniform = self._uniform
        if uniform is None:
            uniform = self.uniform
        if uniform:
            out = [1.0] * len(keys)
        else:
            out = list(map(self._memo.__getitem__, keys))
            if any(numeric):
                out = [w * NUMBER_FACTOR if n else w for w, n in zip(out, numeric, strict=True)]
        negations = self._negations
        if negations and not negations.isdisjoint(keys):
            heaviest = max(
                (w for k, w in zip(keys, out, strict=True) if k not in negations),
                default=0.0,
            )
            out = [
                max(w, NEGATION_FACTOR * heaviest) if k in negations else w
                for k, w in zip(keys, out, strict=True)
            ]
        return out

    def of_reference(
        self,
        keys: tuple[str, ...],
        numeric: tuple[bool, ...],
        pieces: tuple[tuple[str, ...], ...],
    ) -> tuple[tuple[float, ...], float, tuple[tuple[float, ...], ...]]:
        """A prepared reference's weights: those of its ``keys`` (:meth:`weights`), their sum,
        and the weights of each key's parts (``pieces``, one tuple per key; ``pieces`` itself
        when no key has parts).

        >>> w = KeywordWeights("en")
        >>> values, total, parts = w.of_reference(("off-road", "not"), (False, False),
        ...                                      (("off", "road"), ()))
        >>> values[1] == 2 * values[0] and total == sum(values), len(parts[0]), parts[1]
        (True, 2, ())
        """
        values = self.weights(keys, numeric=numeric)
        parts: tuple[tuple[float, ...], ...]
        if any(pieces):
            parts = tuple(
                [
                    (1.0,) * len(p) if self.uniform else tuple([self.weight(x) for x in p])
                    for p in pieces
                ]
            )
        else:  # no compound key: no part weights, an empty tuple per key (``pieces`` itself)
            parts = pieces  # type: ignore[assignment]
        return tuple(values), sum(values), parts
