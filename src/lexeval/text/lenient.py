"""The normalization behind lenient keyword matching: case and accent folding, English number
words as digits, one spelling of numbers. Keyword coverage's matching rules apply these to the
keys of a text processor.

>>> fold_accents("Wilhelm RÖNTGEN, café")
'wilhelm rontgen, cafe'
>>> canonical_key("twenty", english=True), canonical_key("1,000", english=False)
('20', '1000')
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["NUMBER_WORDS_EN", "canonical_key", "fold_accents"]

#: English number words and their digits (lenient matching: "four" == "4").
_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
_TENS = "thirty forty fifty sixty seventy eighty ninety"
NUMBER_WORDS_EN: dict[str, str] = {
    **{w: str(i) for i, w in enumerate(_UNITS.split(" "))},
    **{w: str(10 * i) for i, w in enumerate(_TENS.split(" "), 3)},
    "hundred": "100",
    "thousand": "1000",
    "million": "1000000",
    "billion": "1000000000",
    "first": "1st",
    "second": "2nd",
    "third": "3rd",
    "fourth": "4th",
    "fifth": "5th",
}
_NUMERIC = re.compile(r"[\d.,:]+")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_LEADING_ZEROS = re.compile(r"(?<!\d)0+(?=\d)")


# Combining diacritical mark blocks (Latin, Greek, Cyrillic accents); marks of other scripts,
# such as Indic vowel signs or Thai tone marks, carry meaning and are kept.
_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def fold_accents(text: str) -> str:
    """Case-folded, accents removed ("Röntgen" -> "rontgen").

    >>> fold_accents("Wilhelm RÖNTGEN, café")
    'wilhelm rontgen, cafe'
    """
    folded = text.casefold()
    if folded.isascii():
        return folded
    return _DIACRITICS.sub("", unicodedata.normalize("NFKD", folded))


@lru_cache(maxsize=65536)
def canonical_key(key: str, english: bool) -> str:
    """The lenient matching form of a key: accents folded, English number words as digits
    (when ``english``), numbers in one spelling.

    >>> [canonical_key(k, True) for k in ["Four", "1,000", "09:15", "3.50", "Röntgen"]]
    ['4', '1000', '9:15', '3.5', 'rontgen']
    """
    k = fold_accents(key)
    if english:
        k = NUMBER_WORDS_EN.get(k, k)
    if _NUMERIC.fullmatch(k):
        if _THOUSANDS.fullmatch(k):
            k = k.replace(",", "")
        k = _LEADING_ZEROS.sub("", k)
        if "." in k:
            k = k.rstrip("0").rstrip(".") if k.rstrip("0").rstrip(".") else k
    return k
