"""The steps of lexeval's own normalization, one small object each, given their resources when
built (in the manner of jiwer's composable transforms): Unicode, tokenization with the
technical-term rules (or a trained pipeline, or white space), word splitting or punctuation
dropping, case folding, lemmas and stems, compound terms, stopwords.

:class:`~lexeval.text.processor.StepProcessor` runs them with its caches (per white-space chunk
and per token); :meth:`~lexeval.text.processor.StepProcessor.explain` runs the same list, one
step at a time, on a list of :class:`Piece`. Every step's ``run`` takes and returns pieces.

>>> pieces = [Piece("Ｒeact.js  dogs!")]
>>> for step in (UnicodeStep("NFKC"), WhitespaceTokenizer(), PunctuationFilter(), CaseFold(True)):
...     pieces = step.run(pieces)
>>> [p.folded for p in pieces]
['react.js', 'dogs!']
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lexeval.text.resources import (
    LanguageResources,
    Patterns,
    TrainedPipeline,
    sentence_punct_chars,
    spacy_zone,
)

__all__ = [
    "CJK_RE",
    "KEEP_WORDS",
    "LEMMA_OVERRIDES",
    "LONG_CHUNK_RE",
    "MAX_CHUNK",
    "NEGATIONS_EN",
    "SNOWBALL_LANGUAGES",
    "CaseFold",
    "Compounds",
    "Lemmatizer",
    "Piece",
    "PipelineTokenizer",
    "PunctuationFilter",
    "SentenceSplitter",
    "SpacyTokenizer",
    "Step",
    "Stopwords",
    "UnicodeStep",
    "WhitespaceTokenizer",
    "WordSplitter",
    "has_alnum",
    "is_punct",
    "is_technical",
    "long_chunk_pieces",
    "make_stemmer",
    "word_pieces",
]

#: English negations: spaCy's English list calls them stopwords, but "is not safe" and "is safe"
#: must differ.
NEGATIONS_EN: frozenset[str] = frozenset(
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
    }
)

#: Words never removed as stopwords (English only; add more with ``keep_words``): the negations
#: and the ``n't`` forms of "not".
KEEP_WORDS: frozenset[str] = NEGATIONS_EN | {"n't", "n‘t", "n’t"}

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

#: nltk's Snowball stemmers by spaCy language code.
SNOWBALL_LANGUAGES: dict[str, str] = {
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

# Characters removed before tokenization: C0/C1 controls (but tab, LF, CR) and lone surrogates
# become a space; soft hyphens and zero-width characters vanish. Both are single character
# classes, so they run in linear time.
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_INVISIBLE_RE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# what either of the two above finds (every such character is one str.isprintable refuses)
_CONTROL_OR_INVISIBLE_RE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\u00ad\u200b-\u200d\u2060\ufeff]"
)
_ACRONYM_PLURAL_RE = re.compile(r"[A-Z]{2,}s")
_HYPHENATED_WORD_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")  # letters only, single hyphens
# Han ideographs and kana: written without spaces, split into one token per character.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: One Han ideograph or kana, captured (``CJK_RE.split`` keeps them as pieces).
CJK_RE = re.compile(f"([{_CJK}])")
#: Chunks longer than this skip spaCy's affix loop (quadratic on pathological input) and are
#: split into word runs and single symbols instead (read piece by piece, never whole).
MAX_CHUNK = 2000
#: The pieces of a long chunk: word runs and single symbols.
LONG_CHUNK_RE = re.compile(r"\w+|[^\w\s]")
# The same, with Han and kana one character a piece: the word runs of LONG_CHUNK_RE split by
# CJK_RE, without building either list.
_LONG_CJK_CHUNK_RE = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+|[^\\w\\s]")
_CHUNK_RE = re.compile(r"\S+")
_GROUPED_NUMBER_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+")


# ---------------------------------------------------------------------- token predicates


# A letter or digit: ``\w`` is exactly ``str.isalnum`` plus the underscore.
_ALNUM_SEARCH = re.compile(r"[^\W_]").search


def has_alnum(token: str) -> bool:
    """True when the token has a letter or digit (else it is punctuation or a symbol).

    >>> has_alnum("a."), has_alnum("--"), has_alnum("_"), has_alnum("²")
    (True, False, False, True)
    """
    return token.isalnum() or _ALNUM_SEARCH(token) is not None


def is_punct(token: str) -> bool:
    """spaCy's ``is_punct``: every character is Unicode punctuation (category P*).

    >>> is_punct("?!"), is_punct("a."), is_punct("")
    (True, False, True)
    """
    return all(unicodedata.category(c).startswith("P") for c in token)


def is_technical(token: str) -> bool:
    """True for tokens that are names rather than words: never lemmatized or stemmed.

    >>> [is_technical(t) for t in ["dogs", "React.js", "camelCase", "NASA", "n't", "x86"]]
    [False, True, True, False, False, True]
    """
    if token.isalpha():  # the common case, without copies
        rest = token[1:]
        if not rest or rest.islower():  # no upper-case letter after the first
            return False
        return any(c.isupper() for c in rest) and not token.isupper()
    plain = token.replace("'", "").replace("’", "").replace("‘", "")
    if not plain.isalpha():
        return True
    return any(c.isupper() for c in plain[1:]) and not plain.isupper()


def long_chunk_pieces(chunk: str, split_cjk: bool) -> Iterator[str]:
    """The tokens of a chunk longer than :data:`MAX_CHUNK`, one at a time (memory stays small
    on megabytes of text without spaces).

    >>> list(long_chunk_pieces("abc漢字-d", split_cjk=True))
    ['abc', '漢', '字', '-', 'd']
    """
    pattern = _LONG_CJK_CHUNK_RE if split_cjk else LONG_CHUNK_RE
    for match in pattern.finditer(chunk):
        yield match.group()


def _cjk_tokens(tokens: list[str]) -> list[str]:
    """``tokens`` with each Han ideograph and kana a token of its own.

    >>> _cjk_tokens(["東京", "tower", "タワー."])
    ['東', '京', 'tower', 'タ', 'ワ', 'ー', '.']
    """
    return [p for token in tokens for p in CJK_RE.split(token) if p]


def _is_word_char(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char)[0] == "M"


@functools.lru_cache(maxsize=65536)
def word_pieces(token: str) -> tuple[str, ...]:
    """A token split at every character that is not a letter, digit or combining mark (so Thai
    and Devanagari words stay whole); a number with thousands separators or a decimal point
    stays one piece, without the separators ("10,000" -> "10000", "5.5" stays).

    >>> word_pieces("call-up"), word_pieces("U.S"), word_pieces("10,000"), word_pieces("5.5")
    (('call', 'up'), ('U', 'S'), ('10000',), ('5.5',))
    >>> word_pieces("สวัสดี"), word_pieces("--")
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
    return tuple(p for p in pieces if has_alnum(p))


