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
  contractions are compromise's (*isn't* is *is* and *not*; *it's* the noun *it's* and *is*);
* the infinitive is compromise's own suffix model (*caching* → ``cach``, as compromise says).

Which words are verbs is decided as compromise's tagger decides it, in part: its tokenizer
(``splitWords``: hyphens, lone punctuation; the ``machine`` form of a word), its contractions
and ``contractionTwo`` (possessive or *is*/*has*), its first passes (lexicon, title case,
word endings, regular expressions, acronyms, neighbours, ``fillTags``, the clues that settle a
word of two parts of speech, clause by clause as its ``quickSplit`` cuts a sentence), its
``setTag`` (a tag removes the tags it rules out), and of its ~570 post-tagger patterns the few
that turn a verb into a noun, an adjective or a condition (``_post``). The rest of its
post-tagger, its chunker and its verb-phrase parser are not, which is where the differences
left come from (``docs/metrics.md`` measures them on fresh text: 95.3% exact).

compromise's data travel in ``lexeval/data/compromise_en.json`` (compromise 14.17.0, MIT,
Copyright (c) 2019 Spencer Kelly; see ``lexeval/data/COMPROMISE_NOTICE.md``), made by
``benchmarks/compromise_data.mjs`` from the installed package.

>>> elements("The Kubernetes scheduler assigns pods; it has been tested.")
['the', 'kubernetes', 'scheduler', 'assign', 'pods', 'it', 'test']
>>> elements("They did not go, and caching is slow")
['they', 'do', 'not', 'go', 'and', 'caching', 'be', 'slow']
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from lexeval.metrics.nlp.jsstring import JS_WHITESPACE, js_trim

__all__ = ["elements", "infinitive"]

_MARKS = re.compile("[\u0300-\u036f]")
_NON_ALNUM = re.compile("[^a-z0-9]+")
_EDGES = re.compile(r"^[^a-z0-9']+|[^a-z0-9']+$")
_CHILLIN = re.compile("[sn]'$")
_TEXT_EDGES = re.compile(r"^[^\w#@]+|[^\w']+$")
_SPACE = re.compile("[" + re.escape(JS_WHITESPACE) + "]+")
_CLAUSE_END = re.compile(r"[.!?;:,)\]\"]$")

_COPULA = frozenset({"is", "are", "was", "were", "am", "be", "been", "being"})
_HAVE = frozenset({"has", "have", "had", "having"})
_DO = frozenset({"do", "does", "did"})
_MODAL = frozenset(
    {"can", "could", "will", "would", "shall", "should", "may", "might", "must", "ought"}
)
_NEGATIVE = frozenset({"not", "never", "n't"})
_TENSE_MODEL = {"Pa": "fromPast", "Pt": "fromParticiple", "Pr": "fromPresent", "Ge": "fromGerund"}


@dataclass(frozen=True)
class _Data:
    lexicon: dict[str, str]  # word -> its tags, comma-separated
    switches: dict[str, str]  # word -> kind of switch ("Plural|Verb"...)
    clues: dict[str, dict[str, dict[str, str]]]  # kind -> beforeWords... -> word or tag -> tag
    parents: dict[str, list[str]]
    nots: dict[str, list[str]]
    suffixes: list[dict[str, str]]  # by length of the ending
    regexes: list[tuple[re.Pattern[str], str]]
    ends_with: dict[str, list[tuple[re.Pattern[str], str]]]  # by last letter
    neighbours: dict[str, list[tuple[str, str]]]
    abbreviations: frozenset[str]
    models: dict[str, dict[str, dict[str, str]]]
    hyphen_prefixes: frozenset[str]
    hyphen_suffixes: frozenset[str]
    text_regexes: list[tuple[re.Pattern[str], str]]
    number_regexes: list[tuple[re.Pattern[str], str]]


def _js_regexes(rules: list[list[str]]) -> list[tuple[re.Pattern[str], str]]:
    """``[source, tags, flags]`` rules as Python patterns (ASCII classes, as JavaScript's)."""
    return [
        (re.compile(source, re.ASCII | (re.I if "i" in flags else 0)), tag)
        for source, tag, flags in rules
    ]


@cache
def _data() -> _Data:
    text = resources.files("lexeval.data").joinpath("compromise_en.json").read_text("utf-8")
    d = json.loads(text)
    regexes = [(re.compile(source, re.ASCII), tag) for source, tag in d["regexes"]["normal"]]
    ends_with = {
        last: [(re.compile(source, re.ASCII), tag) for source, tag in rules]
        for last, rules in d["regexes"]["endsWith"].items()
    }
    neighbours = {k: [(a, b) for a, b in v] for k, v in d["neighbours"].items()}
    return _Data(
        d["lexicon"],
        d["switches"],
        d["clues"],
        d["parents"],
        d["nots"],
        d["suffixes"],
        regexes,
        ends_with,
        neighbours,
        frozenset(d["abbreviations"]),
        d["models"],
        frozenset(d["hyphenPrefixes"]),
        frozenset(d["hyphenSuffixes"]),
        _js_regexes(d["regexes"]["text"]),
        _js_regexes(d["regexes"]["numbers"]),
    )


@cache
def _with_parents(tags: str) -> frozenset[str]:
    parents = _data().parents
    out = set()
    for tag in tags.split(","):
        out.add(tag)
        out.update(parents.get(tag, ()))
    return frozenset(out)


@cache
def _setting(tag: str) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(_data().nots.get(tag, ())), _with_parents(tag)


def _set_tag(tags: frozenset[str], tag: str) -> frozenset[str]:
    """compromise's ``setTag``: the tag and its parents added, the tags it rules out removed."""
    if tag in tags:
        return tags
    nots, added = _setting(tag)
    return (tags - nots) | added


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
    if word in _COPULA:
        return "be"
    return _convert(word, _data().models[_TENSE_MODEL[tense]])


def _fold(text: str) -> str:
    """Mastra's ``normalizeString``: NFD, combining marks U+0300-U+036F dropped, lower case."""
    return _MARKS.sub("", unicodedata.normalize("NFD", text)).lower()


_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
_PREFIX = re.compile("^(under|over|mis|re|un|dis|semi)-?")
_LEXICON_PREFIX = re.compile("^(under|over|mis|re|un|dis|semi|pre|post)-?")
_PREFIX_TAGS = frozenset(
    {"Verb", "Infinitive", "PastTense", "Gerund", "PresentTense", "Adjective", "Participle"}
)
_NOT_PROPER = frozenset({"Date", "Month", "WeekDay", "Unit", "Expression"})
_TENSES: tuple[tuple[str, str], ...] = (
    ("Infinitive", "In"),
    ("Participle", "Pt"),
    ("PastTense", "Pa"),
    ("Gerund", "Ge"),
    ("PresentTense", "Pr"),
)


@dataclass
class _Word:
    raw: str  # the folded word with its punctuation
    core: str  # without leading and trailing punctuation
    ends_clause: bool
    capital: bool  # written in title case (a capital, then a small letter)
    index: int = 0  # place in its sentence
    at: int = 0  # place in its clause (compromise tags a sentence clause by clause)
    post: str = ""  # the punctuation after the word
    tags: frozenset[str] = frozenset()
    switch: str | None = None
    written: str | None = None  # compromise's normal, where not the core: a contraction's
    text: str = ""  # as written, without the punctuation around it (one-part words only)

    @property
    def normal(self) -> str:
        """compromise's ``normal``: *won't* for the *will* of *won't*, '' for its *not*."""
        return self.core if self.written is None else self.written

    def parts(self) -> list[str]:
        return _NON_ALNUM.sub(" ", self.raw).split()

    def tense(self) -> str | None:
        """compromise's ``getTense``: the verb form of a word tagged a verb, else None."""
        if "Verb" not in self.tags:
            return None
        return next((code for tag, code in _TENSES if tag in self.tags), None)


_NOT_WORD = frozenset(
    {".", "?", "!", ":", ";", "-", "\u2013", "\u2014", "--", "...", "(", ")", "[", "]", '"'}
    | {"'", "`", "\u00ab", "\u00bb", "*", "\u2022"}
)
_BOUNDARY = re.compile(r"^[!?.]+$")
_DASHES = re.compile("[-\u2013\u2014]")
_LETTER_DASH = re.compile(
    "^([a-z\u00c0-\u00ff`\"'/]+)[-\u2013\u2014]([a-z0-9\u00c0-\u00ff].*)", re.I | re.S
)
_NUMBER_DASH = re.compile(
    "^[('\"]?([0-9]{1,4})[-\u2013\u2014]([a-z\u00c0-\u00ff`\"'/-]+[)'\"]?$)", re.I
)
_SLASH = re.compile(r"[^\W\d_] ?/ ?[^\W\d_]+$")
_RANGE_START = re.compile("^[0-9]{1,4}(:[0-9][0-9])?([a-z]{1,2})? ?[-\u2013\u2014] ?$")
_RANGE_END = re.compile("^[0-9]{1,4}([a-z]{1,2})? ?$")


@lru_cache(maxsize=1 << 14)
def _has_hyphen(piece: str) -> bool:
    """compromise's ``hasHyphen``: whether its tokenizer splits a word at its hyphens."""
    if "-" not in piece and "\u2013" not in piece and "\u2014" not in piece:
        return False
    parts = _DASHES.split(piece)
    if len(parts) <= 1:
        return False
    data = _data()
    if len(parts[0]) == 1 and parts[0].isascii() and parts[0].isalpha():
        return False  # l-theanine, x-ray
    if parts[0] in data.hyphen_prefixes:
        return False  # re-do
    if re.sub("[.?!]$", "", js_trim(parts[1])) in data.hyphen_suffixes:
        return False  # flower-like
    return bool(_LETTER_DASH.match(piece) or _NUMBER_DASH.match(piece))


def _split_hyphens(piece: str) -> list[str]:
    dash = _DASHES.search(piece)
    mark = dash.group() if dash else "-"
    parts = _DASHES.split(piece)
    return [part + mark for part in parts[:-1]] + [parts[-1]]


def _split_words(text: str) -> list[str]:
    """compromise's ``splitWords``: words between spaces, hyphenated words split, punctuation
    alone ('.', '``', '--'...) carried onto the word before (or the next, first), 'he / she'
    and '2 - 5' joined."""
    pieces: list[str] = []
    for piece in re.split(f"([^{re.escape(JS_WHITESPACE)}]+)", text):
        pieces.extend(_split_hyphens(piece) if _has_hyphen(piece) else [piece])
    result: list[str | None] = []
    carry = ""
    for piece in pieces:
        word_like = piece.strip(JS_WHITESPACE) != ""
        if word_like and piece not in _NOT_WORD and not _BOUNDARY.match(piece):
            if result:
                result[-1] = f"{result[-1]}{carry}"
                result.append(piece)
            else:
                result.append(carry + piece)
            carry = ""
        else:
            carry += piece
    if carry:
        if not result:
            result.append("")
        result[-1] = f"{result[-1]}{carry}"
    for i in range(1, len(result) - 1):
        here = result[i]
        if here is not None and _SLASH.search(here):
            result[i - 1] = f"{result[i - 1]}{here}{result[i + 1]}"
            result[i] = result[i + 1] = None
    for i in range(len(result) - 1):
        here, after = result[i], result[i + 1]
        if here and after and _RANGE_START.match(here) and _RANGE_END.match(after):
            result[i] = here + after
            result[i + 1] = None
    return [js_trim(piece) for piece in result if piece]


def _words(text: str) -> list[_Word]:
    out: list[_Word] = []
    index = 0
    for written in _split_words(text):
        token = _token(written)
        if token is None:
            continue
        parts, title, post, ends_clause, ends_sentence, whole, text_ = token
        for n, (part, core) in enumerate(parts):
            last = n == len(parts) - 1
            word = _Word(part, core, last and ends_clause, title and not n, index, post=post)
            if len(parts) > 1:
                word.written = "" if n else whole
            else:
                word.text = text_
            out.append(word)
            index += 1
        if ends_sentence:
            index = 0
    return out


@lru_cache(maxsize=1 << 16)
def _token(
    written: str,
) -> tuple[tuple[tuple[str, str], ...], bool, str, bool, bool, str, str] | None:
    """What a word between spaces is to compromise: its parts (``(text, word)`` pairs), title
    case, the punctuation after it, whether it ends a clause or a sentence, the word, and the
    word as written without the punctuation around it."""
    raw = _fold(written).replace("\u2019", "'")
    if not raw:
        return None
    core = _EDGES.sub("", raw).lstrip("'")  # a leading apostrophe is punctuation
    while core.endswith("'") and not _CHILLIN.search(core):
        core = _EDGES.sub("", core[:-1])  # so is a trailing one, but in "flanders'"
    if raw[0] in "#@" and core:
        core = raw[0] + core  # compromise keeps a leading # or @ in the word (its text)
    bare = written.lstrip("\"'([{“‘`")
    title = len(bare) > 1 and bare[0].isupper() and (bare[1].islower() or bare[1] in "'’")
    post = _TRAILING.search(raw)
    after = post.group() if post else ""
    quoted = raw.rstrip("'")  # law,' ends a clause
    if quoted != raw and core and not raw.endswith(core):
        after = raw[raw.rfind(core) + len(core) :]
    return (
        _expand(raw, core),
        title,
        after,
        bool(_CLAUSE_END.search(quoted if after else raw)),
        _ends_sentence(raw, core),
        core,
        _TEXT_EDGES.sub("", written),
    )


def _ends_sentence(raw: str, core: str) -> bool:
    """compromise's sentence split: after ``.``, ``!`` or ``?`` (and a space), unless the word
    is a single letter or an abbreviation followed by a period (its ``isSentence``)."""
    if not _SENTENCE_END.search(raw):
        return False
    if len(core) == 1 and core.isalpha() and raw.rstrip("\"')]").endswith("."):
        return False
    return not (core in _data().abbreviations and raw.endswith("."))


_NOT = re.compile("^([a-z]+)n't$")
_NOT_BASE = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
_PRONOUN_AUX = re.compile("^([a-z]+)'(s|re|m|ve|ll|d)$")
_AUX = {"s": "is", "re": "are", "m": "am", "ve": "have", "ll": "will", "d": "would"}
_IS_AFTER = frozenset(
    {"it", "he", "she", "that", "there", "here", "what", "who", "where", "how", "when"}
)


def _expand(raw: str, core: str) -> tuple[tuple[str, str], ...]:
    """compromise's contractions: *isn't* is *is* and *not*, *it's* the noun *it's* (its
    text, the word *it*) and *is*; ``(text, word)`` pairs, where an empty text adds nothing
    by itself (a verb's elements come from its phrase)."""
    negated = _NOT.match(core)
    if negated:
        base = negated.group(1)
        return (("", _NOT_BASE.get(base, base)), ("", "not"))
    if core == "cannot":
        return (("", "can"), ("", "not"))
    joined = _PRONOUN_AUX.match(core)
    if joined and core != "let's":
        base, suffix = joined.groups()
        if suffix != "s" or base in _IS_AFTER:
            return ((raw, base), ("", _AUX[suffix]))
    return ((raw, core),)


def _suffix_tag(word: str) -> str | None:
    suffixes = _data().suffixes
    for size in range(min(7, len(word) - 1), 1, -1):
        tag = suffixes[size].get(word[-size:])
        if tag is not None:
            return tag
    return None


def _first_tags(word: _Word) -> None:
    """compromise's second pass: lexicon, switch, title case, word ending."""
    word.tags, word.switch = _lexical(word.core, bool(word.index and word.capital))


_HASHTAG = re.compile(r"^#[\d_]*[^\W\d_]")  # regexText's '^#[\p{Number}_]*\p{Letter}'
_MACHINE_DASH = re.compile(r"^[^\W\d_]+-[^\W\d_]+$")


def _machine(core: str) -> str:
    """compromise's ``machine`` form, the one its lexicon and rules look up: no *'s*, *s'*
    as *s*, *lookin'* as *looking*, *re-enact* as *reenact*, no leading ``#`` or ``@``."""
    word = re.sub("['\u2019]s$", "", core)
    word = re.sub("s['\u2019]$", "s", word)
    word = re.sub("([aeiou][ktrp])in'$", r"\1ing", word)
    if _MACHINE_DASH.match(word):
        word = word.replace("-", "")
    return re.sub("^[#@]", "", word)


@lru_cache(maxsize=1 << 16)
def _lexical(core: str, title_inside: bool) -> tuple[frozenset[str], str | None]:
    """The tags and the switch of a word on its own (``title_inside``: in title case, not
    first in its sentence)."""
    data = _data()
    machine = _machine(core)  # the lexicon and the regular expressions look this up
    found = data.lexicon.get(machine)
    if found is None and _LEXICON_PREFIX.match(machine):
        # compromise's checkLexicon: a prefixed verb or adjective takes its stem's tag
        stem = _LEXICON_PREFIX.sub("", machine)
        if len(stem) > 3 and data.lexicon.get(stem) in _PREFIX_TAGS:
            found = data.lexicon[stem]
    tags = _with_parents(found) if found else frozenset()
    switch = data.switches.get(core)
    if switch is None and _PREFIX.match(core):
        stem = _PREFIX.sub("", core)
        if len(stem) > 3:
            switch = data.switches.get(stem)
    if (
        title_inside
        and not any(c.isdigit() for c in core)
        and not tags & _NOT_PROPER
        and core != "the"
    ):
        tags = (tags if "Noun" in tags else frozenset()) | _with_parents("ProperNoun")
    if not tags and core:
        tag = _suffix_tag(core)
        if tag is not None:
            tags = _with_parents(tag)
    # compromise's checkRegex: regexText, regexNormal, then (with a digit) regexNumbers
    tag = "HashTag" if _HASHTAG.match(core) else None
    if tag is None:
        tag = next((t for regex, t in data.text_regexes if regex.search(core)), None)
    if tag is None:
        tag = next((t for regex, t in data.regexes if regex.search(machine)), None)
    if tag is None and any(c in "0123456789" for c in machine):
        tag = next((t for regex, t in data.number_regexes if regex.search(machine)), None)
    if tag is None and not tags and machine:
        rules = data.ends_with.get(machine[-1], ())
        tag = next((t for regex, t in rules if regex.search(machine)), None)
    for one in tag.split(",") if tag is not None else ():
        tags = _set_tag(tags, one)
    return tags, switch


def _neighbour_tag(words: list[_Word], i: int) -> str | None:
    """compromise's ``neighbours``: the words and tags beside an untagged word."""
    model = _data().neighbours
    word = words[i]
    before = words[i - 1] if word.at else None
    after = words[i + 1] if i + 1 < len(words) and words[i + 1].at else None
    for near, key in ((before, "leftWords"), (after, "rightWords")):
        if near is not None:
            tag = next((t for w, t in model[key] if w == near.normal), None)
            if tag:
                return tag
    for near, key in ((before, "leftTags"), (after, "rightTags")):
        if near is not None:
            tag = next((t for w, t in model[key] if w in near.tags), None)
            if tag:
                return tag
    return None


def _clue_tag(word: _Word | None, clues: dict[str, str]) -> str | None:
    if word is None:
        return None
    parents = _data().parents
    # compromise sorts a word's tags deepest first, ties in the order they were set: the
    # lexicon's order (*his*: Possessive before Pronoun), then by name
    order = _data().lexicon.get(word.core, "").split(",")
    ranked = sorted(
        word.tags,
        key=lambda t: (-len(parents.get(t, ())), order.index(t) if t in order else len(order), t),
    )
    return next((clues[t] for t in ranked if t in clues), None)


def _adhoc(form: str, words: list[_Word], i: int) -> str | None:
    """compromise's ``adhoc`` leanings of some switches."""
    word = words[i]
    capital = "Noun" if "ProperNoun" in word.tags and word.capital else None
    alone = word.at == 0 and (i + 1 == len(words) or words[i + 1].at == 0)
    if form == "Noun|Verb":
        return (capital if word.at > 0 else None) or ("Infinitive" if alone else None)
    if form == "Plural|Verb":
        start = word.at == 0 and _chunk_length(words, i) > 3
        return capital or ("PresentTense" if alone else None) or ("Plural" if start else None)
    if form == "Person|Verb":
        return capital if word.at else None
    if form == "Person|Adj":
        if word.at == 0 and not alone:
            return "Person"
        return "Person" if capital else None
    if form == "Adj|Noun":
        last = i + 1 == len(words) or words[i + 1].at == 0
        before = words[i - 1] if word.at else None
        end_noun = last and before is not None and "Determiner" in before.tags
        return capital or ("Noun" if end_noun else None)
    return capital


def _chunk_length(words: list[_Word], i: int) -> int:
    start = i - words[i].at
    end = i + 1
    while end < len(words) and words[end].at:
        end += 1
    return end - start


def _switch(words: list[_Word], i: int) -> None:
    """compromise's third pass on a word of two parts of speech: its neighbours decide."""
    word = words[i]
    form = word.switch
    if form is None or "Acronym" in word.tags:
        return
    clues = _data().clues.get(form)
    tag = None
    if clues:
        before_at = i - 1 if word.at else -1
        if before_at >= 0 and words[before_at].core == "also" and words[before_at].at:
            before_at -= 1
        before = words[before_at] if before_at >= 0 else None
        after = words[i + 1] if i + 1 < len(words) and words[i + 1].at else None
        tag = (
            (clues.get("afterWords", {}).get(after.normal or after.core) if after else None)
            or (clues.get("beforeWords", {}).get(before.normal or before.core) if before else None)
            or _clue_tag(before, clues.get("beforeTags", {}))
            or _clue_tag(after, clues.get("afterTags", {}))
        )
    tag = _adhoc(form, words, i) or tag
    if tag is not None:
        word.tags = _set_tag(word.tags, tag)


_NO_NUMBER = frozenset(
    {
        "Acronym",
        "Abbreviation",
        "ProperNoun",
        "Uncountable",
        "Possessive",
        "Pronoun",
        "Activity",
        "Honorific",
        "Month",
        "Plural",
        "Singular",
    }
)
_PLURAL_ENDINGS = {
    "e": ("mice", "louse", "antennae", "formulae", "nebulae", "vertebrae", "vitae"),
    "i": ("tia", "octopi", "viri", "radii", "nuclei", "fungi", "cacti", "stimuli"),
    "n": ("men",),
    "t": ("feet",),
}
_NOT_PLURAL = tuple(
    [
        "bus",
        "mas",
        "was",
        "ias",
        "xas",
        "vas",
        "cis",
        "lis",
        "nis",
        "ois",
        "ris",
        "sis",
        "tis",
        "xis",
        "aus",
        "cus",
        "eus",
        "fus",
        "gus",
        "ius",
        "lus",
        "nus",
        "das",
        "ous",
        "pus",
        "rus",
        "sus",
        "tus",
        "xus",
        "aos",
        "igos",
        "ados",
        "ogos",
        "'s",
        "ss",
    ]
)


def _looks_plural(word: str) -> bool:
    """compromise's ``looksPlural``."""
    if len(word) <= 3:
        return False
    if word in ("israelis", "menus", "logos"):
        return True
    if word[-1] in _PLURAL_ENDINGS:
        return word.endswith(_PLURAL_ENDINGS[word[-1]])
    return word[-1] == "s" and not word.endswith(_NOT_PLURAL)


_ONE_LETTER_ACRONYM = re.compile(r"^[A-Z]('s|,)?$")
_UPPER = re.compile(r"^[A-Z-]+$")
_UPPER_THEN_S = re.compile(r"^[A-Z]+s$")
_PERIOD_ACRONYM = re.compile(r"([A-Z]\.)+[A-Z]?,?$")
_NO_PERIOD_ACRONYM = re.compile(r"[A-Z]{2,}('s|,)?$")
_LOWER_ACRONYM = re.compile(r"([a-z]\.)+[a-z]\.?$")
_ACRONYM_PLACES = frozenset({"la", "ny", "us", "dc", "gb", "uk"})


def _no_period_acronym(word: _Word) -> bool:
    """compromise's ``isNoPeriodAcronym``: NDA, UNOCHA, MMVAs, N.D.A, NY (not PIZZA, I)."""
    text = word.text
    if not _UPPER.match(text):
        if len(text) > 3 and _UPPER_THEN_S.match(text):
            text = text[:-1]
        else:
            return False
    elif word.core in _ACRONYM_PLACES:
        return True
    if len(text) > 5 or text in ("I", "A") or word.core in _data().lexicon:
        return False
    return any(
        r.search(text)
        for r in (_PERIOD_ACRONYM, _LOWER_ACRONYM, _ONE_LETTER_ACRONYM, _NO_PERIOD_ACRONYM)
    )


def _acronym(word: _Word) -> None:
    """compromise's ``checkAcronym``: an upper-case word is an acronym (a noun)."""
    if not word.text:
        return
    if word.text.islower() or not any("A" <= c <= "Z" for c in word.text):
        # no capital letter: only the short-organization rule can apply
        if "Organization" in word.tags and len(word.text) <= 3:
            word.tags |= _with_parents("Acronym")
        return
    if _no_period_acronym(word):
        tags = _with_parents("Acronym,Noun")
        if word.core in _ACRONYM_PLACES:
            tags |= _with_parents("Place")
        if _UPPER_THEN_S.match(word.text):
            tags |= _with_parents("Plural")
        word.tags = tags
    elif word.text not in ("I", "A") and _ONE_LETTER_ACRONYM.match(word.text):
        word.tags = _with_parents("Acronym,Noun")
    elif "Organization" in word.tags and (
        len(word.text) <= 3 or (_UPPER.match(word.text) and len(word.text) <= 6)
    ):
        word.tags |= _with_parents("Acronym")


_GUESS_TENSE = {
    **dict.fromkeys(["ing"], "Gerund"),
    **dict.fromkeys(["erer"], "Actor"),
    **dict.fromkeys(
        [
            "ate",
            "ize",
            "tion",
            "rify",
            "then",
            "ress",
            "ify",
            "age",
            "nce",
            "ect",
            "ise",
            "ine",
            "ish",
            "ace",
            "ash",
            "ure",
            "tch",
            "end",
            "ack",
            "and",
            "ute",
            "ade",
            "ock",
            "ite",
            "ase",
            "ose",
            "use",
            "ive",
            "int",
            "nge",
            "lay",
            "est",
            "ain",
            "ant",
            "ent",
            "eed",
            "er",
            "le",
            "unk",
            "ung",
            "upt",
            "en",
        ],
        "Infinitive",
    ),
    **dict.fromkeys(["ept", "ed", "lt", "nt", "ew", "ld"], "PastTense"),
    **dict.fromkeys(
        [
            "rks",
            "cks",
            "nks",
            "ngs",
            "mps",
            "tes",
            "zes",
            "ers",
            "les",
            "acks",
            "ends",
            "ands",
            "ocks",
            "lays",
            "eads",
            "lls",
            "els",
            "ils",
            "ows",
            "nds",
            "ays",
            "ams",
            "ars",
            "ops",
            "ffs",
            "als",
            "urs",
            "lds",
            "ews",
            "ips",
            "es",
            "ts",
            "ns",
        ],
        "PresentTense",
    ),
    **dict.fromkeys(["ken", "wn"], "Participle"),
}


def _guess_tense(word: str) -> str | None:
    """compromise's ``getTense``: a bare verb's form guessed from its last three, two letters."""
    for size in (3, 2):
        if word[-size:] in _GUESS_TENSE:
            return _GUESS_TENSE[word[-size:]]
    return "PresentTense" if word.endswith("s") else None


def _fill(word: _Word) -> None:
    """compromise's ``fillTags``: a noun's number, a bare verb's tense."""
    _number(word)
    if word.tags == {"Verb"}:
        guess = _guess_tense(word.core)
        if guess is not None:
            word.tags = word.tags | _with_parents(guess)


def _number(word: _Word) -> None:
    """compromise's ``fillTags``: a noun of no number is plural or singular by its ending."""
    if "Noun" in word.tags and not word.tags & _NO_NUMBER:
        word.tags = word.tags | _with_parents("Plural" if _looks_plural(word.core) else "Singular")


_CLAUSE_MARK = re.compile("[,:;]")
_TRAILING = re.compile("[^a-z0-9']+$")
_MAYBE_DATE = frozenset({"may", "april", "august", "jan"})


def _splits_before(words: list[_Word], i: int) -> bool:
    """compromise's ``quickSplit``: whether a clause starts at ``words[i]`` (after a comma, a
    colon or a semicolon, unless a date, a place, an adjective or a short number is beside)."""
    word, last = words[i], words[i - 1]
    if word.index == 0 or not _CLAUSE_MARK.search(last.post):
        return False
    if word.core == "like" or word.core in _MAYBE_DATE or word.tags & {"Place", "Date"}:
        return False
    if "Date" in last.tags or last.core in _MAYBE_DATE:
        return False
    if "Adjective" in last.tags or "Adjective" in word.tags:
        return False
    return not (len(word.core) in (1, 2, 4) and word.core.isdigit())


_VERB_TYPES = frozenset({"PastTense", "PresentTense", "Auxiliary", "Modal", "Particle"})


def _verb_type(word: _Word) -> None:
    """compromise's ``verbType``: a verb of no tense is an infinitive."""
    if "Verb" in word.tags and not word.tags & _VERB_TYPES:
        word.tags = word.tags | _with_parents("Infinitive")


def _tag(words: list[_Word]) -> None:
    _pre_tag(words)
    if _contraction_two(words):
        _pre_tag(words)
    for i in range(len(words)):
        _hyphenated(words, i)
    for i in range(len(words)):
        _post(words, i)


_NEVER_POSSESSIVE = frozenset({"that", "there", "let", "here", "everywhere"})
_BEFORE_POSSESSIVE = frozenset({"in", "by", "for"})
_NOUN_LIKE = frozenset({"is", "are", "did", "were", "could", "should", "must", "had", "have"})
_HERE = frozenset({"here", "there", "everywhere"})


def _is_possessive(words: list[_Word], i: int) -> bool:
    """compromise's ``isPossessive``: whether *X's* is a possessive (else *X is* or *X has*)."""
    word = words[i]
    base = word.core[:-2]
    if base in _NEVER_POSSESSIVE:
        return False
    if "Possessive" in word.tags:
        return True
    if "QuestionWord" in word.tags or word.core in ("he's", "she's"):
        return False
    near = [w for w in words[i + 1 : i + 3] if w.index]
    if not near or near[0].index != word.index + 1:
        return True  # at the end of its sentence: 'was spencer's'
    after = near[0]
    two = near[1] if len(near) > 1 and near[1].index == after.index + 1 else None
    if after.switch == "Noun|Gerund":
        if two is None:
            return bool(word.tags & {"Actor", "ProperNoun"})
        return "Copula" in two.tags
    if "Verb" in after.tags:
        if "Infinitive" in after.tags:
            return True
        if "Gerund" in after.tags:
            return False
        return "PresentTense" in after.tags
    if after.switch == "Adj|Noun":
        if two is None:
            return False
        if two.core in _NOUN_LIKE:
            return True
        if two.core in ("too", "also", "enough", "about"):
            return False
    if "Noun" in after.tags:
        if after.core in _HERE or "Possessive" in after.tags:
            return False
        return not ("ProperNoun" in after.tags and "ProperNoun" not in word.tags)
    if i and word.index and words[i - 1].core in _BEFORE_POSSESSIVE:
        return True
    if "Adjective" in after.tags:
        if two is None:
            return False
        if "Noun" in two.tags and "Pronoun" not in two.tags:
            return after.core not in ("above", "below", "behind")
        return two.switch == "Noun|Verb"
    return "Value" in after.tags


_HAS_WORDS = frozenset({"been", "become"})
_IS_WORDS = frozenset({"what", "how", "when", "if", "too"})


def _is_or_has(words: list[_Word], i: int) -> str:
    """compromise's ``isOrHas``: what the *'s* of a word that is no possessive stands for."""
    o = i + 1
    while o < len(words) and words[o].index:
        t = words[o]
        nxt = words[o + 1] if o + 1 < len(words) and words[o + 1].index else None
        if t.core in _HAS_WORDS:
            return "has"
        if t.core in _IS_WORDS or t.tags & {"Gerund", "Determiner", "Adjective"}:
            return "is"
        if (
            t.switch == "Adj|Past"
            and nxt is not None
            and (nxt.core in ("too", "also", "enough") or "Preposition" in nxt.tags)
        ):
            return "is"
        if "PastTense" in t.tags:
            return "is" if nxt is not None and nxt.core == "for" else "has"
        o += 1
    return "is"


def _contraction_two(words: list[_Word]) -> bool:
    """compromise's ``contractionTwo`` for *'s*: a possessive is tagged so, any other *X's*
    becomes the two words *X* (written *X's*) and *is* (or *has*; *there's* before a plural:
    *are*), the second written as nothing.
    Returns whether words were split (the tagger then runs again)."""
    split = False
    for i in range(len(words) - 1, -1, -1):
        word = words[i]
        if not word.core.endswith("'s") or word.raw == "" or len(word.core) < 3:
            continue
        if word.core == "let's":
            continue
        if _is_possessive(words, i):
            word.tags = _set_tag(word.tags, "Possessive")
            continue
        base = word.core[:-2]
        nxt = words[i + 1] if i + 1 < len(words) and words[i + 1].index else None
        if base == "there" and nxt is not None and "Plural" in nxt.tags:
            verb = "are"
        else:
            verb = _is_or_has(words, i)
        # the word keeps its text (its elements: *europe*, *s*), the verb has none
        first = _Word(word.raw, base, False, word.capital, word.index, written=word.core)
        first.text = word.text
        second = _Word("", verb, word.ends_clause, False, word.index + 1, post=word.post)
        second.written = ""
        words[i : i + 1] = [first, second]
        k = i + 2
        while k < len(words) and words[k].index:
            words[k].index += 1
            k += 1
        split = True
    return split


def _pre_tag(words: list[_Word]) -> None:
    """compromise's preTagger (the parts ported)."""
    for word in words:
        _first_tags(word)
    for i, word in enumerate(words):
        word.at = 0 if word.index == 0 or _splits_before(words, i) else words[i - 1].at + 1
    for i, word in enumerate(words):
        if "Acronym" not in word.tags and "RomanNumeral" not in word.tags:
            _acronym(word)
        _fill(word)
        if not word.tags:
            word.tags = _with_parents(_neighbour_tag(words, i) or "Noun")
            _fill(word)
    for i in range(len(words)):
        _switch(words, i)
        _verb_type(words[i])


def _hyphenated(words: list[_Word], i: int) -> None:
    """compromise's post-tagger patterns faith-based and self-driving: a hyphenated pair whose
    second word is a past tense or a gerund, before a noun or a conjunction, is an adjective
    ('[#Hyphenated (#Hyphenated && #PastTense)] (#Noun|#Conjunction)', not if an adverb)."""
    word = words[i]
    if word.post != "-" or i + 2 >= len(words) or not words[i + 1].index:
        return
    second, third = words[i + 1], words[i + 2]
    if not third.index or not second.tags & {"PastTense", "Gerund"}:
        return
    if third.tags & {"Noun", "Conjunction"} and "Adverb" not in word.tags | second.tags:
        word.tags = _set_tag(word.tags, "Adjective")
        second.tags = _set_tag(second.tags, "Adjective")


_ONE = frozenset({"one", "1", "a", "an"})
_UNITED = frozenset({"dc", "atlanta", "minnesota", "manchester", "newcastle", "sheffield"})


def _post(words: list[_Word], i: int) -> None:
    """A few of compromise's post-tagger patterns, those that turn a verb into a noun or an
    adjective (or back)."""
    word = words[i]
    before = words[i - 1] if word.index else None
    after = words[i + 1] if i + 1 < len(words) and words[i + 1].index else None
    if "Gerund" in word.tags and _gerund_noun(words, i):
        word.tags = _set_tag(word.tags, "Activity" if before is None else "Noun")
        return
    nxt = words[i + 1] if i + 1 < len(words) and words[i + 1].at else None
    if word.core == "still" and nxt is not None and nxt.tags & {"Adjective", "Verb"}:
        word.tags = _set_tag(word.tags, "Adverb")  # still-advb, still-verb: '[still] #Adjective'
        return
    if word.core in ("had", "were") and _condition(words, i):
        word.tags = _set_tag(word.tags, "Condition")
        return
    if before is None:
        return
    if (
        "PresentTense" in word.tags
        and "Possessive" in before.tags
        and "Gerund" not in word.tags
        and "her" not in (word.core, before.core)
    ):
        # possessive-verb: '#Possessive #PresentTense #Particle?' is a noun (quick-plural)
        word.tags = _set_tag(
            _set_tag(word.tags, "Noun"), "Plural" if _looks_plural(word.core) else "Singular"
        )
        return
    if word.core == "united" and before.core in _UNITED:
        word.tags = _set_tag(word.tags, "SportsTeam")  # united-sportsteam: 'manchester united'
        return
    # 35-signs: '#Value [%Plural|Verb%]'; asking-questions: '#Gerund [%Plural|Verb%]'
    counted = "Value" in before.tags and before.core not in _ONE
    if word.switch == "Plural|Verb" and (counted or "Gerund" in before.tags):
        word.tags = _set_tag(word.tags, "Plural")
        return
    if "Gerund" in word.tags and "Determiner" in before.tags and after and "Noun" in after.tags:
        word.tags = _set_tag(
            word.tags, "Adjective"
        )  # the-gerund-noun: '#Determiner [#Gerund] #Noun'
        return
    # the-verb-of: '(a|an|the) [#Verb] of'; determiner1: 'the [#Verb] #Preposition .'
    of = after is not None and (
        after.core == "of" or (before.core == "the" and "Preposition" in after.tags)
    )
    if "Verb" in word.tags and before.core in ("a", "an", "the") and of:
        word.tags = _set_tag(word.tags, "Noun")
        return
    if word.core == "left" and ("Noun" in before.tags or "Adverb" in before.tags):
        word.tags = _set_tag(word.tags, "PastTense")  # left-verb: '#Noun #Adverb? [left]'
        return
    two_back = words[i - 2] if i >= 2 and before.index else None
    if (
        "Plural" in word.tags
        and before.core == "that"
        and two_back is not None
        and "Noun" in two_back.tags
        and not word.tags & {"Preposition", "Pronoun"}
        and word.core != "way"
    ):
        word.tags = _set_tag(word.tags, "PresentTense")  # voice-that-rocks: '#Noun that [#Plural]'
        return
    if "PresentTense" in word.tags and "Copula" not in word.tags and _noun_here(words, i):
        word.tags = _set_tag(word.tags, "Plural" if word.core.endswith("s") else "Noun")


def _condition(words: list[_Word], i: int) -> bool:
    """compromise's had-he ('[had] #Noun+ #PastTense') and were-he ('[were] #Noun+ to
    #Infinitive'), within a clause: the word is a condition, no verb."""
    k = i + 1
    while k < len(words) and words[k].at and "Noun" in words[k].tags:
        k += 1
    if k == i + 1 or k >= len(words) or not words[k].at:
        return False
    if words[i].core == "had":
        return "PastTense" in words[k].tags
    nxt = k + 1
    return (
        words[k].core == "to"
        and nxt < len(words)
        and bool(words[nxt].at)
        and "Infinitive" in words[nxt].tags
    )


def _gerund_noun(words: list[_Word], i: int) -> bool:
    """compromise's post-tagger patterns that make a gerund a noun: gerund-doer, early-warning
    ('#Adjective [#Gerund]'), gerund-copula ('[#Gerund] #Adverb? not? #Copula'), gerund-modal
    ('[#Gerund] #Modal'), keep-the-touching ('#PresentTense the [#Gerund]')."""
    word = words[i]
    before = words[i - 1] if word.index else None
    after = words[i + 1] if i + 1 < len(words) and words[i + 1].index else None
    if after is not None and "Actor" in after.tags:
        return True  # gerund-doer: '#Gerund #Actor'
    if before is not None and "Adjective" in before.tags:
        return before.core not in ("still", "even", "just")
    the = before is not None and before.core == "the" and i >= 2 and bool(before.index)
    if the and "PresentTense" in words[i - 2].tags:
        return True
    k = i + 1
    while k < len(words) and words[k].index and words[k].tags & {"Adverb", "Negative"}:
        k += 1
    return k < len(words) and bool(words[k].index) and bool(words[k].tags & {"Copula", "Modal"})


_DET_INF = frozenset({"the", "those", "these", "a", "an"})
_NOT_DET_INF = frozenset({"seem", "appear", "include"})
_MANY = frozenset({"many", "few", "several", "couple"})
_UNTIL = frozenset({"until", "as", "through", "without"})
_ALL = frozenset({"all", "every", "each", "most", "some", "no"})


def _noun_here(words: list[_Word], i: int) -> bool:
    """compromise's post-tagger patterns that make a word in the present tense a noun:
    det-inf, had-time, many-poses, in-age, ended-in-ruins, noun-of-noun, adorable-little-store,
    one-big-reason, adj-presentTense, won-wide-support, mexican-train, number-of-x,
    waited-until-release, all-presentTense."""
    word = words[i]
    back = [words[i - k] for k in (1, 2, 3) if i - k >= 0 and words[i - k + 1].index]
    first = back[0]
    second = back[1] if len(back) > 1 else None
    adjective = "Adjective" in first.tags
    if first.core in _DET_INF or (adjective and second is not None and second.core in _DET_INF):
        return word.core not in _NOT_DET_INF and "Gerund" not in word.tags
    if first.core == "had":
        return "Gerund" not in word.tags and word.core not in ("come", "become")
    if first.core in _MANY:
        return True
    if first.core == "in" and "Infinitive" in word.tags:
        return True  # in-age: 'in [#Infinitive]'
    if second is not None and "Gerund" not in word.tags:
        if "Preposition" in first.tags and "PastTense" in second.tags:
            return True  # ended-in-ruins: '#PastTense #Preposition [#PresentTense]'
        third = back[2] if len(back) > 2 else None
        if first.core == "of" and "Noun" in second.tags and third and "Determiner" in third.tags:
            return True  # noun-of-noun: '#Determiner #Noun of [#Verb]'

    if second is None:
        return False
    if adjective and ("Adjective" in second.tags or "Value" in second.tags):
        return True
    if adjective and ("PastTense" in second.tags or second.core in ("had", "have")):
        return True
    if "Demonym" in first.tags and "Determiner" in second.tags:
        return True
    if first.core == "of" and second.core == "number":
        return True
    if first.core in _UNTIL and "PastTense" in second.tags:
        return True
    return first.core in _ALL and "Verb" in second.tags and "Modal" not in second.tags


def _verb_tense(word: _Word) -> str | None:
    """The tense of ``word`` as a verb (a word of letters, three or more), or None."""
    if not word.core.replace("-", "").isalpha() or len(word.core) < 3:
        return None
    return word.tense()


_NOT_PLURAL_ROOT = frozenset(
    {"Pronoun", "Place", "Value", "Person", "Uncountable", "Month", "WeekDay", "Holiday"}
    | {"Possessive"}
)


_PRONOUNS = frozenset({"he", "she", "we", "you", "they", "i", "it", "him"})
_PHRASE_END = re.compile("[,;:.!?]")


def _subject_plural(words: list[_Word], start: int) -> bool:
    """compromise's ``doDoes``: *do* when the verb's subject (the last noun phrase before it in
    its sentence, ``getSubject``) has *i* or *we*, or is plural as ``isPlural`` of a noun phrase
    says (a ``#Plural`` word, *we*/*they*/*those*, else no pronoun, place, number, person...
    at its root and no ``#Singular``, and a root of more than 3 letters ending in *s*)."""
    first = start - words[start].index if start < len(words) else start
    end = start
    while end > first and "Noun" not in words[end - 1].tags:
        end -= 1
    if end == first:
        return False
    begin = end - 1
    if words[begin].core not in _PRONOUNS:  # findNouns: a pronoun is a noun phrase alone
        while (
            begin > first
            and "Noun" in words[begin - 1].tags
            and words[begin - 1].core not in _PRONOUNS
            and not _PHRASE_END.search(words[begin - 1].post)
        ):
            begin -= 1
    root = words[end - 1]
    if (
        begin - 2 >= first
        and words[begin - 1].core == "of"
        and "Noun" in words[begin - 2].tags
        and words[begin - 2].core not in _PRONOUNS
    ):
        # the chunker's '#Noun of #Determiner? #Noun' is one phrase, its root before 'of'
        root = words[begin - 2]
        begin -= 2
        while (
            begin > first
            and "Noun" in words[begin - 1].tags
            and words[begin - 1].core not in _PRONOUNS
            and not _PHRASE_END.search(words[begin - 1].post)
        ):
            begin -= 1
    phrase = words[begin:end]
    cores = {w.core for w in phrase}
    if cores & {"i", "we", "they", "those"}:
        return True
    if any("Plural" in w.tags for w in phrase):
        return True
    if root.tags & _NOT_PLURAL_ROOT or any("Singular" in w.tags for w in phrase):
        return False
    return len(root.core) > 3 and root.core.endswith("s") and not root.core.endswith("ss")


def _auxiliary(core: str) -> bool:
    return core in _COPULA or core in _HAVE or core in _DO or core in _MODAL


def elements(text: str) -> list[str]:
    """The elements Mastra's ``CompletenessMetric`` takes from ``text``, each once, in order.

    >>> elements("She isn't running; it's Zoë's café")
    ['she', 'does', 'not', 'run', 'it', 's', 'be', 'zoe', 'cafe']
    """
    words = _words(text)
    _tag(words)
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        core = word.core
        if core == "let's":
            out.extend(("let", "us"))
        elif (
            ("Verb" in word.tags and _auxiliary(core))
            or (core in _NEGATIVE and i + 1 < len(words))
            or _helper(words, i)
        ):
            i = _phrase(words, i, out)
            continue
        elif _two_verbs(words, i):
            end = _run_end(words, i)
            out.extend(_run_infinitive(words[i:end]))
            i = end
            continue
        else:
            tense = _verb_tense(word)
            if tense is not None and tense != "In":
                out.extend(_NON_ALNUM.sub(" ", infinitive(core, tense)).split())
            else:
                out.extend(word.parts())
        i += 1
    return list(dict.fromkeys(out))


_GET = frozenset({"got", "getting", "gotten", "having", "being"})
_TO_HELPERS = {"used": "", "about": "", "going": "copula"}


def _verb_next(words: list[_Word], i: int) -> bool:
    """Whether ``words[i + 1]`` is a verb of the same clause."""
    return (
        i + 1 < len(words)
        and not words[i].ends_clause
        and bool(words[i + 1].index)
        and "Verb" in words[i + 1].tags
    )


def _helper(words: list[_Word], i: int, auxiliaries: list[str] | None = None) -> int:
    """How many words from ``i`` compromise's post-tagger makes an auxiliary beyond *be*,
    *have*, *do* and the modals (0 for none): *got*, *getting* before a verb (got-walked,
    being-born), *used to* (used-to-walk), *about to*, *going to* after a copula."""
    core = words[i].core
    if core in _GET:
        return 1 if _verb_next(words, i) else 0
    need = _TO_HELPERS.get(core)
    if need is None or i + 2 >= len(words) or words[i + 1].core != "to":
        return 0
    if need == "copula" and not (auxiliaries and auxiliaries[-1] in _COPULA):
        return 0
    return 2 if _verb_next(words, i + 1) and not words[i].ends_clause else 0


def _two_verbs(words: list[_Word], i: int) -> bool:
    """Whether ``words[i]`` and the next word are both main verbs of one phrase."""
    word = words[i]
    if word.tense() is None or _auxiliary(word.core) or not _verb_next(words, i):
        return False
    nxt = words[i + 1]
    if word.tense() == "Pa" and nxt.tense() == "Pa":
        return False  # findVerbs: splitAfter('[#PastTense] #PastTense')
    return not _auxiliary(nxt.core) and _helper(words, i + 1) == 0 and nxt.tense() is not None


def _run_end(words: list[_Word], i: int) -> int:
    """The end of the run of main verbs from ``words[i]`` (compromise's root of a phrase)."""
    end = i + 1
    while _two_verbs(words, end - 1):
        end += 1
    return end


def _run_infinitive(run: list[_Word]) -> list[str]:
    """compromise's ``toInfinitive`` of a root of several verbs: the phrase's tense (the first
    of infinitive, participle, past, gerund, present any word has); an infinitive root stays as
    written, otherwise the first word is converted and the second kept (its ``toParts``: verb
    and particle; words after the second are lost)."""
    tenses = {w.tense() for w in run}
    tense = next((t for _, t in _TENSES if t in tenses), None)
    if tense in (None, "In"):
        return [part for w in run for part in w.parts()]
    first = (
        "be"
        if run[0].core in _COPULA
        else _convert(run[0].core, _data().models[_TENSE_MODEL[str(tense)]])
    )
    return [*_NON_ALNUM.sub(" ", first).split(), *run[1].parts()]


def _phrase(words: list[_Word], start: int, out: list[str]) -> int:
    """A verb phrase from ``start`` (an auxiliary or a negative): its elements go to ``out``;
    returns the index after it."""
    auxiliaries: list[str] = []
    adverbs: list[str] = []
    negative = False
    i = start
    kept: list[str] = []  # the *to* of *had to*
    while i < len(words):
        core = words[i].core
        helper = _helper(words, i, auxiliaries)
        if helper:
            auxiliaries.append(core)
            i += helper
            if words[i - 1].ends_clause:
                break
            continue
        if _auxiliary(core):
            auxiliaries.append(core)
        elif (
            core == "to"
            and auxiliaries
            and auxiliaries[-1] in _HAVE
            and _verb_next(words, i)
            and words[i + 1].core != "be"  # compromise splits before 'to be'
        ):
            kept.append(core)  # compromise's phrasal *have to*: *had* goes, *to* stays
        elif core in _NEGATIVE:
            negative = True
            if core == "never":
                adverbs.append(core)
        elif auxiliaries and core.isalpha() and "Adverb" in words[i].tags and core != "then":
            adverbs.append(core)
        else:
            break
        i += 1
        if words[i - 1].ends_clause:
            break
    main: str | None = None
    gerund = i < len(words) and not words[i - 1].ends_clause and words[i].tense() == "Ge"
    if auxiliaries == ["be"] and not negative and not gerund:
        # a phrase of a bare *be* and a participle (*to be held*) keeps its words
        out.append("be")
        if i < len(words) and not words[i - 1].ends_clause and words[i].tense() in ("Pa", "Pt"):
            out.extend(words[i].parts())
            i += 1
        return i
    if i < len(words) and not words[i - 1].ends_clause:
        nxt = words[i]
        tense = _verb_tense(nxt)
        copula = auxiliaries in ([c] for c in _COPULA - {"be", "been", "being"})
        if tense is not None and _two_verbs(words, i):
            end = _run_end(words, i)
            main = " ".join(_run_infinitive(words[i:end]))
            i = end
        elif tense == "In" and copula and not negative and not adverbs:
            # a copula before an infinitive is no auxiliary: the root is both, left as written
            out.extend((*words[i - 1].parts(), *nxt.parts()))
            return i + 1
        elif tense is not None:
            main = nxt.core if tense == "In" else infinitive(nxt.core, tense)
            i += 1
    if negative:
        out.append("do" if _subject_plural(words, start) else "does")
        out.append("not")
    out.extend(adverbs)
    out.extend(kept)
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
