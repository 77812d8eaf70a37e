"""The normalization behind lenient keyword matching: mojibake repair, case and accent folding,
English number words (and ordinals) as digits, one spelling of numbers. Keyword coverage's
matching rules apply these to the keys of a text processor.

>>> fold_accents("Wilhelm RÖNTGEN, café")
'wilhelm rontgen, cafe'
>>> canonical_key("twenty", english=True), canonical_key("1,000", english=False)
('20', '1000')
>>> canonical_key("Twenty-sixth", english=True), canonical_key("26th", english=True)
('26', '26')
>>> repair_mojibake("DÃ¡in")
'Dáin'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from itertools import compress

__all__ = [
    "DASHES",
    "NUMBER_WORDS_EN",
    "UNITS_EN",
    "canonical_index_parts",
    "canonical_key",
    "canonical_key_set",
    "canonical_keys",
    "clear_caches",
    "fold_accents",
    "hyphenate_dashes",
    "merge_number_words",
    "number_phrase",
    "repair_mojibake",
]

#: English number words and their digits (lenient matching: "four" == "4"). Ordinals are
#: their number, as spaCy's lemma table has them ("sixth" == "6th" == "6").
_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_UNIT_ORDINALS = (
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
_TEN_ORDINALS = "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth"
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_NUMBER_VALUES: dict[str, int] = {
    **{w: i for i, w in enumerate(_UNITS.split(" "))},
    **{w: i for i, w in enumerate(_UNIT_ORDINALS.split(" "))},
    **{w: 10 * i for i, w in enumerate(_TENS.split(" "), 2)},
    **{w: 10 * i for i, w in enumerate(_TEN_ORDINALS.split(" "), 2)},
    **_SCALES,
    **{w + "th": v for w, v in _SCALES.items()},
}
NUMBER_WORDS_EN: dict[str, str] = {w: str(v) for w, v in _NUMBER_VALUES.items()}
_PARTS = re.compile(r"[-‐-―/ ]+")
_NUMBER_PHRASE = re.compile(r"[a-z]+(?:[- ][a-z0-9]+)+")
_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)")
_ORDINAL_ENDINGS = frozenset(["st", "nd", "rd", "th"])
_NUMERIC = re.compile(r"[\d.,:]+")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_LEADING_ZEROS = re.compile(r"(?<!\d)0+(?=\d)")
#: Hyphens and dashes (U+2010..U+2015, the minus sign U+2212) written as "-" in keys:
#: "10–12" (an en dash) is "10-12".
_DASH_CHARACTERS = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
DASHES = str.maketrans(dict.fromkeys(_DASH_CHARACTERS, "-"))
#: Non-ASCII punctuation common in English text (typographic quotes, en and em dashes, the
#: ellipsis): a text that is ASCII but for these has no accent, no mojibake, no other letter.
_COMMON_PUNCTUATION = "\u2018\u2019\u201c\u201d\u2013\u2014\u2026"
_ACRONYM = re.compile(r"(?:[a-z]\.)+[a-z]\.?")
#: Units of measure in one spelling ("ft", "feet" -> "foot"; "kilometer" -> "kilometre"), for
#: lemmas and after a number ("6ft", "6-feet" -> "6-foot", whose parts match "6 feet").
#: Ambiguous abbreviations ("m", "g", "l", "sec") are left out.
UNITS_EN: dict[str, str] = {
    **dict.fromkeys(["ft", "feet"], "foot"),
    **dict.fromkeys(["in", "inches"], "inch"),
    **dict.fromkeys(["mi", "miles"], "mile"),
    **dict.fromkeys(["yd", "yds", "yards"], "yard"),
    **dict.fromkeys(["km", "kilometer", "kilometers", "kilometres"], "kilometre"),
    **dict.fromkeys(["cm", "centimeter", "centimeters", "centimetres"], "centimetre"),
    **dict.fromkeys(["mm", "millimeter", "millimeters", "millimetres"], "millimetre"),
    **dict.fromkeys(["meter", "meters", "metres"], "metre"),
    **dict.fromkeys(["kg", "kgs", "kilograms"], "kilogram"),
    **dict.fromkeys(["mg", "milligrams"], "milligram"),
    **dict.fromkeys(["lb", "lbs", "pounds"], "pound"),
    **dict.fromkeys(["oz", "ounces"], "ounce"),
    **dict.fromkeys(["ml", "milliliter", "milliliters", "millilitres"], "millilitre"),
    **dict.fromkeys(["liter", "liters", "litres"], "litre"),
    **dict.fromkeys(["yr", "yrs", "years"], "year"),
    **dict.fromkeys(["hr", "hrs", "hours"], "hour"),
    **dict.fromkeys(["min", "mins", "minutes"], "minute"),
}
#: Units that are also common words ("in") count only glued to or hyphenated after a number.
_WORD_UNITS = {name: unit for name, unit in UNITS_EN.items() if name != "in"}
_UNIT_NAMES = "|".join(sorted(UNITS_EN, key=len, reverse=True))
_GLUED_UNIT = re.compile(rf"(\d+(?:\.\d+)?)-?({_UNIT_NAMES})")


# Combining diacritical mark blocks (Latin, Greek, Cyrillic accents); marks of other scripts,
# such as Indic vowel signs or Thai tone marks, carry meaning and are kept.
_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")

# UTF-8 read as Latin-1 or Windows-1252 turns every non-ASCII character into a lead character
# (U+00C2..U+00F4) followed by one that stands for a continuation byte: texts without such a
# pair are not given to ftfy, whose own check costs more.
_MOJIBAKE_HINT = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192"
    "\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a"
    "\u20ac\u2122]"
)


def ascii_but_punctuation(text: str) -> bool:
    """Whether ``text`` is ASCII once typographic quotes, en and em dashes and ellipses are
    removed (a few substring searches: a fast test for English text written with them).

    >>> ascii_but_punctuation("It’s “done” – 1990…"), ascii_but_punctuation("café")
    (True, False)
    """
    for mark in _COMMON_PUNCTUATION:
        if mark in text:
            text = text.replace(mark, "")
    return text.isascii()


def hyphenate_dashes(text: str) -> str:
    """``text.translate(DASHES)``: every hyphen and dash written "-" (by substring
    replacement: ``str.translate`` costs a dictionary miss per character of a non-ASCII text).

    >>> hyphenate_dashes("1979–80 — x‐y")
    '1979-80 - x-y'
    """
    if text.isascii():
        return text
    for dash in _DASH_CHARACTERS:
        if dash in text:
            text = text.replace(dash, "-")
    return text


def repair_mojibake(text: str) -> str:
    """UTF-8 text that was decoded as Latin-1 or Windows-1252, repaired by ftfy
    ("DÃ¡in" -> "Dáin"); text without a mojibake pattern is returned as is.

    >>> repair_mojibake("DÃ¡in"), repair_mojibake("Dáin"), repair_mojibake("it’s")
    ('Dáin', 'Dáin', 'it’s')
    """
    if text.isascii() or ascii_but_punctuation(text) or not _MOJIBAKE_HINT.search(text):
        return text  # (mojibake has a character from U+00C2 to U+00F4)
    import ftfy

    return str(ftfy.fix_encoding(text))


def fold_accents(text: str) -> str:
    """Case-folded, accents removed ("Röntgen" -> "rontgen").

    >>> fold_accents("Wilhelm RÖNTGEN, café")
    'wilhelm rontgen, cafe'
    """
    folded = text.casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    if ascii_but_punctuation(decomposed):  # no mark to remove
        return decomposed
    return _DIACRITICS.sub("", decomposed)


def number_phrase(words: Sequence[str]) -> int | None:
    """The value of two English number words in a row ("twenty four", "two thousand"), or of
    the tens followed by a digit as spaCy lemmatizes "twenty-sixth" ("twenty 6"); else None.

    >>> [number_phrase(p.split()) for p in ["twenty four", "two thousand", "twenty 6", "four"]]
    [24, 2000, 26, None]
    >>> number_phrase(["twenty", "twenty"]) is None
    True
    """
    if len(words) != 2:
        return None
    first, second = (_NUMBER_VALUES.get(w) for w in words)
    if first is None:
        return None
    if second is None and words[1].isdigit() and len(words[1]) == 1:
        second = int(words[1])
    if second is None:
        return None
    if 20 <= first <= 90 and first % 10 == 0 and 0 < second < 10:
        return first + second
    if 0 < first < 100 and second in _SCALES.values():
        return first * second
    return None


def merge_number_words(keys: Sequence[str], english: bool) -> Sequence[str]:
    """Two number words in a row as one key ("twenty", "four" -> "twenty four", whose
    canonical form is "24"); other keys unchanged (``keys`` itself when nothing merges).

    >>> merge_number_words(["born", "twenty", "four", "may"], english=True)
    ['born', 'twenty four', 'may']
    """
    if not english or len(keys) < 2:
        return keys
    if _NUMBER_VALUES.keys().isdisjoint(keys[:-1]):
        return keys
    out: list[str] = []
    start = 0  # the first key not yet in out
    # number words followed by a key, left to right; a merged pair is not merged again
    for i in compress(range(len(keys) - 1), map(_NUMBER_VALUES.__contains__, keys)):
        if i >= start and number_phrase(keys[i : i + 2]) is not None:
            out.extend(keys[start:i])
            out.append(f"{keys[i]} {keys[i + 1]}")
            start = i + 2
    if start == 0:  # nothing merged: keys itself (callers then skip their second pass)
        return keys
    out.extend(keys[start:])
    return out


#: Canonical keys remembered per ``english`` flag (a word's is computed once per process);
#: each memo is emptied when it reaches this size.
_CANONICAL_CACHE_SIZE = 65536


class _CanonicalMemo(dict[str, str]):
    """Canonical keys by key, for one ``english`` flag: a known key is one C-level look-up
    (``memo[key]``, also through ``map``); an unknown one is computed by ``__missing__``."""

    __slots__ = ("english",)

    def __init__(self, english: bool) -> None:
        super().__init__()
        self.english = english

    def __missing__(self, key: str) -> str:
        found = _canonical(key, self.english)
        if len(self) >= _CANONICAL_CACHE_SIZE:
            self.clear()
        self[key] = found  # one whole entry: threads that race here store equal values
        return found


_CANONICAL = (_CanonicalMemo(False), _CanonicalMemo(True))  # [english]


def canonical_key(key: str, english: bool) -> str:
    """The lenient matching form of a key: accents folded, English number words (when
    ``english``) and ordinals as digits, numbers in one spelling, every dash a hyphen,
    dotted acronyms without their dots.

    >>> [canonical_key(k, True) for k in ["Four", "1,000", "09:15", "3.50", "Röntgen"]]
    ['4', '1000', '9:15', '3.5', 'rontgen']
    >>> [canonical_key(k, True) for k in ["Twenty-sixth", "26th", "twenty-four", "007"]]
    ['26', '26', '24', '7']
    >>> [canonical_key(k, True) for k in ["10–12", "1780—1830", "r.e.m", "U.S."]]
    ['10-12', '1780-1830', 'rem', 'us']
    >>> [canonical_key(k, True) for k in ["feet", "6ft", "6-feet", "kilometer", "2.5kg"]]
    ['foot', '6-foot', '6-foot', 'kilometre', '2.5-kilogram']
    """
    return _CANONICAL[english][key]


def canonical_keys(keys: Iterable[str], english: bool) -> tuple[str, ...]:
    """:func:`canonical_key` of each key (one dictionary look-up per key seen before).

    >>> canonical_keys(["Four", "cats", "1,000"], english=True)
    ('4', 'cats', '1000')
    """
    return tuple(map(_CANONICAL[english].__getitem__, keys))


def canonical_key_set(keys: Iterable[str], english: bool, joined: bool = False) -> dict[str, None]:
    """The distinct :func:`canonical_key` of ``keys`` in their order, as the keys of a dict (a
    dict of strings is not tracked by the garbage collector; a set is); with ``joined``, then
    each of them that has a hyphen without its hyphens ("10-12" is also "1012").

    >>> list(canonical_key_set(["Four", "4", "cats"], english=True))
    ['4', 'cats']
    >>> list(canonical_key_set(["10–12", "six-year"], english=True, joined=True))
    ['10-12', 'six-year', '1012', 'sixyear']
    """
    extra = dict.fromkeys(map(_CANONICAL[english].__getitem__, keys))
    if joined and "-" in "".join(extra):
        extra.update(dict.fromkeys([k.replace("-", "") for k in extra if "-" in k]))
    return extra


def canonical_index_parts(
    keys: Sequence[str], english: bool
) -> tuple[tuple[str, ...], dict[str, None], dict[str, None] | None]:
    """:func:`canonical_keys` of ``keys``; the distinct ones, then the form without hyphens of
    each with a hyphen, as the keys of a dict; the distinct canonical keys of the non-empty
    parts of those with a hyphen (split at "-"), as the keys of a dict, or None when none has
    a hyphen (an output's index for lenient matching, in one call).

    >>> canonical_index_parts(["six-year", "Four"], english=True)
    (('six-year', '4'), {'six-year': None, '4': None, 'sixyear': None}, {'6': None, 'year': None})
    >>> canonical_index_parts(["10–12", "Four", "4"], english=True)
    (('10-12', '4', '4'), {'10-12': None, '4': None, '1012': None}, {'10': None, '12': None})
    >>> canonical_index_parts(["cats"], english=True)[2] is None
    True
    """
    canonical = tuple(map(_CANONICAL[english].__getitem__, keys))
    index = dict.fromkeys(canonical)
    if "-" not in "".join(canonical):
        return canonical, index, None
    compounds = [k for k in index if "-" in k]
    index.update(dict.fromkeys([k.replace("-", "") for k in compounds]))
    parts = canonical_key_set([p for k in compounds for p in k.split("-") if p], english)
    return canonical, index, parts


def clear_caches() -> None:
    """Forget the canonical keys computed so far (results never depend on it: tests and
    benchmarks of unseen words call it).

    >>> clear_caches(); canonical_key("Four", True)
    '4'
    """
    for memo in _CANONICAL:
        memo.clear()


def _canonical(key: str, english: bool) -> str:
    """:func:`canonical_key`, computed."""
    k = key.casefold()  # fold_accents(key) when ASCII, without its call
    if not k.isascii():
        k = fold_accents(key)
    if k.isalpha():  # a plain word: only a number word or a unit changes
        return (NUMBER_WORDS_EN.get(k) or _WORD_UNITS.get(k, k)) if english else k
    if k.isdigit() and k.isascii():  # a number: only its leading zeros go ("007" -> "7")
        return k.lstrip("0") or "0"
    k = hyphenate_dashes(k)
    # each pattern is tried only where its first or last character can match
    if english and k[:1].isdigit():
        glued = _GLUED_UNIT.fullmatch(k)
        if glued:
            return f"{_canonical(glued.group(1), english)}-{UNITS_EN[glued.group(2)]}"
    if "." in k and _ACRONYM.fullmatch(k):
        return k.replace(".", "")
    if english and ("-" in k or " " in k) and _NUMBER_PHRASE.fullmatch(k):
        value = number_phrase(_PARTS.split(k))
        if value is not None:
            return str(value)
    if k[-2:] in _ORDINAL_ENDINGS:
        ordinal = _ORDINAL.fullmatch(k)
        if ordinal:
            k = ordinal.group(1)
    if _NUMERIC.fullmatch(k):
        if _THOUSANDS.fullmatch(k):
            k = k.replace(",", "")
        k = _LEADING_ZEROS.sub("", k)
        if "." in k:
            k = k.rstrip("0").rstrip(".") if k.rstrip("0").rstrip(".") else k
    return k
