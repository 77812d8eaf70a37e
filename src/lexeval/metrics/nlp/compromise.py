"""What compromise 14.17.0 (the tagger inside ``@mastra/evals`` 0.14.4's ``CompletenessMetric``)
makes of a text there: each word once, the verbs rewritten as their infinitives.

Mastra keeps compromise's nouns, its verb phrases after ``toInfinitive()`` (which rewrites the
document in place), its topics and its terms, folded and split on anything but ``a-z0-9``. Every
word is a term, so the elements are the text's words, each verb phrase replaced the way
compromise's ``toInfinitive`` replaces it:

* the auxiliaries of a phrase (forms of *be*, *have*, *do*, modals) go, and its main verb
  becomes its infinitive (*has been analyzed* → ``analyze``, *can be seen* → ``see``); a phrase
  without a main verb keeps its last auxiliary, as an infinitive (*was* → ``be``, *has* →
  ``have``; a modal stays);
* a negated phrase gains *does* (or *do* after *I*, *we*, *they* or a plural) and *not*;
* the infinitive is compromise's own: its lexicon's conjugations, and its suffix rules for a
  word it does not know (*caching* → ``cach``, as compromise says).

Which words compromise takes for verbs is approximated from its lexicon and a few of its rules
(``docs/metrics.md`` gives the measured agreement and the known differences): a verb form of its
lexicon, or an unknown word in *-ing* or *-ed*, is a verb unless a determiner comes before it; a
word in *-s* is a verb only when the lexicon has it as one and a noun or pronoun comes before
it; a word in *-ed* the lexicon has as an adjective is one unless an auxiliary comes before.

The lexicon's verb forms and the suffix rules travel in ``lexeval/data/compromise_en.json``
(compromise, MIT, Copyright (c) 2019 Spencer Kelly; made by ``benchmarks/compromise_data.mjs``).

>>> elements("The Kubernetes scheduler assigns pods; it has been tested.")
['the', 'kubernetes', 'scheduler', 'assign', 'pods', 'it', 'test']
>>> elements("They did not go, and caching is slow")
['they', 'do', 'not', 'go', 'and', 'cach', 'be', 'slow']
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources

from lexeval.metrics.nlp.jsstring import JS_WHITESPACE, js_trim

__all__ = ["elements", "infinitive"]

_MARKS = re.compile("[\u0300-\u036f]")
_NON_ALNUM = re.compile("[^a-z0-9]+")
_EDGES = re.compile(r"^[^a-z0-9']+|[^a-z0-9']+$")
_SPACE = re.compile("[" + re.escape(JS_WHITESPACE) + "]+")
_CLAUSE_END = re.compile(r"[.!?;:,)\]\"]$")

_COPULA = frozenset({"is", "are", "was", "were", "am", "be", "been", "being"})
_HAVE = frozenset({"has", "have", "had", "having"})
_DO = frozenset({"do", "does", "did"})
_MODAL = frozenset(
    {"can", "could", "will", "would", "shall", "should", "may", "might", "must", "ought"}
)
_NEGATIVE = frozenset({"not", "never", "n't"})
#: Words after which compromise takes a verb form for a noun or an adjective.
_DETERMINER = frozenset(
    {
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "every",
        "each",
        "no",
        "any",
        "some",
    }
)
#: Words after which a word in -s is a noun (its plural), not a verb.
_BEFORE_PLURAL = _DETERMINER - {"this", "that"} | {
    "his",
    "her",
    "its",
    "their",
    "our",
    "my",
    "your",
    "many",
    "several",
    "few",
    "all",
    "most",
    "both",
    "other",
    "such",
    "of",
    "in",
    "on",
    "for",
    "to",
    "with",
    "by",
    "at",
    "from",
    "and",
    "or",
    "as",
    "into",
    "about",
}
_PLURAL_SUBJECT = frozenset({"i", "we", "they"})
_SINGULAR_SUBJECT = frozenset({"he", "she", "it", "you", "that", "this", "which", "who"})
#: Words compromise does not take for the main verb after a modal or *do*.
_NOT_AFTER_MODAL = _DETERMINER | _BEFORE_PLURAL | _PLURAL_SUBJECT | _SINGULAR_SUBJECT | {
    "there",
    "also",
    "then",
    "so",
    "only",
    "still",
    "just",
    "even",
    "too",
    "very",
    "be",
}
_NEGATED = {
    "don't": ("do", "not"),
    "doesn't": ("do", "not"),
    "didn't": ("do", "not"),
    "isn't": ("be", "not"),
    "aren't": ("be", "not"),
    "wasn't": ("be", "not"),
    "weren't": ("be", "not"),
    "can't": ("can", "not"),
    "cannot": ("can", "not"),
    "won't": ("will", "not"),
}
_TENSE_MODEL = {"Pa": "fromPast", "Pt": "fromParticiple", "Pr": "fromPresent", "Ge": "fromGerund"}


@dataclass(frozen=True)
class _Lexicon:
    verbs: dict[str, tuple[str, str]]
    others: dict[str, str]
    models: dict[str, dict[str, dict[str, str]]]


@cache
def _lexicon() -> _Lexicon:
    text = resources.files("lexeval.data").joinpath("compromise_en.json").read_text("utf-8")
    data = json.loads(text)
    verbs = {word: (tense, inf) for word, (tense, inf) in data["verbs"].items()}
    return _Lexicon(verbs, data["others"], data["models"])


def _convert(word: str, model: dict[str, dict[str, str]]) -> str:
    """suffix-thumb's ``convert``: an exception, else the longest matching suffix rule."""
    if word in model["ex"]:
        return model["ex"][word]
    if any(word.endswith(suffix) for suffix in model.get("same", ())):
        return word
    fwd, both = model["fwd"], model["both"]
    for size in range(1, len(word)):
        suffix = word[size:]
        if suffix in fwd:
            return word[:size] + fwd[suffix]
        if suffix in both:
            return word[:size] + both[suffix]
    if "" in fwd:
        return word + fwd[""]
    if "" in both:
        return word + both[""]
    return word