# ---------------------------------------------------------------------- the step protocol


@dataclass(slots=True)
class Piece:
    """One token on its way through the steps (what :meth:`Step.run` passes on): the text as
    written, a trained pipeline's lemma, the folded form, the key; ``merged`` marks a compound
    term (never a stopword)."""

    text: str
    lemma: str | None = None
    folded: str = ""
    key: str = ""
    merged: bool = False


class Step(Protocol):
    """One normalization step: a label for :meth:`StepProcessor.explain`, ``run`` on pieces,
    and what the step's output looks like."""

    @property
    def label(self) -> str: ...

    def run(self, pieces: list[Piece]) -> list[Piece]: ...

    def show(self, pieces: list[Piece]) -> str | tuple[str, ...]: ...


# ---------------------------------------------------------------------- 1. Unicode


@dataclass(frozen=True, slots=True)
class UnicodeStep:
    """Controls out, soft hyphens and zero-width characters removed, Unicode normalization
    (``form=None``: only lone surrogates, which nothing can encode, become U+FFFD).

    >>> UnicodeStep("NFKC")("ﬁne\\u00adtuned\\x00ok")
    'finetuned ok'
    """

    form: str | None

    @property
    def label(self) -> str:
        return f"unicode ({self.form or 'as is'})"

    def __call__(self, text: str) -> str:
        form = self.form
        if form is None:
            return _SURROGATE_RE.sub("\ufffd", text) if _SURROGATE_RE.search(text) else text
        if text.isascii():  # no invisible character, and every normal form of ASCII is itself
            return text if text.isprintable() else _CONTROL_RE.sub(" ", text)
        if not text.isprintable() and _CONTROL_OR_INVISIBLE_RE.search(text):
            text = _INVISIBLE_RE.sub("", _CONTROL_RE.sub(" ", text))
        if not unicodedata.is_normalized(form, text):  # type: ignore[arg-type]
            text = unicodedata.normalize(form, text)  # type: ignore[arg-type]
        return text

    def run(self, pieces: list[Piece]) -> list[Piece]:
        return [Piece(self(p.text)) for p in pieces]

    def show(self, pieces: list[Piece]) -> str:
        return " ".join(p.text for p in pieces)


