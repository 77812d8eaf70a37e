"""Matching generated records to expected records, field by field: the pair grid, the
assignment (:mod:`lexeval.records.assign`) and each accepted pair's field results.

>>> from lexeval.records.checks import ExactCheck, NumberCheck
>>> from lexeval.records.schema import Field, Schema
>>> schema = Schema((Field("sku", ExactCheck()), Field("qty", NumberCheck())))
>>> matcher = RecordMatcher(schema, normalizer=None)
>>> case = matcher.match([{"sku": "A1", "qty": 2.0}], [{"sku": "A1", "qty": "2"}], 0.5, "greedy")
>>> case.recall, case.precision, case.pairs[0].score
(1.0, 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from lexeval.records.assign import Strategy, assign
from lexeval.records.checks import MISSING, FieldScore
from lexeval.records.keywords import KeywordIndex, NormalizerArg
from lexeval.records.schema import Schema

__all__ = [
    "STATUSES",
    "CaseCounts",
    "CaseMatch",
    "Record",
    "RecordMatcher",
    "RecordPair",
    "Status",
    "f1_score",
]

#: A record: field name -> value (expected records hold validated values).
Record = Mapping[str, Any]
Status = Literal["ok", "parse_error", "no_output"]
STATUSES: tuple[str, ...] = ("ok", "parse_error", "no_output")


def f1_score(precision: float, recall: float) -> float:
    """The harmonic mean of ``precision`` and ``recall`` (0.0 when both are 0).

    >>> f1_score(1.0, 0.5), f1_score(0.0, 0.0)
    (0.6666666666666666, 0.0)
    """
    total = precision + recall
    return 2 * precision * recall / total if total > 0 else 0.0


class IndexedPair(Protocol):
    """What :class:`CaseCounts` reads of an accepted pair."""

    @property
    def expected_index(self) -> int: ...

    @property
    def generated_index(self) -> int: ...

    @property
    def score(self) -> float: ...


class CaseCounts:
    """Counts and rates of one matched case, read from its ``expected`` and ``generated``
    items and its accepted ``pairs`` (a base of the record and the card case results).

    ``recall`` = matched / expected; ``precision`` = matched / generated (0.0 without
    generated items); ``f1`` their harmonic mean; ``avg_similarity`` the mean score of the
    accepted pairs (0.0 without pairs).
    """

    __slots__ = ()

    expected: Sequence[Any]
    generated: Sequence[Any]
    pairs: Sequence[IndexedPair]

    @property
    def n_expected(self) -> int:
        return len(self.expected)

    @property
    def n_generated(self) -> int:
        return len(self.generated)

    @property
    def n_matched(self) -> int:
        return len(self.pairs)

    @property
    def recall(self) -> float:
        return self.n_matched / self.n_expected if self.expected else 0.0

    @property
    def precision(self) -> float:
        return self.n_matched / self.n_generated if self.generated else 0.0

    @property
    def f1(self) -> float:
        return f1_score(self.precision, self.recall)

    @property
    def avg_similarity(self) -> float:
        return sum(p.score for p in self.pairs) / len(self.pairs) if self.pairs else 0.0

    @property
    def unmatched_expected_indices(self) -> tuple[int, ...]:
        used = {p.expected_index for p in self.pairs}
        return tuple(i for i in range(self.n_expected) if i not in used)

    @property
    def extra_generated_indices(self) -> tuple[int, ...]:
        used = {p.generated_index for p in self.pairs}
        return tuple(j for j in range(self.n_generated) if j not in used)


@dataclass(frozen=True, slots=True)
class RecordPair:
    """An accepted pair: indices into the case's expected and generated records, the pair
    score and each scored field's result (a field the expected record leaves out is absent)."""

    expected_index: int
    generated_index: int
    score: float
    fields: Mapping[str, FieldScore] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CaseMatch(CaseCounts):
    """The outcome of one case.

    ``status``: ``ok``; ``parse_error`` (the reply held no usable JSON: ``reason`` says why,
    and every expected record is unmatched); ``no_output`` (the outputs do not name the case).
    ``recall`` = matched / expected; ``precision`` = matched / generated (0.0 without
    generated records); ``f1`` their harmonic mean; ``avg_similarity`` the mean score of the
    accepted pairs. ``best_scores[i]``: the highest score expected record ``i`` reached.
    """

    case_id: str
    expected: tuple[Record, ...]
    generated: tuple[Record, ...]
    pairs: tuple[RecordPair, ...]
    best_scores: tuple[float, ...] = ()
    status: Status = "ok"
    reason: str | None = None

    @property
    def has_output(self) -> bool:
        return self.status != "no_output"


class RecordMatcher:
    """Scores and matches records of one schema with one normalizer (the ``keywords`` and
    label checks' normalization), preparing each distinct value once per case.

    ``normalizer``: a preset name of :class:`lexeval.normalize.Normalizer`, anything with
    ``tokens`` and ``signature``, or None (plain mode: keywords by ``kw in text``, labels by
    ``==``).
    """

    __slots__ = ("index", "schema")

    def __init__(self, schema: Schema, normalizer: NormalizerArg = "default") -> None:
        self.schema = schema
        self.index = KeywordIndex(normalizer)

    @property
    def normalizer_signature(self) -> str:
        return self.index.signature

    def grid(self, expected: Sequence[Record], generated: Sequence[Record]) -> list[list[float]]:
        """Scores of every (expected, generated) pair, each value prepared once."""
        index = self.index
        fields = self.schema.fields
        combine_rows = self.schema.combiner.combine_rows
        columns = [
            [f.check.prepare_generated(g.get(f.name, MISSING), index) for g in generated]
            for f in fields
        ]
        rows: list[list[float]] = []
        for e in expected:
            if not generated:
                rows.append([])
                continue
            rows.append(
                combine_rows(
                    [
                        f.check.score_row(f.check.prepare_expected(e[f.name], index), column)
                        if f.name in e
                        else None
                        for f, column in zip(fields, columns, strict=True)
                    ]
                )
            )
        return rows

    def pair(self, expected: Record, generated: Record) -> tuple[float, dict[str, FieldScore]]:
        """A pair's score and its field results."""
        results: dict[str, FieldScore] = {}
        scores: list[float | None] = []
        for f in self.schema.fields:
            if f.name not in expected:
                scores.append(None)
                continue
            result = f.check.detail(expected[f.name], generated.get(f.name, MISSING), self.index)
            results[f.name] = result
            scores.append(result.score)
        return self.schema.combiner.combine(scores), results

    def match(
        self,
        expected: Sequence[Record],
        generated: Sequence[Record],
        threshold: float,
        strategy: Strategy,
        case_id: str = "",
        status: Status = "ok",
        reason: str | None = None,
    ) -> CaseMatch:
        """One case matched: the grid, the assignment, the accepted pairs' field results."""
        want, made = tuple(expected), tuple(generated)
        self.index.new_case()
        grid = self.grid(want, made)
        pairs = []
        for i, j in assign(grid, threshold, strategy):
            _, fields = self.pair(want[i], made[j])
            pairs.append(RecordPair(i, j, grid[i][j], fields))
        best = tuple(max(row, default=0.0) for row in grid)
        return CaseMatch(case_id, want, made, tuple(pairs), best, status, reason)