def infinitive(word: str, tense: str) -> str:
    """compromise's infinitive of ``word`` in ``tense`` (``Pa``, ``Pt``, ``Pr``, ``Ge``).

    >>> infinitive("caching", "Ge"), infinitive("fought", "Pa"), infinitive("keeps", "Pr")
    ('cach', 'fight', 'keep')
    """
    known = _lexicon().verbs.get(word)
    if known is not None:
        return known[1]
    if word in _COPULA:
        return "be"
    return _convert(word, _lexicon().models[_TENSE_MODEL[tense]])


def _fold(text: str) -> str:
    """Mastra's ``normalizeString``: NFD, combining marks U+0300-U+036F dropped, lower case."""
    return _MARKS.sub("", unicodedata.normalize("NFD", text)).lower()


@dataclass
class _Word:
    raw: str  # the folded word with its punctuation
    core: str  # without leading and trailing punctuation
    ends_clause: bool
    capital: bool  # written with a capital first letter

    def parts(self) -> list[str]:
        return _NON_ALNUM.sub(" ", self.raw).split()


def _verb_tense(word: _Word, previous: str, after_auxiliary: bool) -> str | None:
    """The tense compromise would give ``word`` as a verb here, or None for a non-verb."""
    core = word.core
    if not core.isalpha() or len(core) < 3:
        return None
    known = _lexicon().verbs.get(core)
    tense = known[0] if known is not None else None
    if tense is None and core not in _lexicon().others:
        if core.endswith("ing") and len(core) > 4:
            tense = "Ge"
        elif core.endswith("ed") and len(core) > 4:
            tense = "Pa"
    if tense is None and after_auxiliary and _lexicon().others.get(core) == "Adjective":
        tense = "Pa" if core.endswith("ed") else None
    if tense is None or tense == "In":
        return tense
    if after_auxiliary:
        return tense
    if previous in _DETERMINER:
        return None
    if tense == "Pr":
        return tense if previous and previous not in _BEFORE_PLURAL else None
    return tense


