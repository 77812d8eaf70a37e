"""Marking keywords in a text: the words of a matched keyword and of a missing one, per metric.

Metrics report their evidence as normalized forms (lemmas such as ``boil``, stems such as
``capit``), not as character offsets. A word of the text is taken for a keyword's word when
their case-folded forms are equal or one begins the other with at most a few letters to spare
(``boils``/``boil``, ``capital``/``capit``); a keyword of several words marks a run of
consecutive words. The marks are a reading aid: the metric's own evidence lists stay the
reference.

>>> words = mark_words("Paris is the capital.", {0: (["capit", "paris"], [])})
>>> [(w.text, w.matched) for w in words if w.matched]
[('Paris', (0,)), ('capital', (0,))]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Word", "mark_words", "word_matches"]

_WORD = re.compile(r"\w+", re.UNICODE)
#: How many letters a text word may have beyond a keyword's (normalized) form, and the reverse.
_LONGER_WORD = 3
_LONGER_KEYWORD = 2
_MIN_PREFIX = 3


@dataclass(frozen=True, slots=True)
class Word:
    """A piece of the text: a word (with the metrics, by index, whose matched or missing
    keywords it belongs to) or the text between words (``is_word`` False)."""

    text: str
    is_word: bool
    matched: tuple[int, ...] = ()
    missing: tuple[int, ...] = ()


def word_matches(word: str, part: str) -> bool:
    """Whether a text ``word`` stands for a keyword's normalized ``part``.

    >>> word_matches("Degrees", "degre"), word_matches("at", "attention"), word_matches("is", "be")
    (True, False, False)
    """
    w, p = word.casefold(), part.casefold()
    if w == p:
        return True
    if len(p) >= _MIN_PREFIX and w.startswith(p) and len(w) - len(p) <= _LONGER_WORD:
        return True
    return len(w) >= _MIN_PREFIX and p.startswith(w) and len(p) - len(w) <= _LONGER_KEYWORD


def _runs(keyword: str) -> list[str]:
    return _WORD.findall(keyword)


def mark_words(
    text: str, evidence: Mapping[int, tuple[Sequence[str], Sequence[str]]]
) -> list[Word]:
    """``text`` cut into words and the text between them, each word carrying the metrics (keys
    of ``evidence``: metric index -> (matched keywords, missing keywords)) whose keywords it
    spells."""
    pieces: list[tuple[str, bool]] = []
    position = 0
    for found in _WORD.finditer(text):
        if found.start() > position:
            pieces.append((text[position : found.start()], False))
        pieces.append((found.group(), True))
        position = found.end()
    if position < len(text):
        pieces.append((text[position:], False))
    word_at = [i for i, (_, is_word) in enumerate(pieces) if is_word]
    words = [pieces[i][0] for i in word_at]
    by_initial: dict[str, list[int]] = {}  # a keyword's word and its text word share a start
    for index, word in enumerate(words):
        by_initial.setdefault(word[:1].casefold(), []).append(index)
    matched: dict[int, set[int]] = {}
    missing: dict[int, set[int]] = {}
    for metric, (found_kw, missing_kw) in evidence.items():
        for keywords, into in ((found_kw, matched), (missing_kw, missing)):
            for keyword in keywords:
                parts = _runs(keyword)
                if not parts:
                    continue
                for start in by_initial.get(parts[0][:1].casefold(), ()):
                    if start + len(parts) <= len(words) and all(
                        word_matches(words[start + k], p) for k, p in enumerate(parts)
                    ):
                        for k in range(len(parts)):
                            into.setdefault(word_at[start + k], set()).add(metric)
    return [
        Word(
            piece,
            is_word,
            tuple(sorted(matched.get(i, ()))),
            tuple(sorted(missing.get(i, ()))),
        )
        for i, (piece, is_word) in enumerate(pieces)
    ]
