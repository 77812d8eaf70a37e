r"""Structured LLM output scored field by field: datasets with a schema, outputs (records or
raw replies holding JSON), one matcher (greedy or optimal) and per-field results.

Flashcards are one schema of it (:mod:`lexeval.records.flashcards`): ``lexeval cards`` and
``lexeval match`` on a flashcard dataset run the same matcher.

>>> import json, pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "ds.yaml").write_text(
...     "name: demo\nthreshold: 0.5\nfields: {sku: exact, qty: number}\ncases:\n"
...     "  - {id: c1, text: t, expected: [{sku: A1, qty: 2}, {sku: B2, qty: 1}]}\n")
>>> reply = 'Here you go:\n```json\n[{"sku": "a1", "qty": "2"}]\n```'
>>> _ = (d / "out.jsonl").write_text(json.dumps({"case_id": "c1", "output": reply}) + "\n")
>>> dataset = load_dataset(d / "ds.yaml")
>>> run = match_records(dataset, load_outputs(d / "out.jsonl", dataset.schema))
>>> run.micro.recall, run.micro.precision, run.fields["qty"].accuracy
(0.5, 1.0, 1.0)
"""

from lexeval.records.assign import STRATEGIES, Strategy, assign
from lexeval.records.checks import CHECKS, Check, FieldScore, parse_number
from lexeval.records.dataset import RecordCase, RecordDataset, load_dataset
from lexeval.records.flashcards import CARD_TYPES, ScoreWeights, flashcard_schema
from lexeval.records.keywords import KeywordIndex
from lexeval.records.matching import CaseMatch, RecordMatcher, RecordPair, f1_score
from lexeval.records.outputs import CaseOutput, extract_json, load_outputs
from lexeval.records.report import (
    RecordGate,
    RecordGateResult,
    RecordRun,
    Scores,
    check_gates,
    match_records,
    render_records,
)
from lexeval.records.schema import Field, Schema, WeightedMean

__all__ = [
    "CARD_TYPES",
    "CHECKS",
    "STRATEGIES",
    "CaseMatch",
    "CaseOutput",
    "Check",
    "Field",
    "FieldScore",
    "KeywordIndex",
    "RecordCase",
    "RecordDataset",
    "RecordGate",
    "RecordGateResult",
    "RecordMatcher",
    "RecordPair",
    "RecordRun",
    "Schema",
    "ScoreWeights",
    "Scores",
    "Strategy",
    "WeightedMean",
    "assign",
    "check_gates",
    "extract_json",
    "f1_score",
    "flashcard_schema",
    "load_dataset",
    "load_outputs",
    "match_records",
    "parse_number",
    "render_records",
]