def _subject_plural(previous: list[str]) -> bool:
    """Whether compromise's ``doDoes`` says *do* (its subject is I, we, they or a plural)."""
    for word in reversed(previous):
        if word in _PLURAL_SUBJECT:
            return True
        if word in _SINGULAR_SUBJECT:
            return False
        if word.isalpha() and not (word in _BEFORE_PLURAL or _auxiliary(word)):
            return word.endswith("s") and not word.endswith(("ss", "us", "is"))
    return False


def _words(text: str) -> list[_Word]:
    out = []
    for written in _SPACE.split(js_trim(text)):
        raw = _fold(written).replace("\u2019", "'")
        if raw:
            core = _EDGES.sub("", raw)
            capital = written[:1].isupper()
            out.append(_Word(raw, core, bool(_CLAUSE_END.search(raw)), capital))
    return out


def _auxiliary(core: str) -> bool:
    return core in _COPULA or core in _HAVE or core in _DO or core in _MODAL


def elements(text: str) -> list[str]:
    """The elements Mastra's ``CompletenessMetric`` takes from ``text``, each once, in order.

    >>> elements("She isn't running; it's Zoë's café")
    ['she', 'be', 'not', 'run', 'it', 's', 'zoe', 'cafe']
    """
    words = _words(text)
    out: list[str] = []
    previous = ""
    i = 0
    while i < len(words):
        word = words[i]
        core = word.core
        if core in _NEGATED:
            out.extend(_NEGATED[core])
            i += 1
            previous = core
            continue
        if core == "let's":
            out.extend(("let", "us"))
        elif core.endswith(("'re", "'m")) and core[: core.index("'")].isalpha():
            out.extend((*_NON_ALNUM.sub(" ", core).split(), "be"))
        elif _auxiliary(core) or (core in _NEGATIVE and i + 1 < len(words)):
            i = _phrase(words, i, out)
            previous = words[i - 1].core
            continue
        else:
            tense = _verb_tense(word, previous, after_auxiliary=False)
            if tense is not None and tense != "In":
                out.extend(_NON_ALNUM.sub(" ", infinitive(core, tense)).split())
            else:
                out.extend(word.parts())
        previous = core
        i += 1
    return list(dict.fromkeys(out))


def _phrase(words: list[_Word], start: int, out: list[str]) -> int:
    """A verb phrase from ``start`` (an auxiliary or a negative): its elements go to ``out``;
    returns the index after it."""
    auxiliaries: list[str] = []
    adverbs: list[str] = []
    negative = False
    i = start
    while i < len(words):
        core = words[i].core
        if _auxiliary(core):
            auxiliaries.append(core)
        elif core in _NEGATIVE:
            negative = True
            if core == "never":
                adverbs.append(core)
        elif core.endswith("ly") and auxiliaries and core.isalpha():
            adverbs.append(core)
        else:
            break
        i += 1
        if words[i - 1].ends_clause:
            break
    main: str | None = None
    if i < len(words) and not words[i - 1].ends_clause:
        tense = _verb_tense(words[i], words[i - 1].core, after_auxiliary=bool(auxiliaries))
        after_modal = bool(auxiliaries) and auxiliaries[-1] in _MODAL
        nxt = words[i]
        if (
            tense is None
            and after_modal
            and nxt.core.isalpha()
            and not nxt.capital
            and nxt.core not in _NOT_AFTER_MODAL
        ):
            tense = "In"
        if tense is not None:
            main = words[i].core if tense == "In" else infinitive(words[i].core, tense)
            i += 1
    if negative:
        before = [w.core for w in words[:start]]
        root_is_copula = main is None and bool(auxiliaries) and auxiliaries[-1] in _COPULA
        out.append("do" if _subject_plural(before) or root_is_copula else "does")
        out.append("not")
    out.extend(adverbs)
    if main is not None:
        out.extend(_NON_ALNUM.sub(" ", main).split())
    elif auxiliaries:
        last = auxiliaries[-1]
        if last in _COPULA:
            out.append("be")
        elif last in _HAVE:
            out.append("have")
        elif last in _DO:
            out.append("do")
        else:
            out.append(last)
    return i
