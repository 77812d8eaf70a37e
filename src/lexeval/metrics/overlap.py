"""Counting overlap between token sequences, shared by the metrics and the card matcher:
F-measure, n-gram counts, clipped overlap and longest common subsequences.

>>> fmeasure(0.5, 1.0)
0.6666666666666666
>>> ngram_overlap(ngram_counts("the cat sat".split(), 1), ngram_counts("the cat".split(), 1))
2
"""

from __future__ import annotations

from collections import Counter, _count_elements  # type: ignore[attr-defined]
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence

from rapidfuzz.distance import LCSseq

__all__ = [
    "clipped_overlap",
    "fmeasure",
    "lcs_indices",
    "lcs_indices_any",
    "lcs_length",
    "ngram_counts",
    "ngram_overlap",
    "summary_lcs_hit_positions",
    "summary_lcs_hits",
    "unigram_bigram_overlap",
]


def fmeasure(precision: float, recall: float) -> float:
    """The harmonic mean, 0.0 when both are 0 (rouge-score's formula, bit for bit).

    >>> fmeasure(0.5, 1.0)
    0.6666666666666666
    >>> fmeasure(0.0, 0.0)
    0.0
    """
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


_new_counter = Counter.__new__


def ngram_counts(tokens: Sequence[str], n: int) -> Counter[Hashable]:
    """Occurrences of every n-gram (unigrams as plain strings, longer ones as tuples).

    >>> ngram_counts(["a", "b", "a", "b"], 2)
    Counter({('a', 'b'): 2, ('b', 'a'): 1})
    """
    counts: Counter[Hashable] = _new_counter(Counter)  # empty: Counter.__init__ does nothing more
    if n == 1:
        _count_elements(counts, tokens)
    elif n == 2:
        _count_elements(counts, zip(tokens, tokens[1:], strict=False))  # noqa: RUF007
    else:
        _count_elements(counts, zip(*(tokens[i:] for i in range(n)), strict=False))
    return counts


def ngram_overlap(ref: Mapping[Hashable, int], out: Mapping[Hashable, int]) -> int:
    """Clipped overlap: the sum over n-grams of the smaller count.

    >>> ngram_overlap(Counter("aab"), Counter("abb"))
    2
    """
    if len(out) < len(ref):
        ref, out = out, ref
    total = 0
    get = out.get
    for gram, c in ref.items():
        o = get(gram)
        if o:
            total += c if c < o else o
    return total


def clipped_overlap(ref: Mapping[Hashable, int], tokens: Sequence[str], n: int) -> int:
    """:func:`ngram_overlap` of ``ref`` and the n-grams of ``tokens``, without counting them
    first (one pass over the output; the fast path for a single reference).

    >>> clipped_overlap(Counter("aab"), list("abb"), 1)
    2
    """
    remaining = dict(ref)
    get = remaining.get
    if n == 1:
        grams: Iterable[Hashable] = tokens
    elif n == 2:
        grams = zip(tokens, tokens[1:], strict=False)  # noqa: RUF007
    else:
        grams = zip(*(tokens[i:] for i in range(n)), strict=False)
    overlap = 0
    for gram in grams:
        c = get(gram)
        if c:
            remaining[gram] = c - 1
            overlap += 1
    return overlap


