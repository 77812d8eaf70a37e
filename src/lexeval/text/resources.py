"""spaCy objects and tables, loaded once per process and language, and the locks that make them
safe to share between threads.

spaCy's vocabulary, string store and tokenizer are not thread-safe, and a memory zone frees the
strings every thread added while it was open: every use of a language's ``nlp`` (tokenizer,
Doc, matcher, memory zone) holds its :attr:`LanguageResources.lock` (:func:`spacy_zone` takes
it). A forked child gets new locks. Importing this module loads no spaCy.

>>> res = load_language("en")
>>> "the" in res.stopwords, res.lemma_table["dogs"]
(True, 'dog')

What a new process pays before its first result is kept small: the tokenizer is built once with
lexeval's rules (setting them on spaCy's default tokenizer reloads its special cases at every
change), and a language's lemma table is read on first use only (the ``rouge`` preset never
reads it), as a plain dict (spaCy's ``Table`` hashes every key on loading).

Memory stays bounded in long runs: a memory zone frees the strings and lexemes of the texts read
inside it, but spaCy's hash tables (the string store's and the vocabulary's) keep a deleted slot
for each until they resize, and they only ever double, so they grow with the number of distinct
tokens ever read (16 bytes a slot each, about 4 slots per 3 distinct tokens). Once
:data:`RENEW_AFTER_LEXEMES` lexemes were made, the language's ``nlp`` and compound matchers are
built anew (about 0.2 s), with the same rules, so results do not change.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, entry_points
from importlib.metadata import version as distribution_version
from pathlib import Path
from typing import Any

from lexeval.text.affixes import AffixRules
from lexeval.text.snapshot import Pattern, TokenizerSnapshot, read_snapshot, snapshot_name

__all__ = [
    "RENEW_AFTER_LEXEMES",
    "TECH_TOKEN_RE",
    "LanguageResources",
    "Patterns",
    "TrainedPipeline",
    "check_language",
    "load_language",
    "load_lemma_table",
    "load_lock",
    "load_pipeline",
    "lookup_languages",
    "package_version",
    "phrase_matcher",
    "sentence_punct_chars",
    "short_hash",
    "spacy_languages",
    "spacy_zone",
    "take_snapshot",
    "tech_token_match",
    "unload_language",
    "write_snapshots",
]

# A technical token that the tokenizer keeps whole: an optional leading dot (.NET), word
# characters joined by single separators (React.js, TCP/IP, state-of-the-art, v1.2.3,
# snake_case, user@example.com), an optional ++ or # (C++, C#). Every repetition must consume a
# separator, so the pattern cannot backtrack catastrophically.
TECH_TOKEN_RE = re.compile(r"\.?\w+(?:[-./@]\w+)*(?:\+\+|#)?")
_TECH_FULLMATCH = TECH_TOKEN_RE.fullmatch


def tech_token_match(token: str) -> re.Match[str] | None:
    """``TECH_TOKEN_RE.fullmatch(token)``, answered at once when the last character cannot end
    a match (anything but a word character, ``+`` or ``#``: most chunks with punctuation).

    >>> bool(tech_token_match("React.js")), tech_token_match("Paris,")
    (True, None)
    """
    last = token[-1:]
    if not (last.isalnum() or last in "_+#"):
        return None
    return _TECH_FULLMATCH(token)


LemmaTable = dict[str, Any]  # form -> lemma (a str, or a list of them in the fr and ca tables)
#: The patterns of a phrase matcher: (label, the pattern's words) in the order they were added.
Patterns = tuple[tuple[str, tuple[str, ...]], ...]

#: Lexemes a language's spaCy objects make (most of them freed by memory zones) before they are
#: built anew: their hash tables then hold at most about 2**20 slots (16 MB each).
RENEW_AFTER_LEXEMES = 1 << 19


@dataclass
class LanguageResources:
    """spaCy objects and tables for one language, loaded once per process.

    ``nlp`` and ``matchers`` are read only under ``lock`` (they are replaced when renewed, see
    the module doc); ``zone_depth`` (changed only under ``lock``) makes :func:`spacy_zone`
    re-entrant.
    """

    language: str
    stopwords: frozenset[str]
    specials: frozenset[str] | None = None  # special cases; None: no letters fast path
    affixes: AffixRules | None = None  # the tokenizer's rules in Python; None: spaCy only
    #: spaCy's tokens of each special case, from a snapshot (:mod:`lexeval.text.snapshot`):
    #: chunks it answers need no spaCy
    spacy_tokens: dict[str, list[str]] | None = None
    # compound indexes (vocabulary-free parts), by the settings that shape keys
    compound_indexes: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    # phrase matchers on ``nlp``'s vocabulary and their patterns, by the same keys
    matchers: dict[tuple[Any, ...], tuple[Patterns, Any]] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    zone_depth: int = 0
    renew_after: int = RENEW_AFTER_LEXEMES
    renewals: int = 0  # times ``nlp`` was built anew
    lexemes_before: int = 0  # lexemes made by the ``nlp`` objects before this one
    _lexemes_at_build: int = field(default=0, repr=False)
    _table: tuple[LemmaTable | None, str | None] | None = field(default=None, repr=False)
    _nlp: Any = field(default=None, repr=False)

    @property
    def nlp(self) -> Any:
        """The language's blank spaCy pipeline, built on first use (with the phrase matchers
        added so far): a language read from a snapshot imports spaCy only when a text needs
        it. Read it under ``lock``, outside any memory zone (:func:`spacy_zone` does)."""
        nlp = self._nlp
        if nlp is None:
            with self.lock:
                nlp = self._nlp
                if nlp is None:
                    nlp = _new_nlp(self.language)
                    self._set_nlp(nlp)
        return nlp

    def _set_nlp(self, nlp: Any) -> None:
        """Use ``nlp`` and build the phrase matchers on its vocabulary (under ``lock``)."""
        self.matchers = {
            key: (patterns, phrase_matcher(nlp.vocab, patterns))
            for key, (patterns, _) in self.matchers.items()
        }
        self._lexemes_at_build = len(nlp.vocab)
        self._nlp = nlp

    def add_matcher(self, key: tuple[Any, ...], patterns: Patterns) -> None:
        """Keep a phrase matcher's patterns, and build it on ``nlp``'s vocabulary when spaCy is
        loaded (else when it is: under ``lock``, outside any memory zone, so that the
        patterns' strings stay)."""
        with self.lock:
            if key not in self.matchers:
                nlp = self._nlp
                matcher = None if nlp is None else phrase_matcher(nlp.vocab, patterns)
                self.matchers[key] = (patterns, matcher)

    def matcher(self, key: tuple[Any, ...]) -> Any:
        """The phrase matcher kept under ``key`` (read under ``lock``, inside
        :func:`spacy_zone`, which built ``nlp`` and so the matchers)."""
        return self.matchers[key][1]

    def churned(self) -> bool:
        """Whether ``nlp`` made :attr:`renew_after` lexemes since it was built."""
        nlp = self._nlp
        return nlp is not None and len(nlp.vocab) - self._lexemes_at_build > self.renew_after

    def renew(self) -> None:
        """Build ``nlp`` and the phrase matchers anew (under ``lock``, outside any zone)."""
        with self.lock:
            self.lexemes_before += len(self.nlp.vocab)
            self._set_nlp(_new_nlp(self.language))
            self.renewals += 1

    @property
    def lemma_table(self) -> LemmaTable | None:
        """The language's lookup lemma table (read on first use), None when it has none."""
        return self._lemmas()[0]

    @property
    def lookups_version(self) -> str | None:
        """spacy-lookups-data's version when the language has a table, else None."""
        return self._lemmas()[1]

    def _lemmas(self) -> tuple[LemmaTable | None, str | None]:
        loaded = self._table
        if loaded is None:
            with _LOAD_LOCK:
                loaded = self._table
                if loaded is None:
                    loaded = self._table = load_lemma_table(self.language)
        return loaded


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
    pile up in the vocabulary. Re-entrant: inside an open zone it only takes the lock. Leaving
    the outermost zone renews the language's spaCy objects when they made
    :attr:`~LanguageResources.renew_after` lexemes (see the module doc)."""
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
    if res.churned() and _LOAD_LOCK.acquire(blocking=False):
        # Loading takes the load lock, then a language's lock; never the other way round (a
        # thread that holds the load lock elsewhere renews at a later zone instead).
        try:
            with res.lock:
                if not res.zone_depth and res.churned():
                    res.renew()
        finally:
            _LOAD_LOCK.release()


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


@functools.cache
def spacy_languages() -> tuple[str, ...]:
    """The language codes spaCy has a blank pipeline for (its ``spacy.lang`` packages), read
    from the installed files without importing spaCy.

    >>> {"de", "en", "fr", "ru", "zh"} <= set(spacy_languages())
    True
    """
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("spacy")
    if spec is None or not spec.submodule_search_locations:
        return ()
    found = set()
    for location in spec.submodule_search_locations:
        for entry in (Path(location) / "lang").iterdir():
            if (entry / "__init__.py").is_file():
                found.add(entry.name)
    return tuple(sorted(found))


def check_language(language: str) -> str:
    """``language`` when spaCy has a blank pipeline for it (:func:`spacy_languages`), else a
    ValueError naming the codes it knows (some need extra packages, e.g. ja, th, ko: those fail
    when first used, saying which).

    >>> check_language("de")
    'de'
    >>> check_language("german")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown language 'german': give a code spaCy knows (af, am, ar, ...)
    """
    known = spacy_languages()
    if language not in known:
        raise ValueError(
            f"unknown language {language!r}: give a code spaCy knows ({', '.join(known)})"
        )
    return language


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


def load_lemma_table(language: str) -> tuple[LemmaTable | None, str | None]:
    """spacy-lookups-data's ``lemma_lookup`` table for a language (the file spaCy's
    ``load_lookups`` reads, as a plain dict) and the package's version, or ``(None, None)``
    when the language has none.

    >>> table, version = load_lemma_table("de")
    >>> table["Hunde"], version is not None, load_lemma_table("xx")
    ('Hund', True, (None, None))
    """
    files = _lookup_files().get(language)
    if files is None or "lemma_lookup" not in files:
        return None, None
    return _read_json(files["lemma_lookup"]), package_version("spacy-lookups-data")


@functools.cache
def _lookup_files() -> dict[str, Any]:
    """The lookup tables' files by language, as spaCy's ``registry.lookups`` finds them: the
    ``spacy_lookups`` entry points (spacy-lookups-data's), read without importing spaCy."""
    found: dict[str, Any] = {}
    for entry in entry_points(group="spacy_lookups"):
        found.setdefault(entry.name, entry)
    return {name: entry.load() for name, entry in found.items()}


def _read_json(path: Any) -> Any:
    """A lookups file as spaCy's ``load_language_data`` reads it: the JSON file, else the
    same name with ``.gz``."""
    target = Path(path)
    if target.exists():
        return json.loads(target.read_bytes())
    return json.loads(gzip.decompress(target.with_suffix(target.suffix + ".gz").read_bytes()))


_TOKENIZER = "lexeval.Tokenizer.v1"
_registered: list[str] = []


def _tokenizer_factory() -> Callable[[Any], Any]:
    """spaCy's ``spacy.Tokenizer.v1`` with lexeval's rules: technical terms kept whole, a final
    period always split off ("I/O." -> "I/O", ".")."""

    def make(nlp: Any) -> Any:
        from spacy.tokenizer import Tokenizer
        from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex

        defaults = nlp.Defaults
        prefixes, infixes = defaults.prefixes, defaults.infixes
        return Tokenizer(
            nlp.vocab,
            rules=defaults.tokenizer_exceptions,
            prefix_search=compile_prefix_regex(prefixes).search if prefixes else None,
            suffix_search=compile_suffix_regex([*(defaults.suffixes or ()), r"\."]).search,
            infix_finditer=compile_infix_regex(infixes).finditer if infixes else None,
            token_match=TECH_TOKEN_RE.fullmatch,
            url_match=defaults.url_match,
        )

    return make


def _blank(language: str) -> Any:
    """spaCy's blank pipeline for the language with lexeval's tokenizer rules, its special
    cases loaded once (a language with its own tokenizer, such as zh, gets the rules set on
    it)."""
    import spacy
    from spacy.util import compile_suffix_regex, get_lang_class, registry

    tokenizer = get_lang_class(language).default_config["nlp"]["tokenizer"]
    if tokenizer.get("@tokenizers") != "spacy.Tokenizer.v1":
        nlp: Any = spacy.blank(language)
        nlp.tokenizer.token_match = TECH_TOKEN_RE.fullmatch
        nlp.tokenizer.suffix_search = compile_suffix_regex([*nlp.Defaults.suffixes, r"\."]).search
        return nlp
    if not _registered:
        registry.tokenizers.register(_TOKENIZER, func=_tokenizer_factory)
        _registered.append(_TOKENIZER)
    return spacy.blank(language, config={"nlp": {"tokenizer": {"@tokenizers": _TOKENIZER}}})


def _new_nlp(language: str) -> Any:
    """The blank pipeline lexeval uses (:func:`_blank`), without lexical attributes."""
    nlp = _blank(language)
    # lexeval reads only token texts: skip the Python lexical-attribute getters (shape, like_num,
    # ...) that spaCy runs for every new lexeme; they were most of the cold-path time.
    setattr(nlp.vocab, "lex_attr_getters", {})  # noqa: B010 (not in spaCy's stubs)
    return nlp


def phrase_matcher(vocab: Any, patterns: Patterns) -> Any:
    """spaCy's ``PhraseMatcher`` on ORTH with ``patterns`` added in order."""
    from spacy.matcher import PhraseMatcher
    from spacy.tokens import Doc

    matcher = PhraseMatcher(vocab, attr="ORTH")
    for label, words in patterns:
        matcher.add(label, [Doc(vocab, words=list(words))])
    return matcher


def _build_language(language: str) -> LanguageResources:
    snapshot = read_snapshot(language)
    if snapshot is not None:
        return _from_snapshot(snapshot)
    try:
        nlp = _new_nlp(language)
    except ImportError as exc:
        raise ValueError(
            f"spaCy's blank pipeline for language {language!r} could not be created: {exc}"
        ) from None
    from spacy.tokenizer import Tokenizer

    # The letters-only fast path holds for spaCy's rule-based tokenizer only (not zh's).
    tokenizer = nlp.tokenizer
    spacy_rules = isinstance(tokenizer, Tokenizer)
    specials = frozenset(tokenizer.rules or ()) if spacy_rules else None
    res = LanguageResources(
        language=language,
        specials=specials,
        affixes=AffixRules.of(
            tokenizer,
            token_match=_token_match(tokenizer),
            plain_edges=tokenizer.token_match == _TECH_FULLMATCH,
        )
        if spacy_rules
        else None,
        stopwords=frozenset(nlp.Defaults.stop_words),
    )
    with res.lock:
        res._set_nlp(nlp)
    return res


def _from_snapshot(snapshot: TokenizerSnapshot) -> LanguageResources:
    """A language's resources read from its snapshot: no spaCy until a text needs it."""
    prefix, suffix, url = (snapshot.search(name) for name in ("prefix", "suffix", "url"))
    return LanguageResources(
        language=snapshot.language,
        specials=snapshot.same | snapshot.other,
        affixes=AffixRules.of_patterns(
            prefix_search=prefix,
            suffix_search=suffix,
            infix_finditer=snapshot.infix_finditer(),
            token_match=tech_token_match,
            url_match=url,
            same=snapshot.same,
            other=snapshot.other,
            plain_edges=True,
        ),
        stopwords=snapshot.stopwords,
        spacy_tokens=snapshot.special_tokens,
    )


def take_snapshot(language: str) -> TokenizerSnapshot | None:
    """What lexeval reads of ``language``'s spaCy tokenizer and stopwords (spaCy loaded), or
    None for a language whose tokenizer is not spaCy's rule-based one (zh, ja, ko...)."""
    from spacy.symbols import ORTH
    from spacy.tokenizer import Tokenizer

    nlp = _new_nlp(language)
    tokenizer = nlp.tokenizer
    if not isinstance(tokenizer, Tokenizer) or tokenizer.token_match != _TECH_FULLMATCH:
        return None

    def stored(method: Any) -> Pattern | None:
        if method is None:
            return None
        pattern = method.__self__
        assert isinstance(pattern, re.Pattern), pattern
        return (pattern.pattern, pattern.flags, method.__name__)

    rules = tokenizer.rules or {}
    same = frozenset(
        s for s, tokens in rules.items() if len(tokens) == 1 and tokens[0].get(ORTH) == s
    )
    chunks = sorted(s for s in rules if s and len(s.split()) == 1 and s == s.strip())
    special_tokens = {c: [t.text for t in tokenizer(c)] for c in chunks}
    return TokenizerSnapshot(
        language=language,
        spacy_version=package_version("spacy"),
        prefix=stored(tokenizer.prefix_search),
        suffix=stored(tokenizer.suffix_search),
        infix=stored(tokenizer.infix_finditer),
        url=stored(tokenizer.url_match),
        same=same,
        other=frozenset(rules) - same,
        special_tokens=special_tokens,
        stopwords=frozenset(nlp.Defaults.stop_words),
    )


def lookup_languages() -> frozenset[str]:
    """The languages spacy-lookups-data has tables for.

    >>> {"en", "de"} <= lookup_languages()
    True
    """
    return frozenset(_lookup_files())


def write_snapshots(languages: Iterable[str], folder: str | os.PathLike[str]) -> list[str]:
    """Write the snapshot of each language (one whose tokenizer has one) into ``folder``;
    returns the languages written (``make snapshots``)."""
    written = []
    for language in languages:
        try:
            snapshot = take_snapshot(language)
        except ImportError:  # no blank pipeline of spaCy's for this code
            continue
        if snapshot is None:
            continue
        text = json.dumps(snapshot.to_dict(), ensure_ascii=False, sort_keys=True)
        data = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
        Path(folder, snapshot_name(language)).write_bytes(data)
        written.append(language)
    return written


def _token_match(tokenizer: Any) -> Callable[[str], re.Match[str] | None] | None:
    """:func:`tech_token_match` where the tokenizer has lexeval's rule, else None."""
    return tech_token_match if tokenizer.token_match == _TECH_FULLMATCH else None


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
