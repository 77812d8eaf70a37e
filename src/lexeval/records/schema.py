"""A record schema: named fields, each with a check and a weight, and how a pair's field
scores combine into the pair score.

The pair score is the weighted mean of the scored fields (:class:`WeightedMean`); a field an
expected record leaves out (an ``optional`` field) is not scored and the other weights are
renormalized. The flashcard schema combines its fields with its own weights
(:class:`lexeval.records.flashcards.CardWeights`).

>>> from lexeval.records.checks import KeywordsCheck, NumberCheck
>>> schema = Schema((Field("name", KeywordsCheck()), Field("qty", NumberCheck(), weight=3.0)))
>>> schema.combiner.combine([1.0, 0.0]), schema.combiner.combine([1.0, None])
(0.25, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from lexeval.records.checks import Check

__all__ = ["Combiner", "Field", "Schema", "WeightedMean"]


@dataclass(frozen=True, slots=True)
class Field:
    """A named field: its check, weight, whether expected records may leave it out, and the
    key expected records give it under (``front_keywords`` for a card's ``front``)."""

    name: str
    check: Check
    weight: float = 1.0
    optional: bool = False
    expected_key: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.weight, (int, float)) or not (
            math.isfinite(self.weight) and self.weight >= 0
        ):
            raise ValueError(f"weight of {self.name!r} must be a number >= 0, got {self.weight!r}")
        if not self.expected_key:
            object.__setattr__(self, "expected_key", self.name)


class Combiner(Protocol):
    """Combines a pair's field scores (None: the field is not scored) into its score."""

    @property
    def signature(self) -> str: ...

    def combine(self, scores: Sequence[float | None]) -> float: ...

    def combine_rows(self, rows: Sequence[Sequence[float] | None]) -> list[float]:
        """:meth:`combine` of each column of per-field rows (None: the field is not scored)."""
        ...


@dataclass(frozen=True, slots=True)
class WeightedMean:
    """The weighted mean of the scored fields (weights in field order).

    >>> WeightedMean((1.0, 1.0)).combine([0.5, None])
    0.5
    """

    weights: tuple[float, ...]

    @property
    def signature(self) -> str:
        return "/".join(f"{w:g}" for w in self.weights)

    def combine(self, scores: Sequence[float | None]) -> float:
        total = weight = 0.0
        for w, s in zip(self.weights, scores, strict=True):
            if s is not None:
                total += w * s
                weight += w
        return total / weight if weight > 0 else 0.0

    def combine_rows(self, rows: Sequence[Sequence[float] | None]) -> list[float]:
        scored = [(w, row) for w, row in zip(self.weights, rows, strict=True) if row is not None]
        weight = sum(w for w, _ in scored)
        if not scored or weight <= 0:
            width = len(next((row for row in rows if row is not None), ()))
            return [0.0] * width
        columns = zip(*(row for _, row in scored), strict=True)
        ws = [w for w, _ in scored]
        return [sum(w * s for w, s in zip(ws, col, strict=True)) / weight for col in columns]


@dataclass(frozen=True, slots=True)
class Schema:
    """The fields of a record and how they combine (equal weights by default: each field's
    ``weight``). ``expected_key``/``records_key``: the keys under which a dataset's cases list
    their expected records and outputs their generated ones (``expected`` and ``records``;
    ``expected_cards`` and ``cards`` for flashcards)."""

    fields: tuple[Field, ...]
    combiner: Combiner = field(default=None)  # type: ignore[assignment]
    name: str = "records"
    expected_key: str = "expected"
    records_key: str = "records"

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", tuple(self.fields))
        if not self.fields:
            raise ValueError("a schema needs at least one field")
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate field names in {names}")
        if self.combiner is None:
            if not any(f.weight > 0 for f in self.fields):
                raise ValueError("at least one field weight must be > 0")
            object.__setattr__(self, "combiner", WeightedMean(tuple(f.weight for f in self.fields)))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def signature(self) -> str:
        """The fields, checks and weights, e.g. ``fields:name=keywords,qty=number|w:1/3``."""
        fields = ",".join(
            f"{f.name}={f.check.signature}{'?' if f.optional else ''}" for f in self.fields
        )
        return f"fields:{fields}|w:{self.combiner.signature}"
