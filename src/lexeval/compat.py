"""Exact re-implementations of the peers' text handling, for the compatibility modes.

Three peers are reproduced, each written from its documented or observed behaviour:

* ``@mastra/evals`` keyword coverage (keyword-extractor 0.0.28 with the options Mastra passes):
  :func:`mastra_keywords`, :func:`mastra_keyword_coverage`.
* The SQuAD v1.1 evaluation script: :func:`squad_normalize_answer`, :func:`squad_f1`,
  :func:`squad_exact_match`.
* Google's rouge-score 0.1.2 default tokenizer: :func:`rouge_score_tokens`,
  :func:`rouge_score_sentences`.

All functions are pure and cheap to import (the Porter stemmer loads only when stemming is
asked for: :mod:`lexeval.porter`, nltk's algorithm without importing nltk).

rouge-score's tokens come from the compiled module ``lexeval.native.rouge`` when it is built
(:data:`NATIVE_ROUGE`); the Python code here is the reference it equals (see
:mod:`lexeval.native`).

>>> mastra_keywords("The quick brown fox jumps over the lazy dog")
['quick', 'brown', 'fox', 'jumps', 'lazy', 'dog']
>>> squad_normalize_answer("The Eiffel Tower!")
'eiffel tower'
>>> rouge_score_tokens("Running dogs, 2 cats.", stemmer=True)
['run', 'dog', '2', 'cat']
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from importlib import resources
from typing import Literal, cast

from lexeval.checks import check_references, check_text
from lexeval.native import PURE_PYTHON

try:  # the compiled fast path (lexeval.native), unless LEXEVAL_PURE_PYTHON asks for Python
    if PURE_PYTHON:
        raise ImportError("LEXEVAL_PURE_PYTHON is set")
    from lexeval.native import rouge as native_rouge

    NATIVE_ROUGE = True
except ImportError:
    NATIVE_ROUGE = False

__all__ = [
    "MASTRA_WHITESPACE",
    "NATIVE_ROUGE",
    "clear_stem_cache",
    "mastra_keyword_coverage",
    "mastra_keywords",
    "mastra_stopwords",
    "rouge_score_sentences",
    "rouge_score_stem_each",
    "rouge_score_stems",
    "rouge_score_tokens",
    "squad_counts",
    "squad_exact_match",
    "squad_f1",
    "squad_normalize_answer",
    "squad_tokens",
]


# --------------------------------------------------------------------------------------------
# Mastra (@mastra/evals KeywordCoverageMetric and keyword-coverage scorer)
# --------------------------------------------------------------------------------------------

#: The characters JavaScript's ``\s`` and ``String.prototype.trim`` treat as white space.
MASTRA_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_SPLIT = re.compile("[" + re.escape(MASTRA_WHITESPACE) + "]")
# ASCII characters Python's str.split() treats as white space but JavaScript does not.
_ASCII_NON_JS_SPACE = re.compile("[\x1c-\x1f]")
# Characters keyword-extractor deletes anywhere in a non-URL token.
_MASTRA_DELETE = str.maketrans("", "", '.,;!?():"\u201c\u201d\u2018\u2019')
_MASTRA_SINGLE_DROP = frozenset("_@&#")


@cache
def mastra_stopwords() -> frozenset[str]:
    """The 570 English stopwords of keyword-extractor 0.0.28 (bundled package data).

    >>> len(mastra_stopwords()), "the" in mastra_stopwords(), "fox" in mastra_stopwords()
    (570, True, False)
    """
    text = resources.files("lexeval").joinpath("data/mastra_stopwords_en.txt").read_text("utf-8")
    return frozenset(line for line in text.split("\n") if line)


def _strip_tags(text: str) -> str:
    """Delete every ``<`` up to the next ``>`` (the regex ``<[^>]+>``), in linear time."""
    if "<" not in text:
        return text
    parts: list[str] = []
    pos = 0
    n = len(text)
    while True:
        lt = text.find("<", pos)
        if lt < 0:
            break
        # "<>" does not match (one character at least); the regex then resumes after "<".
        if lt + 1 < n and text[lt + 1] == ">":
            parts.append(text[pos : lt + 1])
            pos = lt + 1
            continue
        gt = text.find(">", lt + 1)
        if gt < 0:  # no ">" anywhere after: no later "<" can match either
            break
        parts.append(text[pos:lt])
        pos = gt + 1
    parts.append(text[pos:])
    return "".join(parts)


def _mastra_token(token: str) -> str:
    if "http://" in token or "https://" in token:
        return token  # a URL: kept exactly as written
    start = 1 if token[0] == "'" else 0
    end = len(token) - 1 if token[-1] == "'" and len(token) - 1 >= start else len(token)
    word = token[start:end].translate(_MASTRA_DELETE)
    if len(word) == 1 and word in _MASTRA_SINGLE_DROP:
        return ""
    if word.isascii() and word.isdigit():
        return ""
    return word


@lru_cache(maxsize=65536)
def _mastra_word(token: str) -> str | None:
    """The keyword a single white-space token gives, or None (cached per token)."""
    word = _mastra_token(token)
    if not word:
        return None
    if "http://" in word or "https://" in word:
        return word
    low = word.lower()
    if low in mastra_stopwords():
        return None
    return low


def mastra_keywords(text: str) -> list[str]:
    """Keywords exactly as ``@mastra/evals`` extracts them (keyword-extractor 0.0.28).

    HTML-like tags are deleted, the text is split on JavaScript white space, punctuation
    ``. , ; ! ? ( ) : "`` and curly quotes are deleted, apostrophes at a token's ends are
    deleted, tokens of ASCII digits only are dropped, the rest is lower-cased (URLs keep
    their case), 570 English stopwords are dropped and duplicates removed.

    Rules for empty input: ``""``, blank text and text made only of stopwords, digits or
    punctuation give ``[]``.

    >>> mastra_keywords("Discuss React.js component lifecycle and state management")
    ['discuss', 'reactjs', 'component', 'lifecycle', 'state', 'management']
    >>> mastra_keywords("Data DATA data, 1,000 users; see https://Example.com/A")
    ['data', 'users', 'https://Example.com/A']
    >>> mastra_keywords("")
    []
    """
    check_text(text, "text")
    if not text:
        return []
    text = _strip_tags(text)
    if text.isascii() and not _ASCII_NON_JS_SPACE.search(text):
        tokens = text.split()  # same split as JavaScript's for ASCII without U+001C..U+001F
    else:
        tokens = _JS_SPLIT.split(text.strip(MASTRA_WHITESPACE))
    seen: dict[str, None] = {}
    word_of = _mastra_word
    for token in tokens:
        if token:
            word = word_of(token)
            if word is not None:
                seen[word] = None
    return list(seen)


MastraMode = Literal["metric", "scorer"]


def mastra_keyword_coverage(
    input: str, output: str, *, mode: MastraMode = "metric"
) -> tuple[float, int, int, list[str], list[str]]:
    """Mastra's keyword coverage: ``(score, matched, total, input_keywords, output_keywords)``.

    ``mode="metric"`` is ``KeywordCoverageMetric`` (0.14.4): 1.0 when both texts are ``""``,
    otherwise matched/total and 0.0 when the input has no keywords. ``mode="scorer"`` is
    ``createKeywordCoverageScorer`` (1.10.2): 1.0 when the input has no keywords. (The scorer
    joins chat messages with ``", "``; pass the joined text.)

    >>> mastra_keyword_coverage("The quick brown fox jumps over the lazy dog",
    ...                         "A quick brown fox jumped over a lazy dog")[:3]
    (0.8333333333333334, 5, 6)
    >>> mastra_keyword_coverage("the and of", "quick fox")[0]
    0.0
    >>> mastra_keyword_coverage("the and of", "quick fox", mode="scorer")[0]
    1.0
    """
    check_text(input, "input")
    check_text(output, "output")
    if mode not in ("metric", "scorer"):
        raise ValueError(f"mode must be 'metric' or 'scorer', not {mode!r}")
    ref = mastra_keywords(input)
    out = mastra_keywords(output)
    out_set = set(out)
    matched = sum(1 for k in ref if k in out_set)
    total = len(ref)
    if mode == "metric":
        both_empty = input == "" and output == ""
        score = 1.0 if both_empty else (matched / total if total else 0.0)
    else:
        score = matched / total if total else 1.0
    return score, matched, total, ref, out


# --------------------------------------------------------------------------------------------
# SQuAD v1.1 official evaluation
# --------------------------------------------------------------------------------------------

_SQUAD_PUNCT = str.maketrans("", "", string.punctuation)
_SQUAD_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


@lru_cache(maxsize=262144)
def squad_normalize_answer(s: str) -> str:
    """SQuAD v1.1 answer normalization: lower case, drop punctuation and articles, fix spaces.

    >>> squad_normalize_answer("  An  apple, the PIE... and a-ha!")
    'apple pie and aha'
    """
    check_text(s, "s")
    text = s.lower().translate(_SQUAD_PUNCT)
    text = _SQUAD_ARTICLES.sub(" ", text)
    return " ".join(text.split())


@lru_cache(maxsize=262144)
def squad_counts(s: str) -> tuple[Counter[str], int]:
    """The SQuAD tokens of ``s`` counted, and how many there are (cached per process; do not
    modify the returned Counter).

    >>> squad_counts("The cat and the cat")
    (Counter({'cat': 2, 'and': 1}), 3)
    """
    tokens = squad_normalize_answer(s).split()
    return Counter(tokens), len(tokens)


def squad_tokens(s: str) -> list[str]:
    """The tokens the SQuAD script compares: its normalized answer split on white space.

    >>> squad_tokens("The Denver Broncos.")
    ['denver', 'broncos']
    """
    return squad_normalize_answer(s).split()


def _as_golds(ground_truth: str | Sequence[str]) -> Sequence[str]:
    if isinstance(ground_truth, (list, tuple)) and not ground_truth:
        return ()  # the script scores an empty gold list 0.0
    return check_references(ground_truth, "ground_truth")


def _squad_f1_one(prediction: str, gold: str) -> float:
    pred_counts, pred_len = squad_counts(prediction)
    gold_counts, gold_len = squad_counts(gold)
    if pred_len == 0 or gold_len == 0:
        return 0.0
    small, large = pred_counts, gold_counts
    if len(small) > len(large):
        small, large = large, small
    same = 0
    for tok, c in small.items():
        other = large.get(tok)
        if other:
            same += c if c < other else other
    if same == 0:
        return 0.0
    precision = 1.0 * same / pred_len
    recall = 1.0 * same / gold_len
    return (2 * precision * recall) / (precision + recall)


def squad_f1(prediction: str, ground_truth: str | Sequence[str]) -> float:
    """Official SQuAD v1.1 token F1, the maximum over the gold answers.

    An empty normalized prediction or gold gives 0.0; an empty gold list gives 0.0.

    >>> squad_f1("the cat sat", "a cat sat down")
    0.8
    >>> squad_f1("Denver", ["Denver Broncos", "Broncos"])
    0.6666666666666666
    """
    check_text(prediction, "prediction")
    golds = _as_golds(ground_truth)
    return max((_squad_f1_one(prediction, g) for g in golds), default=0.0)


def squad_exact_match(prediction: str, ground_truth: str | Sequence[str]) -> float:
    """Official SQuAD v1.1 exact match (1.0 or 0.0), the maximum over the gold answers.

    >>> squad_exact_match("The Broncos!", ["Denver Broncos", "broncos"])
    1.0
    """
    check_text(prediction, "prediction")
    golds = _as_golds(ground_truth)
    pred = squad_normalize_answer(prediction)
    return 1.0 if any(squad_normalize_answer(g) == pred for g in golds) else 0.0


# --------------------------------------------------------------------------------------------
# rouge-score 0.1.2 (google-research)
# --------------------------------------------------------------------------------------------

_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")
_ROUGE_VALID = re.compile(r"^[a-z0-9]+$")
# For ASCII text: every byte outside [a-z0-9] becomes a space (same tokens as the regex).
_ROUGE_ASCII = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))


@cache
def _porter() -> Callable[[str], str]:
    # lazy: only when stemming is asked for; nltk's algorithm without nltk's package import
    from lexeval.porter import PorterStemmer

    return PorterStemmer().stem


#: rouge-score's token for each token seen, after stemming ("" when the stem is dropped: not
#: ``[a-z0-9]+``); tokens of at most three characters map to themselves. Values depend on the
#: token alone, so threads may share it (a lost write is recomputed, never wrong).
_STEMS: dict[str, str] = {}
_STEMS_MAX = 262144


def _stem_token(token: str) -> str:
    """rouge-score's stemmed form of ``token`` ("" when dropped), remembered in ``_STEMS``."""
    if len(token) > 3:
        stemmed = _porter()(token)
        found = stemmed if _ROUGE_VALID.match(stemmed) else ""
    else:
        found = token
    if len(_STEMS) >= _STEMS_MAX:
        _STEMS.clear()
    _STEMS[token] = found
    return found


