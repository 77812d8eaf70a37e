"""The protocol every text processor follows: lexeval's :class:`~lexeval.normalize.Normalizer`
and the peers' processors of :mod:`lexeval.text.peers`.

>>> from lexeval.text.peers import SquadProcessor
>>> isinstance(SquadProcessor(), TextProcessor)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

__all__ = ["TextProcessor", "TokenSource", "processor_language"]


@runtime_checkable
class TokenSource(Protocol):
    """The part of :class:`TextProcessor` that a consumer of key sequences alone needs (the
    card matcher): ``tokens`` and ``signature``. Every text processor is one."""

    def tokens(self, text: str) -> list[str]:
        """The key sequence, duplicates kept (token-F1, ROUGE)."""
        ...

    @property
    def signature(self) -> str:
        """Every setting that changes results, in one stable string."""
        ...


@runtime_checkable
class TextProcessor(TokenSource, Protocol):
    """Text in, comparable keys out; configuration in the constructor, data in the call.

    Every processor is safe to share between threads and pickles as its configuration.
    """

    def keywords(self, text: str) -> list[str]:
        """The distinct keys in order of first appearance (keyword coverage)."""
        ...

    def analyze(self, text: str, *, merge_compounds: bool = True) -> list[tuple[str, bool]]:
        """Every key with its stopword flag, before stopwords are removed."""
        ...

    def sentences(self, text: str) -> list[str]:
        """The text split into sentences (ROUGE-Lsum)."""
        ...

    def prefetch(self, texts: Iterable[str]) -> None:
        """Prepare many texts at once where that is faster (may do nothing)."""
        ...


def processor_language(processor: object) -> str:
    """The language of a processor's keys: its ``language`` attribute (a
    :class:`~lexeval.normalize.Normalizer`'s, the peers' ``"en"``), English when it has none.

    >>> from lexeval.text.peers import MastraProcessor
    >>> processor_language(MastraProcessor()), processor_language(object())
    ('en', 'en')
    """
    language = getattr(processor, "language", None)
    return language if isinstance(language, str) else "en"
