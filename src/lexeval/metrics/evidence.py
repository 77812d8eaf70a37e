"""What a token-overlap score matched: the reference's matched and missing tokens or n-grams.

ROUGE and token-F1 report, besides their counts and when asked for (``evidence_limit=N``
with N > 0; the default 0 leaves them out, so that a plain loop pays for the score alone),
``info["matched"]`` and ``info["missing"]``:
the reference's tokens (n-grams joined by a space) in the order of their first occurrence in
the reference, each occurrence either matched by the output or missing from it, clipped as the
score clips them (a reference token that occurs three times and once in the output is listed
once as matched and twice as missing). ROUGE-L/Lsum list the tokens of the longest common
subsequence as matched, in reference order. Each list
holds at most ``limit`` entries (the metrics' option ``evidence_limit``); ``counts`` keeps the
full numbers, so ``len(matched) < counts["overlap"]`` shows that the list was cut.

>>> from collections import Counter
>>> reference, output = "the cat sat on the mat".split(), "the cat lay".split()
>>> overlap_evidence(Counter(reference), Counter(output), limit=20)
{'matched': ['the', 'cat'], 'missing': ['the', 'sat', 'on', 'mat']}
>>> overlap_evidence(Counter(ngrams(reference, 2)), Counter(ngrams(output, 2)), limit=20)
{'matched': ['the cat'], 'missing': ['cat sat', 'sat on', 'on the', 'the mat']}
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

__all__ = [
    "check_evidence_limit",
    "ngrams",
    "overlap_evidence",
    "positions_evidence",
]


def check_evidence_limit(limit: object) -> int:
    """A non-negative int (0, the default, leaves the lists out).

    >>> check_evidence_limit(5)
    5
    """
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"evidence_limit must be int, not {type(limit).__name__}")
    if limit < 0:
        raise ValueError(f"evidence_limit must be 0 or more, not {limit}")
    return limit


def _text(gram: Hashable) -> str:
    return gram if isinstance(gram, str) else " ".join(gram)  # type: ignore[arg-type]


def ngrams(tokens: Sequence[str], n: int) -> Iterable[Hashable]:
    """The n-grams of ``tokens`` in order (unigrams as plain strings, longer ones as tuples).

    >>> list(ngrams(["a", "b", "c"], 2))
    [('a', 'b'), ('b', 'c')]
    """
    if n == 1:
        return tokens
    if n == 2:
        return zip(tokens, tokens[1:], strict=False)  # noqa: RUF007
    return zip(*(tokens[i:] for i in range(n)), strict=False)


def overlap_evidence(
    reference: Mapping[Any, int] | Iterable[Hashable],
    output: Mapping[Any, int] | AbstractSet[Any],
    *,
    limit: int,
) -> dict[str, list[str]]:
    """The reference's n-grams matched by / missing from the output's, clipped, at most
    ``limit`` of each, in the order of their first occurrence in the reference.

    ``reference`` is the reference's n-gram counts (a Counter, in first-occurrence order) or
    its n-grams in order; ``output`` the output's counts, or its set of n-grams (set overlap:
    each distinct n-gram once). A reference n-gram occurring ``c`` times of which the output
    matches ``m`` is listed ``m`` times as matched and ``c - m`` times as missing.

    >>> from collections import Counter
    >>> overlap_evidence(Counter(["a", "b", "a"]), Counter(["a"]), limit=20)
    {'matched': ['a'], 'missing': ['a', 'b']}
    >>> overlap_evidence(["a", "a", "b"], {"a"}, limit=20)
    {'matched': ['a'], 'missing': ['b']}
    """
    if not isinstance(reference, Mapping):
        reference = dict.fromkeys(reference, 1)
    if isinstance(output, AbstractSet):
        output = dict.fromkeys(output, 1)
    matched: list[Hashable] = []
    missing: list[Hashable] = []
    get = output.get
    for gram, count in reference.items():
        available = get(gram)
        if available:
            hit = count if count < available else available
            if len(matched) < limit:
                matched.extend([gram] * min(hit, limit - len(matched)))
            count -= hit
        if count and len(missing) < limit:
            missing.extend([gram] * min(count, limit - len(missing)))
    return {"matched": [_text(g) for g in matched], "missing": [_text(g) for g in missing]}


def positions_evidence(
    reference: Sequence[str], matched_positions: Collection[int], *, limit: int
) -> dict[str, list[str]]:
    """The reference's tokens at ``matched_positions`` (an LCS) as matched, the rest missing.

    >>> positions_evidence(["a", "b", "c"], {0, 2}, limit=20)
    {'matched': ['a', 'c'], 'missing': ['b']}
    """
    matched: list[str] = []
    missing: list[str] = []
    for i, token in enumerate(reference):
        target = matched if i in matched_positions else missing
        if len(target) < limit:
            target.append(token)
        if len(matched) >= limit and len(missing) >= limit:
            break
    return {"matched": matched, "missing": missing}
