"""lexeval's own text processor: the steps of :mod:`lexeval.text.steps` in order, with caches
per white-space chunk and per token, so that text seen before costs a dictionary lookup.

:class:`lexeval.Normalizer` builds one for every preset but the peers'; it is a
:class:`~lexeval.text.base.TextProcessor` like the peers' processors.

>>> from lexeval.text.config import PRESETS
>>> processor = StepProcessor(PRESETS["default"], "en")
>>> processor.tokens("The dogs aren't running on TCP/IP")
['dog', 'not', 'run', 'tcp/ip']
>>> [step.label for step in processor.steps]  # doctest: +NORMALIZE_WHITESPACE
['unicode (NFKC)', 'tokenize', 'drop punctuation', 'casefold', 'lemmatize', 'compounds',
 'remove stopwords']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import chain
from operator import itemgetter
from typing import Any

from lexeval._version import __version__
from lexeval.checks import check_text, check_texts
from lexeval.porter import NLTK_VERSION as PORTER_NLTK_VERSION
from lexeval.text.base import KeywordAnalysis
from lexeval.text.config import NormalizerConfig
from lexeval.text.resources import (
    load_language,
    load_lock,
    load_pipeline,
    package_version,
    short_hash,
)
from lexeval.text.signature import Signature
from lexeval.text.steps import (
    KEEP_WORDS,
    LEMMA_OVERRIDES,
    MAX_CHUNK,
    SNOWBALL_LANGUAGES,
    CaseFold,
    Compounds,
    Lemmatizer,
    Piece,
    PipelineTokenizer,
    PunctuationFilter,
    SentenceSplitter,
    SpacyTokenizer,
    Step,
    Stopwords,
    UnicodeStep,
    WhitespaceTokenizer,
    WordSplitter,
    has_alnum,
    long_chunk_pieces,
    make_stemmer,
    word_pieces,
)

__all__ = ["Explanation", "StepProcessor"]

Pair = tuple[str, bool]


def _no_merge(pairs: list[Pair]) -> list[Pair]:
    return pairs


def _never(keys: list[str]) -> bool:
    return False


#: What a white-space chunk gives, cached whole per chunk (a text's views are the concatenations
#: of its chunks' when no compound term spans chunks), a plain tuple (built often):
#: - [0] ``pairs``: (key, is_stopword) of each token;
#: - [1] ``keys``: the keys of ``pairs``;
#: - [2] ``words``: the keys that are not stopwords, each one-token compound spelling as its
#:   term (what :meth:`StepProcessor.tokens` keeps of the chunk when no multi-token term takes
#:   part).
_Chunk = tuple[tuple[Pair, ...], tuple[str, ...], tuple[str, ...]]
_PAIRS = itemgetter(0)
_KEYS = itemgetter(1)
_WORDS = itemgetter(2)
_NOTHING: _Chunk = ((), (), ())  # a token dropped (punctuation)


@dataclass(frozen=True)
class Explanation:
    """What each step of a normalizer produced for one text (see :meth:`StepProcessor.explain`)."""

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


class StepProcessor:
    """lexeval's normalization for one configuration; resources are looked up on first use,
    caches are bounded by ``cache_size`` entries each (cleared when full; threads writing at
    the same moment may each add one entry past it). Safe to share between threads: caches are
    read with ``get`` and written whole entries at a time, and every call into spaCy holds its
    language's lock."""

    def __init__(
        self,
        config: NormalizerConfig,
        language: str = "en",
        *,
        preset: str = "default",
        cache_size: int = 100_000,
    ) -> None:
        self.config = config
        self.language = language
        self.preset = preset
        self.cache_size = cache_size
        self._unicode = UnicodeStep(config.unicode_form)
        self._whitespace = config.tokenizer == "whitespace"
        self._reset()

    def _reset(self) -> None:
        """Empty caches; resources are looked up again on first use."""
        self._cache: dict[str, _Chunk] = {}
        self._token_memo: dict[str, _Chunk] = {}
        self._sentence_cache: dict[str, tuple[str, ...]] = {}
        self._prefetched: dict[str, None] = {}  # texts whose chunks prefetch() has cached
        self._steps: tuple[Step, ...] | None = None
        self._sentence_splitter: SentenceSplitter | None = None
        self._pipeline: PipelineTokenizer | None = None
        self._signature: Signature | None = None

    def __getstate__(self) -> dict[str, Any]:
        """The configuration only: caches and spaCy objects are rebuilt in the new process."""
        return {
            "config": self.config,
            "language": self.language,
            "preset": self.preset,
            "cache_size": self.cache_size,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["config"],
            state["language"],
            preset=state["preset"],
            cache_size=state["cache_size"],
        )

    def __repr__(self) -> str:
        return f"StepProcessor(preset={self.preset!r}, language={self.language!r})"

    # ------------------------------------------------------------------ the steps

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps in order (built on first use)."""
        steps = self._steps
        if steps is None:
            steps = self._load()
        return steps

    def _load(self) -> tuple[Step, ...]:
        """Build the steps from the language's resources; ``_steps`` is set last, once all is
        ready (another thread sees either nothing or everything)."""
        with load_lock():
            if self._steps is not None:
                return self._steps
            cfg = self.config
            if self._whitespace:
                self._steps = (self._unicode, WhitespaceTokenizer())
                return self._steps
            res = load_language(self.language)
            spacy_tokenizer = SpacyTokenizer(res, cfg.split_cjk)
            tokenizer: SpacyTokenizer | PipelineTokenizer = spacy_tokenizer
            if cfg.pipeline is not None:
                tokenizer = self._pipeline = PipelineTokenizer(load_pipeline(cfg.pipeline))
            stops: frozenset[str] = frozenset()
            if cfg.stopwords:
                keep = cfg.keep_words | (KEEP_WORDS if self.language == "en" else frozenset())
                stops = (res.stopwords | cfg.add_stopwords) - keep
            fold = CaseFold(cfg.casefold)
            lemmas = Lemmatizer(
                self.language,
                res.lemma_table if cfg.lemmatize else None,
                casefold=fold,
                stem=make_stemmer(cfg.stemmer, self.language, self.cache_size),
                stem_min_length=cfg.stem_min_length,
                unstemmed=frozenset() if cfg.stem_stopwords else res.stopwords,
            )
            compounds = None
            if cfg.compounds:
                compounds = Compounds(
                    res,
                    self._compound_entries(),
                    self._unicode,
                    fold,
                    lemmas,
                    index_key=(
                        self.language,
                        cfg.unicode_form,
                        cfg.casefold,
                        cfg.lemmatize,
                        cfg.stemmer,
                        cfg.stem_min_length,
                        cfg.stem_stopwords,
                        cfg.pipeline,
                        cfg.extra_compounds,
                    ),
                )
            stopwords = Stopwords(stops)
            words: WordSplitter | PunctuationFilter | None = None
            if cfg.split_words and cfg.pipeline is None:
                words = WordSplitter()
            elif cfg.drop_punct:
                words = PunctuationFilter()
            self._tokenizer = spacy_tokenizer
            self._fold = fold.function
            self._lemmas = lemmas
            self._stopwords = stopwords
            self._merge = compounds.merge if compounds is not None else _no_merge
            self._aliases: dict[str, str] = compounds.aliases if compounds is not None else {}
            self._may_span: Callable[[list[str]], bool] = (
                compounds.may_span if compounds is not None else _never
            )
            self._split_words = words is not None and isinstance(words, WordSplitter)
            self._drop_punct = cfg.drop_punct
            self._lemma_version = res.lookups_version if lemmas.table is not None else None
            self._stops = stops
            steps = [self._unicode, tokenizer, words, fold, lemmas, compounds, stopwords]
            self._steps = tuple(step for step in steps if step is not None)
            return self._steps

    def _compound_entries(self) -> list[str]:
        entries: list[str] = []
        if self.language == "en":
            bundled = resources.files("lexeval.data").joinpath("compounds_en.txt")
            for line in bundled.read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.startswith("#"):
                    entries.append(line.strip())
        entries.extend(self.config.extra_compounds)
        return entries

    # ------------------------------------------------------------------ TextProcessor

    def tokens(self, text: str) -> list[str]:
        """The normalized sequence, duplicates kept (for token-F1 and ROUGE)."""
        check_text(text, "text")
        if self._whitespace:
            return self._unicode(text).split()
        if self._steps is None:
            self._load()
        if self._pipeline is not None:
            return [key for key, stop in self._analyze(text) if not stop]
        chunks = self._chunks(text)
        if self._may_span(list(chain.from_iterable(map(_KEYS, chunks)))):
            pairs = self._merge(list(chain.from_iterable(map(_PAIRS, chunks))))
            return [key for key, stop in pairs if not stop]
        return list(chain.from_iterable(map(_WORDS, chunks)))

    def keywords(self, text: str) -> list[str]:
        """The distinct keys in order of first appearance; compound terms are one key."""
        return list(dict.fromkeys(self.tokens(text)))

    def analyze(self, text: str, *, merge_compounds: bool = True) -> list[Pair]:
        """Every key with its stopword flag, before stopwords are removed (what :meth:`tokens`
        filters); ``merge_compounds=False`` leaves compound terms as their parts."""
        check_text(text, "text")
        if self._whitespace:
            return [(token, False) for token in self._unicode(text).split()]
        return self._analyze(text, merge=merge_compounds)

    def keyword_analysis(self, text: str) -> KeywordAnalysis:
        """:meth:`keywords` and the keys of :meth:`analyze` with ``merge_compounds=False``,
        from one analysis (lenient keyword matching needs both).

        >>> from lexeval.text.config import PRESETS
        >>> StepProcessor(PRESETS["default"]).keyword_analysis("The neural networks")
        KeywordAnalysis(keywords=['neural network'], keys=['the', 'neural', 'network'])
        """
        check_text(text, "text")
        if self._whitespace:
            keys = self._unicode(text).split()
            return KeywordAnalysis(list(dict.fromkeys(keys)), keys)
        if self._steps is None:
            self._load()
        if self._pipeline is not None:
            pairs = self._analyze(text, merge=False)
            merged = self._merge(pairs)
            keywords = list(dict.fromkeys([key for key, stop in merged if not stop]))
            return KeywordAnalysis(keywords, [key for key, _ in pairs])
        chunks = self._chunks(text)
        keys = list(chain.from_iterable(map(_KEYS, chunks)))
        if self._may_span(keys):
            merged = self._merge(list(chain.from_iterable(map(_PAIRS, chunks))))
            return KeywordAnalysis(list(dict.fromkeys([k for k, stop in merged if not stop])), keys)
        return KeywordAnalysis(list(dict.fromkeys(chain.from_iterable(map(_WORDS, chunks)))), keys)

    def prefetch(self, texts: Iterable[str]) -> None:
        """Analyze the white-space chunks of many texts that are not cached yet, in one
        tokenizer call and one memory zone per group (about twice as fast as text by text on
        texts not seen before; nearly free on texts seen before)."""
        texts = check_texts(texts)
        if self._whitespace or self.config.pipeline is not None:
            return
        if self._steps is None:
            self._load()
        cache = self._cache
        done = self._prefetched
        prepare = self._unicode
        limit = max(1, min(self.cache_size // 2, 20_000))
        missing: dict[str, None] = {}
        for text in texts:
            if text in done:
                continue
            if len(done) >= self.cache_size:
                done.clear()
            done[text] = None
            missing.update(
                (c, None) for c in prepare(text).split() if c not in cache and len(c) <= MAX_CHUNK
            )
            if len(missing) >= limit:
                self._analyze_missing(list(missing))
                missing = {}
        if missing:
            self._analyze_missing(list(missing))

    def sentences(self, text: str) -> list[str]:
        """Text with several non-empty lines is one sentence a line (rouge-score's convention);
        otherwise :class:`~lexeval.text.steps.SentenceSplitter` splits it."""
        check_text(text, "text")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if len(lines) != 1:
            return lines
        cached = self._sentence_cache.get(lines[0])
        if cached is not None:
            return list(cached)
        found = tuple(self._splitter()(self._unicode(lines[0])))
        if len(self._sentence_cache) >= self.cache_size:
            self._sentence_cache.clear()
        self._sentence_cache[lines[0]] = found
        return list(found)

    def _splitter(self) -> SentenceSplitter:
        splitter = self._sentence_splitter
        if splitter is None:
            res = load_language(self.language)
            tokenizer = SpacyTokenizer(res, self.config.split_cjk)
            splitter = self._sentence_splitter = SentenceSplitter(tokenizer)
        return splitter

    @property
    def signature(self) -> Signature:
        """A stable, readable string of every setting that changes results."""
        if self._signature is None:
            self._signature = self._build_signature()
        return self._signature

    def explain(self, text: str) -> Explanation:
        """What each step produced: the same step objects run one at a time, without caches."""
        check_text(text, "text")
        pieces = [Piece(text)]
        shown: list[tuple[str, str | tuple[str, ...]]] = []
        for step in self.steps:
            pieces = step.run(pieces)
            shown.append((step.label, step.show(pieces)))
        final = tuple(p.key for p in pieces)
        return Explanation(text, tuple(shown), final, tuple(dict.fromkeys(final)), self.signature)

    # ------------------------------------------------------------------ the cached path

    def _analyze(self, text: str, merge: bool = True) -> list[Pair]:
        """(key, is_stopword) pairs through the per-chunk cache, compounds merged unless
        ``merge`` is false."""
        if self._steps is None:
            self._load()
        merge_compounds = self._merge if merge else _no_merge
        if self._pipeline is not None:
            return merge_compounds(self._pipeline_pairs(self._unicode(text)))
        return merge_compounds(list(chain.from_iterable(map(_PAIRS, self._chunks(text)))))

    def _chunks(self, text: str) -> list[_Chunk]:
        """The analysis of each white-space chunk of ``text``, through the chunk cache (steps
        loaded, no trained pipeline)."""
        chunks = self._unicode(text).split()
        try:
            return list(map(self._cache.__getitem__, chunks))
        except KeyError:  # a chunk not seen yet (or dropped by another thread's clearing)
            return self._analyze_chunks(chunks)

    def _pipeline_pairs(self, prepared: str) -> list[Pair]:
        assert self._pipeline is not None
        fold, key_of, is_stop = self._fold, self._lemmas.key, self._stopwords.is_stop
        out = []
        for token, lemma in self._pipeline.tokens(prepared):
            if self._drop_punct and not has_alnum(token):
                continue
            folded = fold(token)
            key = key_of(token, folded, lemma)
            out.append((key, is_stop(folded, key)))
        return out

    def _analyze_chunks(self, chunks: list[str]) -> list[_Chunk]:
        """The analysis of each of ``chunks``, analyzing those not cached (thread-safe: the
        cache is only read with ``get`` and written whole entries at a time)."""
        cache = self._cache
        found: dict[str, _Chunk] = {}
        missing: list[str] = []
        long = False
        for chunk in dict.fromkeys(chunks):
            entry = cache.get(chunk)
            if entry is not None:
                found[chunk] = entry
            elif len(chunk) > MAX_CHUNK:
                long = True
            else:
                missing.append(chunk)
        if missing:
            found.update(self._analyze_missing(missing))
        if not long:
            return list(map(found.__getitem__, chunks))
        out: list[_Chunk] = []
        for chunk in chunks:
            entry = found.get(chunk)
            if entry is None:  # a long chunk: read piece by piece, never cached, its tokens'
                # entries one by one (memory stays near a pointer a token)
                out.extend(self._tokens(long_chunk_pieces(chunk, self.config.split_cjk)))
            else:
                out.append(entry)
        return out

    def _analyze_missing(self, missing: list[str]) -> dict[str, _Chunk]:
        """The analysis of chunks not cached (none longer than :data:`MAX_CHUNK`), cached
        unless more than the cache holds."""
        if len(missing) > 1:
            missing = list(dict.fromkeys(missing))
        cache = self._cache
        size = self.cache_size
        if len(cache) + len(missing) > size:  # room for this text's chunks together
            self._clear_chunks()
        keep = len(missing) <= size  # a single text larger than the cache: no caching
        split = self._tokenizer.split_chunks(missing)
        if len(split) != len(missing):  # zip(strict=True), without its cost on a few chunks
            raise RuntimeError("the tokenizer lost or added a chunk")
        memo = self._token_memo
        found: dict[str, _Chunk] = {}
        for chunk, pieces in zip(missing, split):  # noqa: B905 - lengths checked above
            if len(pieces) == 1:  # most chunks: their token's entry (_chunk without a call)
                entry = memo.get(pieces[0]) or self._memo_token(pieces[0])
            else:
                entry = self._chunk(pieces)
            found[chunk] = entry
            if keep:
                if len(cache) >= size:  # other threads filled it meanwhile
                    self._clear_chunks()
                cache[chunk] = entry
        return found

    def _tokens(self, pieces: Iterable[str]) -> Iterator[_Chunk]:
        """The analysis of each token (memoized), dropped ones left out."""
        memo = self._token_memo
        for token in pieces:
            entry = memo.get(token) or self._memo_token(token)
            if entry[0]:  # its pairs
                yield entry

    def _chunk(self, pieces: Sequence[str]) -> _Chunk:
        """The analysis of one chunk: its tokens' end to end."""
        memo = self._token_memo
        if len(pieces) == 1:  # most chunks
            return memo.get(pieces[0]) or self._memo_token(pieces[0])
        found = []
        for token in pieces:
            entry = memo.get(token) or self._memo_token(token)
            if entry[0]:  # not dropped
                found.append(entry)
        if len(found) == 1:
            return found[0]
        return (
            tuple(chain.from_iterable(map(_PAIRS, found))),
            tuple(chain.from_iterable(map(_KEYS, found))),
            tuple(chain.from_iterable(map(_WORDS, found))),
        )

    def _clear_chunks(self) -> None:
        """Empty the chunk cache (when full); prefetched texts must then be analyzed again."""
        self._cache.clear()
        self._prefetched.clear()

    def _memo_token(self, token: str) -> _Chunk:
        """The analysis of a token not in the token memo, remembered there: case, key and
        stopword flag (of each of its words when words are split); nothing for punctuation
        when it is dropped."""
        entry: _Chunk
        if self._split_words:
            entry = self._words(token)
        elif self._drop_punct and not token.isalnum() and not has_alnum(token):
            entry = _NOTHING
        else:
            folded = self._fold(token)
            key = self._lemmas.key(token, folded)
            stops = self._stops
            stop = folded in stops or key in stops  # Stopwords.is_stop, without a call
            keys = (key,)
            alias = self._aliases.get(key)
            words = keys if alias is None and not stop else () if alias is None else (alias,)
            entry = ((key, stop),), keys, words
        memo = self._token_memo
        if len(memo) >= self.cache_size:
            memo.clear()
        memo[token] = entry
        return entry

    def _words(self, token: str) -> _Chunk:
        """The analysis of a token split into its words (a method of its own: the closures
        of its comprehensions would cost every token a cell each)."""
        fold, key_of, is_stop = self._fold, self._lemmas.key, self._stopwords.is_stop
        aliases = self._aliases
        pairs = tuple(
            (key, is_stop(folded, key))
            for word in word_pieces(token)
            for folded in (fold(word),)
            for key in (key_of(word, folded),)
        )
        keys = tuple([key for key, _ in pairs])
        words = tuple([aliases.get(k, k) for k, stop in pairs if not stop or k in aliases])
        return pairs, keys, keys if words == keys else words

    # ------------------------------------------------------------------ signature

    def _stemmer_name(self) -> str | None:
        """The stemmer in use (``"auto"`` resolved for the language)."""
        stem = self.config.stemmer
        if stem != "auto":
            return stem
        if self.language == "en":
            return "porter"
        return "snowball" if self.language in SNOWBALL_LANGUAGES else None

    @staticmethod
    def _stemmer_source(stem: str) -> str:
        """The stemmer and the release it follows: Porter is :mod:`lexeval.porter`, whose
        stems are nltk 3.10.4's; Snowball is the installed nltk's."""
        version = PORTER_NLTK_VERSION if stem == "porter" else package_version("nltk")
        return f"{stem}-nltk{version}"

    def _build_signature(self) -> Signature:
        cfg = self.config
        parts = [f"preset:{self.preset}", f"lang:{self.language}"]
        if self._whitespace:
            parts.append("tok:whitespace")
            parts.append(f"v:{__version__}")
            return Signature.of(parts)
        self.steps  # noqa: B018 - the resources decide the stopword list and the lemma table
        parts.append(f"uni:{cfg.unicode_form or 'no'}")
        parts.append(f"case:{'fold' if cfg.casefold else 'keep'}")
        parts.append(f"tok:spacy{package_version('spacy')}+tech{'+cjk' if cfg.split_cjk else ''}")
        if cfg.stopwords:
            parts.append(f"stop:{len(self._stops)}#{short_hash(self._stops)}")
        else:
            parts.append("stop:no")
        if cfg.pipeline is not None:
            parts.append(f"lemma:pipeline-{cfg.pipeline}")
        elif self._lemma_version is not None:
            overrides = short_hash(f"{k}>{v}" for k, v in LEMMA_OVERRIDES.items())
            parts.append(f"lemma:lookups{self._lemma_version}+ovr#{overrides}")
        else:
            parts.append("lemma:no")
        stem = self._stemmer_name()
        parts.append(f"stem:{self._stemmer_source(stem) if stem else 'no'}")
        if stem and (cfg.stem_min_length > 1 or not cfg.stem_stopwords):
            skip = "" if cfg.stem_stopwords else ",not-stopwords"
            parts.append(f"stem-only:len>={cfg.stem_min_length}{skip}")
        if cfg.split_words:
            parts.append("words:split-non-alnum+numbers-whole")
        if cfg.compounds:
            entries = self._compound_entries()
            parts.append(f"comp:{len(entries)}#{short_hash(entries)}")
        else:
            parts.append("comp:no")
        parts.append(f"v:{__version__}")
        return Signature.of(parts)
