"""nltk's Porter stemmer (``nltk.stem.porter.PorterStemmer()``, its default ``NLTK_EXTENSIONS``
mode), the one rouge-score 0.1.2 stems with, without importing nltk.

``import nltk.stem.porter`` runs nltk's package ``__init__``, which imports most of nltk (and
numpy, scipy, scikit-learn or pandas when they are installed): seconds of CPU time before a
new process's first stemmed ROUGE score. This module is that class's algorithm, adapted from
nltk 3.10.4's ``nltk/stem/porter.py`` (Copyright (C) 2001-2025 NLTK Project, Apache License
2.0): the same steps and rules in the same order, with type hints and the other two modes
left out. ``tests/test_porter.py`` checks it equals nltk's stemmer on every distinct
word of the shared corpora it finds and on random strings.

ASCII words go to the compiled stemmer of ``lexeval.native.rouge`` when it is built (the same
algorithm in C, checked against this code and nltk by the same tests); this module stays the
reference (``LEXEVAL_PURE_PYTHON=1`` runs it alone, see :mod:`lexeval.native`).

>>> stem = PorterStemmer().stem
>>> [stem(w) for w in ["running", "skies", "generalizations", "dying", "caresses", "a"]]
['run', 'sky', 'gener', 'die', 'caress', 'a']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lexeval.native import PURE_PYTHON

try:  # the compiled stemmer (lexeval.native), unless LEXEVAL_PURE_PYTHON asks for Python
    if PURE_PYTHON:
        raise ImportError("LEXEVAL_PURE_PYTHON is set")
    from lexeval.native.rouge import stem as native_stem

    NATIVE_STEM = True
except ImportError:
    NATIVE_STEM = False

__all__ = ["NATIVE_STEM", "NLTK_VERSION", "PorterStemmer"]

#: The nltk release whose Porter stemmer this module follows (text signatures name it).
NLTK_VERSION = "3.10.4"

_VOWELS = frozenset("aeiou")
_VOWEL = re.compile("[aeiou]")
_VOWEL_CONSONANT = re.compile("[aeiou][^aeiou]")
_TWO_VOWEL_CONSONANTS = re.compile("[aeiou][^aeiou].*[aeiou][^aeiou]", re.DOTALL)
#: Irregular forms of the NLTK extensions: form -> stem.
_POOL = {
    form: stem
    for stem, forms in {
        "sky": ["sky", "skies"],
        "die": ["dying"],
        "lie": ["lying"],
        "tie": ["tying"],
        "news": ["news"],
        "inning": ["innings", "inning"],
        "outing": ["outings", "outing"],
        "canning": ["cannings", "canning"],
        "howe": ["howe"],
        "proceed": ["proceed"],
        "exceed": ["exceed"],
        "succeed": ["succeed"],
    }.items()
    for form in forms
}

_Condition = Callable[[str], bool] | None
_Rule = tuple[str, str, _Condition]


def _is_consonant(word: str, i: int) -> bool:
    """Whether ``word[i]`` is a consonant (``y`` is one after a vowel or at the start)."""
    if word[i] in _VOWELS:
        return False
    if word[i] == "y":
        negate = False
        while i > 0 and word[i] == "y":
            negate = not negate
            i -= 1
        return (word[i] not in _VOWELS) != negate
    return True


def _consonant_flags(word: str) -> list[bool]:
    flags: list[bool] = []
    for i, ch in enumerate(word):
        if ch in _VOWELS:
            flags.append(False)
        elif ch == "y":
            flags.append(True if i == 0 else not flags[i - 1])
        else:
            flags.append(True)
    return flags


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences."""
    if "y" not in stem:  # a vowel then a consonant: the matches cannot overlap
        return len(_VOWEL_CONSONANT.findall(stem))
    return "".join("c" if c else "v" for c in _consonant_flags(stem)).count("vc")


def _positive_measure(stem: str) -> bool:
    if "y" not in stem:  # one vowel-consonant sequence is enough
        return _VOWEL_CONSONANT.search(stem) is not None
    return _measure(stem) > 0


