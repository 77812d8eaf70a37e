"""The normalization layer every lexeval metric shares.

A :class:`Normalizer` turns text into comparable keys in small, named steps (in the manner of
jiwer): Unicode normalization, tokenization that keeps technical terms whole, case folding,
lemmatization, compound-term merging and stopword removal. Configuration goes in the
constructor, data in the call (as in sacrebleu), and every configuration has a reproducible
:attr:`Normalizer.signature`.

>>> norm = Normalizer()
>>> norm.keywords("The quick brown foxes jumped over the lazy dogs")
['quick', 'brown', 'fox', 'jump', 'lazy', 'dog']
>>> norm.keywords("React.js and TCP/IP are not C++")
['react.js', 'tcp/ip', 'not', 'c++']
>>> norm.keywords("State-of-the-art machine learning, state of the art Machine Learning")
['state-of-the-art', 'machine learning']
>>> Normalizer("none").tokens("Split  only, please")
['Split', 'only,', 'please']

spaCy is imported lazily, the first time a normalizer needs it, and its resources are loaded once
per process and language. A normalizer can be shared by any number of threads (every call into
spaCy holds the language's lock) and pickles as its configuration only (the new process rebuilds
its resources on first use).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version
from typing import Any, Literal, cast

from lexeval._version import __version__
from lexeval.text.signature import Signature

__all__ = [
    "KEEP_WORDS",
    "LEMMA_OVERRIDES",
    "PRESETS",
    "Explanation",
    "Normalizer",
    "NormalizerConfig",
]

StemmerName = Literal["porter", "snowball", "auto"]
CompatName = Literal["mastra", "squad", "rouge-score"]

#: Words that spaCy's English list calls stopwords but that change meaning: "is not safe" and
#: "is safe" must differ. They are never removed (English only; add more with ``keep_words``).
KEEP_WORDS: frozenset[str] = frozenset(
    {
        "not",
        "no",
        "never",
        "without",
        "nor",
        "neither",
        "none",
        "nothing",
        "nobody",
        "nowhere",
        "cannot",
        "n't",
        "n‘t",
        "n’t",
    }
)

#: Corrections to spacy-lookups-data's English ``lemma_lookup`` table (applied to case-folded
#: forms). Each fixes an entry that maps a common word to a wrong or misleading lemma.
LEMMA_OVERRIDES: dict[str, str] = {
    "data": "data",  # table: datum
    "number": "number",  # table: numb
    "numbers": "number",
    "does": "do",  # table: doe
    "as": "as",  # table: a
    "better": "better",  # table: well (conflates the adjective with the adverb)
    "best": "best",  # table: well
    "ai": "ai",  # table: have (from "ain't")
    "physics": "physics",  # table: physic
    "politics": "politics",  # table: politic
    "statistics": "statistics",  # table: statistic
    "criteria": "criterion",  # table: criterium
    "programming": "programming",  # table: programme
    "less": "less",  # table: little
    "n't": "not",
    "n‘t": "not",
    "n’t": "not",
    "'s": "'s",  # table: have (right for "it's been", wrong for the possessive)
    "’s": "'s",
}

# Characters removed before tokenization: C0/C1 controls (but tab, LF, CR) and lone surrogates
# become a space; soft hyphens and zero-width characters vanish. Both are single character
# classes, so they run in linear time.
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_INVISIBLE_RE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")

# A technical token that the tokenizer keeps whole: an optional leading dot (.NET), word
# characters joined by single separators (React.js, TCP/IP, state-of-the-art, v1.2.3,
# snake_case, user@example.com), an optional ++ or # (C++, C#). Every repetition must consume a
# separator, so the pattern cannot backtrack catastrophically.
_TECH_TOKEN_RE = re.compile(r"\.?\w+(?:[-./@]\w+)*(?:\+\+|#)?")
_ACRONYM_PLURAL_RE = re.compile(r"[A-Z]{2,}s")
_HYPHENATED_WORD_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")  # letters only, single hyphens
# Han ideographs and kana: written without spaces, split into one token per character.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"([{_CJK}])")
# Chunks longer than this skip spaCy's affix loop (quadratic on pathological input) and are
# split into word runs and single symbols instead (read piece by piece, never whole).
_MAX_CHUNK = 2000
_LONG_CHUNK_RE = re.compile(r"\w+|[^\w\s]")
# The same, with Han and kana one character a piece: the word runs of _LONG_CHUNK_RE split by
# _CJK_RE, without building either list.
_LONG_CJK_CHUNK_RE = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+|[^\\w\\s]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")

_CHUNK_RE = re.compile(r"\S+")

_SNOWBALL_LANGUAGES = {
    "ar": "arabic",
    "da": "danish",
    "de": "german",
    "en": "english",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "hu": "hungarian",
    "it": "italian",
    "nl": "dutch",
    "no": "norwegian",
    "nb": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
}


@dataclass(frozen=True)
class NormalizerConfig:
    """Every setting of a :class:`Normalizer`; presets are instances of this class."""

    unicode_form: str | None = "NFKC"
    casefold: bool = True
    tokenizer: Literal["spacy", "whitespace"] = "spacy"
    drop_punct: bool = True
    split_cjk: bool = True
    lemmatize: bool = True
    pipeline: str | None = None
    stemmer: StemmerName | None = None
    stem_min_length: int = 1
    stem_stopwords: bool = True
    split_words: bool = False
    compounds: bool = True
    extra_compounds: tuple[str, ...] = ()
    stopwords: bool = True
    add_stopwords: frozenset[str] = frozenset()
    keep_words: frozenset[str] = frozenset()
    compat: CompatName | None = None


#: Named presets. ``default`` runs every step; ``tokens`` keeps stopwords and does not merge
#: compounds (the sequence token-F1 wants); ``rouge`` is default ROUGE's (words split at every
#: character that is not a letter, digit or mark, Porter stems of words of 4+ letters but
#: stopwords, as measured on SummEval); ``none`` only splits on white space; the compatibility
#: presets reproduce a peer's own normalization exactly.
PRESETS: dict[str, NormalizerConfig] = {
    "default": NormalizerConfig(),
    "tokens": NormalizerConfig(stopwords=False, compounds=False),
    "rouge": NormalizerConfig(
        stopwords=False,
        compounds=False,
        lemmatize=False,
        stemmer="auto",
        stem_min_length=4,
        stem_stopwords=False,
        split_words=True,
    ),
    "none": NormalizerConfig(
        unicode_form=None,
        casefold=False,
        tokenizer="whitespace",
        drop_punct=False,
        split_cjk=False,
        lemmatize=False,
        compounds=False,
        stopwords=False,
    ),
    "mastra": NormalizerConfig(compat="mastra"),
    "squad": NormalizerConfig(compat="squad"),
    "rouge-score": NormalizerConfig(compat="rouge-score"),
}

_OPTION_NAMES = frozenset(f.name for f in fields(NormalizerConfig)) - {"compat"}


@dataclass(frozen=True)
class Explanation:
    """What each step of a normalizer produced for one text (see :meth:`Normalizer.explain`)."""

    text: str
    steps: tuple[tuple[str, str | tuple[str, ...]], ...]
    tokens: tuple[str, ...]
    keywords: tuple[str, ...]
    signature: str

    def __str__(self) -> str:
        width = max((len(name) for name, _ in self.steps), default=0)
        lines = []
        for name, value in self.steps:
            shown = repr(value) if isinstance(value, str) else " | ".join(value)
            lines.append(f"{name.ljust(width)}  {shown}")
        lines.append(f"{'keywords'.ljust(width)}  {' | '.join(self.keywords)}")
        lines.append(f"{'signature'.ljust(width)}  {self.signature}")
        return "\n".join(lines)


_CompoundIndex = tuple[dict[str, str], frozenset[tuple[str, str]], Any]


@dataclass
class _Resources:
    """spaCy objects and tables for one language, loaded once per process.

    spaCy's vocabulary, string store and tokenizer are not thread-safe, and a memory zone frees
    the strings every thread added while it was open: every use of ``nlp`` (tokenizer, Doc,
    matcher, memory zone) holds ``lock``; ``zone_depth`` (changed only under the lock) makes
    :func:`_spacy_zone` re-entrant.
    """

    nlp: Any
    stopwords: frozenset[str]
    lemma_table: Any  # a spacy.lookups.Table, or None when the language has no table
    lookups_version: str | None
    specials: frozenset[str] | None = None  # special cases; None: no letters fast path
    # compound indexes built on this vocabulary, by the settings that shape keys
    compound_indexes: dict[tuple[Any, ...], _CompoundIndex] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    zone_depth: int = 0


@dataclass
class _Pipeline:
    """A trained spaCy pipeline and the lock every call into it holds."""

    nlp: Any
    lock: threading.RLock = field(default_factory=threading.RLock)


_DROPPED = ("", True)  # memo marker for a token that step 2 drops (punctuation)
_LANGUAGES: dict[str, _Resources] = {}
_PIPELINES: dict[str, _Pipeline] = {}
# Held while loading resources or building a normalizer's indexes (never inside a zone).
_LOAD_LOCK = threading.RLock()


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
def _spacy_zone(res: _Resources) -> Iterator[None]:
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


def _version_of(dist: str) -> str:
    try:
        return _dist_version(dist)
    except PackageNotFoundError:  # pragma: no cover - installed as a dependency
        return "unknown"


def _short_hash(words: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(words)).encode("utf-8")).hexdigest()[:8]


def _load_language(language: str) -> _Resources:
    """The blank spaCy pipeline with lexeval's tokenizer rules, its stopwords and lemma table
    (built once per process and language, whichever thread asks first)."""
    res = _LANGUAGES.get(language)
    if res is None:
        with _LOAD_LOCK:
            res = _LANGUAGES.get(language)
            if res is None:
                res = _LANGUAGES[language] = _build_language(language)
    return res


def _build_language(language: str) -> _Resources:
    import spacy
    from spacy.lookups import load_lookups

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
    table: Any = None
    lookups_version = None
    try:
        table = load_lookups(language, ["lemma_lookup"]).get_table("lemma_lookup")
        lookups_version = _version_of("spacy-lookups-data")
    except ValueError:
        pass
    from spacy.tokenizer import Tokenizer

    # The letters-only fast path holds for spaCy's rule-based tokenizer only (not zh's).
    tokenizer = nlp.tokenizer
    specials = frozenset(tokenizer.rules or ()) if isinstance(tokenizer, Tokenizer) else None
    return _Resources(
        specials=specials,
        nlp=nlp,
        stopwords=frozenset(nlp.Defaults.stop_words),
        lemma_table=table,
        lookups_version=lookups_version,
    )


def _load_pipeline(name: str) -> _Pipeline:
    """A trained spaCy pipeline (a package name or a path), loaded once per process."""
    pipeline = _PIPELINES.get(name)
    if pipeline is None:
        with _LOAD_LOCK:
            pipeline = _PIPELINES.get(name)
            if pipeline is None:
                pipeline = _PIPELINES[name] = _Pipeline(_build_pipeline(name))
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


def _set_tokenizer_rules(nlp: Any) -> None:
    """Keep technical terms whole; a final period always splits off ("I/O." -> "I/O", ".")."""
    from spacy.util import compile_suffix_regex

    nlp.tokenizer.token_match = _TECH_TOKEN_RE.fullmatch
    suffixes = [*nlp.Defaults.suffixes, r"\."]
    nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search


@functools.cache
def _sentence_punct_chars() -> frozenset[str]:
    """The characters that end a sentence for spaCy's ``sentencizer``."""
    from spacy.pipeline import Sentencizer

    return frozenset(Sentencizer.default_punct_chars)


