"""Keywords found in texts on normalized forms: the one keyword lookup of the record matcher
(the ``keywords`` check) and so of the flashcard matcher.

A keyword (or phrase) counts as present in a text when its normalized token sequence occurs
contiguously in the text's normalized token sequence, so "art" does not match "start" while
"neural networks" matches "a neural network". A keyword whose normalized form is empty (only
stopwords, such as "the") falls back to a case-insensitive whole-word match on ``\\w+`` words,
and a keyword without any word character (such as "+") to a case-insensitive substring match.
Without a normalizer (plain mode) a keyword counts when ``kw in text``.

>>> index = KeywordIndex(None)
>>> index.found(["Paris", "paris"], "Paris is in France.")
[True, False]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lexeval.normalize import resolve_normalizer
from lexeval.text.base import TokenSource

__all__ = ["IndexedText", "KeywordIndex", "KeywordKey", "NormalizerArg"]

#: A text processor, a preset name of :class:`lexeval.normalize.Normalizer`, or None (plain
#: mode).
NormalizerArg = TokenSource | str | None

_WORD = re.compile(r"\w+")

# A keyword's key: how it is looked up in a text.
#   ("seq", tokens)  normalized token sequence, contiguous whole-token match
#   ("word", words)  fallback: casefolded \w+ words, contiguous whole-word match
#   ("sub", folded)  fallback: casefolded substring
KeywordKey = tuple[str, tuple[str, ...] | str]


class IndexedText:
    """One text, normalized once, with lazily built n-gram sets for contiguous lookups."""

    __slots__ = ("_folded", "_grams", "_raw", "_words", "tokens", "unigrams")

    def __init__(self, raw: str, tokens: Sequence[str]) -> None:
        self._raw = raw
        self.tokens = tuple(tokens)
        self.unigrams = frozenset(self.tokens)
        self._grams: dict[tuple[str, int], frozenset[tuple[str, ...]]] = {}
        self._words: tuple[str, ...] | None = None
        self._folded: str | None = None

    def _has_seq(self, kind: str, seq: tuple[str, ...], source: tuple[str, ...]) -> bool:
        n = len(seq)
        grams = self._grams.get((kind, n))
        if grams is None:
            grams = frozenset(zip(*(source[i:] for i in range(n)), strict=False))
            self._grams[(kind, n)] = grams
        return seq in grams

    def contains(self, key: KeywordKey) -> bool:
        kind, value = key
        if kind == "seq":
            assert isinstance(value, tuple)
            if len(value) == 1:
                return value[0] in self.unigrams
            return self._has_seq("seq", value, self.tokens)
        if kind == "word":
            assert isinstance(value, tuple)
            if self._words is None:
                self._words = tuple(_WORD.findall(self._raw.casefold()))
            return self._has_seq("word", value, self._words)
        assert isinstance(value, str)
        if self._folded is None:
            self._folded = self._raw.casefold()
        return value in self._folded


class KeywordIndex:
    """Keyword keys and normalized texts, each distinct string normalized once: texts per case
    (:meth:`new_case` forgets them), keyword keys for the run (bounded).

    ``normalizer``: a preset name of :class:`lexeval.normalize.Normalizer` (the process's shared
    one), anything with ``tokens`` and ``signature``, or None (plain mode: ``kw in text``).
    """

    __slots__ = ("_keys", "_texts", "normalizer")

    def __init__(self, normalizer: NormalizerArg = "default") -> None:
        self.normalizer: TokenSource | None = (
            None if normalizer is None else resolve_normalizer(normalizer, tokens_only=True)
        )
        self._keys: dict[str, KeywordKey] = {}
        self._texts: dict[str, IndexedText] = {}

    @property
    def signature(self) -> str:
        """The normalizer's signature, ``plain`` without one."""
        return self.normalizer.signature if self.normalizer is not None else "plain"

    def new_case(self) -> None:
        """Forget the texts of the last case; keep keyword keys (bounded)."""
        self._texts.clear()
        if len(self._keys) > 65536:
            self._keys.clear()

    def key(self, keyword: str) -> KeywordKey:
        key = self._keys.get(keyword)
        if key is None:
            assert self.normalizer is not None
            tokens = tuple(self.normalizer.tokens(keyword))
            if tokens:
                key = ("seq", tokens)
            else:
                words = tuple(_WORD.findall(keyword.casefold()))
                key = ("word", words) if words else ("sub", keyword.casefold().strip())
            self._keys[keyword] = key
        return key

    def text(self, raw: str) -> IndexedText:
        text = self._texts.get(raw)
        if text is None:
            assert self.normalizer is not None
            text = IndexedText(raw, self.normalizer.tokens(raw))
            self._texts[raw] = text
        return text

    def found(self, keywords: Sequence[str], text: str) -> list[bool]:
        """Whether each keyword occurs in ``text``."""
        if self.normalizer is None:
            return [kw in text for kw in keywords]
        indexed = self.text(text)
        return [indexed.contains(self.key(kw)) for kw in keywords]