def _measure_gt_1(stem: str) -> bool:
    if "y" not in stem:  # two that do not overlap (the sequences are two letters long)
        return _TWO_VOWEL_CONSONANTS.search(stem) is not None
    return _measure(stem) > 1


def _contains_vowel(stem: str) -> bool:
    if "y" not in stem:
        return _VOWEL.search(stem) is not None
    return not all(_consonant_flags(stem))


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _ends_cvc(word: str) -> bool:
    return (
        len(word) >= 3
        and _is_consonant(word, len(word) - 3)
        and not _is_consonant(word, len(word) - 2)
        and _is_consonant(word, len(word) - 1)
        and word[-1] not in ("w", "x", "y")
    ) or (len(word) == 2 and not _is_consonant(word, 0) and _is_consonant(word, 1))


def _drop(word: str, suffix: str) -> str:
    return word[: -len(suffix)] if suffix else word


_Table = dict[str, tuple[_Rule, ...]]


def _table(rules: Sequence[_Rule]) -> _Table:
    """``rules`` (suffixes of two letters or more) by their suffix's last two letters, in order:
    a word can end with a suffix only if it ends with those letters."""
    table: dict[str, list[_Rule]] = {}
    for rule in rules:
        assert len(rule[0]) >= 2
        table.setdefault(rule[0][-2:], []).append(rule)
    return {last: tuple(found) for last, found in table.items()}


def _apply_table(word: str, table: _Table) -> str | None:
    """The first rule of ``table`` whose suffix ``word`` ends with decides (its condition on
    the stem); None when no suffix matches."""
    rules = table.get(word[-2:])
    return None if rules is None else _apply_rules(word, rules)


def _apply_rules(word: str, rules: tuple[_Rule, ...]) -> str | None:
    """:func:`_apply_table` of the rules of ``word``'s last two letters."""
    for suffix, replacement, condition in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if condition is None or condition(stem) else word
    return None


def _step1a(word: str) -> str:
    # the rules "sses" -> "ss", "ies" -> "i", "ss" -> "ss", "s" -> "" (a four-letter "ies"
    # word -> "ie" first)
    if not word.endswith("s"):
        return word
    if word.endswith("ies"):
        return word[:-1] if len(word) == 4 else word[:-2]
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ss"):
        return word
    return word[:-1]


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _positive_measure(stem) else word
    # "ed" or "ing" after a stem with a vowel, then the first of nltk's rules that applies
    if word.endswith("ed") and _contains_vowel(word[:-2]):
        stem = word[:-2]
    elif word.endswith("ing") and _contains_vowel(word[:-3]):
        stem = word[:-3]
    else:
        return word
    last = stem[-1]
    if stem.endswith(("at", "bl", "iz")):  # -> "ate", "ble", "ize"
        return stem + "e"
    if _ends_double_consonant(stem) or stem.endswith("*d"):  # the rule "*d" (and its text)
        return stem[:-2] + last if last not in ("l", "s", "z") else stem
    return stem + "e" if _measure(stem) == 1 and _ends_cvc(stem) else stem


def _step1c(word: str) -> str:
    # the one rule "y" -> "i" when the stem ends with a consonant and is longer than one letter
    if word.endswith("y"):
        stem = word[:-1]
        return stem + "i" if len(stem) > 1 and _is_consonant(stem, len(stem) - 1) else word
    return word


_STEP2: tuple[_Rule, ...] = tuple(
    (suffix, replacement, _positive_measure)
    for suffix, replacement in [
        ("ational", "ate"),
        ("tional", "tion"),
        ("enci", "ence"),
        ("anci", "ance"),
        ("izer", "ize"),
        ("bli", "ble"),
        ("alli", "al"),
        ("entli", "ent"),
        ("eli", "e"),
        ("ousli", "ous"),
        ("ization", "ize"),
        ("ation", "ate"),
        ("ator", "ate"),
        ("alism", "al"),
        ("iveness", "ive"),
        ("fulness", "ful"),
        ("ousness", "ous"),
        ("aliti", "al"),
        ("iviti", "ive"),
        ("biliti", "ble"),
        ("fulli", "ful"),
    ]
)


