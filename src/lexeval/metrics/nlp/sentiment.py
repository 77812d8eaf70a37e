"""The ``sentiment`` package (5.0.2) of Node, as Mastra's tone metric calls it: AFINN-165 word
scores and Emoji Sentiment Ranking scores, its tokenizer, and its one negation rule.

``analyze(text)`` gives the ``score`` (the sum of the tokens' scores, a score negated when the
token before it is a negator) and the ``comparative`` score (score / number of tokens).

>>> analyze("I love it").score, analyze("I do not love it").score
(3, -3)
>>> analyze("Cats are stupid.").comparative
-0.6666666666666666
>>> analyze("").comparative  # "" is one empty token
0.0

The word list travels in ``lexeval/data/afinn165_en.json``: AFINN-165 by Finn Årup Nielsen
(Open Database License 1.0, https://opendatacommons.org/licenses/odbl/1-0/), the emoji scores
the ``sentiment`` package derives from the Emoji Sentiment Ranking 1.0 (Kralj Novak et al.
2015, CC BY-SA 4.0) and its negators (MIT); see ``lexeval/data/AFINN_NOTICE.md``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import NamedTuple

from lexeval.metrics.nlp.jsstring import JS_WHITESPACE

__all__ = ["Sentiment", "afinn", "analyze", "negators", "score_tokens", "sentiment_tokens"]

_PUNCT = re.compile(r"[.,/#!?$%^&*;:{}=_`\"~()]")
_SPACE_RUNS = re.compile("[" + re.escape(JS_WHITESPACE) + "]{2,}")


class Sentiment(NamedTuple):
    """``score`` (sum of token scores), ``comparative`` (score per token), ``tokens``."""

    score: int
    comparative: float
    tokens: int


@cache
def _data() -> dict[str, dict[str, int] | list[str]]:
    text = resources.files("lexeval.data").joinpath("afinn165_en.json").read_text("utf-8")
    data: dict[str, dict[str, int] | list[str]] = json.loads(text)
    return data


@cache
def afinn() -> dict[str, int]:
    """Every scored token: AFINN-165's words, then the emoji (a read-only view: do not edit).

    >>> afinn()["good"], len(afinn())
    (3, 4149)
    """
    words = _data()["words"]
    emoji = _data()["emoji"]
    assert isinstance(words, dict) and isinstance(emoji, dict)
    return {**words, **emoji}


@cache
def negators() -> frozenset[str]:
    """The tokens that negate the next token's score. ``constructor`` is one: the package
    looks the previous token up in a plain JavaScript object, where that property is inherited.

    >>> analyze("constructor good").score
    -3
    """
    listed = _data()["negators"]
    assert isinstance(listed, list)
    return frozenset(listed) | {"constructor"}


def sentiment_tokens(text: str) -> list[str]:
    """The package's tokenizer: lower case, punctuation and newlines to spaces, runs of two or
    more white-space characters to one space, trimmed, split on spaces.

    >>> sentiment_tokens("Hello,  World\\tok")
    ['hello', 'world\\tok']
    """
    text = _PUNCT.sub(" ", text.lower().replace("\n", " "))
    return _SPACE_RUNS.sub(" ", text).strip(JS_WHITESPACE).split(" ")


def analyze(text: str) -> Sentiment:
    """The package's ``analyze(text)``: score, comparative score and token count."""
    tokens = sentiment_tokens(text)
    return score_tokens(tokens)


def score_tokens(
    tokens: list[str],
    lexicon: dict[str, int] | None = None,
    negating: frozenset[str] | None = None,
) -> Sentiment:
    """The sum of the tokens' scores (negated after a negator) and the score per token
    (``lexicon`` and ``negating`` default to the package's).

    >>> score_tokens(["never", "good"], negating=frozenset({"never"})).score
    -3
    """
    scores = afinn() if lexicon is None else lexicon
    flip = negators() if negating is None else negating
    score = 0
    for i, token in enumerate(tokens):
        value = scores.get(token)
        if value is None:
            continue
        if i > 0 and tokens[i - 1] in flip:
            value = -value
        score += value
    return Sentiment(score, score / len(tokens) if tokens else 0.0, len(tokens))