def _is_punct(token: str) -> bool:
    """spaCy's ``is_punct``: every character is Unicode punctuation (category P*).

    >>> _is_punct("?!"), _is_punct("a."), _is_punct("")
    (True, False, True)
    """
    return all(unicodedata.category(c).startswith("P") for c in token)


def _long_chunk_pieces(chunk: str, split_cjk: bool) -> Iterator[str]:
    """The tokens of a chunk longer than ``_MAX_CHUNK``, one at a time (memory stays small on
    megabytes of text without spaces).

    >>> list(_long_chunk_pieces("abc漢字-d", split_cjk=True))
    ['abc', '漢', '字', '-', 'd']
    """
    pattern = _LONG_CJK_CHUNK_RE if split_cjk else _LONG_CHUNK_RE
    for match in pattern.finditer(chunk):
        yield match.group()


def _is_technical(token: str) -> bool:
    """True for tokens that are names rather than words: never lemmatized or stemmed.

    >>> [_is_technical(t) for t in ["dogs", "React.js", "camelCase", "NASA", "n't", "x86"]]
    [False, True, True, False, False, True]
    """
    plain = token.replace("'", "").replace("’", "").replace("‘", "")
    if not plain.isalpha():
        return True
    return any(c.isupper() for c in plain[1:]) and not plain.isupper()