_STEP2_TABLE = _table(_STEP2)
#: The last two letters of the words step 2 may change ("alli" and "logi" beside its table).
_STEP2_ENDS = frozenset([*_STEP2_TABLE, "li", "gi"])


def _step2(word: str) -> str:
    if word.endswith("alli") and _positive_measure(_drop(word, "alli")):
        return _step2(_drop(word, "alli") + "al")
    found = _apply_table(word, _STEP2_TABLE)
    if found is not None:
        return found
    # the last rule: "logi" -> "log" when the word without "gi" has a positive measure
    if word.endswith("logi"):
        return word[:-4] + "log" if _positive_measure(word[:-3]) else word
    return word


_STEP3: tuple[_Rule, ...] = tuple(
    (suffix, replacement, _positive_measure)
    for suffix, replacement in [
        ("icate", "ic"),
        ("ative", ""),
        ("alize", "al"),
        ("iciti", "ic"),
        ("ical", "ic"),
        ("ful", ""),
        ("ness", ""),
    ]
)


_STEP3_TABLE = _table(_STEP3)


def _ion(stem: str) -> bool:
    return _measure_gt_1(stem) and stem[-1] in ("s", "t")


_STEP4_SUFFIXES = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment"]
_STEP4_SUFFIXES += ["ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"]
_STEP4: tuple[_Rule, ...] = tuple(
    (suffix, "", _ion if suffix == "ion" else _measure_gt_1) for suffix in _STEP4_SUFFIXES
)


_STEP4_TABLE = _table(_STEP4)


def _step5a(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        # m > 1, or m == 1 and no consonant-vowel-consonant ending
        if _measure_gt_1(stem) or (_positive_measure(stem) and not _ends_cvc(stem)):
            return stem
    return word


def _step5b(word: str) -> str:
    # the one rule "ll" -> "l" when the word without its last letter has a measure above 1
    if word.endswith("ll") and _measure_gt_1(word[:-1]):
        return word[:-1]
    return word


class PorterStemmer:
    """nltk's ``PorterStemmer()`` (``NLTK_EXTENSIONS`` mode): :meth:`stem` of a word.

    >>> PorterStemmer().stem("Generously")
    'gener'
    """

    def stem(self, word: str, to_lowercase: bool = True) -> str:
        """The stem of ``word`` (lower-cased first unless ``to_lowercase=False``)."""
        if NATIVE_STEM and to_lowercase and word.isascii():
            return native_stem(word)
        return self.stem_python(word, to_lowercase)

    def stem_python(self, word: str, to_lowercase: bool = True) -> str:
        """:meth:`stem` by the Python code alone (the reference of the compiled stemmer)."""
        stem = word.lower() if to_lowercase else word
        found = _POOL.get(stem)
        if found is not None:
            return found
        if len(word) <= 2:
            return stem
        # Each step runs only when the word ends with one of its suffixes' last letters (the
        # steps leave other words unchanged): most words skip most steps.
        last = stem[-1:]
        if last == "s":
            stem = _step1a(stem)
            last = stem[-1:]
        if last == "d" or last == "g":
            stem = _step1b(stem)
            last = stem[-1:]
        if last == "y":
            stem = _step1c(stem)
        end = stem[-2:]
        if end in _STEP2_ENDS:
            stem = _step2(stem)
            end = stem[-2:]
        rules = _STEP3_TABLE.get(end)
        if rules is not None:
            found = _apply_rules(stem, rules)
            if found is not None:
                stem = found
                end = stem[-2:]
        rules = _STEP4_TABLE.get(end)
        if rules is not None:
            found = _apply_rules(stem, rules)
            if found is not None:
                stem = found
        if stem.endswith("e"):
            stem = _step5a(stem)
        if stem.endswith("ll"):
            return _step5b(stem)
        return stem

    def __repr__(self) -> str:
        return "<PorterStemmer>"
