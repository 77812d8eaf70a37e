"""The protocol every text processor follows: lexeval's :class:`~lexeval.normalize.Normalizer`
and the peers' processors of :mod:`lexeval.text.peers`.

>>> from lexeval.text.peers import SquadProcessor
>>> isinstance(SquadProcessor(), TextProcessor)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple, Protocol, runtime_checkable

__all__ = [
    "KeywordAnalysis",
    "KeywordAnalyzer",
    "TextProcessor",
    "TokenSource",
    "keyword_analysis",
    "processor_language",
]


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


class KeywordAnalysis(NamedTuple):
    """Two views of one text from one analysis: what lenient keyword matching needs."""

    keywords: list[str]
    """:meth:`TextProcessor.keywords`: distinct keys, stopwords removed, compounds merged."""
    keys: list[str]
    """Every key in order, stopwords kept and compound terms as their parts (the keys of
    :meth:`TextProcessor.analyze` with ``merge_compounds=False``)."""


@runtime_checkable
class KeywordAnalyzer(Protocol):
    """A processor that gives both views of :class:`KeywordAnalysis` from one analysis."""

    def keyword_analysis(self, text: str) -> KeywordAnalysis:
        """The keywords and every key of ``text``, analyzed once."""
        ...


def keyword_analysis(processor: TextProcessor, text: str) -> KeywordAnalysis:
    """Both views of ``text``: from one analysis when the processor offers it
    (:class:`KeywordAnalyzer`), else from its ``keywords`` and ``analyze``.

    >>> from lexeval.text.peers import RougeScoreProcessor
    >>> keyword_analysis(RougeScoreProcessor(), "The cats, the dogs")
    KeywordAnalysis(keywords=['the', 'cats', 'dogs'], keys=['the', 'cats', 'the', 'dogs'])
    """
    # an attribute look-up, not isinstance(processor, KeywordAnalyzer): a runtime protocol check
    # costs microseconds, and this runs once per text scored
    analyze: Callable[[str], KeywordAnalysis] | None = getattr(processor, "keyword_analysis", None)
    if analyze is not None:
        return analyze(text)
    keys = [key for key, _ in processor.analyze(text, merge_compounds=False)]
    return KeywordAnalysis(processor.keywords(text), keys)
