"""Exact keyword coverage: a reference keyword counts when it is one of the output's keys
(a phrase when its words appear in a row), optionally with rapidfuzz matching of spelling
variants (``fuzzy``). Every keyword counts the same: no weights, no penalties (the metric
refuses those knobs with ``match="exact"``).

>>> from lexeval.normalize import Normalizer
>>> exact = ExactCoverage(Normalizer())
>>> score, info = exact.score("The brown foxes", "a fox, brown")
>>> score, info["matched"]
(1.0, ['brown', 'fox'])
>>> exact.explicit(["state management", "hooks"], "hooks manage state")[0]
0.5
>>> ExplicitCoverage(exact, ["hooks"]).score("(not read)", "hooks manage state")[0]
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexeval.metrics.base import best_reference
from lexeval.metrics.keyword_info import coverage_info
from lexeval.text.base import TextProcessor

__all__ = ["ExactCoverage", "ExplicitCoverage", "contains_phrase"]

#: Texts whose keywords are kept per matcher.
_CACHE_SIZE = 4096


def contains_phrase(tokens: Sequence[str], phrase: Sequence[str]) -> bool:
    """Whether ``phrase`` occurs in ``tokens`` as a run.

    >>> contains_phrase(["a", "b", "c"], ["b", "c"]), contains_phrase(["a", "b"], ["b", "a"])
    (True, False)
    """
    k = len(phrase)
    first = phrase[0]
    for i in range(len(tokens) - k + 1):
        if tokens[i] == first and list(tokens[i : i + k]) == list(phrase):
            return True
    return False


class ExactCoverage:
    """Exact matching of keys from ``processor`` (``fuzzy``: rapidfuzz ratio of at least
    ``fuzzy_threshold`` for keywords of at least ``fuzzy_min_length`` characters; ``mastra``:
    ``info`` with Mastra's key names)."""

    def __init__(
        self,
        processor: TextProcessor,
        *,
        fuzzy: bool = False,
        fuzzy_threshold: float = 85.0,
        fuzzy_min_length: int = 5,
        mastra: bool = False,
    ) -> None:
        self.processor = processor
        self.mastra = mastra
        self.fuzzy = fuzzy
        self.fuzzy_threshold = fuzzy_threshold
        self.fuzzy_min_length = fuzzy_min_length
        self._keywords: dict[str, list[str]] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_keywords"] = {}
        return state

    def keywords(self, text: str) -> list[str]:
        """The processor's keywords of ``text`` (cached)."""
        cached = self._keywords.get(text)
        if cached is None:
            cached = self.processor.keywords(text)
            if len(self._keywords) >= _CACHE_SIZE:
                self._keywords.clear()
            self._keywords[text] = cached
        return cached

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        """The share of ``reference``'s keywords in ``output`` (1.0 when neither has any)."""
        ref_kw = self.keywords(reference)
        out_kw = self.keywords(output)
        return self.cover([(k, (k,)) for k in ref_kw], out_kw, out_kw, both_empty_is_one=True)

    def score_references(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any]]:
        """The best of ``references`` (the ``question`` is not read)."""
        return best_reference(self.score(reference, output) for reference in references)

    def explicit(self, keywords: Sequence[str], output: str) -> tuple[float, dict[str, Any]]:
        """The share of the given ``keywords`` (phrases as runs of keys) in ``output``."""
        processor = self.processor
        seen: dict[str, tuple[str, ...]] = {}
        for k in keywords:
            keys = tuple(processor.tokens(k))
            if keys:
                seen.setdefault(" ".join(keys), keys)
        out_tokens = processor.tokens(output)
        out_kw = list(dict.fromkeys(out_tokens))
        return self.cover(list(seen.items()), out_kw, out_tokens, both_empty_is_one=False)

    def cover(
        self,
        expected: list[tuple[str, tuple[str, ...]]],
        out_kw: list[str],
        out_tokens: Sequence[str],
        *,
        both_empty_is_one: bool,
    ) -> tuple[float, dict[str, Any]]:
        """The coverage of ``expected`` (key, its words) by the output's keys and tokens."""
        out_set = set(out_kw)
        hit: list[str] = []
        used: set[str] = set()
        fuzzy_pairs: dict[str, str] = {}
        pending: list[str] = []
        for key, keys in expected:
            if len(keys) == 1:
                if keys[0] in out_set:
                    hit.append(key)
                    used.add(keys[0])
                    continue
            elif all(k in out_set for k in keys) and contains_phrase(out_tokens, keys):
                hit.append(key)
                used.update(keys)
                continue
            pending.append(key)
        if self.fuzzy and pending and out_kw:
            from rapidfuzz import fuzz, process

            for key in pending:
                if len(key) < self.fuzzy_min_length:
                    continue
                best = process.extractOne(
                    key, out_kw, scorer=fuzz.ratio, score_cutoff=self.fuzzy_threshold
                )
                if best is not None:
                    fuzzy_pairs[key] = best[0]
                    used.add(best[0])
            found = set(hit)
            hit = [k for k, _ in expected if k in found or k in fuzzy_pairs]
        ref_kw = [k for k, _ in expected]
        total = len(ref_kw)
        vacuous = 1.0 if (both_empty_is_one and not out_kw) else 0.0
        score = len(hit) / total if total else vacuous
        info = coverage_info(ref_kw, out_kw, hit, used, mastra=self.mastra)
        if self.fuzzy:
            info["fuzzy_matches"] = fuzzy_pairs
        return score, info


class ExplicitCoverage:
    """The share of the given ``keywords`` in the output, whatever the reference
    (``KeywordCoverageMetric(keywords=[...])``), matched as ``exact`` matches them."""

    def __init__(self, exact: ExactCoverage, keywords: Sequence[str]) -> None:
        self.exact = exact
        self.processor = exact.processor
        self.keywords = keywords

    def score(self, reference: str, output: str) -> tuple[float, dict[str, Any]]:
        """The coverage of the keywords in ``output`` (``reference`` is not read)."""
        return self.exact.explicit(self.keywords, output)

    def score_references(
        self, references: list[str], output: str, question: str | None
    ) -> tuple[float, dict[str, Any]]:
        """As :meth:`score`: every reference scores the same, the first is reported."""
        found = self.score(references[0], output)
        if len(references) > 1:
            found[1]["reference_index"] = 0
        return found