# ---------------------------------------------------------------------- 2. tokenization


class _TokenStep:
    """A step whose output is shown as the tokens as written."""

    def show(self, pieces: list[Piece]) -> tuple[str, ...]:
        return tuple(p.text for p in pieces)


class WhitespaceTokenizer(_TokenStep):
    """Split on white space only."""

    label = "split on white space"

    def run(self, pieces: list[Piece]) -> list[Piece]:
        return [Piece(t, folded=t, key=t) for p in pieces for t in p.text.split()]


class SpacyTokenizer(_TokenStep):
    """spaCy's rule-based tokenizer of the language with lexeval's technical-term rules, run on
    white-space chunks; Han and kana one character a token when ``split_cjk``; chunks longer
    than :data:`MAX_CHUNK` are read piece by piece.

    >>> from lexeval.text.resources import load_language
    >>> SpacyTokenizer(load_language("en"), split_cjk=True).split_chunks(["TCP/IP.", "aren't"])
    [['TCP/IP', '.'], ['are', "n't"]]
    """

    label = "tokenize"

    def __init__(self, resources: LanguageResources, split_cjk: bool) -> None:
        self.resources = resources
        self.split_cjk = split_cjk

    def split_chunks(
        self, chunks: Sequence[str], *, split_cjk: bool | None = None
    ) -> list[list[str]]:
        """The tokens of many chunks with one tokenizer call (a Doc per chunk costs far more).

        Chunks hold no white space, and spaCy splits only at white space before its affix
        rules, so tokenizing the chunks joined by single spaces gives each chunk's own tokens;
        the last token of each chunk is the one followed by a space. The tokens of a chunk
        always join up to the chunk.
        """
        res = self.resources
        specials = res.specials
        affixes = res.affixes
        known = res.spacy_tokens
        if split_cjk is None:
            split_cjk = self.split_cjk
        pieces: list[list[str]] = []
        short: list[int] = []  # chunks for spaCy's tokenizer
        for chunk in chunks:
            if len(chunk) > MAX_CHUNK:
                pieces.append(list(long_chunk_pieces(chunk, split_cjk)))
                continue
            if specials is not None and chunk.isalpha() and chunk not in specials:
                # No affix rule of spaCy's applies to letters alone; only a special case
                # ("cannot", "gonna") splits them (a test checks this against the tokenizer).
                split = [chunk]
            else:
                # spaCy's rules in Python where no special case takes part (AffixRules)
                found = affixes.split(chunk) if affixes is not None else None
                if found is None and known is not None:
                    # spaCy's own tokens of a special case, from the language's snapshot
                    found = known.get(chunk)
                if found is None:
                    short.append(len(pieces))
                    pieces.append([])
                    continue
                split = list(found)
            if split_cjk and not chunk.isascii() and CJK_RE.search(chunk):
                split = _cjk_tokens(split)
            pieces.append(split)
        if short:
            with spacy_zone(res):
                doc = res.nlp.tokenizer(" ".join(chunks[i] for i in short))
                position = 0
                for token in doc:
                    pieces[short[position]].append(token.text)
                    if token.whitespace_:
                        position += 1
            if split_cjk:
                for i in short:
                    if CJK_RE.search(chunks[i]):
                        pieces[i] = _cjk_tokens(pieces[i])
        return pieces

    def run(self, pieces: list[Piece]) -> list[Piece]:
        chunks = [c for p in pieces for c in p.text.split()]
        return [Piece(t) for tokens in self.split_chunks(chunks) for t in tokens]


class PipelineTokenizer(_TokenStep):
    """A trained spaCy pipeline's tokens of the whole text, each with the pipeline's lemma."""

    label = "tokenize"

    def __init__(self, pipeline: TrainedPipeline) -> None:
        self.pipeline = pipeline

    def tokens(self, text: str) -> list[tuple[str, str]]:
        """(text, lemma) of each token that is not white space."""
        pipeline = self.pipeline
        with pipeline.lock, pipeline.nlp.memory_zone():
            return [(t.text, t.lemma_) for t in pipeline.nlp(text) if not t.is_space]

    def run(self, pieces: list[Piece]) -> list[Piece]:
        return [Piece(t, lemma) for p in pieces for t, lemma in self.tokens(p.text)]


