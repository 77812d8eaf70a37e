"""TER's beam edit distance (sacrebleu 2.6's ``lib_ter.BeamEditDistance``), restructured.

sacrebleu fills a Levenshtein matrix (every edit costs 1) row by row, one row per word of
the output, each row only inside a beam of 25 cells either side of the pseudo-diagonal
``floor(i * len(ref) / len(output))`` (wider when the lengths differ wildly; the last row
whole); cells outside it stay "infinite". Of a cell's three moves it keeps the first
cheapest in the order substitution (or match), deletion of an output word, insertion of a
reference word, and it reads the trace back from the last cell. :class:`BeamDistance`
computes the same rows on integer word ids and plain lists of costs (no operation kept per
cell, no tuples): the trace is read back from the costs with sacrebleu's order of
preference, so costs and traces are sacrebleu's (tests/metrics/test_ter_distance.py
compares them with ``BeamEditDistance``). The beam of each row is computed once per output
length.

sacrebleu's prefix cache (rows kept by the words before them) only saves time when every
output it sees has the same length (as in TER's search, where shifts keep the length): a
row's beam depends on the length. Here the cache is emptied when the length changes, so
the answer never depends on call order. A shifted output differs from the output it was
shifted from only in a span of words: its rows are computed up to the end of that span and
met by the first output's costs read backwards from the last cell (every path crosses
each row, so the cheapest sum over a row's cells is the cost).

>>> d = BeamDistance("the cat sat on the mat".split())
>>> d("the cat mat on the sat".split())
(2, '  s  s')
>>> d.costs(["the cat sat on the mat".split(), "the cat mat on the sat".split()])
[0, 2]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import add

__all__ = ["BeamDistance"]

#: sacrebleu 2.6's beam width and "infinity" (lib_ter.py)
_BEAM_WIDTH = 25
_INF = 10**16

_MAX_CACHE = 10000
_Rows = list[list[int]]
_Node = dict[int, tuple["_Node", list[int]]]


class BeamDistance:
    """sacrebleu's beam edit distance from output words to the reference ``words_ref``.

    ``distance(words)`` returns sacrebleu's ``(cost, trace)`` (the output rewritten into the
    reference: ``" "`` kept, ``"s"`` substituted, ``"d"`` an output word deleted, ``"i"`` a
    reference word inserted); ``distance.costs(outputs)`` the costs of several outputs.
    Rows already computed for the first words of an output of the same length are reused
    (a trie of word prefixes, as sacrebleu's cache, up to its 10,000 rows).
    """

    def __init__(self, words_ref: Sequence[str]) -> None:
        self._ids: dict[str, int] = {}
        self._ref = self._encode(words_ref)
        self._m = len(self._ref)
        self._initial = list(range(self._m + 1))
        self._length = -1  # the output length the cache and beam are for
        self._cache: _Node = {}
        self._cached = 0
        self._beam: list[tuple[int, int]] = []
        self._base: list[int] = []  # the output last traced, and the costs of its suffixes
        self._suffix: _Rows = []
        self._traced: tuple[int, str] | None = None  # its cost and trace

    def _encode(self, words: Sequence[str]) -> list[int]:
        ids = self._ids
        return [ids.setdefault(w, len(ids)) for w in words]

    def __call__(self, words_hyp: Sequence[str]) -> tuple[int, str]:
        hyp = self._encode(words_hyp)
        if self._traced is not None and hyp == self._base:  # TER asks twice at the end
            return self._traced
        rows = self._rows(hyp, len(hyp))
        self._base, self._suffix = hyp, []
        self._traced = (rows[-1][-1], _trace(rows, hyp, self._ref))
        return self._traced

    def costs(self, outputs: Sequence[Sequence[str]]) -> list[int]:
        """The costs of ``outputs``, in order. An output of the last traced output's length
        whose last words are the same has its rows computed only up to them: the cost is
        the cheapest sum of a cell's cost from the start and the traced output's cost from
        that cell to the end (every path crosses the row)."""
        found: list[int] = []
        base = self._base
        for words in outputs:
            hyp = self._encode(words)
            n = len(hyp)
            end = n
            if n == len(base):
                while end > 0 and hyp[end - 1] == base[end - 1]:
                    end -= 1
            if end == n:
                found.append(self._rows(hyp, n)[-1][-1])
                continue
            if not self._suffix:
                self._suffix = _suffix_costs(self._ref, base, self._beam)
            row, rest = self._rows(hyp, end)[end], self._suffix[end]
            lo, hi = self._beam[end]
            found.append(min(map(add, row[lo:hi], rest[lo:hi]), default=_INF))
        return found

    def _rows(self, hyp: list[int], upto: int) -> _Rows:
        """Rows 0..``upto`` of ``hyp``'s matrix: the cached ones of its first words, then new
        ones (cached in turn)."""
        if len(hyp) != self._length:  # rows and beam depend on the output's length
            self._length, self._cache, self._cached = len(hyp), {}, 0
            self._beam = _beam(len(hyp), self._m)
        rows = [self._initial]
        node = self._cache
        for word in hyp[:upto]:
            entry = node.get(word)
            if entry is None:
                break
            node, row = entry
            rows.append(row)
        known = len(rows)
        if known <= upto:
            rows = _complete(self._ref, hyp[:upto], rows, self._beam)
        if self._cached < _MAX_CACHE:
            for word, row in zip(hyp[known - 1 : len(rows) - 1], rows[known:], strict=True):
                child: _Node = {}
                node[word] = (child, row)
                node = child
            self._cached += len(rows) - known
        return rows


def _beam(n: int, m: int) -> list[tuple[int, int]]:
    """sacrebleu's ``[min_j, max_j)`` of rows 0..n (row 0, the reference inserted, whole)."""
    length_ratio = m / n if n else 1
    beam_width = _BEAM_WIDTH
    if length_ratio / 2 > _BEAM_WIDTH:  # lengths so far apart that rows would not overlap
        beam_width = math.ceil(length_ratio / 2 + _BEAM_WIDTH)
    # the pseudo-diagonal floor(i * length_ratio): int() floors a float >= 0
    diagonals = [int(i * length_ratio) for i in range(n + 1)]
    beam = [(max(0, d - beam_width), min(m + 1, d + beam_width)) for d in diagonals]
    beam[0] = (0, m + 1)
    if n:
        beam[n] = (beam[n][0], m + 1)
    return beam


def _complete(ref: list[int], hyp: list[int], rows: _Rows, beam: list[tuple[int, int]]) -> _Rows:
    """``rows`` (the first rows of the matrix, known) completed to the last row of ``hyp``.

    A cell takes the cheapest of its diagonal (plus 1 unless the words match), the cell above
    plus 1 and the cell to its left plus 1 (which one, sacrebleu's order on ties, is read back
    by :func:`_trace`); cells outside the beam are "infinite" (``_INF``). The beams of
    consecutive rows overlap (sacrebleu widens them for that), so every cell inside one is
    reachable and finite, as in sacrebleu."""
    prev = rows[-1]
    empty = [_INF] * (len(ref) + 1)
    for i in range(len(rows), len(hyp) + 1):
        word = hyp[i - 1]
        lo, hi = beam[i]
        if lo >= hi:
            cur = empty[:]
        else:
            if lo == 0:
                left = prev[0] + 1  # delete the output word
                found = [left]
                lo = 1
            else:
                left = _INF
                found = []
            add = found.append
            cells = zip(prev[lo - 1 : hi - 1], prev[lo:hi], ref[lo - 1 : hi - 1], strict=True)
            for diag, up, ref_word in cells:
                cost = (up if up < left else left) + 1
                if ref_word != word:
                    diag += 1
                if diag < cost:
                    cost = diag
                add(cost)
                left = cost
            cur = empty[: hi - len(found)] + found + empty[hi:]
        rows.append(cur)
        prev = cur
    return rows


def _suffix_costs(ref: list[int], hyp: list[int], beam: list[tuple[int, int]]) -> _Rows:
    """The matrix read backwards: row i, cell j is the cheapest way from cell (i, j) to the
    last cell through cells inside the beam (moves as in :func:`_complete`)."""
    m, n = len(ref), len(hyp)
    empty = [_INF] * (m + 1)
    lo = beam[n][0]
    last = empty[:lo] + list(range(m - lo, -1, -1))  # insert the rest of the reference
    rows = [last]
    nxt = last
    for i in range(n - 1, -1, -1):
        word = hyp[i]
        lo, hi = beam[i]
        cur = empty[:]
        right = _INF
        for j in range(hi - 1, lo - 1, -1):
            cost = (nxt[j] if nxt[j] < right else right) + 1
            if j < m:
                diag = nxt[j + 1] + (ref[j] != word)
                if diag < cost:
                    cost = diag
            cur[j] = right = cost
        rows.append(cur)
        nxt = cur
    rows.reverse()
    return rows


def _trace(rows: _Rows, hyp: list[int], ref: list[int]) -> str:
    """sacrebleu's trace read back from the costs: a finite cell's operation is the first of
    substitution (match), deletion, insertion that reaches its cost."""
    ops: list[str] = []
    i, j = len(hyp), len(ref)
    while i > 0 or j > 0:
        cost = rows[i][j]
        if i == 0:
            ops.append("i")
            j -= 1
        elif j == 0:
            if cost == _INF:
                raise ValueError("unknown operation 'x'")
            ops.append("d")
            i -= 1
        elif cost >= _INF:
            raise ValueError("unknown operation 'x'")
        elif rows[i - 1][j - 1] + (hyp[i - 1] != ref[j - 1]) == cost:
            ops.append(" " if hyp[i - 1] == ref[j - 1] else "s")
            i -= 1
            j -= 1
        elif rows[i - 1][j] + 1 == cost:
            ops.append("d")
            i -= 1
        else:
            ops.append("i")
            j -= 1
    return "".join(reversed(ops))
