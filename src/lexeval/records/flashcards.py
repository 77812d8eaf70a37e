"""Flashcards as one record schema: ``front`` and ``back`` scored by keywords, ``card_type``
exactly, combined with the card weights (:class:`ScoreWeights`).

A flashcard dataset (cases with ``expected_cards`` of ``front_keywords``, ``back_keywords``
and ``card_type``) read by :func:`lexeval.records.load_dataset` gets this schema, so
``lexeval match`` and ``lexeval cards`` score it with the same matcher and get the same
numbers.

>>> schema = flashcard_schema()
>>> schema.names
('front', 'back', 'card_type')
>>> schema.combiner.combine([1.0, 0.5, None]), schema.combiner.combine([1.0, 0.5, 1.0])
(0.75, 0.8)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lexeval.records.checks import ExactCheck, KeywordsCheck
from lexeval.records.schema import Field, Schema

__all__ = ["CARD_TYPES", "DEFAULT_WEIGHTS", "CardWeights", "ScoreWeights", "flashcard_schema"]

#: Card types a dataset may name. Generated cards may carry any type string; it only has to equal
#: the expected card's type (case-insensitively) to earn the card-type weight.
CARD_TYPES: frozenset[str] = frozenset(
    {"qa", "cloze", "definition", "list", "true_false", "multiple_choice", "reverse"}
)


@dataclass(frozen=True, slots=True)
class ScoreWeights:
    """Weights of a card pair's score.

    Without an expected card type: ``front * front_sim + back * back_sim`` (0.5/0.5). With one:
    ``typed_front * front_sim + typed_back * back_sim + card_type * [types equal]``
    (0.4/0.4/0.2). Each set must be non-negative and sum to 1.

    >>> ScoreWeights(front=0.7, back=0.3).front
    0.7
    >>> ScoreWeights(front=0.7)
    Traceback (most recent call last):
    ...
    ValueError: front + back must be 1, got 1.2
    """

    front: float = 0.5
    back: float = 0.5
    typed_front: float = 0.4
    typed_back: float = 0.4
    card_type: float = 0.2

    def __post_init__(self) -> None:
        for name in ("front", "back", "typed_front", "typed_back", "card_type"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"weight {name} must be a number in [0, 1], got {value!r}")
        untyped = self.front + self.back
        typed = self.typed_front + self.typed_back + self.card_type
        if not math.isclose(untyped, 1.0, abs_tol=1e-9):
            raise ValueError(f"front + back must be 1, got {untyped:g}")
        if not math.isclose(typed, 1.0, abs_tol=1e-9):
            raise ValueError(f"typed_front + typed_back + card_type must be 1, got {typed:g}")

    @property
    def signature(self) -> str:
        """A short settings string, e.g. ``0.5/0.5,0.4/0.4/0.2``."""
        return (
            f"{self.front:g}/{self.back:g},"
            f"{self.typed_front:g}/{self.typed_back:g}/{self.card_type:g}"
        )


DEFAULT_WEIGHTS = ScoreWeights()


@dataclass(frozen=True, slots=True)
class CardWeights:
    """The flashcard combiner: field scores ``[front, back, card_type]`` (card_type None when
    the expected card names no type) weighted by :class:`ScoreWeights`."""

    weights: ScoreWeights = DEFAULT_WEIGHTS

    @property
    def signature(self) -> str:
        return self.weights.signature

    def combine(self, scores: Sequence[float | None]) -> float:
        front, back, card_type = scores
        assert front is not None and back is not None
        w = self.weights
        if card_type is None:
            return w.front * front + w.back * back
        score = w.typed_front * front + w.typed_back * back
        return score + w.card_type if card_type >= 1.0 else score

    def combine_rows(self, rows: Sequence[Sequence[float] | None]) -> list[float]:
        front, back, card_type = rows
        assert front is not None and back is not None
        w = self.weights
        if card_type is None:
            return [w.front * f + w.back * b for f, b in zip(front, back, strict=True)]
        tf, tb, tc = w.typed_front, w.typed_back, w.card_type
        return [
            tf * f + tb * b + tc if t >= 1.0 else tf * f + tb * b
            for f, b, t in zip(front, back, card_type, strict=True)
        ]


def flashcard_schema(
    weights: ScoreWeights = DEFAULT_WEIGHTS, card_types: Iterable[str] = CARD_TYPES
) -> Schema:
    """The flashcard schema with these weights and allowed expected card types."""
    return Schema(
        (
            Field("front", KeywordsCheck(), expected_key="front_keywords"),
            Field("back", KeywordsCheck(), expected_key="back_keywords"),
            Field("card_type", ExactCheck(values=sorted(card_types)), optional=True),
        ),
        CardWeights(weights),
        name="flashcards",
        expected_key="expected_cards",
        records_key="cards",
    )
