"""TER's edit operations: the block shifts of sacrebleu 2.6's Tercom search and the
substitutions, deletions and insertions left after them.

sacrebleu's ``translation_edit_rate`` returns only the number of edits. :func:`ter_trace` runs
the same search and keeps what it did: the shift loop and the candidate ranking are
sacrebleu's ``lib_ter`` (``translation_edit_rate``, ``_shift``, ``_find_shifted_pairs``,
``_perform_shift``) line by line, with sacrebleu's beam edit distance computed by
:class:`lexeval.metrics.ter_distance.BeamDistance` (the same costs and traces as its
``BeamEditDistance``, each round's candidates at once) and sacrebleu's
``trace_to_alignment``. The edits after the shifts become alignment blocks,
so that :func:`lexeval.metrics.edits.count_edits` and :func:`~lexeval.metrics.edits.edit_evidence`
count and list them as for WER and CER. ``shifts + errors`` equals sacrebleu's number of edits
(tests/metrics/test_mt.py asserts it on real pairs).

>>> trace = ter_trace("on the mat the cat sat".split(), "the cat sat on the mat".split())
>>> trace.shifts, trace.edits
([Shift(words=('on', 'the', 'mat'), start=0, target=3)], 1)
>>> trace.counts
EditCounts(hits=6, substitutions=0, deletions=0, insertions=0)
>>> trace.evidence(limit=5)["shifted"]
[('on the mat', 0, 3)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from lexeval.metrics.edits import Block, EditCounts, count_edits, edit_evidence
from lexeval.metrics.ter_distance import BeamDistance

__all__ = ["Shift", "TerTrace", "ter_trace", "trace_blocks"]

# sacrebleu 2.6's limits (lib_ter.py)
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_MAX_SHIFT_CANDIDATES = 1000

#: sacrebleu's trace is the hypothesis rewritten into the reference: flipping insertions and
#: deletions gives the reference rewritten into the hypothesis (what its alignment reads).
_FLIP = str.maketrans("id", "di")
#: the flipped trace's operations as alignment tags: no change, substitution, a word of the
#: output inserted, a word of the reference deleted
_TAGS = {" ": "equal", "s": "replace", "i": "insert", "d": "delete"}


class Shift(NamedTuple):
    """One block shift: ``words`` of the output moved from word ``start`` to word ``target``
    (positions in the output as it was before and after this shift; shifts apply in order)."""

    words: tuple[str, ...]
    start: int
    target: int


class TerTrace(NamedTuple):
    """What TER counted for one (output, reference) pair: the ``shifts`` in order, the output
    after them (``shifted``), the ``reference``, sacrebleu's edit ``distance`` between the two
    and its ``operations`` (one letter per aligned position, reference rewritten into the
    output: ``" "`` equal, ``"s"`` substituted, ``"d"`` a reference word deleted, ``"i"`` an
    output word inserted)."""

    shifts: list[Shift]
    shifted: list[str]
    reference: list[str]
    distance: int
    operations: str

    @property
    def edits(self) -> int:
        """sacrebleu's number of edits: one per shift, plus the edit distance after them."""
        return len(self.shifts) + self.distance

    @property
    def blocks(self) -> list[Block]:
        """The operations as alignment blocks (tags and positions as
        :func:`lexeval.metrics.edits.align`'s)."""
        return trace_blocks(self.operations)

    @property
    def counts(self) -> EditCounts:
        """Hits, substitutions, deletions and insertions after the shifts (their errors are
        ``distance``)."""
        return count_edits(self.reference, self.shifted, self.blocks)

    def evidence(self, limit: int) -> dict[str, Any]:
        """At most ``limit`` of each kind: ``shifted`` (the words moved joined by a space,
        start, target), then WER's lists over the shifted output (``substituted``,
        ``deleted``, ``inserted``; :func:`lexeval.metrics.edits.edit_evidence`)."""
        shifted = [(" ".join(s.words), s.start, s.target) for s in self.shifts[:limit]]
        found: dict[str, Any] = {"shifted": shifted}
        found.update(edit_evidence(self.reference, self.shifted, limit=limit, blocks=self.blocks))
        return found


def trace_blocks(trace: str) -> list[Block]:
    """Alignment blocks (reference first) of a flipped sacrebleu trace (``" "``, ``"s"``,
    ``"i"`` an output word, ``"d"`` a reference word), runs of one operation merged.

    >>> trace_blocks("  sid ")
    [('equal', 0, 2, 0, 2), ('replace', 2, 3, 2, 3), ('insert', 3, 3, 3, 4), \
('delete', 3, 4, 4, 4), ('equal', 4, 5, 4, 5)]
    """
    blocks: list[Block] = []
    i = j = 0
    for op in trace:
        tag = _TAGS[op]
        i2 = i if op == "i" else i + 1
        j2 = j if op == "d" else j + 1
        if blocks and blocks[-1][0] == tag:
            blocks[-1] = (tag, blocks[-1][1], i2, blocks[-1][3], j2)
        else:
            blocks.append((tag, i, i2, j, j2))
        i, j = i2, j2
    return blocks


