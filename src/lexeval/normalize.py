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

The work is done by the text processor a :class:`Normalizer` builds from its preset and options
(:attr:`Normalizer.processor`): lexeval's :class:`~lexeval.text.processor.StepProcessor` (the
steps of :mod:`lexeval.text.steps`), or a peer's processor of :mod:`lexeval.text.peers` for the
compatibility presets, whose signature it has:

>>> from lexeval.text import RougeScoreProcessor
>>> Normalizer("rouge-score").signature == RougeScoreProcessor().signature
True
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from typing import Any, TypeVar, cast, overload

from lexeval.checks import check_text, check_texts
from lexeval.text.base import KeywordAnalysis, TextProcessor, TokenSource, keyword_analysis
from lexeval.text.config import PRESETS, CompatName, NormalizerConfig, StemmerName
from lexeval.text.peers import peer_processor
from lexeval.text.processor import Explanation, StepProcessor
from lexeval.text.resources import check_language
from lexeval.text.steps import KEEP_WORDS, LEMMA_OVERRIDES

__all__ = [
    "KEEP_WORDS",
    "LEMMA_OVERRIDES",
    "PRESETS",
    "CompatName",
    "Explanation",
    "Normalizer",
    "NormalizerConfig",
    "StemmerName",
    "resolve_normalizer",
    "shared_normalizer",
]

_OPTION_NAMES = frozenset(f.name for f in fields(NormalizerConfig)) - {"compat"}


class Normalizer:
    """Turns text into normalized keys; one instance per configuration.

    A class (not a function returning processors) so that ``isinstance(x, Normalizer)``, its
    attributes (``preset``, ``language``, ``config``) and ``explain`` work the same for every
    preset; the work is its :attr:`processor`'s.

    Args:
        preset: ``default``, ``tokens``, ``rouge``, ``none``, ``mastra``, ``squad`` or
            ``rouge-score`` (see :data:`PRESETS`).
        language: a spaCy language code (``en``, ``de``, ``ru``, ``zh``, ...); an unknown
            code is a ValueError (:func:`lexeval.text.resources.check_language`).
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

    processor: TextProcessor

    def __init__(
        self,
        preset: str = "default",
        language: str = "en",
        *,
        cache_size: int = 100_000,
        **options: Any,
    ) -> None:
        check_text(preset, "preset")
        check_text(language, "language")
        check_language(language)
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
        unknown = sorted(set(options) - _OPTION_NAMES)
        if unknown:
            raise TypeError(f"unknown Normalizer option(s): {', '.join(unknown)}")
        base = PRESETS[preset]
        if base.compat is not None and set(options) - {"stemmer"}:
            raise ValueError(f"preset {preset!r} reproduces a peer exactly and takes no options")
        config = replace(base, **_coerce_options(options))
        if config.stemmer not in (None, "porter", "snowball", "auto"):
            raise ValueError(
                f"stemmer must be 'porter', 'snowball', 'auto' or None, not {config.stemmer!r}"
            )
        if config.compat == "rouge-score" and config.stemmer not in (None, "porter"):
            raise ValueError("rouge-score only stems with Porter: use stemmer='porter' or None")
        length = config.stem_min_length
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise ValueError(f"stem_min_length must be an int >= 1, not {length!r}")
        self._setup(preset, language, config, cache_size)

    def _setup(self, preset: str, language: str, config: NormalizerConfig, cache_size: int) -> None:
        self.preset = preset
        self.language = language
        self.config = config
        self.cache_size = cache_size
        if config.compat is not None:
            self.processor = peer_processor(config.compat, stemmer=config.stemmer == "porter")
        else:
            self.processor = StepProcessor(config, language, preset=preset, cache_size=cache_size)
        # the processor's own one-analysis method, called without the generic function's look-up
        self._keyword_analysis: Callable[[str], KeywordAnalysis] | None = getattr(
            self.processor, "keyword_analysis", None
        )

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
        self._setup(state["preset"], state["language"], state["config"], state["cache_size"])

    def __repr__(self) -> str:
        return f"Normalizer(preset={self.preset!r}, language={self.language!r})"

    # ------------------------------------------------------------------ public API

    def tokens(self, text: str) -> list[str]:
        """The normalized sequence, duplicates kept (for token-F1 and ROUGE).

        >>> Normalizer().tokens("Dogs chase cats; cats chase mice.")
        ['dog', 'chase', 'cat', 'cat', 'chase', 'mouse']
        """
        return self.processor.tokens(text)

    def analyze(self, text: str, *, merge_compounds: bool = True) -> list[tuple[str, bool]]:
        """Every key with its stopword flag, before stopwords are removed (what :meth:`tokens`
        filters); ``merge_compounds=False`` leaves compound terms as their parts.

        >>> Normalizer().analyze("The neural networks")
        [('the', True), ('neural network', False)]
        >>> Normalizer().analyze("The neural networks", merge_compounds=False)
        [('the', True), ('neural', False), ('network', False)]
        """
        return self.processor.analyze(text, merge_compounds=merge_compounds)

    def keyword_analysis(self, text: str) -> KeywordAnalysis:
        """:meth:`keywords` and every key (stopwords kept, compound terms as their parts) from
        one analysis (what lenient keyword matching needs).

        >>> Normalizer().keyword_analysis("The neural networks")
        KeywordAnalysis(keywords=['neural network'], keys=['the', 'neural', 'network'])
        """
        analyze = self._keyword_analysis
        if analyze is not None:
            return analyze(text)
        return keyword_analysis(self.processor, text)

    def tokens_many(self, texts: Iterable[str]) -> list[list[str]]:
        """:meth:`tokens` of many texts, equal to calling it on each, after :meth:`prefetch`.

        >>> Normalizer().tokens_many(["Dogs bark.", "", "Cats purr"])
        [['dog', 'bark'], [], ['cat', 'purr']]
        """
        items = check_texts(texts)
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
        self.processor.prefetch(texts)

    def keywords(self, text: str) -> list[str]:
        """The distinct keys in order of first appearance; compound terms are one key.

        >>> Normalizer().keywords("Neural networks: a neural network is not magic.")
        ['neural network', 'not', 'magic']
        """
        return self.processor.keywords(text)

    def sentences(self, text: str) -> list[str]:
        """Split text into sentences without downloaded models (for ROUGE-Lsum).

        Text with several non-empty lines is taken as one sentence a line (rouge-score's
        convention); otherwise the rule of spaCy's ``sentencizer`` splits it (a sentence ends
        after ``.``, ``!``, ``?`` and the like, once a token that is not punctuation follows),
        on the normalizer's own tokens, in time linear in the text's length. The compatibility
        presets split as their peer does.

        >>> Normalizer().sentences("It rained. We stayed in! Did you?")
        ['It rained.', 'We stayed in!', 'Did you?']
        """
        return self.processor.sentences(text)

    @property
    def signature(self) -> str:
        """A stable, readable string of every setting that changes results (a compatibility
        preset's is its peer processor's).

        >>> Normalizer("none").signature.startswith("preset:none|lang:en|")
        True
        """
        return self.processor.signature

    def explain(self, text: str) -> Explanation:
        """What each step produced: the processor's own steps, run one at a time without
        caches. The result's ``tokens`` always equal :meth:`tokens` (a property test checks it).

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
        processor = self.processor
        if isinstance(processor, StepProcessor):
            return processor.explain(text)
        check_text(text, "text")
        tokens = tuple(processor.tokens(text))
        name = self.config.compat or "tokens"
        return Explanation(
            text, ((name, tokens),), tokens, tuple(dict.fromkeys(tokens)), self.signature
        )


