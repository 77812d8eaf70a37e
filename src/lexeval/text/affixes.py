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

>>> from lexeval.text.resources import load_language
>>> rules = load_language("en").affixes
>>> rules.split('"Paris,"'), rules.split("(1990)."), rules.split("TCP/IP.")
(['"', 'Paris', ',', '"'], ['(', '1990', ')', '.'], ['TCP/IP', '.'])
>>> rules.split("don't") is None, rules.split("(Mr.")
(True, ['(', 'Mr.'])
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["AffixRules", "head_search", "tail_search"]

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

    @classmethod
    def of(cls, tokenizer: Any, *, token_match: _Search | None = None) -> AffixRules:
        """The rules of a spaCy ``Tokenizer`` (its patterns and its special cases);
        ``token_match``: a function equal to the tokenizer's own (a faster one)."""
        from spacy.symbols import ORTH

        rules: Mapping[str, Sequence[Mapping[Any, str]]] = tokenizer.rules or {}
        same = frozenset(
            s for s, tokens in rules.items() if len(tokens) == 1 and tokens[0].get(ORTH) == s
        )
        return cls(
            prefix_search=(
                head_search(tokenizer.prefix_search) if tokenizer.prefix_search else None
            ),
            suffix_search=(
                tail_search(tokenizer.suffix_search) if tokenizer.suffix_search else None
            ),
            infix_finditer=tokenizer.infix_finditer,
            token_match=token_match or tokenizer.token_match,
            url_match=tokenizer.url_match,
            same=same,
            other=frozenset(rules) - same,
            beginnings=frozenset(s[:i] for s in rules for i in range(1, len(s) + 1)),
        )

    def split(self, chunk: str) -> list[str] | None:
        """The tokens of ``chunk`` (no white space in it) as spaCy's tokenizer gives them, or
        None where a special case could take part."""
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
        while string and len(string) != last_size:  # Tokenizer._split_affixes
            if token_match is not None and token_match(string):
                break
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
                or (token_match is not None and token_match(string))
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