def ter_trace(words_hyp: Sequence[str], words_ref: Sequence[str]) -> TerTrace:
    """sacrebleu's TER search on tokenized words, with the operations it counted.

    >>> t = ter_trace(["a", "b", "x"], ["b", "a"])
    >>> t.edits, t.shifts, t.evidence(limit=3)["inserted"]
    (2, [Shift(words=('a',), start=0, target=1)], ['x'])
    """
    hyp, ref = list(words_hyp), list(words_ref)
    if not ref:  # sacrebleu: every output word an edit
        return TerTrace([], hyp, ref, len(hyp), "i" * len(hyp))
    distance = BeamDistance(ref)
    shifts: list[Shift] = []
    checked = 0
    while True:  # shifts until they stop reducing the edit distance
        delta, shifted, shift, checked = _best_shift(hyp, ref, distance, checked)
        if checked >= _MAX_SHIFT_CANDIDATES or delta <= 0 or shift is None:
            break
        shifts.append(shift)
        hyp = shifted
    edit_distance, trace = distance(hyp)
    return TerTrace(shifts, hyp, ref, edit_distance, trace.translate(_FLIP))


def _best_shift(
    words_h: list[str], words_r: list[str], distance: BeamDistance, checked: int
) -> tuple[int, list[str], Shift | None, int]:
    """sacrebleu's ``_shift``: the shift that reduces the edit distance most (ranked as
    Tercom ranks them), with the shifted words and the candidates checked so far. Which
    candidates sacrebleu tries does not depend on their costs, so they are listed first and
    their costs computed together."""
    from sacrebleu.metrics.lib_ter import trace_to_alignment

    pre_score, inv_trace = distance(words_h)
    align, ref_err, hyp_err = trace_to_alignment(inv_trace.translate(_FLIP))
    # sacrebleu ranks (gain, length, -start, -target, words); equal first four mean equal words
    tried: list[tuple[int, int, int, list[str]]] = []  # (length, start, target, words)
    for start_h, start_r, length in _shifted_pairs(words_h, words_r):
        if sum(hyp_err[start_h : start_h + length]) == 0:
            continue  # the output was right there
        if sum(ref_err[start_r : start_r + length]) == 0:
            continue  # the reference is matched there already
        if start_h <= align[start_r] < start_h + length:
            continue  # no shift within the block itself
        prev_idx = -1
        for offset in range(-1, length):
            if start_r + offset == -1:
                idx = 0
            elif start_r + offset in align:
                idx = align[start_r + offset] + 1
            else:
                break
            if idx == prev_idx:
                continue
            prev_idx = idx
            tried.append((length, start_h, idx, _perform_shift(words_h, start_h, length, idx)))
            checked += 1
        if checked >= _MAX_SHIFT_CANDIDATES:
            break
    # sacrebleu ranks (gain, length, -start, -target, words); equal first four mean equal words
    best: tuple[int, int, int, int] | None = None
    best_words = words_h
    costs = distance.costs([words for _, _, _, words in tried])
    for (length, start_h, idx, shifted), cost in zip(tried, costs, strict=True):
        candidate = (pre_score - cost, length, -start_h, -idx)
        if best is None or candidate > best:
            best, best_words = candidate, shifted
    if best is None:
        return 0, words_h, None, checked
    gain, length, start, idx = best[0], best[1], -best[2], -best[3]
    moved = tuple(words_h[start : start + length])
    return gain, best_words, Shift(moved, start, _target(len(words_h), start, length, idx)), checked


def _perform_shift(words: list[str], start: int, length: int, target: int) -> list[str]:
    """sacrebleu's ``_perform_shift``: ``words[start:start + length]`` moved to ``target``."""
    if target < start:
        return (
            words[:target]
            + words[start : start + length]
            + words[target:start]
            + words[start + length :]
        )
    if target > start + length:
        return (
            words[:start]
            + words[start + length : target]
            + words[start : start + length]
            + words[target:]
        )
    return (
        words[:start]
        + words[start + length : length + target]
        + words[start : start + length]
        + words[length + target :]
    )


def _target(n: int, start: int, length: int, target: int) -> int:
    """Where :func:`_perform_shift` puts the block's first word."""
    if target < start:
        return target
    if target > start + length:
        return target - length
    return min(target, n - length)


def _shifted_pairs(words_h: list[str], words_r: list[str]) -> Iterator[tuple[int, int, int]]:
    """sacrebleu's ``_find_shifted_pairs``: (output start, reference start, length) of each
    common run of words (up to 10 words, starts at most 50 words apart)."""
    n_words_h = len(words_h)
    n_words_r = len(words_r)
    for start_h in range(n_words_h):
        for start_r in range(n_words_r):
            if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                continue
            length = 0
            while (
                words_h[start_h + length] == words_r[start_r + length] and length < _MAX_SHIFT_SIZE
            ):
                length += 1
                yield start_h, start_r, length
                if n_words_h == start_h + length or n_words_r == start_r + length:
                    break