def clear_stem_cache() -> None:
    """Forget the Porter stems this process has computed, the compiled path's too (benchmarks
    time cold runs).

    >>> rouge_score_tokens("running", stemmer=True)
    ['run']
    >>> clear_stem_cache()
    >>> rouge_score_tokens("running", stemmer=True)
    ['run']
    """
    _STEMS.clear()
    if NATIVE_ROUGE:
        native_rouge.clear()


def rouge_score_tokens(text: str, *, stemmer: bool) -> list[str]:
    """rouge-score 0.1.2's default tokenizer, exactly.

    Lower case, every run of characters outside ``[a-z0-9]`` is a separator, and with
    ``stemmer=True`` nltk's Porter stemmer (its default mode, :mod:`lexeval.porter`) is
    applied to tokens longer than three characters. Stems are cached per process. With
    :data:`NATIVE_ROUGE` the compiled module does it all (the same tokens).

    >>> rouge_score_tokens("The QUICK brown-fox, jumping!", stemmer=False)
    ['the', 'quick', 'brown', 'fox', 'jumping']
    >>> rouge_score_tokens("The QUICK brown-fox, jumping!", stemmer=True)
    ['the', 'quick', 'brown', 'fox', 'jump']
    >>> rouge_score_tokens("Привет мир", stemmer=False)
    []
    """
    check_text(text, "text")
    if NATIVE_ROUGE:
        return native_rouge.tokens(text, stemmer)
    low = text.lower()
    if low.isascii():
        tokens = low.encode("ascii").translate(_ROUGE_ASCII).decode("ascii").split()
    else:
        tokens = _ROUGE_TOKEN.findall(low)
    return rouge_score_stems(tokens) if stemmer else tokens


