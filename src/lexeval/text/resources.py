"""spaCy objects and tables, loaded once per process and language, and the locks that make them
safe to share between threads.

spaCy's vocabulary, string store and tokenizer are not thread-safe, and a memory zone frees the
strings every thread added while it was open: every use of a language's ``nlp`` (tokenizer,
Doc, matcher, memory zone) holds its :attr:`LanguageResources.lock` (:func:`spacy_zone` takes
it). A forked child gets new locks. Importing this module loads no spaCy.

>>> res = load_language("en")
>>> "the" in res.stopwords, res.lemma_table["dogs"]
(True, 'dog')
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as distribution_version
from typing import Any

__all__ = [
    "TECH_TOKEN_RE",
    "LanguageResources",
    "TrainedPipeline",
    "load_language",
    "load_lemma_table",
    "load_lock",
    "load_pipeline",
    "package_version",
    "sentence_punct_chars",
    "short_hash",
    "spacy_zone",
    "unload_language",
]

# A technical token that the tokenizer keeps whole: an optional leading dot (.NET), word
# characters joined by single separators (React.js, TCP/IP, state-of-the-art, v1.2.3,
# snake_case, user@example.com), an optional ++ or # (C++, C#). Every repetition must consume a
# separator, so the pattern cannot backtrack catastrophically.
TECH_TOKEN_RE = re.compile(r"\.?\w+(?:[-./@]\w+)*(?:\+\+|#)?")


@dataclass
class LanguageResources:
    """spaCy objects and tables for one language, loaded once per process.

    ``zone_depth`` (changed only under ``lock``) makes :func:`spacy_zone` re-entrant.
    """

    nlp: Any
    stopwords: frozenset[str]
    lemma_table: Any  # a spacy.lookups.Table, or None when the language has no table
    lookups_version: str | None
    specials: frozenset[str] | None = None  # special cases; None: no letters fast path
    # compound indexes built on this vocabulary, by the settings that shape keys
    compound_indexes: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    zone_depth: int = 0


@dataclass
class TrainedPipeline:
    """A trained spaCy pipeline and the lock every call into it holds."""

    nlp: Any
    lock: threading.RLock = field(default_factory=threading.RLock)


_LANGUAGES: dict[str, LanguageResources] = {}
_PIPELINES: dict[str, TrainedPipeline] = {}
# Held while loading resources or building a processor's indexes (never inside a zone).
_LOAD_LOCK = threading.RLock()


def load_lock() -> threading.RLock:
    """The lock held while loading resources or building a processor's indexes (never inside
    a zone); a forked child gets a new one."""
    return _LOAD_LOCK


def _locks_after_fork() -> None:
    """A forked child gets new locks: a lock another thread of the parent held stays held."""
    global _LOAD_LOCK
    _LOAD_LOCK = threading.RLock()
    for pipeline in _PIPELINES.values():
        pipeline.lock = threading.RLock()
    for res in _LANGUAGES.values():
        res.lock = threading.RLock()
        res.zone_depth = 0


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_locks_after_fork)


@contextmanager
def spacy_zone(res: LanguageResources) -> Iterator[None]:
    """The language's lock and spaCy's memory zone, so that strings of transient texts do not
    pile up in the vocabulary. Re-entrant: inside an open zone it only takes the lock."""
    with res.lock:
        if res.zone_depth:
            yield
            return
        nlp = res.nlp
        zone = nlp.memory_zone() if hasattr(nlp, "memory_zone") else nullcontext()
        with zone:
            res.zone_depth = 1
            try:
                yield
            finally:
                res.zone_depth = 0


def package_version(dist: str) -> str:
    """The installed version of a distribution, or ``"unknown"``.

    >>> package_version("not-a-real-distribution-xyz")
    'unknown'
    """
    try:
        return distribution_version(dist)
    except PackageNotFoundError:
        return "unknown"


def short_hash(words: Iterable[str]) -> str:
    """Eight hex digits identifying a set of strings (order does not matter).

    >>> short_hash(["b", "a"]) == short_hash(["a", "b"])
    True
    """
    return hashlib.sha256("\n".join(sorted(words)).encode("utf-8")).hexdigest()[:8]


def load_language(language: str) -> LanguageResources:
    """The blank spaCy pipeline with lexeval's tokenizer rules, its stopwords and lemma table
    (built once per process and language, whichever thread asks first)."""
    res = _LANGUAGES.get(language)
    if res is None:
        with _LOAD_LOCK:
            res = _LANGUAGES.get(language)
            if res is None:
                res = _LANGUAGES[language] = _build_language(language)
    return res


def unload_language(language: str) -> None:
    """Forget a language's resources (tests free large tables with it); processors that
    already hold them keep working."""
    with _LOAD_LOCK:
        _LANGUAGES.pop(language, None)


def load_lemma_table(language: str) -> tuple[Any, str | None]:
    """spacy-lookups-data's ``lemma_lookup`` table for a language and the package's version,
    or ``(None, None)`` when the language has none.

    >>> table, version = load_lemma_table("de")
    >>> table["Hunde"], version is not None
    ('Hund', True)
    """
    from spacy.lookups import load_lookups

    try:
        table = load_lookups(language, ["lemma_lookup"]).get_table("lemma_lookup")
    except ValueError:
        return None, None
    return table, package_version("spacy-lookups-data")


def _build_language(language: str) -> LanguageResources:
    import spacy

    try:
        nlp = spacy.blank(language)
    except ImportError as exc:
        raise ValueError(
            f"spaCy's blank pipeline for language {language!r} could not be created: {exc}"
        ) from None
    _set_tokenizer_rules(nlp)
    # lexeval reads only token texts: skip the Python lexical-attribute getters (shape, like_num,
    # ...) that spaCy runs for every new lexeme; they were most of the cold-path time.
    setattr(nlp.vocab, "lex_attr_getters", {})  # noqa: B010 (not in spaCy's stubs)
    table, lookups_version = load_lemma_table(language)
    from spacy.tokenizer import Tokenizer

    # The letters-only fast path holds for spaCy's rule-based tokenizer only (not zh's).
    tokenizer = nlp.tokenizer
    specials = frozenset(tokenizer.rules or ()) if isinstance(tokenizer, Tokenizer) else None
    return LanguageResources(
        specials=specials,
        nlp=nlp,
        stopwords=frozenset(nlp.Defaults.stop_words),
        lemma_table=table,
        lookups_version=lookups_version,
    )


def _set_tokenizer_rules(nlp: Any) -> None:
    """Keep technical terms whole; a final period always splits off ("I/O." -> "I/O", ".")."""
    from spacy.util import compile_suffix_regex

    nlp.tokenizer.token_match = TECH_TOKEN_RE.fullmatch
    suffixes = [*nlp.Defaults.suffixes, r"\."]
    nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search


def load_pipeline(name: str) -> TrainedPipeline:
    """A trained spaCy pipeline (a package name or a path), loaded once per process."""
    pipeline = _PIPELINES.get(name)
    if pipeline is None:
        with _LOAD_LOCK:
            pipeline = _PIPELINES.get(name)
            if pipeline is None:
                pipeline = _PIPELINES[name] = TrainedPipeline(_build_pipeline(name))
    return pipeline


def _build_pipeline(name: str) -> Any:
    import spacy

    try:
        return spacy.load(name)
    except OSError:
        raise ValueError(
            f"the spaCy pipeline {name!r} is not installed; install it as a package "
            f"(lexeval never downloads at run time) or leave pipeline=None to use the "
            f"lookup lemmatizer"
        ) from None


@functools.cache
def sentence_punct_chars() -> frozenset[str]:
    """The characters that end a sentence for spaCy's ``sentencizer``."""
    from spacy.pipeline import Sentencizer

    return frozenset(Sentencizer.default_punct_chars)