# ---------------------------------------------------------------------- 3. words, punctuation


class WordSplitter(_TokenStep):
    """Each token split into its words (:func:`word_pieces`); punctuation goes with it."""

    label = "split words"

    def run(self, pieces: list[Piece]) -> list[Piece]:
        return [Piece(w) for p in pieces for w in word_pieces(p.text)]


class PunctuationFilter(_TokenStep):
    """Tokens without a letter or digit dropped."""

    label = "drop punctuation"

    def run(self, pieces: list[Piece]) -> list[Piece]:
        return [p for p in pieces if has_alnum(p.text)]


# ---------------------------------------------------------------------- 4. case


def _same(token: str) -> str:
    return token


@dataclass(frozen=True, slots=True)
class CaseFold:
    """Unicode case folding (``enabled=False``: case kept).

    >>> CaseFold(True)("Straße"), CaseFold(False)("Straße")
    ('strasse', 'Straße')
    """

    enabled: bool

    @property
    def label(self) -> str:
        return "casefold" if self.enabled else "keep case"

    def __call__(self, token: str) -> str:
        return token.casefold() if self.enabled else token

    @property
    def function(self) -> Callable[[str], str]:
        """The same fold as a plain function (``str.casefold`` or the identity), cheaper to
        call than the instance.

        >>> CaseFold(True).function("Straße"), CaseFold(False).function("Straße")
        ('strasse', 'Straße')
        """
        return str.casefold if self.enabled else _same

    def run(self, pieces: list[Piece]) -> list[Piece]:
        for p in pieces:
            p.folded = self(p.text)
        return pieces

    def show(self, pieces: list[Piece]) -> tuple[str, ...]:
        return tuple(p.folded for p in pieces)


# ---------------------------------------------------------------------- 5. lemmas and stems


def make_stemmer(name: str | None, language: str, cache_size: int) -> Callable[[str], str] | None:
    """nltk's stemmer by name (``"auto"``: Porter for English as rouge-score, Snowball where
    nltk has one, else none), memoized. Porter is :mod:`lexeval.porter` (nltk's default mode,
    compiled where built: equal stems without importing nltk, about 50 times faster on a new
    word); nltk is imported only here, for Snowball.

    >>> make_stemmer("porter", "en", 10)("running"), make_stemmer("auto", "xx", 10) is None
    ('run', True)
    """
    if name == "auto":
        name = "porter" if language == "en" else None
        if language != "en" and language in SNOWBALL_LANGUAGES:
            name = "snowball"
    if name is None:
        return None
    if name == "porter":
        from lexeval.porter import PorterStemmer

        return functools.lru_cache(maxsize=cache_size)(PorterStemmer().stem)
    if name == "snowball":
        from nltk.stem.snowball import SnowballStemmer

        snowball = SNOWBALL_LANGUAGES.get(language)
        if snowball is None:
            raise ValueError(f"nltk has no Snowball stemmer for language {language!r}")
        return functools.lru_cache(maxsize=cache_size)(SnowballStemmer(snowball).stem)
    raise ValueError(f"stemmer must be 'porter', 'snowball', 'auto' or None, not {name!r}")


