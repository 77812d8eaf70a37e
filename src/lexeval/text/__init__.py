"""lexeval's text layer: every way lexeval turns text into comparable keys, behind one protocol.

- :class:`TextProcessor` (:mod:`lexeval.text.base`): ``tokens``, ``keywords``, ``analyze``,
  ``sentences``, ``prefetch``, ``signature`` (:class:`TokenSource`: its ``tokens`` and
  ``signature`` alone);
- lexeval's own processor, :class:`~lexeval.text.processor.StepProcessor`: the steps of
  :mod:`lexeval.text.steps` (Unicode, tokenization with the technical-term rules, words and
  punctuation, case, lemmas and stems, compounds, stopwords) over the per-process spaCy
  resources of :mod:`lexeval.text.resources`; :class:`lexeval.Normalizer` builds it (or a
  peer's processor, for a compatibility preset) from a preset and options;
- the peers' processors over :mod:`lexeval.compat` (:mod:`lexeval.text.peers`): Mastra, SQuAD,
  rouge-score, white space;
- the lenient-matching normalization (:mod:`lexeval.text.lenient`): accent folding, number words;
- :class:`Signature` (:mod:`lexeval.text.signature`): the settings string that names what differs.

Importing this package loads no spaCy.

>>> from lexeval.text import RougeScoreProcessor, Signature, TextProcessor
>>> isinstance(RougeScoreProcessor(), TextProcessor)
True
"""

from __future__ import annotations

from lexeval.text.base import TextProcessor, TokenSource
from lexeval.text.lenient import NUMBER_WORDS_EN, canonical_key, fold_accents
from lexeval.text.peers import (
    MastraProcessor,
    RougeScoreProcessor,
    SquadProcessor,
    WhitespaceProcessor,
    peer_processor,
)
from lexeval.text.signature import Signature

__all__ = [
    "NUMBER_WORDS_EN",
    "MastraProcessor",
    "RougeScoreProcessor",
    "Signature",
    "SquadProcessor",
    "TextProcessor",
    "TokenSource",
    "WhitespaceProcessor",
    "canonical_key",
    "fold_accents",
    "peer_processor",
]
