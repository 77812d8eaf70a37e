"""Structured LLM output scored field by field: datasets with a schema, outputs (records or
raw replies holding JSON), one matcher (greedy or optimal) and per-field results.

Flashcards are one schema of it (:mod:`lexeval.records.flashcards`): ``lexeval cards`` and
``lexeval match`` on a flashcard dataset run the same matcher.
"""

from lexeval.records.assign import STRATEGIES, Strategy, assign
from lexeval.records.checks import CHECKS, Check, FieldScore, parse_number
from lexeval.records.flashcards import CARD_TYPES, ScoreWeights, flashcard_schema
from lexeval.records.keywords import KeywordIndex
from lexeval.records.matching import CaseMatch, RecordMatcher, RecordPair, f1_score
from lexeval.records.schema import Field, Schema, WeightedMean

__all__ = [
    "CARD_TYPES",
    "CHECKS",
    "STRATEGIES",
    "CaseMatch",
    "Check",
    "Field",
    "FieldScore",
    "KeywordIndex",
    "RecordMatcher",
    "RecordPair",
    "Schema",
    "ScoreWeights",
    "Strategy",
    "WeightedMean",
    "assign",
    "f1_score",
    "flashcard_schema",
    "parse_number",
]