def rouge_score_stems(tokens: list[str]) -> list[str]:
    """rouge-score's stemming of its tokens (``[a-z0-9]+`` each): the Porter stems of tokens
    longer than three characters, a stem that is not ``[a-z0-9]+`` dropped; each distinct token
    is stemmed once per process (remembered, bounded).

    >>> rouge_score_stems(["the", "dogs", "were", "running"])
    ['the', 'dog', 'were', 'run']
    """
    stems = rouge_score_stem_each(tokens)
    if "" in stems:
        return [s for s in stems if s]
    return stems


def rouge_score_stem_each(tokens: list[str]) -> list[str]:
    """:func:`rouge_score_stems` without dropping: one entry per token, ``""`` where the stem
    is dropped (the batch path stems the tokens of many texts in one pass, then splits them).

    >>> rouge_score_stem_each(["cats", "ran"])
    ['cat', 'ran']
    """
    # one C-level pass over the remembered stems; each new token goes to the stemmer once
    known = list(map(_STEMS.get, tokens))
    if None in known:
        # each token the first pass missed, stemmed once; the others keep what it found
        missed = [token for token, stem in zip(tokens, known, strict=True) if stem is None]
        new = {token: _stem_token(token) for token in missed}
        known = list(map(new.get, tokens, known))
    return cast(list[str], known)


def rouge_score_sentences(text: str) -> list[str]:
    """rouge-score's rougeLsum sentences: the text split on ``"\\n"``, empty lines dropped.

    >>> rouge_score_sentences("One.\\n\\nTwo three.\\n")
    ['One.', 'Two three.']
    """
    check_text(text, "text")
    return [s for s in text.split("\n") if s]