class Lemmatizer:
    """A word's key: its lemma (a trained pipeline's, or the language's lookup table with
    lexeval's English overrides), then its stem when a stemmer is given; technical tokens
    (``React.js``, ``camelCase``) stay as they are, acronym plurals lose their ``s`` and a
    hyphenated word keeps its parts with the last one lemmatized.

    >>> from lexeval.text.resources import load_lemma_table
    >>> lemmas = Lemmatizer("en", load_lemma_table("en")[0], casefold=CaseFold(True))
    >>> [lemmas.key(t, t.casefold()) for t in ["dogs", "APIs", "neural-networks", "React.js"]]
    ['dog', 'api', 'neural-network', 'react.js']
    """

    def __init__(
        self,
        language: str,
        table: Any,
        *,
        casefold: CaseFold,
        stem: Callable[[str], str] | None = None,
        stem_min_length: int = 1,
        unstemmed: frozenset[str] = frozenset(),
    ) -> None:
        self.language = language
        self.table = table
        self.casefold = casefold
        self._fold = casefold.function
        self.stem = stem
        self.stem_min_length = stem_min_length
        self.unstemmed = unstemmed
        # lexeval's corrections go with the English table (no table: no lemmas at all)
        self.overrides = LEMMA_OVERRIDES if language == "en" and table is not None else {}

    @property
    def label(self) -> str:
        return "stem" if self.stem is not None else "lemmatize"

    def key(self, token: str, folded: str, lemma: str | None = None) -> str:
        """The key of ``token`` (``folded`` is its folded form, ``lemma`` a trained pipeline's
        lemma for it)."""
        # a word in lower case after its first letter is never technical: asked without a call
        # (a word in lower case, the commonest, without a copy)
        plain_word = token.isalpha() and (token.islower() or token[1:].islower())
        if not plain_word and is_technical(token):
            if _ACRONYM_PLURAL_RE.fullmatch(token):
                return folded[:-1]  # APIs -> api
            head, dash, last = folded.rpartition("-")
            if dash and head and _HYPHENATED_WORD_RE.fullmatch(token):
                # A hyphenated word stays whole, but its head (the last part) is a word like
                # any other: drug-destroying -> drug-destroy, neural-networks -> neural-network.
                return f"{head}-{self.key(last, last)}"
            return folded
        key = folded
        table = self.table
        if lemma is not None:
            key = self._fold(lemma) or folded
        elif folded in self.overrides:
            key = self.overrides[folded]
        elif table is not None:
            # Tables are keyed by lower-case forms, except where the language capitalizes
            # (German nouns): try the folded form, then the form as written.
            found = table.get(folded) or (table.get(token) if token != folded else None)
            if found:  # most words have no entry
                if isinstance(found, list):  # fr and ca tables map a form to a list of lemmas
                    found = found[0]
                if isinstance(found, str) and found:
                    key = self._fold(found)
        stem = self.stem
        if stem is not None and len(key) >= self.stem_min_length and folded not in self.unstemmed:
            key = stem(key)
        return key

    def run(self, pieces: list[Piece]) -> list[Piece]:
        for p in pieces:
            p.key = self.key(p.text, p.folded, p.lemma)
        return pieces

    def show(self, pieces: list[Piece]) -> tuple[str, ...]:
        return tuple(p.key for p in pieces)


# ---------------------------------------------------------------------- 6. compounds


_CompoundIndex = tuple[dict[str, str], frozenset[tuple[str, str]], Patterns]


