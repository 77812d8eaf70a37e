"""Edit operations between a reference and an output sequence: the pure core of WER and CER.

One alignment, rapidfuzz's Levenshtein opcodes (the alignment jiwer 4.0 counts its hits,
substitutions, deletions and insertions on), gives the counts (:func:`count_edits`), the rate
(:func:`error_rate`, jiwer's rule) and the evidence (:func:`edit_evidence`). A sequence is a
``str`` (its characters are the units) or a list of words. Words are compared as rapidfuzz
compares list elements, by their 64-bit hash: two different words could only be confused on a
hash collision (probability about ``V**2 / 2**65`` for ``V`` distinct words in one pair).

>>> reference, output = "the cat sat on the mat".split(), "cat sit on the mat today".split()
>>> counts = count_edits(reference, output)
>>> counts
EditCounts(hits=4, substitutions=1, deletions=1, insertions=1)
>>> error_rate(counts), counts.reference_length
(0.5, 6)
>>> edit_evidence(reference, output, limit=5)
{'substituted': [('sat', 'sit')], 'deleted': ['the'], 'inserted': ['today']}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, cast

from rapidfuzz.distance import Levenshtein

__all__ = [
    "Block",
    "EditCounts",
    "align",
    "count_edits",
    "edit_evidence",
    "error_rate",
    "pool_counts",
]

#: A sequence whose units are compared: a ``str`` (characters) or a list of words.
Units = str | Sequence[str]

#: One block of an alignment: tag ("equal", "replace", "delete", "insert"), reference start and
#: end, output start and end.
Block = tuple[str, int, int, int, int]


def align(reference: Units, output: Units) -> list[Block]:
    """One minimal alignment: rapidfuzz's Levenshtein opcodes as plain tuples (the alignment
    jiwer 4.0's ``process_words`` counts), for :func:`count_edits` and :func:`edit_evidence`
    to share.

    >>> align("abc", "abd")
    [('equal', 0, 2, 0, 2), ('replace', 2, 3, 2, 3)]
    """
    return cast(list[Block], Levenshtein.opcodes(reference, output).as_list())


class EditCounts(NamedTuple):
    """The operations that turn a reference into an output (jiwer's ``hits``,
    ``substitutions``, ``deletions`` and ``insertions``).

    >>> EditCounts(3, 1, 0, 2).errors, EditCounts(3, 1, 0, 2).output_length
    (3, 6)
    """

    hits: int
    substitutions: int
    deletions: int
    insertions: int

    @property
    def errors(self) -> int:
        """Substitutions, deletions and insertions: the edit distance."""
        return self.substitutions + self.deletions + self.insertions

    @property
    def reference_length(self) -> int:
        """The reference's units: hits, substitutions and deletions."""
        return self.hits + self.substitutions + self.deletions

    @property
    def output_length(self) -> int:
        """The output's units: hits, substitutions and insertions."""
        return self.hits + self.substitutions + self.insertions


def count_edits(reference: Units, output: Units, blocks: list[Block] | None = None) -> EditCounts:
    """The counts of one minimal alignment (:func:`align`'s, or ``blocks`` when given), as
    jiwer 4.0 counts them (equal, replace, delete and insert blocks).

    >>> count_edits("kitten", "sitting")
    EditCounts(hits=4, substitutions=2, deletions=0, insertions=1)
    >>> count_edits([], ["a", "b"]), count_edits("ab", "")
    (EditCounts(hits=0, substitutions=0, deletions=0, insertions=2), EditCounts(hits=0, \
substitutions=0, deletions=2, insertions=0))
    """
    n = len(reference)
    if blocks is None:
        if not n or not output:
            return EditCounts(0, 0, n, len(output))
        if reference == output:
            return EditCounts(n, 0, 0, 0)
        blocks = align(reference, output)
    substitutions = deletions = insertions = 0
    for tag, i1, i2, j1, j2 in blocks:
        if tag == "equal":
            continue
        if tag == "replace":
            substitutions += i2 - i1
        elif tag == "delete":
            deletions += i2 - i1
        else:
            insertions += j2 - j1
    return EditCounts(n - substitutions - deletions, substitutions, deletions, insertions)


def error_rate(counts: EditCounts) -> float:
    """Errors per reference unit, jiwer's rule: ``(S + D + I) / (H + S + D)``; with no
    reference unit, the number of insertions (0.0 when the output is empty too). It can exceed
    1: an output longer than its reference can make more errors than the reference has units.

    >>> error_rate(EditCounts(1, 0, 0, 3)), error_rate(EditCounts(0, 0, 0, 2))
    (3.0, 2.0)
    """
    length = counts.hits + counts.substitutions + counts.deletions
    if not length:
        return float(counts.insertions)
    return float(counts.substitutions + counts.deletions + counts.insertions) / float(length)


def pool_counts(counts: Iterable[EditCounts]) -> EditCounts:
    """The counts of many pairs summed (a corpus: jiwer's rate of lists of texts is the
    :func:`error_rate` of the sums, not a mean of rates).

    >>> pool_counts([EditCounts(1, 0, 0, 3), EditCounts(2, 1, 1, 0)])
    EditCounts(hits=3, substitutions=1, deletions=1, insertions=3)
    """
    hits = substitutions = deletions = insertions = 0
    for h, s, d, i in counts:
        hits += h
        substitutions += s
        deletions += d
        insertions += i
    return EditCounts(hits, substitutions, deletions, insertions)


def edit_evidence(
    reference: Units, output: Units, *, limit: int, blocks: list[Block] | None = None
) -> dict[str, list[tuple[str, str]] | list[str]]:
    """The errors of one minimal alignment (:func:`align`'s, or ``blocks`` when given), in
    reference order, at most ``limit`` of each kind: ``substituted`` (reference unit, output
    unit) pairs, ``deleted`` reference units and ``inserted`` output units.

    >>> edit_evidence("kitten", "sitting", limit=20)
    {'substituted': [('k', 's'), ('e', 'i')], 'deleted': [], 'inserted': ['g']}
    """
    substituted: list[tuple[str, str]] = []
    deleted: list[str] = []
    inserted: list[str] = []
    if blocks is None:
        blocks = align(reference, output) if reference != output else []
    for tag, i1, i2, j1, j2 in blocks:
        if tag == "replace" and len(substituted) < limit:
            pairs = zip(reference[i1:i2], output[j1:j2], strict=True)
            substituted.extend(list(pairs)[: limit - len(substituted)])
        elif tag == "delete" and len(deleted) < limit:
            deleted.extend(list(reference[i1:i2])[: limit - len(deleted)])
        elif tag == "insert" and len(inserted) < limit:
            inserted.extend(list(output[j1:j2])[: limit - len(inserted)])
    return {"substituted": substituted, "deleted": deleted, "inserted": inserted}
