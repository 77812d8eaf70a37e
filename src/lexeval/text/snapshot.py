"""A language's tokenizer rules and stopwords as spaCy gives them, stored with the package, so
that a new process tokenizes without importing spaCy (about a second of CPU time).

A snapshot holds what lexeval reads of spaCy's blank pipeline for one language: the prefix,
suffix, infix and URL patterns of its tokenizer (with lexeval's rules applied), its special
cases, the tokens spaCy gives each special case, and its stopwords. It is taken from the spaCy
version it names (``make snapshots`` writes them; ``tests/text/test_snapshot.py`` checks that
each equals what the installed spaCy gives) and read only when that version is the one
installed: with any other, lexeval builds everything from spaCy as before (same results,
slower start). spaCy itself still loads when a text needs it (a chunk where a special case
may take part that the snapshot does not answer, a trained pipeline, a phrase matcher).

>>> snapshot = read_snapshot("en")
>>> snapshot is None or snapshot.special_tokens["don't"] == ["do", "n't"]
True
>>> read_snapshot("xx-unknown") is None
True
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as distribution_version
from typing import Any

__all__ = ["SNAPSHOT_FORMAT", "Pattern", "TokenizerSnapshot", "read_snapshot", "snapshot_name"]

#: The layout of the stored files; a file of another layout is not read.
SNAPSHOT_FORMAT = 1

#: A compiled pattern as stored: its source, its flags and the method the tokenizer calls.
Pattern = tuple[str, int, str]


@dataclass(frozen=True)
class TokenizerSnapshot:
    """What lexeval reads of one language's spaCy tokenizer and stopwords."""

    language: str
    spacy_version: str
    prefix: Pattern | None
    suffix: Pattern | None
    infix: Pattern | None
    url: Pattern | None
    #: special cases whose only token is the case itself
    same: frozenset[str]
    #: every other special case
    other: frozenset[str]
    #: spaCy's tokens of each special case that is one white-space chunk
    special_tokens: dict[str, list[str]]
    stopwords: frozenset[str]

    def search(self, which: str) -> Callable[..., Any] | None:
        """The bound method of the stored pattern ``which`` (``prefix``, ``suffix``, ``infix``
        or ``url``), compiled as spaCy compiled it; None when the tokenizer has none."""
        stored: Pattern | None = getattr(self, which)
        if stored is None:
            return None
        source, flags, method = stored
        found: Callable[..., Any] = getattr(re.compile(source, flags), method)
        return found

    def infix_finditer(self) -> Callable[[str], Iterator[Any]] | None:
        """The infix pattern's ``finditer`` (None when the tokenizer has none)."""
        return self.search("infix")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored in the package (sorted, so that files compare)."""
        return {
            "format": SNAPSHOT_FORMAT,
            "language": self.language,
            "spacy_version": self.spacy_version,
            "prefix": self.prefix,
            "suffix": self.suffix,
            "infix": self.infix,
            "url": self.url,
            "same": sorted(self.same),
            "other": sorted(self.other),
            "special_tokens": dict(sorted(self.special_tokens.items())),
            "stopwords": sorted(self.stopwords),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TokenizerSnapshot:
        """The snapshot of :meth:`to_dict`'s form."""

        def pattern(value: Any) -> Pattern | None:
            return None if value is None else (str(value[0]), int(value[1]), str(value[2]))

        return cls(
            language=data["language"],
            spacy_version=data["spacy_version"],
            prefix=pattern(data["prefix"]),
            suffix=pattern(data["suffix"]),
            infix=pattern(data["infix"]),
            url=pattern(data["url"]),
            same=frozenset(data["same"]),
            other=frozenset(data["other"]),
            special_tokens={k: list(v) for k, v in data["special_tokens"].items()},
            stopwords=frozenset(data["stopwords"]),
        )


def snapshot_name(language: str) -> str:
    """The file name of a language's snapshot in ``lexeval.data``.

    >>> snapshot_name("en")
    'spacy_rules_en.json.gz'
    """
    return f"spacy_rules_{language}.json.gz"


@functools.cache
def _spacy_version() -> str | None:
    try:
        return distribution_version("spacy")
    except PackageNotFoundError:  # pragma: no cover - a declared dependency
        return None


def read_snapshot(language: str) -> TokenizerSnapshot | None:
    """The stored snapshot of ``language`` when there is one taken from the installed spaCy
    version, else None (lexeval then reads spaCy itself)."""
    if not re.fullmatch(r"[a-z]{2,3}", language):
        return None
    path = resources.files("lexeval.data").joinpath(snapshot_name(language))
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, OSError):
        return None
    data = json.loads(gzip.decompress(raw))
    if data.get("format") != SNAPSHOT_FORMAT or data.get("spacy_version") != _spacy_version():
        return None
    return TokenizerSnapshot.from_dict(data)