P = TypeVar("P", bound=TokenSource)


@overload
def resolve_normalizer(
    normalizer: str | None, default: str = "default", *, tokens_only: bool = False
) -> Normalizer: ...


@overload
def resolve_normalizer(
    normalizer: P, default: str = "default", *, tokens_only: bool = False
) -> P: ...


def resolve_normalizer(
    normalizer: TokenSource | str | None, default: str = "default", *, tokens_only: bool = False
) -> TokenSource:
    """The text processor a metric (or the card matcher) works with: for a preset name, the
    process's shared :class:`Normalizer` of that preset (``default`` for None); any text
    processor as given (a Normalizer, a peer's processor, your own). ``tokens_only`` accepts
    anything with ``tokens`` and ``signature`` (:class:`~lexeval.text.TokenSource`, all the card
    matcher needs) instead of a full :class:`~lexeval.text.TextProcessor`.

    >>> from lexeval.text import SquadProcessor
    >>> resolve_normalizer(SquadProcessor()).signature
    'norm:squad-v1.1'
    >>> resolve_normalizer("rouge") is resolve_normalizer(None, "rouge")
    True
    >>> resolve_normalizer(3)
    Traceback (most recent call last):
    ...
    TypeError: normalizer must be a Normalizer (or another text processor), a preset name or \
None, not int
    """
    if normalizer is None:
        normalizer = default
    if isinstance(normalizer, str):
        return shared_normalizer(normalizer)
    if isinstance(normalizer, TokenSource if tokens_only else TextProcessor):
        return normalizer
    raise TypeError(
        "normalizer must be a Normalizer (or another text processor), a preset name or None, "
        f"not {type(normalizer).__name__}"
    )


@functools.lru_cache(maxsize=64)
def shared_normalizer(preset: str = "default", language: str = "en") -> Normalizer:
    """One Normalizer per preset, language and process: every metric and card run built from a
    name (and a language: ``lexeval score --language``) shares its caches (a Normalizer is safe
    to share between threads).

    >>> shared_normalizer("rouge", "de") is shared_normalizer("rouge", "de")
    True
    >>> shared_normalizer("rouge", "de").signature.split("|")[:2]
    ['preset:rouge', 'lang:de']
    """
    return Normalizer(preset=preset, language=language)


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
