"""The peers' text handling as text processors over the pure functions of :mod:`lexeval.compat`:
Mastra's keyword extractor, the SQuAD v1.1 answer normalization, rouge-score 0.1.2's tokenizer,
and plain white-space splitting. Each has one signature, used wherever it tokenizes (the
``Normalizer`` presets and the metrics' compatibility modes alike).

>>> RougeScoreProcessor(stemmer=True).tokens("Running dogs, 2 cats.")
['run', 'dog', '2', 'cat']
>>> MastraProcessor().keywords("The quick brown fox jumps")
['quick', 'brown', 'fox', 'jumps']
>>> SquadProcessor().signature
'norm:squad-v1.1'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from lexeval.checks import check_text, check_texts
from lexeval.compat import (
    mastra_keywords,
    rouge_score_sentences,
    rouge_score_tokens,
    squad_normalize_answer,
)
from lexeval.text.base import TextProcessor
from lexeval.text.signature import Signature

__all__ = [
    "MastraProcessor",
    "RougeScoreProcessor",
    "SquadProcessor",
    "WhitespaceProcessor",
    "clear_caches",
    "peer_processor",
]


class _PeerProcessor:
    """What every peer processor shares: English keys without stopword flags, no batch path."""

    language: ClassVar[str] = "en"

    def tokens(self, text: str) -> list[str]:
        raise NotImplementedError

    def keywords(self, text: str) -> list[str]:
        """The distinct tokens in order of first appearance."""
        return list(dict.fromkeys(self.tokens(text)))

    def analyze(self, text: str, *, merge_compounds: bool = True) -> list[tuple[str, bool]]:
        """Every token, none flagged a stopword (the peers drop theirs)."""
        return [(token, False) for token in self.tokens(text)]

    def sentences(self, text: str) -> list[str]:
        """Non-empty lines, stripped (rouge-score's convention for rougeLsum)."""
        return [line.strip() for line in check_text(text).splitlines() if line.strip()]

    def prefetch(self, texts: Iterable[str]) -> None:
        """Nothing to prepare: the peers' functions are cached per process."""
        check_texts(texts)

    @property
    def signature(self) -> Signature:
        raise NotImplementedError


@dataclass(frozen=True)
class MastraProcessor(_PeerProcessor):
    """``@mastra/evals``' keyword extractor (keyword-extractor 0.0.28), exactly."""

    def tokens(self, text: str) -> list[str]:
        return mastra_keywords(check_text(text))

    @property
    def signature(self) -> Signature:
        return Signature("norm:mastra-keyword-extractor-0.0.28")


@dataclass(frozen=True)
class SquadProcessor(_PeerProcessor):
    """The SQuAD v1.1 script's answer normalization, split on white space."""

    def tokens(self, text: str) -> list[str]:
        return squad_normalize_answer(check_text(text)).split()

    @property
    def signature(self) -> Signature:
        return Signature("norm:squad-v1.1")


@lru_cache(maxsize=8192)
def _rouge_tokens(text: str, stemmer: bool) -> tuple[str, ...]:
    return tuple(rouge_score_tokens(text, stemmer=stemmer))


@lru_cache(maxsize=2048)
def _rouge_sentence_tokens(text: str, stemmer: bool) -> tuple[tuple[str, ...], ...]:
    return tuple(_rouge_tokens(s, stemmer) for s in rouge_score_sentences(text))


def clear_caches() -> None:
    """Empty the per-process caches of rouge-score tokens (benchmarks time cold runs)."""
    _rouge_tokens.cache_clear()
    _rouge_sentence_tokens.cache_clear()


@dataclass(frozen=True)
class RougeScoreProcessor(_PeerProcessor):
    """rouge-score 0.1.2's default tokenizer (``stemmer=True``: its Porter stemming) and its
    rougeLsum sentences (lines), exactly; results are cached per process."""

    stemmer: bool = False

    def tokens(self, text: str) -> list[str]:
        return list(_rouge_tokens(check_text(text), self.stemmer))

    def token_tuple(self, text: str) -> tuple[str, ...]:
        """:meth:`tokens` as the cached tuple (no copy; ``text`` must be a str)."""
        return _rouge_tokens(text, self.stemmer)

    def sentence_tokens(self, text: str) -> tuple[tuple[str, ...], ...]:
        """The tokens of each of rouge-score's sentences (cached; ``text`` must be a str)."""
        return _rouge_sentence_tokens(text, self.stemmer)

    def sentences(self, text: str) -> list[str]:
        """rouge-score's sentences: the lines, empty ones dropped (not stripped)."""
        return rouge_score_sentences(check_text(text))

    @property
    def signature(self) -> Signature:
        return Signature(f"tok:rouge-score-0.1.2|stem:{'porter' if self.stemmer else 'no'}")


@dataclass(frozen=True)
class WhitespaceProcessor(_PeerProcessor):
    """``str.split()``, lower-cased when ``lowercase`` (token-F1's ``compat="set"``)."""

    lowercase: bool = True

    def tokens(self, text: str) -> list[str]:
        text = check_text(text)
        return (text.lower() if self.lowercase else text).split()

    @property
    def signature(self) -> Signature:
        return Signature("norm:lower-split" if self.lowercase else "norm:split")


def peer_processor(name: str, *, stemmer: bool = False) -> TextProcessor:
    """The processor of a peer by its compatibility name.

    >>> peer_processor("rouge-score", stemmer=True).signature
    'tok:rouge-score-0.1.2|stem:porter'
    """
    if name == "mastra":
        return MastraProcessor()
    if name == "squad":
        return SquadProcessor()
    if name == "rouge-score":
        return RougeScoreProcessor(stemmer=stemmer)
    if name == "whitespace":
        return WhitespaceProcessor()
    raise ValueError(f"unknown peer {name!r}; choose mastra, squad, rouge-score or whitespace")