def unigram_bigram_overlap(
    unigrams: Mapping[Hashable, int], bigrams: Mapping[Hashable, int], tokens: Sequence[str]
) -> tuple[int, int]:
    """:func:`clipped_overlap` of ``tokens`` with a reference's unigram and bigram counts, in
    one pass: a bigram is looked up only where both of its tokens are reference unigrams.

    >>> unigram_bigram_overlap(Counter("aab"), ngram_counts(list("aab"), 2), list("abab"))
    (3, 1)
    """
    remaining = dict(unigrams)
    get = remaining.get
    used: dict[Hashable, int] = {}
    get_bigram = bigrams.get
    overlap1 = overlap2 = 0
    prev: str | None = None
    for tok in tokens:
        c = get(tok)
        if c is None:  # not a reference token: no bigram ends or starts here
            prev = None
            continue
        if c:
            remaining[tok] = c - 1
            overlap1 += 1
        if prev is not None:
            gram = (prev, tok)
            c = get_bigram(gram)
            if c:
                u = used.get(gram, 0)
                if u < c:
                    used[gram] = u + 1
                    overlap2 += 1
        prev = tok
    return overlap1, overlap2


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence (rapidfuzz, bit-parallel).

    rapidfuzz compares list elements by their 64-bit hash: two different tokens could only be
    confused on a hash collision (probability about ``V**2 / 2**65`` for ``V`` distinct tokens).

    >>> lcs_length("the cat sat on the mat".split(), "the mat sat".split())
    2
    """
    if not a or not b:
        return 0
    return int(LCSseq.similarity(a, b))


def lcs_indices(ref: Sequence[Hashable], can: Sequence[Hashable]) -> list[int]:
    """Indices into ``ref`` of one longest common subsequence, chosen exactly as rouge-score's
    table backtrack chooses it (diagonal on a match, else left only when strictly larger).

    >>> lcs_indices(list("abcb"), list("bcab"))
    [1, 2, 3]
    """
    m, n = len(ref), len(can)
    if not m or not n:
        return []
    # Bit-parallel LCS rows (Hyyro 2004): bit j of rows[i] is 0 exactly where the table's row i
    # grows between columns j and j + 1, so table[i][j] = j - popcount(rows[i] & low j bits).
    # One big-integer step per reference token instead of a Python loop over every cell.
    positions: dict[Hashable, int] = {}
    for j, tok in enumerate(can):
        positions[tok] = positions.get(tok, 0) | (1 << j)
    full = (1 << n) - 1
    v = full
    rows = [v]
    for tok in ref:
        match = positions.get(tok)
        if match:
            u = v & match
            v = ((v + u) | (v - u)) & full
        rows.append(v)

    def table(i: int, j: int) -> int:
        return j - (rows[i] & ((1 << j) - 1)).bit_count()

    out: list[int] = []
    i, j = m, n
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            i -= 1
            j -= 1
            out.append(i)
        elif table(i, j - 1) > table(i - 1, j):
            j -= 1
        else:
            i -= 1
    out.reverse()
    return out


def lcs_indices_any(ref: Sequence[Hashable], can: Sequence[Hashable]) -> list[int]:
    """Indices into ``ref`` of one longest common subsequence, found by rapidfuzz (bit-parallel,
    fast on long texts; which LCS it returns may differ from rouge-score's backtrack).

    >>> a, b = list("abcb"), list("bcab")
    >>> len(lcs_indices_any(a, b)) == len(lcs_indices(a, b)) == 3
    True
    """
    if not ref or not can:
        return []
    blocks = LCSseq.editops(ref, can).as_matching_blocks()
    return [i for b in blocks for i in range(b.a, b.a + b.size)]


def summary_lcs_hits(
    ref_sents: Sequence[Sequence[str]],
    can_sents: Sequence[Sequence[str]],
    lcs: Callable[[Sequence[str], Sequence[str]], list[int]] = lcs_indices,
) -> int:
    """Summary-level LCS hits (ROUGE paper 3.2 as rouge-score 0.1.2 counts them): for each
    reference sentence the union of its LCS with every candidate sentence, each token counted
    at most as often as it occurs on both sides.

    >>> summary_lcs_hits([["a", "b", "c"]], [["a", "x"], ["b", "c"]])
    3
    """
    return len(summary_lcs_hit_positions(ref_sents, can_sents, lcs))


def summary_lcs_hit_positions(
    ref_sents: Sequence[Sequence[str]],
    can_sents: Sequence[Sequence[str]],
    lcs: Callable[[Sequence[str], Sequence[str]], list[int]] = lcs_indices,
) -> list[tuple[int, int]]:
    """The reference tokens :func:`summary_lcs_hits` counts, as (sentence, token) positions in
    reference order.

    >>> summary_lcs_hit_positions([["a", "b", "c"]], [["a", "x"], ["c"]])
    [(0, 0), (0, 2)]
    """
    if len(ref_sents) == 1 and len(can_sents) == 1:
        # One sentence each: every token of the LCS occurs on both sides as often as it is
        # used, so every index of the LCS counts.
        return [(0, i) for i in lcs(ref_sents[0], can_sents[0])]
    cnt_r: Counter[str] = Counter()
    cnt_c: Counter[str] = Counter()
    for s in ref_sents:
        cnt_r.update(s)
    for s in can_sents:
        cnt_c.update(s)
    can_sets = [set(c) for c in can_sents]
    hits: list[tuple[int, int]] = []
    for k, r in enumerate(ref_sents):
        rset = set(r)
        union: set[int] = set()
        for c, cset in zip(can_sents, can_sets, strict=True):
            if rset.isdisjoint(cset):
                continue
            union.update(lcs(r, c))
        for idx in sorted(union):
            t = r[idx]
            if cnt_c[t] > 0 and cnt_r[t] > 0:
                hits.append((k, idx))
                cnt_c[t] -= 1
                cnt_r[t] -= 1
    return hits
