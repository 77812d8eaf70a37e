"""The settings of lexeval's own normalization and its named presets.

>>> PRESETS["tokens"].stopwords, PRESETS["rouge"].stemmer
(False, 'auto')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["PRESETS", "CompatName", "NormalizerConfig", "StemmerName"]

StemmerName = Literal["porter", "snowball", "auto"]
CompatName = Literal["mastra", "squad", "rouge-score"]


@dataclass(frozen=True)
class NormalizerConfig:
    """Every setting of a :class:`~lexeval.normalize.Normalizer`; presets are instances of
    this class."""

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