class Compounds:
    """Compound terms as one key ("machine learning", "state-of-the-art"): one-token spellings
    ("machinelearning") by an alias table, multi-token ones by spaCy's PhraseMatcher on the
    keys. The index is built once per process for each combination of the settings that shape
    keys (``index_key``) and kept on the language's resources, the matcher too (built anew with
    the language's spaCy objects).

    >>> from lexeval.text.resources import load_language, load_lemma_table
    >>> fold = CaseFold(True)
    >>> lemmas = Lemmatizer("en", load_lemma_table("en")[0], casefold=fold)
    >>> compounds = Compounds(load_language("en"), ["neural network"], UnicodeStep("NFKC"),
    ...                       fold, lemmas, index_key=("doctest",))
    >>> compounds.merge([("neural", False), ("network", False), ("be", True)])
    [('neural network', False), ('be', True)]
    """

    label = "compounds"

    def __init__(
        self,
        resources: LanguageResources,
        entries: Sequence[str],
        unicode: UnicodeStep,
        casefold: CaseFold,
        lemmatizer: Lemmatizer,
        *,
        index_key: tuple[Any, ...],
    ) -> None:
        self.resources = resources
        self.index_key = index_key
        cached: _CompoundIndex | None = resources.compound_indexes.get(index_key)
        if cached is None:
            cached = _index_compounds(entries, unicode, casefold, lemmatizer)
            # the patterns' strings must not land in another thread's zone: add_matcher holds
            # the language's lock
            resources.add_matcher(index_key, cached[2])
            resources.compound_indexes[index_key] = cached
        self.aliases: dict[str, str] = cached[0]
        self.first_bigrams: frozenset[tuple[str, str]] = cached[1]
        #: the first words of the patterns: a text without one has no compound term (checked
        #: before its bigrams, which cost a tuple each)
        self.first_words = frozenset([first for first, _ in self.first_bigrams])
        bigram_words = self.first_words.union(second for _, second in self.first_bigrams)
        #: whether no alias's term is a word of a pattern's first bigram: then aliasing never
        #: creates a first bigram, and keys without one (aliased or not) have no compound term
        self.aliases_apart = bigram_words.isdisjoint(self.aliases.values())
        labels: dict[tuple[str, ...], str] = {}
        lengths: set[int] = set()
        ambiguous = False
        for label, words in cached[2]:
            ambiguous = ambiguous or labels.setdefault(words, label) != label
            lengths.add(len(words))
        #: each pattern's term; None when a pattern has several (spaCy's matcher decides)
        self.labels: dict[tuple[str, ...], str] | None = None if ambiguous else labels
        self.lengths = tuple(sorted(lengths))

    def _may_match(self, keys: list[str]) -> bool:
        """Whether two keys side by side are the first two of a pattern."""
        if self.first_words.isdisjoint(keys):
            return False
        return not self.first_bigrams.isdisjoint(itertools.pairwise(keys))

    def may_span(self, keys: list[str]) -> bool:
        """Whether :meth:`merge` may find a multi-token compound term among pairs with these
        keys (before aliasing); when not, merging is aliasing each key alone.

        >>> from lexeval.text.resources import load_language, load_lemma_table
        >>> fold = CaseFold(True)
        >>> lemmas = Lemmatizer("en", load_lemma_table("en")[0], casefold=fold)
        >>> compounds = Compounds(load_language("en"), ["neural network"], UnicodeStep("NFKC"),
        ...                       fold, lemmas, index_key=("doctest",))
        >>> compounds.may_span(["neural", "network"]), compounds.may_span(["network", "neural"])
        (True, False)
        """
        return not self.aliases_apart or self._may_match(keys)

    def spans(self, keys: list[str]) -> list[tuple[int, int, str]]:
        """(start, end, term) of the multi-token compound terms among ``keys``, longest first
        where they overlap (spaCy's ``filter_spans``)."""
        # Every pattern has at least two tokens, so a match needs its first two side by side.
        if len(keys) < 2 or not self._may_match(keys):
            return []
        labels = self.labels
        if labels is not None:
            return self._match(keys, labels)
        from spacy.tokens import Doc
        from spacy.util import filter_spans

        res = self.resources
        with spacy_zone(res):
            doc = Doc(res.nlp.vocab, words=keys)
            spans = filter_spans(res.matcher(self.index_key)(doc, as_spans=True))
            return [(span.start, span.end, span.label_) for span in spans]

    def _match(
        self, keys: list[str], labels: dict[tuple[str, ...], str]
    ) -> list[tuple[int, int, str]]:
        """What spaCy's ``PhraseMatcher`` on ORTH and ``filter_spans`` give when each pattern
        has one term: every occurrence of a pattern, by start then length; then the longest
        (the first of equal length) of overlapping ones, in order of start."""
        first = self.first_bigrams
        found: list[tuple[int, int, str]] = []
        n = len(keys)
        for start in range(n - 1):
            if (keys[start], keys[start + 1]) not in first:
                continue
            for length in self.lengths:
                end = start + length
                if end > n:
                    break
                label = labels.get(tuple(keys[start:end]))
                if label is not None:
                    found.append((start, end, label))
        if len(found) < 2:
            return found
        found.sort(key=lambda span: (span[1] - span[0], -span[0]), reverse=True)
        kept: list[tuple[int, int, str]] = []
        seen: set[int] = set()
        for span in found:
            if span[0] not in seen and span[1] - 1 not in seen:
                kept.append(span)
                seen.update(range(span[0], span[1]))
        kept.sort(key=lambda span: span[0])
        return kept

    def merge(self, pairs: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
        """(key, is_stopword) pairs with each compound term's keys as one, never a stopword."""
        keys = [p[0] for p in pairs]
        aliases = self.aliases
        if aliases and not aliases.keys().isdisjoint(keys):
            pairs = [(aliases[p[0]], False) if p[0] in aliases else p for p in pairs]
            keys = [p[0] for p in pairs]
        if len(pairs) < 2 or not self._may_match(keys):
            return pairs
        merged: list[tuple[str, bool]] = []
        position = 0
        for start, end, label in self.spans(keys):
            merged.extend(pairs[position:start])
            merged.append((label, False))
            position = end
        merged.extend(pairs[position:])
        return merged

    def run(self, pieces: list[Piece]) -> list[Piece]:
        aliases = self.aliases
        pieces = [_compound(aliases[p.key]) if p.key in aliases else p for p in pieces]
        out: list[Piece] = []
        position = 0
        for start, end, label in self.spans([p.key for p in pieces]):
            out.extend(pieces[position:start])
            out.append(_compound(label))
            position = end
        out.extend(pieces[position:])
        return out

    def show(self, pieces: list[Piece]) -> tuple[str, ...]:
        return tuple(p.key for p in pieces)


def _compound(term: str) -> Piece:
    return Piece(term, folded=term, key=term, merged=True)


def _index_compounds(
    entries: Sequence[str],
    unicode: UnicodeStep,
    casefold: CaseFold,
    lemmatizer: Lemmatizer,
) -> _CompoundIndex:
    """Aliases of one-token spellings, the first bigrams of the patterns, and the patterns."""
    aliases: dict[str, str] = {}
    first: set[tuple[str, str]] = set()
    patterns: list[tuple[str, tuple[str, ...]]] = []
    for entry in entries:
        parts = [p for p in re.split(r"[\s\-]+", unicode(entry)) if p]
        if len(parts) < 2:
            continue
        folded = [casefold(p) for p in parts]
        keys = [lemmatizer.key(p, f) for p, f in zip(parts, folded, strict=True)]
        canonical = ("-" if "-" in entry and " " not in entry.strip() else " ").join(folded)
        for form in ("-".join(folded), "".join(folded), "-".join(keys), "".join(keys)):
            aliases.setdefault(form, canonical)
        joined_key = lemmatizer.key("".join(parts), "".join(folded))
        aliases.setdefault(joined_key, canonical)
        for variant in {tuple(keys), tuple(folded)}:
            patterns.append((canonical, variant))
            first.add((variant[0], variant[1]))
    return aliases, frozenset(first), tuple(patterns)


# ---------------------------------------------------------------------- 7. stopwords


class Stopwords:
    """The stopword test (a word is one when its folded form or its key is listed), and the
    last step: stopwords removed, compound terms always kept.

    >>> Stopwords(frozenset({"the", "be"})).is_stop("was", "be")
    True
    """

    def __init__(self, stops: frozenset[str]) -> None:
        self.stops = stops

    @property
    def label(self) -> str:
        return "remove stopwords" if self.stops else "keep stopwords"

    def is_stop(self, folded: str, key: str) -> bool:
        return folded in self.stops or key in self.stops

    def run(self, pieces: list[Piece]) -> list[Piece]:
        return [p for p in pieces if p.merged or not self.is_stop(p.folded, p.key)]

    def show(self, pieces: list[Piece]) -> tuple[str, ...]:
        return tuple(p.key for p in pieces)


# ---------------------------------------------------------------------- sentences


class SentenceSplitter:
    """The rule of spaCy's ``sentencizer`` (a sentence ends after ``.``, ``!``, ``?`` and the
    like, once a token that is not punctuation follows) on the tokenizer's own tokens, in time
    linear in the text's length.

    >>> from lexeval.text.resources import load_language
    >>> split = SentenceSplitter(SpacyTokenizer(load_language("en"), split_cjk=True))
    >>> split("It rained. We stayed in! Did you?")
    ['It rained.', 'We stayed in!', 'Did you?']
    """

    def __init__(self, tokenizer: SpacyTokenizer) -> None:
        self.tokenizer = tokenizer

    def __call__(self, text: str) -> list[str]:
        """White space that spaCy makes a token of (any run but a single space) counts as a
        token here too."""
        punct_chars = sentence_punct_chars()
        spans = [(m.start(), m.group()) for m in _CHUNK_RE.finditer(text)]
        distinct = list(dict.fromkeys(c for _, c in spans if len(c) <= MAX_CHUNK))
        split_chunks = self.tokenizer.split_chunks
        tokens_of = dict(zip(distinct, split_chunks(distinct, split_cjk=False), strict=True))
        split = (
            tokens_of[c] if len(c) <= MAX_CHUNK else long_chunk_pieces(c, split_cjk=False)
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
                if seen_period and not in_punct_chars and not is_punct(piece):
                    starts.append(position)
                    seen_period = False
                elif in_punct_chars:
                    seen_period = True
                position += len(piece)
            previous_end = offset + len(chunk)
        starts.append(len(text))
        sentences = (text[a:b].strip() for a, b in itertools.pairwise(starts))
        return [sentence for sentence in sentences if sentence]
