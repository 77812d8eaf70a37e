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

>>> from lexeval.text.resources import load_language
>>> rules = load_language("en").affixes
>>> rules.split('"Paris,"'), rules.split("(1990)."), rules.split("TCP/IP.")
(['"', 'Paris', ',', '"'], ['(', '1990', ')', '.'], ['TCP/IP', '.'])
>>> rules.split("don't") is None, rules.split("(Mr.")
(True, ['(', 'Mr.'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["AffixRules"]

_Search = Callable[[str], Any]  # a compiled pattern's search/match/fullmatch: Match or None


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
    def of(cls, tokenizer: Any) -> AffixRules:
        """The rules of a spaCy ``Tokenizer`` (its patterns and its special cases)."""
        from spacy.symbols import ORTH

        rules: Mapping[str, Sequence[Mapping[Any, str]]] = tokenizer.rules or {}
        same = frozenset(
            s for s, tokens in rules.items() if len(tokens) == 1 and tokens[0].get(ORTH) == s
        )
        return cls(
            prefix_search=tokenizer.prefix_search,
            suffix_search=tokenizer.suffix_search,
            infix_finditer=tokenizer.infix_finditer,
            token_match=tokenizer.token_match,
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
