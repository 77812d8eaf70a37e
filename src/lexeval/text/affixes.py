"""spaCy's rule-based tokenization of one white-space chunk, in Python, for the chunks where no
special case takes part: the same prefix, suffix, infix, token and URL rules (the tokenizer's
own compiled patterns), applied in the order of spaCy's ``Tokenizer._split_affixes`` and
``_attach_tokens``. Where a special case (an exception such as "don't", "U.S." or ":)") could
change the result, :meth:`AffixRules.split` says ``None`` and the caller asks spaCy: no Doc,
no memory zone, no lock for the common chunks ("Paris.", "(1990)", "well-known").

Special cases whose only token is the case itself ("'", "’", "—") are followed as spaCy
follows them; any other special case met while splitting, and any run of the result's tokens
that spells a special case (spaCy's final special-case matcher), gives ``None``. Property tests
compare the result with spaCy's tokenizer on random and real text.

The prefix and suffix patterns (about 80 alternatives each) are searched with only the
alternatives that can begin or end with the string's first or last character
(:func:`head_search`, :func:`tail_search`): the same match, without trying every alternative.

The commonest chunks, a word with plain punctuation at its edges and maybe a clitic ("Paris,",
"(1990).", "Peter's."), skip the rules' loop (:meth:`AffixRules.split_edges`, :class:`EdgeSplit`:
what each edge character does is read from the patterns' structure). :meth:`AffixRules.split_rules`
stays the reference: property tests compare the two.

>>> from lexeval.text.resources import load_language
>>> rules = load_language("en").affixes
>>> rules.split('"Paris,"'), rules.split("(1990)."), rules.split("TCP/IP.")
(['"', 'Paris', ',', '"'], ['(', '1990', ')', '.'], ['TCP/IP', '.'])
>>> rules.split("don't") is None, rules.split("(Mr.")
(True, ['(', 'Mr.'])
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["AffixRules", "EdgeSplit", "head_search", "tail_search"]

_Search = Callable[[str], Any]  # a compiled pattern's search/match/fullmatch: Match or None
#: A pattern wider than this counts as unbounded ("\.\.+").
_UNBOUNDED = 1 << 20


def _regex_parser() -> Any:
    """The standard library's regular expression parser (``re._parser``; ``sre_parse``
    before Python 3.11)."""
    try:
        return importlib.import_module("re._parser")
    except ImportError:  # pragma: no cover - Python 3.10
        return importlib.import_module("sre_parse")


def _top_branches(source: str) -> list[str]:
    """``source`` split at its top-level ``|`` (outside groups and character classes)."""
    branches: list[str] = []
    depth = 0
    start = 0
    i = 0
    in_class = False
    while i < len(source):
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            if source[i + 1 : i + 2] == "^":
                i += 1
            if source[i + 1 : i + 2] == "]":  # a leading "]" is a literal
                i += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            branches.append(source[start:i])
            start = i + 1
        i += 1
    branches.append(source[start:])
    return branches


def _alternatives(
    search: _Search, anchor: str, where: int
) -> tuple[re.Pattern[str], list[str], list[Any]] | None:
    """The pattern of ``search`` (a compiled pattern's own ``search``), its top-level
    alternatives and their parses, when each alternative has ``anchor`` at its start
    (``where=0``) or end (``-1``); None otherwise."""
    pattern = getattr(search, "__self__", None)
    if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
        return None
    if search != pattern.search or pattern.flags & re.MULTILINE:
        return None
    return _parsed_alternatives(pattern, anchor, where)


@functools.lru_cache(maxsize=64)
def _parsed_alternatives(
    pattern: re.Pattern[str], anchor: str, where: int
) -> tuple[re.Pattern[str], list[str], list[Any]] | None:
    """:func:`_alternatives` of a pattern, parsed once per process (the prefix and suffix
    patterns are read twice while a language loads: by their searches and by
    :class:`EdgeSplit`; the result is only read)."""
    assert isinstance(pattern.pattern, str)
    parser = _regex_parser()
    branches = _top_branches(pattern.pattern)
    try:
        whole = parser.parse(pattern.pattern, pattern.flags).data
        parsed = [parser.parse(branch, pattern.flags) for branch in branches]
    except (re.error, RecursionError):  # pragma: no cover - a pattern re compiled
        return None
    # A wrong split would leave a group or a class open (an error above); where the parser
    # keeps the alternatives as they are, they must also be the same.
    if len(branches) > 1 and len(whole) == 1 and str(whole[0][0]) == "BRANCH":
        alternatives = whole[0][1][1]
        if len(alternatives) != len(parsed) or any(
            a.getwidth() != b.getwidth() for a, b in zip(alternatives, parsed, strict=True)
        ):
            return None
    for tree in parsed:
        items = tree.data
        if not items or str(items[where][0]) != "AT" or str(items[where][1]) != anchor:
            return None
    return pattern, branches, parsed


_EdgeTest = Callable[[str], bool]


def _class_test(items: Any) -> _EdgeTest | None:
    """Membership in a parsed character class (``IN``) as a compiled class of its own; None
    when unsure (categories, case-folded ranges)."""
    negate = False
    parts: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            parts.append(f"\\U{arg:08x}")
        elif name == "RANGE":
            parts.append(f"\\U{arg[0]:08x}-\\U{arg[1]:08x}")
        else:
            return None
    if not parts:
        return lambda char: negate
    match = re.compile(f"[{'^' if negate else ''}{''.join(parts)}]").match
    return lambda char: match(char) is not None


def _edge_test(items: Any, last: bool) -> _EdgeTest | None:
    """A test of whether a match of the parsed sequence ``items`` could end (``last``) or
    begin with a character; None when unsure (a zero-width item there, an optional one, an
    unknown kind)."""
    if not len(items):
        return None
    op, arg = items[-1 if last else 0]
    name = str(op)
    if name == "LITERAL":
        return chr(arg).__eq__
    if name == "NOT_LITERAL":
        return chr(arg).__ne__
    if name == "IN":
        return _class_test(arg)
    if name == "BRANCH":
        tests = [_edge_test(alternative, last) for alternative in arg[1]]
        if any(test is None for test in tests):
            return None
        found = [test for test in tests if test is not None]
        return lambda char: any(test(char) for test in found)
    if name == "SUBPATTERN":
        return None if arg[1] & re.IGNORECASE else _edge_test(arg[3], last)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        return None if arg[0] == 0 else _edge_test(arg[2], last)
    if name == "ATOMIC_GROUP":
        return _edge_test(arg, last)
    return None


def _no_match(string: str, *args: int) -> None:
    return None


#: Characters (and sets of alternatives) whose restricted search is kept, per pattern.
_EDGE_CACHE_SIZE = 4096


def _by_edge(
    edges: Sequence[Any], last: bool, whole: _Search, build: Callable[[tuple[int, ...]], _Search]
) -> _Search:
    """A search that runs, for a string ending (``last``) or beginning with a character, only
    the alternatives (their parsed ``edges``) that can end or begin with it: ``build`` makes
    the search of a set of alternatives (kept in their order, so the same one wins); the
    empty string and, at the end, a final newline (where ``$`` also matches) use ``whole``.
    Per-character searches are kept in bounded dictionaries written whole entries at a time
    (safe under threads)."""
    tests = [_edge_test(items, last) for items in edges]
    by_char: dict[str, _Search] = {}
    by_subset: dict[tuple[int, ...], _Search] = {}

    def search_edge(string: str) -> Any:
        if not string:
            return whole(string)
        char = string[-1] if last else string[0]
        found = by_char.get(char)
        if found is None:
            if last and char == "\n":
                return whole(string)
            subset = tuple([i for i, test in enumerate(tests) if test is None or test(char)])
            found = by_subset.get(subset)
            if found is None:
                found = build(subset)
                if len(by_subset) >= _EDGE_CACHE_SIZE:
                    by_subset.clear()
                by_subset[subset] = found
            if len(by_char) >= _EDGE_CACHE_SIZE:
                by_char.clear()
            by_char[char] = found
        return found(string)

    return search_edge


def _joined(pattern: re.Pattern[str], branches: list[str], subset: tuple[int, ...]) -> Any:
    """The pattern of the alternatives in ``subset`` (the pattern itself for all of them)."""
    if len(subset) == len(branches):
        return pattern
    return re.compile("|".join(branches[i] for i in subset), pattern.flags)


def head_search(search: _Search) -> _Search:
    """A prefix pattern's ``search`` as ``match``: spaCy compiles prefixes as alternatives
    that each begin the string (``^piece``), so a match can only start at the start (the
    pattern's structure is checked; any other pattern keeps its own ``search``); only the
    alternatives that can begin with the string's first character are tried.

    >>> prefix = re.compile(r"^\\(|^US\\$|^\\.\\.+").search
    >>> head_search(prefix)("(1990").span(), head_search(prefix)("US$5").span()
    ((0, 1), (0, 3))
    >>> head_search(prefix)("Paris") is None
    True
    >>> head_search(re.compile(r"^a|b").search)("xb").span()
    (1, 2)
    """
    found = _alternatives(search, "AT_BEGINNING", 0)
    if found is None:
        return search
    pattern, branches, parsed = found
    if pattern.flags & re.IGNORECASE:
        return pattern.match

    def build(subset: tuple[int, ...]) -> _Search:
        return _joined(pattern, branches, subset).match if subset else _no_match

    return _by_edge([tree.data[1:] for tree in parsed], False, pattern.match, build)


def tail_search(search: _Search) -> _Search:
    """A suffix pattern's ``search`` started where a match can start: spaCy compiles suffixes
    as alternatives that each end the string (``piece$``), so an alternative at most ``w``
    characters wide matches only in the last ``w``; alternatives without a bound (``\\.\\.+$``)
    are searched on their own first; only the alternatives that can end with the string's last
    character are tried. The same match as ``search`` on every string (the pattern's structure
    is checked with the standard library's parser; any other pattern keeps its own ``search``).

    >>> suffix = re.compile(r"(?<=[0-9])km$|,$|\\.\\.+$").search
    >>> fast = tail_search(suffix)
    >>> [fast(s).span() for s in ("Paris,", "10km", "wait...", "x" * 50 + "...")]
    [(5, 6), (2, 4), (4, 7), (50, 53)]
    """
    found = _alternatives(search, "AT_END", -1)
    if found is None:
        return search
    pattern, branches, parsed = found
    highs = [tree.getwidth()[1] for tree in parsed]

    def build(subset: tuple[int, ...]) -> _Search:
        if not subset:
            return _no_match
        unbounded = [branches[i] for i in subset if highs[i] > _UNBOUNDED]
        # "$" also matches before a final newline: one character more
        reach = max([highs[i] for i in subset if highs[i] <= _UNBOUNDED], default=0) + 1
        unbounded_search = (
            re.compile("|".join(unbounded), pattern.flags).search if unbounded else None
        )
        full = _joined(pattern, branches, subset).search

        def search_tail(string: str) -> Any:
            start = len(string) - reach
            if start <= 0:
                return full(string)
            if unbounded_search is not None:
                found = unbounded_search(string)
                if found is not None and found.start() < start:
                    return full(string)
            return full(string, start)

        return search_tail

    whole = build(tuple(range(len(branches))))
    if pattern.flags & re.IGNORECASE:
        return whole
    return _by_edge([tree.data[:-1] for tree in parsed], True, whole, build)


#: Characters considered for the edges of the fast path (:class:`EdgeSplit`): ASCII and common
#: Unicode punctuation; each is kept only where the patterns' structure shows it qualifies.
_EDGE_CANDIDATES = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~“”‘’„«»–—…·¡¿"
#: Clitics split off a word's end by spaCy's suffix rules ("Peter's" -> "Peter", "'s").
_CLITICS = ("'s", "'S", "’s", "’S")


def _profile(search: _Search | None, anchor: str, where: int) -> list[tuple[Any, Any, Any]] | None:
    """Each top-level alternative of a prefix (``where=0``) or suffix (``-1``) pattern as (its
    edge test, its items without the anchor, its width); None when the structure is not
    understood."""
    if search is None:
        return []
    found = _alternatives(search, anchor, where)
    if found is None:
        return None
    profile = []
    for tree in found[2]:
        items = tree.data[1:] if where == 0 else tree.data[:-1]
        profile.append((_edge_test(items, last=where != 0), items, tree.getwidth()))
    return profile


def _edge_kind(profile: list[tuple[Any, Any, Any]], char: str) -> str:
    """How the alternatives that can begin (or end) with ``char`` match a string beginning (or
    ending) with it: ``"none"`` (none can), ``"one"`` (exactly that character, whatever
    follows: each is one character wide and one of them is that character alone), ``"run"``
    (as ``"one"``, except that a run of the character (``\\.\\.+``) matches when the
    character beside it is the same) or ``"other"``."""
    kind = "none"
    alone = False
    for test, items, width in profile:
        if test is not None and not test(char):
            continue
        names = [str(op) for op, _ in items]
        if width == (1, 1):
            kind = "one" if kind == "none" else kind
            alone = alone or (names in (["LITERAL"], ["IN"]) and test is not None)
        elif (
            names == ["LITERAL", "MAX_REPEAT"]
            and items[0][1] == ord(char)
            and items[1][1][0] == 1
            and [(str(op), arg) for op, arg in items[1][1][2]] == [("LITERAL", ord(char))]
        ):
            kind = "run"
        else:
            return "other"
    if kind == "none":
        return kind
    return kind if alone else "other"


def _unjoined(text: str) -> bool:
    """Whether ``text`` holds a character that is no word character and joins no words
    (``_SEPARATORS``): no technical term and no word holds it."""
    return any(not (c == "_" or c.isalnum() or c in _SEPARATORS) for c in text)


#: What joins the words of a technical term (``TECH_TOKEN_RE``).
_SEPARATORS = "-./@"


@dataclass(frozen=True)
class EdgeSplit:
    """The tokens of the commonest chunks derived at once: a word (a string the token rule keeps
    whole, such as "Paris", "1990" or "well-known") with plain punctuation at either end
    ('"Paris,"', "(1990).") and a clitic at its end ("Peter's."). Each edge character is one
    token: the patterns' structure shows that every prefix (suffix) alternative that can begin
    (end) with it matches that one character (:func:`_edge_kind`). Where the word is part of a
    special case (``cores``: every special case stripped of its edge characters), where the
    edges hold one, or where a search the edges do not decide finds an affix,
    :meth:`AffixRules.split_edges` says None and the rules run. It assumes the token rule never
    keeps whole a string that begins or ends with an edge character (lexeval's technical-term
    rule; edge characters are no word characters, ".", "+" or "#")."""

    #: characters that are always a prefix (suffix) of one character
    heads: str
    tails: str
    #: suffixes of two characters split off a word ("'s"; no special case)
    clitics: frozenset[str]
    #: tail characters a run of which is one suffix ("..")
    runs: tuple[str, ...]
    #: ASCII characters no prefix alternative begins (no suffix alternative ends) with
    no_prefix: frozenset[str]
    no_suffix: frozenset[str]
    #: every special case without its leading heads and trailing tails
    cores: frozenset[str]

    @classmethod
    def of(
        cls,
        prefix_search: _Search | None,
        suffix_search: _Search | None,
        specials: frozenset[str],
        other: frozenset[str],
    ) -> EdgeSplit | None:
        """The fast path of these patterns and special cases (``other``: those that are not
        their own only token), or None when their structure is not understood."""
        prefixes = _profile(prefix_search, "AT_BEGINNING", 0)
        suffixes = _profile(suffix_search, "AT_END", -1)
        if prefixes is None or suffixes is None:
            return None
        plain = [c for c in _EDGE_CANDIDATES if not re.match(r"\w", c) and c not in other]
        heads = "".join(c for c in plain if c != "." and _edge_kind(prefixes, c) == "one")
        tail_kinds = {c: _edge_kind(suffixes, c) for c in plain if c not in "+#"}
        tails = "".join(c for c, kind in tail_kinds.items() if kind in ("one", "run"))
        runs = tuple(sorted(c + c for c, kind in tail_kinds.items() if kind == "run"))
        ascii_chars = [chr(i) for i in range(128)]
        no_prefix = frozenset(c for c in ascii_chars if _edge_kind(prefixes, c) == "none")
        no_suffix = frozenset(c for c in ascii_chars if _edge_kind(suffixes, c) == "none")
        cores = frozenset(special.lstrip(heads).rstrip(tails) for special in specials)
        branches = _branches(suffix_search)
        # clitics of the suffix pattern that are no special case and no technical term holds
        clitics = frozenset(
            c
            for c in _CLITICS
            if f"{re.escape(c)}$" in branches and c not in other and _unjoined(c)
        )
        return cls(heads, tails, clitics, runs, no_prefix, no_suffix, cores)


def _branches(search: _Search | None) -> list[str]:
    pattern = getattr(search, "__self__", None)
    return _top_branches(pattern.pattern) if isinstance(pattern, re.Pattern) else []


@dataclass(frozen=True)
class AffixRules:
    """One language's tokenizer rules, read once from its spaCy ``Tokenizer`` (immutable:
    safe to share between threads; no spaCy object is kept)."""

    prefix_search: _Search | None
    suffix_search: _Search | None
    infix_finditer: Callable[[str], Iterator[Any]] | None
    token_match: _Search | None
    url_match: _Search | None
    #: special cases whose only token is the case itself: followed
    same: frozenset[str]
    #: every other special case: the chunk goes to spaCy
    other: frozenset[str]
    #: every beginning of a special case ("e", "e.", "e.g" of "e.g."): where a run of
    #: tokens is not one, no longer run from the same token is a special case
    beginnings: frozenset[str]
    #: the fast path of the commonest chunks (None: the rules only)
    edges: EdgeSplit | None = None

    @classmethod
    def of(
        cls, tokenizer: Any, *, token_match: _Search | None = None, plain_edges: bool = False
    ) -> AffixRules:
        """The rules of a spaCy ``Tokenizer`` (its patterns and its special cases);
        ``token_match``: a function equal to the tokenizer's own (a faster one);
        ``plain_edges``: the token rule never matches a string that begins with a character
        other than a word character or ".", or ends with one other than a word character, "+"
        or "#" (lexeval's technical-term rule), so that :class:`EdgeSplit` can take part."""
        from spacy.symbols import ORTH

        rules: Mapping[str, Sequence[Mapping[Any, str]]] = tokenizer.rules or {}
        same = frozenset(
            s for s, tokens in rules.items() if len(tokens) == 1 and tokens[0].get(ORTH) == s
        )
        return cls.of_patterns(
            prefix_search=tokenizer.prefix_search,
            suffix_search=tokenizer.suffix_search,
            infix_finditer=tokenizer.infix_finditer,
            token_match=token_match or tokenizer.token_match,
            url_match=tokenizer.url_match,
            same=same,
            other=frozenset(rules) - same,
            plain_edges=plain_edges,
        )

    @classmethod
    def of_patterns(
        cls,
        *,
        prefix_search: _Search | None,
        suffix_search: _Search | None,
        infix_finditer: Callable[[str], Iterator[Any]] | None,
        token_match: _Search | None,
        url_match: _Search | None,
        same: frozenset[str],
        other: frozenset[str],
        plain_edges: bool = False,
    ) -> AffixRules:
        """The rules of a tokenizer given by its patterns' methods and its special cases
        (``same``: those whose only token is the case itself; ``other``: the rest), as
        :meth:`of` reads them from a spaCy ``Tokenizer`` (or a snapshot of one,
        :mod:`lexeval.text.snapshot`, without loading spaCy)."""
        specials = same | other
        edges = (
            EdgeSplit.of(prefix_search, suffix_search, specials, other)
            if plain_edges and token_match is not None
            else None
        )
        return cls(
            prefix_search=head_search(prefix_search) if prefix_search else None,
            suffix_search=tail_search(suffix_search) if suffix_search else None,
            infix_finditer=infix_finditer,
            token_match=token_match,
            url_match=url_match,
            same=same,
            other=other,
            beginnings=frozenset(s[:i] for s in specials for i in range(1, len(s) + 1)),
            edges=edges,
        )

    def split(self, chunk: str) -> list[str] | None:
        """The tokens of ``chunk`` (no white space in it) as spaCy's tokenizer gives them, or
        None where a special case could take part: :meth:`split_edges` where it decides,
        else :meth:`split_rules`."""
        edges = self.edges
        if edges is not None:
            found = self.split_edges(chunk)
            if found is not None:
                return found
        return self.split_rules(chunk)

    def split_edges(self, chunk: str) -> list[str] | None:
        """The tokens of a word with plain punctuation at its edges and a clitic at its end
        (:class:`EdgeSplit`), the tokens :meth:`split_rules` gives, without running its
        loop; None where the fast path does not decide (the rules do).

        It follows the rules' loop (``Tokenizer._split_affixes``): each turn takes one prefix
        and one suffix; an edge character is one (:class:`EdgeSplit`), the clitic is checked
        with the suffix search, and once one side is bare, the searches on that side must
        find nothing (known without a search for most ASCII characters). No string the loop
        looks at and no run of the tokens is a special case: each of them, stripped of its
        edge characters, is the word or the word and its clitic (not in ``cores``), or lies
        within the edges (checked as the final matcher does).

        >>> from lexeval.text.resources import load_language
        >>> rules = load_language("en").affixes
        >>> rules.split_edges("(Peter's)."), rules.split_edges("(it's).")
        (['(', 'Peter', "'s", ')', '.'], None)
        """
        edges = self.edges
        token_match = self.token_match
        if edges is None or token_match is None:
            return None
        # The commonest shapes first, what the steps below give them: a word alone ("1990"), a
        # word and one edge character after it ("Paris,") or before it ("(January"). A letter
        # or digit is no edge character (edge characters are no word characters), so the
        # word is the body, there is no clitic (it holds an apostrophe) and no run of a tail
        # character; one turn of the loop checks the side that is bare.
        word = chunk[:-1]
        if word.isalnum():
            last = chunk[-1]
            if last.isalnum():  # a word alone: no edge, no turn
                return None if chunk in edges.cores or not token_match(chunk) else [chunk]
            if last in edges.tails:
                if word in edges.cores or not token_match(word):
                    return None
                return [word, last] if self._no_prefix(chunk, edges) else None
        else:
            word = chunk[1:]
            first = chunk[:1]
            if first in edges.heads and word.isalnum():  # ("" is in every string, no word)
                if word in edges.cores or not token_match(word):
                    return None
                return [first, word] if self._no_suffix(word, edges) else None
        rest = chunk.lstrip(edges.heads)
        body = rest.rstrip(edges.tails)
        if not body:
            return None
        pre, suf = chunk[: len(chunk) - len(rest)], rest[len(body) :]
        clitic = body[-2:]
        if len(body) > 2 and clitic in edges.clitics:
            core = body[:-2]
        else:
            core, clitic = body, ""
        cores = edges.cores
        if core in cores or not token_match(core):
            return None
        if clitic:
            if clitic in self.other or core + clitic in cores:
                return None
            right = [clitic, *suf]
            last = clitic[-1]
        else:
            right = list(suf)
            last = core[-1]
        if suf:
            for run in edges.runs:
                if run in last + suf:
                    return None
        left = list(pre)
        if (len(left) > 1 and self._spells_special(left)) or (
            len(right) > 1 and self._spells_special(right)
        ):
            return None
        n_left, n_right = len(pre), len(right)
        if n_left != n_right or clitic:
            inner = core + clitic
            for i in range(max(n_left, n_right)):
                # the turn's string: pre[i:] + core + the part of clitic + suf still there
                kept = len(suf) - i
                tail = inner + suf[:kept] if kept >= 0 else core
                if i >= n_left and not self._no_prefix(tail, edges):
                    return None
                head = pre[i + 1 :] if i < n_left else ""
                if i >= n_right:
                    if not self._no_suffix(head + core, edges):
                        return None
                elif kept == 0:  # the clitic
                    if not head and token_match(inner):
                        return None
                    match = self.suffix_search(head + inner) if self.suffix_search else None
                    if match is None or match.end() - match.start() != len(clitic):
                        return None
        left.append(core)
        left.extend(right)
        return left

    def _no_prefix(self, string: str, edges: EdgeSplit) -> bool:
        """Whether the prefix search finds nothing in ``string``."""
        search = self.prefix_search
        return search is None or string[0] in edges.no_prefix or search(string) is None

    def _no_suffix(self, string: str, edges: EdgeSplit) -> bool:
        """Whether the suffix search finds nothing in ``string``."""
        search = self.suffix_search
        return search is None or string[-1] in edges.no_suffix or search(string) is None

    def split_rules(self, chunk: str) -> list[str] | None:
        """The tokens of ``chunk`` (no white space in it) as spaCy's tokenizer gives them, or
        None where a special case could take part: the rules run one after another, as
        spaCy's tokenizer runs them (the reference of :meth:`split_edges`)."""
        same, other = self.same, self.other
        if chunk in other:
            return None
        if chunk in same:
            return [chunk]
        token_match = self.token_match
        prefix_search, suffix_search = self.prefix_search, self.suffix_search
        prefixes: list[str] = []
        suffixes: list[str] = []
        string = chunk
        last_size = 0
        unmatched = None  # the last string token_match did not keep whole
        while string and len(string) != last_size:  # Tokenizer._split_affixes
            if token_match is not None:
                if token_match(string):
                    break
                unmatched = string
            if string in same:
                break
            if string in other:
                return None
            last_size = len(string)
            pre_len = 0
            if prefix_search is not None:
                found = prefix_search(string)
                if found is not None:
                    pre_len = found.end() - found.start()
            if pre_len:
                prefix, minus_pre = string[:pre_len], string[pre_len:]
                if minus_pre and (minus_pre in same or minus_pre in other):
                    if minus_pre in other:
                        return None
                    string = minus_pre
                    prefixes.append(prefix)
                    break
            suf_len = 0
            if suffix_search is not None:
                found = suffix_search(string[pre_len:])
                if found is not None:
                    suf_len = found.end() - found.start()
            if suf_len:
                suffix, minus_suf = string[-suf_len:], string[:-suf_len]
                if minus_suf and (minus_suf in same or minus_suf in other):
                    if minus_suf in other:
                        return None
                    string = minus_suf
                    suffixes.append(suffix)
                    break
            if pre_len and suf_len and pre_len + suf_len <= len(string):
                string = string[pre_len:-suf_len]
                prefixes.append(prefix)
                suffixes.append(suffix)
            elif pre_len:
                string = minus_pre
                prefixes.append(prefix)
            elif suf_len:
                string = minus_suf
                suffixes.append(suffix)
        tokens = prefixes
        if string:  # Tokenizer._attach_tokens
            if string in other:
                return None
            if (
                string in same
                or (token_match is not None and string is not unmatched and token_match(string))
                or (self.url_match is not None and self.url_match(string))
            ):
                tokens.append(string)
            else:
                self._infixes(string, tokens)
        if suffixes:
            tokens.extend(reversed(suffixes))
        if len(tokens) > 1 and self._spells_special(tokens):
            return None
        return tokens

    def _infixes(self, string: str, tokens: list[str]) -> None:
        """``string`` split at its infixes (as ``_attach_tokens``), appended to ``tokens``."""
        matches = list(self.infix_finditer(string)) if self.infix_finditer is not None else []
        if not matches:
            tokens.append(string)
            return
        start = 0
        for match in matches:
            infix_start, infix_end = match.start(), match.end()
            if infix_start == 0:  # spaCy skips an infix at the very start
                continue
            if infix_start != start:
                tokens.append(string[start:infix_start])
            if infix_start != infix_end:
                tokens.append(string[infix_start:infix_end])
            start = infix_end
        if string[start:]:
            tokens.append(string[start:])

    def _spells_special(self, tokens: list[str]) -> bool:
        """Whether a run of tokens spells a special case that spaCy's final matcher would
        retokenize (a run of two or more, or one token that is not its own special case)."""
        same, other, beginnings = self.same, self.other, self.beginnings
        n = len(tokens)
        for i in range(n - 1):
            run = tokens[i]
            if run not in beginnings:
                continue
            if run in other:
                return True
            for j in range(i + 1, n):
                run += tokens[j]
                if run not in beginnings:
                    break
                if run in other or run in same:
                    return True
        return tokens[-1] in other
