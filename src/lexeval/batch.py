"""Kept for old imports: the batch scoring of records lives in :mod:`lexeval.run.batch`.

>>> from lexeval.batch import score_records
>>> score_records.__module__
'lexeval.run.batch'
"""

from __future__ import annotations

from lexeval.run.batch import (
    ID_FIELDS,
    INPUT_FORMATS,
    MAX_INPUT_BYTES,
    OUTPUT_FIELDS,
    QUESTION_FIELDS,
    REFERENCE_FIELDS,
    Record,
    detect_format,
    evidence_text,
    flatten_result,
    parse_records,
    read_records,
    resolve_field,
    score_records,
    tidy_result,
)

__all__ = [
    "ID_FIELDS",
    "INPUT_FORMATS",
    "MAX_INPUT_BYTES",
    "OUTPUT_FIELDS",
    "QUESTION_FIELDS",
    "REFERENCE_FIELDS",
    "Record",
    "detect_format",
    "evidence_text",
    "flatten_result",
    "parse_records",
    "read_records",
    "resolve_field",
    "score_records",
    "tidy_result",
]