class Normalizer:
    """Turns text into normalized keys; one instance per configuration.

    Args:
        preset: ``default``, ``tokens``, ``rouge``, ``none``, ``mastra``, ``squad`` or
            ``rouge-score`` (see :data:`PRESETS`).
        language: a spaCy language code (``en``, ``de``, ``ru``, ``zh``, ...).
        cache_size: how many distinct white-space chunks to remember (per-token work is
            cached; the cache is cleared when full, so memory stays bounded).
        **options: any field of :class:`NormalizerConfig`, overriding the preset.

    >>> Normalizer(stopwords=False).tokens("The data are stored")
    ['the', 'data', 'be', 'store']
    >>> Normalizer(stemmer="porter").tokens("running quickly")
    ['run', 'quickli']
    >>> Normalizer("rouge").tokens("The U.S. call-up wasn't running: 10,000 fans")
    ['the', 'u', 's', 'call', 'up', 'was', 'n', 't', 'run', '10000', 'fan']
    """

    def __init__(
        self,
        preset: str = "default",
        language: str = "en",
        *,
        cache_size: int = 100_000,
        **options: Any,
    ) -> None:
        if not isinstance(preset, str):
            raise TypeError(f"preset must be a str, not {type(preset).__name__}")
        if not isinstance(language, str):
            raise TypeError(f"language must be a str, not {type(language).__name__}")
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
        unknown = sorted(set(options) - _OPTION_NAMES)
        if unknown:
            raise TypeError(f"unknown Normalizer option(s): {', '.join(unknown)}")
        base = PRESETS[preset]
        if base.compat is not None and set(options) - {"stemmer"}:
            raise ValueError(f"preset {preset!r} reproduces a peer exactly and takes no options")
        self.preset = preset
        self.language = language
        self.config = replace(base, **_coerce_options(options))
        if self.config.stemmer not in (None, "porter", "snowball", "auto"):
            raise ValueError(
                f"stemmer must be 'porter', 'snowball', 'auto' or None, not {self.config.stemmer!r}"
            )
        if self.config.compat == "rouge-score" and self.config.stemmer not in (None, "porter"):
            raise ValueError("rouge-score only stems with Porter: use stemmer='porter' or None")
        length = self.config.stem_min_length
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise ValueError(f"stem_min_length must be an int >= 1, not {length!r}")
        self.cache_size = cache_size
        self._reset()

    def _reset(self) -> None:
        """Empty caches; resources are looked up again on first use."""
        self._cache: dict[str, tuple[tuple[str, bool], ...]] = {}
        self._token_memo: dict[str, tuple[str, bool]] = {}
        self._words_memo: dict[str, tuple[tuple[str, bool], ...]] = {}
        self._sentence_cache: dict[str, tuple[str, ...]] = {}
        self._prefetched: dict[str, None] = {}  # texts whose chunks prefetch() has cached
        self._res: _Resources | None = None
        self._stops: frozenset[str] = frozenset()
        self._unstemmed: frozenset[str] = frozenset()  # stopwords, when they are not stemmed
        self._stem: Callable[[str], str] | None = None
        self._table: Any = None  # the language's lemma table, once resources are looked up
        self._aliases: dict[str, str] = {}
        self._first_bigrams: frozenset[tuple[str, str]] = frozenset()
        self._matcher: Any = None
        self._signature: str | None = None

    def __getstate__(self) -> dict[str, Any]:
        """The configuration only: caches and spaCy objects are rebuilt in the new process.

        >>> import pickle
        >>> norm = Normalizer(stopwords=False)
        >>> len(pickle.dumps(norm)) < 1000, pickle.loads(pickle.dumps(norm)).tokens("The dogs")
        (True, ['the', 'dog'])
        """
        return {
            "preset": self.preset,
            "language": self.language,
            "config": self.config,
            "cache_size": self.cache_size,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.preset = state["preset"]
        self.language = state["language"]
        self.config = state["config"]
        self.cache_size = state["cache_size"]
        self._reset()

    def __repr__(self) -> str:
        return f"Normalizer(preset={self.preset!r}, language={self.language!r})"

    # ------------------------------------------------------------------ public API

    def tokens(self, text: str) -> list[str]:
        """The normalized sequence, duplicates kept (for token-F1 and ROUGE).

        >>> Normalizer().tokens("Dogs chase cats; cats chase mice.")
        ['dog', 'chase', 'cat', 'cat', 'chase', 'mouse']
        """
        _check_text(text, "text")
        compat = self.config.compat
        if compat is not None:
            return self._compat_tokens(text)
        if self.config.tokenizer == "whitespace":
            return self._prepare(text).split()
        pairs = self._analyze(text)
        return [key for key, stop in pairs if not stop]

    def analyze(self, text: str, *, merge_compounds: bool = True) -> list[tuple[str, bool]]:
        """Every key with its stopword flag, before stopwords are removed (what :meth:`tokens`
        filters); ``merge_compounds=False`` leaves compound terms as their parts.

        >>> Normalizer().analyze("The neural networks")
        [('the', True), ('neural network', False)]
        >>> Normalizer().analyze("The neural networks", merge_compounds=False)
        [('the', True), ('neural', False), ('network', False)]
        """
        _check_text(text, "text")
        if self.config.compat is not None or self.config.tokenizer == "whitespace":
            return [(token, False) for token in self.tokens(text)]
        return self._analyze(text, merge=merge_compounds)

    def tokens_many(self, texts: Iterable[str]) -> list[list[str]]:
        """:meth:`tokens` of many texts, equal to calling it on each, after :meth:`prefetch`.

        >>> Normalizer().tokens_many(["Dogs bark.", "", "Cats purr"])
        [['dog', 'bark'], [], ['cat', 'purr']]
        """
        if isinstance(texts, str):
            raise TypeError("texts must be an iterable of str, not a str")
        items = list(texts)
        self.prefetch(items)
        return [self.tokens(t) for t in items]

    def prefetch(self, texts: Iterable[str]) -> None:
        """Analyze the white-space chunks of many texts that are not cached yet, in one
        tokenizer call and one memory zone per group (about twice as fast as text by text on
        texts not seen before; nearly free on texts seen before).

        >>> norm = Normalizer()
        >>> norm.prefetch(["Dogs bark.", "Cats purr"])
        >>> norm.tokens("Cats bark")
        ['cat', 'bark']
        """
        if isinstance(texts, str):
            raise TypeError("texts must be an iterable of str, not a str")
        cfg = self.config
        if cfg.compat is not None or cfg.tokenizer == "whitespace" or cfg.pipeline is not None:
            return
        self._resources()
        cache = self._cache
        done = self._prefetched
        limit = max(1, min(self.cache_size // 2, 20_000))
        missing: dict[str, None] = {}
        for i, text in enumerate(texts):
            _check_text(text, f"texts[{i}]")
            if text in done:
                continue
            if len(done) >= self.cache_size:
                done.clear()
            done[text] = None
            missing.update(
                (c, None)
                for c in self._prepare(text).split()
                if c not in cache and len(c) <= _MAX_CHUNK
            )
            if len(missing) >= limit:
                self._cache_chunks(list(missing))
                missing = {}
        if missing:
            self._cache_chunks(list(missing))

    def _cache_chunks(self, chunks: list[str]) -> None:
        cache = self._cache
        if len(cache) + len(chunks) > self.cache_size:
            self._clear_chunks()
        for chunk, pieces in zip(chunks, self._split_chunks(chunks), strict=True):
            cache[chunk] = tuple(self._analyze_chunk(pieces))

    def keywords(self, text: str) -> list[str]:
        """The distinct keys in order of first appearance; compound terms are one key.

        >>> Normalizer().keywords("Neural networks: a neural network is not magic.")
        ['neural network', 'not', 'magic']
        """
        return list(dict.fromkeys(self.tokens(text)))

    def sentences(self, text: str) -> list[str]:
        """Split text into sentences without downloaded models (for ROUGE-Lsum).

        Text with several non-empty lines is taken as one sentence a line (rouge-score's
        convention); otherwise the rule of spaCy's ``sentencizer`` splits it (a sentence ends
        after ``.``, ``!``, ``?`` and the like, once a token that is not punctuation follows),
        on the normalizer's own tokens, in time linear in the text's length.

        >>> Normalizer().sentences("It rained. We stayed in! Did you?")
        ['It rained.', 'We stayed in!', 'Did you?']
        """
        _check_text(text, "text")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if len(lines) != 1:
            return lines
        cached = self._sentence_cache.get(lines[0])
        if cached is not None:
            return list(cached)
        found = tuple(self._split_sentences(self._prepare(lines[0])))
        if len(self._sentence_cache) >= self.cache_size:
            self._sentence_cache.clear()
        self._sentence_cache[lines[0]] = found
        return list(found)

    def _split_sentences(self, text: str) -> list[str]:
        """spaCy's ``Sentencizer.predict`` on the tokens of :meth:`_split_chunks` (which are
        spaCy's tokenizer's, but linear on long chunks); white space that spaCy makes a token
        of (any run but a single space) counts as a token here too."""
        punct_chars = _sentence_punct_chars()
        spans = [(m.start(), m.group()) for m in _CHUNK_RE.finditer(text)]
        distinct = list(dict.fromkeys(c for _, c in spans if len(c) <= _MAX_CHUNK))
        tokens_of = dict(zip(distinct, self._split_chunks(distinct, split_cjk=False), strict=True))
        split = (
            tokens_of[c] if len(c) <= _MAX_CHUNK else _long_chunk_pieces(c, split_cjk=False)
            for _, c in spans
        )
        starts = [0]
        seen_period = False
        previous_end = -1
        for (offset, chunk), pieces in zip(spans, split, strict=True):
            if seen_period and previous_end >= 0 and text[previous_end:offset] != " ":
                # a white-space token: neither punctuation nor a sentence end
                starts.append(previous_end)
                seen_period = False
            position = offset
            for piece in pieces:
                in_punct_chars = piece in punct_chars
                if seen_period and not in_punct_chars and not _is_punct(piece):
                    starts.append(position)
                    seen_period = False
                elif in_punct_chars:
                    seen_period = True
                position += len(piece)
            previous_end = offset + len(chunk)
        starts.append(len(text))
        sentences = (text[a:b].strip() for a, b in itertools.pairwise(starts))
        return [sentence for sentence in sentences if sentence]

    @property
    def signature(self) -> str:
        """A stable, readable string of every setting that changes results.

        >>> Normalizer("none").signature.startswith("preset:none|lang:en|")
        True
        """
        if self._signature is None:
            self._signature = self._build_signature()
        return self._signature

    def explain(self, text: str) -> Explanation:
        """What each step produced, computed step by step without caches.

        The result's ``tokens`` always equal :meth:`tokens` (a property test checks it).

        >>> print(Normalizer().explain("The cats aren't on TCP/IP!"))  # doctest: +ELLIPSIS
        unicode (NFKC)    "The cats aren't on TCP/IP!"
        tokenize          The | cats | are | n't | on | TCP/IP | !
        drop punctuation  The | cats | are | n't | on | TCP/IP
        casefold          the | cats | are | n't | on | tcp/ip
        lemmatize         the | cat | be | not | on | tcp/ip
        compounds         the | cat | be | not | on | tcp/ip
        remove stopwords  cat | not | tcp/ip
        keywords          cat | not | tcp/ip
        signature         preset:default|lang:en|...
        """
        _check_text(text, "text")
        steps: list[tuple[str, str | tuple[str, ...]]] = []
        cfg = self.config
        if cfg.compat is not None or cfg.tokenizer == "whitespace":
            tokens = tuple(self.tokens(text))
            name = cfg.compat or "split on white space"
            steps.append((name, tokens))
            return Explanation(
                text, tuple(steps), tokens, tuple(dict.fromkeys(tokens)), self.signature
            )
        prepared = self._prepare(text)
        steps.append((f"unicode ({cfg.unicode_form or 'as is'})", prepared))
        if cfg.pipeline is not None:
            stream: list[tuple[str, str | None]] = list(self._pipeline_tokens(prepared))
        else:
            stream = [(p, None) for chunk in prepared.split() for p in self._split_chunk(chunk)]
        steps.append(("tokenize", tuple(t for t, _ in stream)))
        if cfg.split_words:
            stream = [(w, None) for t, _ in stream for w in _word_pieces(t)]
            steps.append(("split words", tuple(t for t, _ in stream)))
        elif cfg.drop_punct:
            stream = [(t, lemma) for t, lemma in stream if _has_alnum(t)]
            steps.append(("drop punctuation", tuple(t for t, _ in stream)))
        raw = [t for t, _ in stream]
        folded = [self._fold(t) for t in raw]
        steps.append(("casefold" if cfg.casefold else "keep case", tuple(folded)))
        keys = [self._key(t, f, lemma) for (t, lemma), f in zip(stream, folded, strict=True)]
        label = "stem" if cfg.stemmer else "lemmatize"
        steps.append((label, tuple(keys)))
        stops = [self._is_stop(f, k) for f, k in zip(folded, keys, strict=True)]
        pairs = self._merge_compounds(list(zip(keys, stops, strict=True)))
        steps.append(("compounds", tuple(k for k, _ in pairs)))
        final = tuple(k for k, stop in pairs if not stop)
        steps.append(("remove stopwords" if cfg.stopwords else "keep stopwords", final))
        return Explanation(text, tuple(steps), final, tuple(dict.fromkeys(final)), self.signature)

    # ------------------------------------------------------------------ steps

    def _prepare(self, text: str) -> str:
        """Step 1: controls out, Unicode normalization (case folding comes per token)."""
        form = self.config.unicode_form
        if form is None:
            # Lone surrogates cannot be encoded (spaCy, files): U+FFFD, even with no Unicode step.
            return _SURROGATE_RE.sub("\ufffd", text) if _SURROGATE_RE.search(text) else text
        text = _INVISIBLE_RE.sub("", _CONTROL_RE.sub(" ", text))
        if not unicodedata.is_normalized(form, text):  # type: ignore[arg-type]
            text = unicodedata.normalize(form, text)  # type: ignore[arg-type]
        return text

    def _split_chunk(self, chunk: str) -> list[str]:
        """Step 2: one white-space chunk into tokens (spaCy, technical terms kept whole)."""
        return self._split_chunks([chunk])[0]

    def _split_chunks(
        self, chunks: Sequence[str], *, split_cjk: bool | None = None
    ) -> list[list[str]]:
        """Step 2 for many chunks with one tokenizer call (a Doc per chunk costs far more).

        Chunks hold no white space, and spaCy splits only at white space before its affix
        rules, so tokenizing the chunks joined by single spaces gives each chunk's own tokens;
        the last token of each chunk is the one followed by a space. The tokens of a chunk
        always join up to the chunk.
        """
        pieces: list[list[str]] = [[] for _ in chunks]
        res = self._resources()
        specials = res.specials
        short = []
        for i, chunk in enumerate(chunks):
            if specials is not None and chunk.isalpha() and chunk not in specials:
                # No affix rule of spaCy's applies to letters alone; only a special case
                # ("cannot", "gonna") splits them (a test checks this against the tokenizer).
                pieces[i].append(chunk)
            elif len(chunk) <= _MAX_CHUNK:
                short.append(i)
        if short:
            with _spacy_zone(res):
                doc = res.nlp.tokenizer(" ".join(chunks[i] for i in short))
                position = 0
                for token in doc:
                    pieces[short[position]].append(token.text)
                    if token.whitespace_:
                        position += 1
        if split_cjk is None:
            split_cjk = self.config.split_cjk
        for i, chunk in enumerate(chunks):
            if len(chunk) > _MAX_CHUNK:
                pieces[i] = list(_long_chunk_pieces(chunk, split_cjk))
            elif split_cjk and _CJK_RE.search(chunk):
                pieces[i] = [p for piece in pieces[i] for p in _CJK_RE.split(piece) if p]
        return pieces

    def _fold(self, token: str) -> str:
        return token.casefold() if self.config.casefold else token

    def _key(self, token: str, folded: str, lemma: str | None = None) -> str:
        """Step 4: the lemma (or stem) of a word; technical tokens stay as they are.

        ``lemma`` is a trained pipeline's lemma for the token, when one is configured.
        """
        cfg = self.config
        if _is_technical(token):
            if _ACRONYM_PLURAL_RE.fullmatch(token):
                return folded[:-1]  # APIs -> api
            head, dash, last = folded.rpartition("-")
            if dash and head and _HYPHENATED_WORD_RE.fullmatch(token):
                # A hyphenated word stays whole, but its head (the last part) is a word like
                # any other: drug-destroying -> drug-destroy, neural-networks -> neural-network.
                return f"{head}-{self._key(last, last)}"
            return folded
        key = folded
        if lemma is not None:
            key = self._fold(lemma) or folded
        elif cfg.lemmatize:
            table = self._table
            if self.language == "en" and folded in LEMMA_OVERRIDES:
                key = LEMMA_OVERRIDES[folded]
            elif table is not None:
                # Tables are keyed by lower-case forms, except where the language capitalizes
                # (German nouns): try the folded form, then the form as written.
                found = table.get(folded) or table.get(token)
                if isinstance(found, list):  # fr and ca tables map a form to a list of lemmas
                    found = found[0] if found else None
                key = self._fold(found) if isinstance(found, str) and found else folded
        stem = self._stem
        if stem is not None and len(key) >= cfg.stem_min_length and folded not in self._unstemmed:
            key = stem(key)
        return key

    def _is_stop(self, folded: str, key: str) -> bool:
        return folded in self._stops or key in self._stops

    def _analyze_chunk(self, pieces: Iterable[str]) -> list[tuple[str, bool]]:
        """Steps 3-4 and the stopword flag for the tokens of one chunk (memoized per token)."""
        if self.config.split_words:
            return self._analyze_words(pieces)
        out = []
        drop = self.config.drop_punct
        memo = self._token_memo
        for token in pieces:
            pair = memo.get(token)
            if pair is None:
                if drop and not _has_alnum(token):
                    pair = _DROPPED
                else:
                    folded = self._fold(token)
                    key = self._key(token, folded)
                    pair = (key, self._is_stop(folded, key))
                if len(memo) >= self.cache_size:
                    memo.clear()
                memo[token] = pair
            if pair is not _DROPPED:
                out.append(pair)
        return out

    def _analyze_words(self, pieces: Iterable[str]) -> list[tuple[str, bool]]:
        """:meth:`_analyze_chunk` with ``split_words``: each token split into its words first
        (memoized per token, as the tuple of its pairs)."""
        out: list[tuple[str, bool]] = []
        memo = self._words_memo
        for token in pieces:
            pairs = memo.get(token)
            if pairs is None:
                pairs = tuple(
                    (key, self._is_stop(folded, key))
                    for word in _word_pieces(token)
                    for folded in (self._fold(word),)
                    for key in (self._key(word, folded),)
                )
                if len(memo) >= self.cache_size:
                    memo.clear()
                memo[token] = pairs
            out.extend(pairs)
        return out

    def _pipeline_tokens(self, prepared: str) -> list[tuple[str, str]]:
        """(text, lemma) of each token as a trained pipeline analyses the whole text."""
        assert self.config.pipeline is not None
        pipeline = _load_pipeline(self.config.pipeline)
        with pipeline.lock, pipeline.nlp.memory_zone():
            return [(t.text, t.lemma_) for t in pipeline.nlp(prepared) if not t.is_space]

    def _analyze(self, text: str, merge: bool = True) -> list[tuple[str, bool]]:
        """Steps 1-5 with the per-chunk cache: (key, is_stopword) pairs, compounds merged
        unless ``merge`` is false."""
        self._resources()
        merge_compounds = self._merge_compounds if merge else _no_merge
        if self.config.pipeline is not None:
            out = []
            for token, lemma in self._pipeline_tokens(self._prepare(text)):
                if self.config.drop_punct and not _has_alnum(token):
                    continue
                folded = self._fold(token)
                key = self._key(token, folded, lemma)
                out.append((key, self._is_stop(folded, key)))
            return merge_compounds(out)
        cache = self._cache
        chunks = self._prepare(text).split()
        try:
            pairs = [pair for chunk in chunks for pair in cache[chunk]]
        except KeyError:  # a chunk not seen yet (or dropped by another thread's clearing)
            pairs = self._analyze_chunks(chunks)
        return merge_compounds(pairs)

    def _analyze_chunks(self, chunks: list[str]) -> list[tuple[str, bool]]:
        """The pairs of ``chunks``, analyzing those not cached (thread-safe: the cache is only
        read with ``get`` and written whole entries at a time)."""
        cache = self._cache
        found: dict[str, Sequence[tuple[str, bool]]] = {}
        missing: list[str] = []
        for chunk in dict.fromkeys(chunks):
            pairs = cache.get(chunk)
            if pairs is not None:
                found[chunk] = pairs
            elif len(chunk) > _MAX_CHUNK:  # read piece by piece, never cached
                stream = _long_chunk_pieces(chunk, self.config.split_cjk)
                found[chunk] = self._analyze_chunk(stream)
            else:
                missing.append(chunk)
        if len(cache) + len(missing) > self.cache_size:
            self._clear_chunks()
        keep = len(missing) <= self.cache_size  # a single text larger than the cache: no caching
        for chunk, pieces in zip(missing, self._split_chunks(missing), strict=True):
            found[chunk] = pairs = tuple(self._analyze_chunk(pieces))
            if keep:
                cache[chunk] = pairs
        if len(chunks) == 1:
            only = found[chunks[0]]
            return only if isinstance(only, list) else list(only)
        return [pair for chunk in chunks for pair in found[chunk]]

    def _clear_chunks(self) -> None:
        """Empty the chunk cache (when full); prefetched texts must then be analyzed again."""
        self._cache.clear()
        self._prefetched.clear()

    def _merge_compounds(self, pairs: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
        """Step 5: compound terms become one key (spaCy's PhraseMatcher on the lemma keys)."""
        if not self.config.compounds:
            return pairs
        aliases = self._aliases
        if aliases:
            pairs = [(aliases[p[0]], False) if p[0] in aliases else p for p in pairs]
        if len(pairs) < 2:
            return pairs
        # Every pattern has at least two tokens, so a match needs its first two side by side.
        if self._first_bigrams.isdisjoint(itertools.pairwise(k for k, _ in pairs)):
            return pairs
        from spacy.tokens import Doc
        from spacy.util import filter_spans

        res = self._resources()
        with _spacy_zone(res):
            doc = Doc(res.nlp.vocab, words=[k for k, _ in pairs])
            spans = filter_spans(self._matcher(doc, as_spans=True))
            labels = [(span.start, span.end, span.label_) for span in spans]
        merged: list[tuple[str, bool]] = []
        position = 0
        for start, end, label in labels:
            merged.extend(pairs[position:start])
            merged.append((label, False))
            position = end
        merged.extend(pairs[position:])
        return merged

    def _compat_tokens(self, text: str) -> list[str]:
        """A compatibility preset's tokens: the peer's processor (the metrics' compat modes
        use the same one)."""
        from lexeval.text.peers import peer_processor

        assert self.config.compat is not None
        processor = peer_processor(self.config.compat, stemmer=self.config.stemmer == "porter")
        return processor.tokens(text)

    # ------------------------------------------------------------------ resources

    def _resources(self) -> _Resources:
        res = self._res
        if res is not None:
            return res
        with _LOAD_LOCK:
            if self._res is None:
                self._load_resources()
            assert self._res is not None
            return self._res

    def _load_resources(self) -> None:
        """Look up this configuration's resources; ``_res`` is set last, once all is ready."""
        cfg = self.config
        res = _load_language(self.language)
        if cfg.pipeline is not None:
            _load_pipeline(cfg.pipeline)
        stops: frozenset[str] = frozenset()
        if cfg.stopwords:
            keep = cfg.keep_words | (KEEP_WORDS if self.language == "en" else frozenset())
            stops = (res.stopwords | cfg.add_stopwords) - keep
        self._stops = stops
        self._unstemmed = frozenset() if cfg.stem_stopwords else res.stopwords
        stemmer = cfg.stemmer
        if stemmer == "auto":  # Porter for English (as rouge-score), Snowball where nltk has one
            stemmer = "porter" if self.language == "en" else None
            if self.language != "en" and self.language in _SNOWBALL_LANGUAGES:
                stemmer = "snowball"
        if stemmer == "porter":
            from nltk.stem.porter import PorterStemmer

            self._stem = functools.lru_cache(maxsize=self.cache_size)(PorterStemmer().stem)
        elif stemmer == "snowball":
            from nltk.stem.snowball import SnowballStemmer

            name = _SNOWBALL_LANGUAGES.get(self.language)
            if name is None:
                raise ValueError(f"nltk has no Snowball stemmer for language {self.language!r}")
            self._stem = functools.lru_cache(maxsize=self.cache_size)(SnowballStemmer(name).stem)
        self._table = res.lemma_table
        if cfg.compounds:
            self._build_compounds(res)
        self._res = res

    def _compound_entries(self) -> list[str]:
        entries: list[str] = []
        if self.language == "en":
            bundled = resources.files("lexeval.data").joinpath("compounds_en.txt")
            for line in bundled.read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.startswith("#"):
                    entries.append(line.strip())
        entries.extend(self.config.extra_compounds)
        return entries

    def _build_compounds(self, res: _Resources) -> None:
        """Index compound terms: multi-token patterns for the matcher, one-token aliases.

        The index depends only on the settings that shape keys, so it is built once per
        process for each such combination and shared by every Normalizer that has them.
        """
        cfg = self.config
        shape = (self.language, cfg.unicode_form, cfg.casefold, cfg.lemmatize, cfg.stemmer)
        cache_key = (*shape, cfg.pipeline, cfg.extra_compounds)
        cached = res.compound_indexes.get(cache_key)
        if cached is None:
            with res.lock:  # the patterns' strings must not land in another thread's zone
                cached = self._index_compounds(res)
            res.compound_indexes[cache_key] = cached
        self._aliases, self._first_bigrams, self._matcher = cached

    def _index_compounds(self, res: _Resources) -> _CompoundIndex:
        from spacy.matcher import PhraseMatcher
        from spacy.tokens import Doc

        matcher = PhraseMatcher(res.nlp.vocab, attr="ORTH")
        aliases: dict[str, str] = {}
        first: set[tuple[str, str]] = set()
        for entry in self._compound_entries():
            parts = [p for p in re.split(r"[\s\-]+", self._prepare(entry)) if p]
            if len(parts) < 2:
                continue
            folded = [self._fold(p) for p in parts]
            keys = [self._key(p, f) for p, f in zip(parts, folded, strict=True)]
            canonical = ("-" if "-" in entry and " " not in entry.strip() else " ").join(folded)
            for form in ("-".join(folded), "".join(folded), "-".join(keys), "".join(keys)):
                aliases.setdefault(form, canonical)
            joined_key = self._key("".join(parts), "".join(folded))
            aliases.setdefault(joined_key, canonical)
            for variant in {tuple(keys), tuple(folded)}:
                matcher.add(canonical, [Doc(res.nlp.vocab, words=list(variant))])
                first.add((variant[0], variant[1]))
        return aliases, frozenset(first), matcher

    def _stemmer_name(self) -> str | None:
        """The stemmer in use (``"auto"`` resolved for the language)."""
        stem = self.config.stemmer
        if stem != "auto":
            return stem
        if self.language == "en":
            return "porter"
        return "snowball" if self.language in _SNOWBALL_LANGUAGES else None

    def _build_signature(self) -> str:
        cfg = self.config
        parts = [f"preset:{self.preset}", f"lang:{self.language}"]
        if cfg.compat == "mastra":
            parts.append("compat:mastra-keyword-extractor-0.0.28")
        elif cfg.compat == "squad":
            parts.append("compat:squad-v1.1")
        elif cfg.compat == "rouge-score":
            parts.append("compat:rouge-score-0.1.2")
            parts.append(f"stem:{'porter-nltk' + _version_of('nltk') if cfg.stemmer else 'no'}")
        elif cfg.tokenizer == "whitespace":
            parts.append("tok:whitespace")
        else:
            res = self._resources()
            parts.append(f"uni:{cfg.unicode_form or 'no'}")
            parts.append(f"case:{'fold' if cfg.casefold else 'keep'}")
            parts.append(f"tok:spacy{_version_of('spacy')}+tech{'+cjk' if cfg.split_cjk else ''}")
            if cfg.stopwords:
                parts.append(f"stop:{len(self._stops)}#{_short_hash(self._stops)}")
            else:
                parts.append("stop:no")
            if cfg.pipeline is not None:
                parts.append(f"lemma:pipeline-{cfg.pipeline}")
            elif cfg.lemmatize and res.lemma_table is not None:
                overrides = _short_hash(f"{k}>{v}" for k, v in LEMMA_OVERRIDES.items())
                parts.append(f"lemma:lookups{res.lookups_version}+ovr#{overrides}")
            else:
                parts.append("lemma:no")
            stem = self._stemmer_name()
            parts.append(f"stem:{stem + '-nltk' + _version_of('nltk') if stem else 'no'}")
            if stem and (cfg.stem_min_length > 1 or not cfg.stem_stopwords):
                skip = "" if cfg.stem_stopwords else ",not-stopwords"
                parts.append(f"stem-only:len>={cfg.stem_min_length}{skip}")
            if cfg.split_words:
                parts.append("words:split-non-alnum+numbers-whole")
            if cfg.compounds:
                entries = self._compound_entries()
                parts.append(f"comp:{len(entries)}#{_short_hash(entries)}")
            else:
                parts.append("comp:no")
        parts.append(f"v:{__version__}")
        return Signature.of(parts)


_GROUPED_NUMBER_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+")


def _is_word_char(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char)[0] == "M"


@functools.lru_cache(maxsize=65536)
def _word_pieces(token: str) -> tuple[str, ...]:
    """A token split at every character that is not a letter, digit or combining mark (so Thai
    and Devanagari words stay whole); a number with thousands separators or a decimal point
    stays one piece, without the separators ("10,000" -> "10000", "5.5" stays).

    >>> _word_pieces("call-up"), _word_pieces("U.S"), _word_pieces("10,000"), _word_pieces("5.5")
    (('call', 'up'), ('U', 'S'), ('10000',), ('5.5',))
    >>> _word_pieces("สวัสดี"), _word_pieces("--")
    (('สวัสดี',), ())
    """
    if token.isalnum():
        return (token,)
    if _GROUPED_NUMBER_RE.fullmatch(token):
        return (token.replace(",", ""),)
    pieces: list[str] = []
    start = None
    for i, char in enumerate(token):
        if _is_word_char(char):
            if start is None:
                start = i
        elif start is not None:
            pieces.append(token[start:i])
            start = None
    if start is not None:
        pieces.append(token[start:])
    return tuple(p for p in pieces if _has_alnum(p))


def _no_merge(pairs: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    return pairs


def _has_alnum(token: str) -> bool:
    return any(c.isalnum() for c in token)


def _check_text(value: object, name: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")


def _coerce_options(options: dict[str, Any]) -> dict[str, Any]:
    out = dict(options)
    for name in ("add_stopwords", "keep_words"):
        if name in out:
            out[name] = frozenset(_words(out[name], name))
    if "extra_compounds" in out:
        out["extra_compounds"] = tuple(_words(out["extra_compounds"], "extra_compounds"))
    return out


def _words(value: object, name: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be an iterable of str")
    words = list(cast(Iterable[object], value))
    for word in words:
        if not isinstance(word, str):
            raise TypeError(f"{name} must contain only str, found {type(word).__name__}")
    return [unicodedata.normalize("NFKC", cast(str, w)).casefold() for w in words]
