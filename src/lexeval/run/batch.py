"""Scoring many pairs with several metrics at once: records read from JSONL, a JSON array or
CSV/TSV, fields mapped to reference / output / id, every metric's result flattened to columns.

Field names: give them (``reference_field=``, ``output_field=``, ``id_field=``,
``question_field=``) or let them be found among the usual names, when exactly one of them is
present:

* reference: ``reference``, ``references``, ``input``, ``expected``, ``expected_output``,
  ``target``, ``ground_truth``, ``gold``;
* output: ``output``, ``prediction``, ``predictions``, ``candidate``, ``response``,
  ``answer``, ``actual_output``;
* id: ``id`` (optional);
* question: ``question`` (optional; passed to every metric's ``questions=``, read by keyword
  coverage, lexical correctness and the judges).

Two present names of one role (``input`` and ``reference``, say) are ambiguous: the error asks
for the field. A reference is a string, or (JSON, JSONL) a list of strings: several references,
the best one scored.

>>> records = parse_records("pairs.csv", "reference,prediction\\nthe cat sat,the cat\\n")
>>> records[0]
Record(line=2, id=None, reference='the cat sat', output='the cat', question=None, language=None)
>>> from lexeval import get_metric
>>> rouge1 = get_metric("rouge1", threshold=0.5, evidence_limit=5)  # evidence: up to 5
>>> results = score_records({"rouge1": rouge1}, records)
>>> row = flatten_result("rouge1", results["rouge1"][0])
>>> row["rouge1"], row["rouge1_passed"], row["rouge1_recall"], row["rouge1_missing"]
(0.8, True, 0.6666666666666666, ['sat'])
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lexeval.io import InputError, iter_jsonl, parse_json, read_text
from lexeval.metrics.base import BaseMetric, MetricResult
from lexeval.run.measure import measure_many
from lexeval.run.pool import resolve_workers
from lexeval.text.resources import check_language

__all__ = [
    "ID_FIELDS",
    "INPUT_FORMATS",
    "MAX_INPUT_BYTES",
    "OUTPUT_FIELDS",
    "QUESTION_FIELDS",
    "REFERENCE_FIELDS",
    "Record",
    "detect_format",
    "edits_text",
    "evidence_text",
    "flatten_result",
    "parse_records",
    "read_records",
    "resolve_field",
    "score_records",
    "score_records_by_language",
    "tidy_result",
]

REFERENCE_FIELDS: tuple[str, ...] = (
    "reference",
    "references",
    "input",
    "expected",
    "expected_output",
    "target",
    "ground_truth",
    "gold",
)
OUTPUT_FIELDS: tuple[str, ...] = (
    "output",
    "prediction",
    "predictions",
    "candidate",
    "response",
    "answer",
    "actual_output",
)
ID_FIELDS: tuple[str, ...] = ("id",)
QUESTION_FIELDS: tuple[str, ...] = ("question",)
INPUT_FORMATS: tuple[str, ...] = ("auto", "jsonl", "json", "csv", "tsv")
MAX_INPUT_BYTES = 200 * 1024 * 1024

InputFormat = Literal["auto", "jsonl", "json", "csv", "tsv"]


@dataclass(frozen=True)
class Record:
    """One pair to score: where it came from (``line``: JSONL/CSV line, JSON item number),
    its ``id`` (None without an id field), the reference(s), the output, and the question
    (None without a question field; keyword coverage, lexical correctness and LLM judges read
    it), and the record's language (None without a language field: the run's language).
    """

    line: int
    id: str | int | None
    reference: str | list[str]
    output: str
    question: str | None = None
    language: str | None = None


def detect_format(name: str, text: str) -> str:
    """``jsonl``, ``json``, ``csv`` or ``tsv`` from the file name's extension, else from the
    first character (``[``: JSON array, ``{``: JSONL) or the first line (a tab: TSV).

    >>> detect_format("x.ndjson", ""), detect_format("-", '[{"a": 1}]'), detect_format("-", "a\\tb")
    ('jsonl', 'json', 'tsv')
    """
    extension = os.path.splitext(name)[1].lower()
    by_extension = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv"}
    by_extension.update({".tsv": "tsv", ".tab": "tsv"})
    if extension in by_extension:
        return by_extension[extension]
    start = text.lstrip()[:1]
    if start == "[":
        return "json"
    if start == "{":
        return "jsonl"
    first_line = text.lstrip().split("\n", 1)[0]
    return "tsv" if "\t" in first_line and "," not in first_line else "csv"


def resolve_field(
    available: Iterable[str],
    given: str | None,
    candidates: Sequence[str],
    role: str,
    name: str,
    how: str | None = None,
) -> str | None:
    """The field to read ``role`` from: ``given`` (which must exist), else the one candidate
    present; None when none is (the caller decides whether that is an error). ``how`` says, in
    the error on two candidates, how to name the field (default: the CLI option and keyword).

    >>> resolve_field(["question", "answer", "gold"], None, OUTPUT_FIELDS, "output", "f.csv")
    'answer'
    """
    fields = list(available)
    option = how or f"--{role}-field / {role}_field="
    if given is not None:
        if given not in fields:
            raise InputError(
                name, None, None, f"no field {given!r} for the {role}; fields: {', '.join(fields)}"
            )
        return given
    present = [c for c in candidates if c in fields]
    if len(present) > 1:
        raise InputError(
            name,
            None,
            None,
            f"fields {' and '.join(map(repr, present))} could both be the {role}: "
            f"name one with {option}",
        )
    return present[0] if present else None


def _required(field: str | None, fields: Sequence[str], role: str, name: str) -> str:
    if field is None:
        raise InputError(
            name,
            None,
            None,
            f"no {role} field among {', '.join(fields) or 'no fields'}; "
            f"name it with --{role}-field / {role}_field=",
        )
    return field


def _objects(name: str, text: str, fmt: str) -> Sequence[tuple[int, Mapping[str, Any], str]]:
    """(line or item number, object, where) for every record of a JSON/JSONL/CSV/TSV text."""
    if fmt == "jsonl":
        rows = []
        for number, data in iter_jsonl(name, text):
            if not isinstance(data, dict):
                raise InputError(name, number, None, "expected a JSON object")
            rows.append((number, data, ""))
        return rows
    if fmt == "json":
        data = parse_json(name, text)
        if not isinstance(data, list):
            raise InputError(name, None, None, "expected a JSON array of objects")
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                raise InputError(name, None, f"[{i}]", "expected a JSON object")
        return [(i + 1, item, f"[{i}].") for i, item in enumerate(data)]
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t" if fmt == "tsv" else ",")
    rows = []
    try:
        for row in reader:
            if None in row:
                raise InputError(name, reader.line_num, None, "more cells than header fields")
            rows.append((reader.line_num, row, ""))
    except csv.Error as exc:
        raise InputError(name, reader.line_num, None, f"invalid {fmt.upper()}: {exc}") from None
    return rows


def parse_records(
    name: str,
    text: str,
    *,
    input_format: InputFormat = "auto",
    reference_field: str | None = None,
    output_field: str | None = None,
    id_field: str | None = None,
    question_field: str | None = None,
    language_field: str | None = None,
) -> list[Record]:
    """The records of ``text`` (read from ``name``); errors name the file, line and field.
    ``language_field`` names the field of each record's language code (a record without one,
    or with an empty one, has None: the run's language)."""
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"input_format must be one of {', '.join(INPUT_FORMATS)}")
    fmt = detect_format(name, text) if input_format == "auto" else input_format
    rows = _objects(name, text, fmt)
    if not rows:
        raise InputError(name, None, None, "no records")
    if fmt in ("csv", "tsv"):
        fields: list[str] = list(rows[0][1])
    else:  # JSON objects may differ: every name that appears
        seen: dict[str, None] = {}
        for _, row, _ in rows:
            seen.update(dict.fromkeys(row))
        fields = list(seen)
    ref_key = _required(
        resolve_field(fields, reference_field, REFERENCE_FIELDS, "reference", name),
        fields,
        "reference",
        name,
    )
    out_key = _required(
        resolve_field(fields, output_field, OUTPUT_FIELDS, "output", name), fields, "output", name
    )
    id_key = resolve_field(fields, id_field, ID_FIELDS, "id", name)
    q_key = resolve_field(fields, question_field, QUESTION_FIELDS, "question", name)
    lang_key = resolve_field(fields, language_field, (), "language", name)
    keys = [k for k in (ref_key, out_key, id_key, q_key, lang_key) if k is not None]
    if len(set(keys)) < len(keys):
        raise InputError(
            name, None, None, "the reference, output, id, question and language fields must differ"
        )
    records: list[Record] = []
    for number, row, where in rows:
        line = number if fmt != "json" else None
        reference = row.get(ref_key)
        if isinstance(reference, list) and fmt in ("json", "jsonl"):
            if not reference or not all(isinstance(r, str) for r in reference):
                raise InputError(
                    name, line, where + ref_key, "expected a string or a non-empty list of strings"
                )
        elif not isinstance(reference, str):
            raise InputError(name, line, where + ref_key, "missing, or not a string")
        output = row.get(out_key)
        if not isinstance(output, str):
            raise InputError(name, line, where + out_key, "missing, or not a string")
        ident: Any = row.get(id_key) if id_key else None
        if ident is not None and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
            raise InputError(name, line, f"{where}{id_key}", "expected a string or an integer")
        question: Any = row.get(q_key) if q_key else None
        if question is not None and not isinstance(question, str):
            raise InputError(name, line, f"{where}{q_key}", "expected a string")
        language: Any = row.get(lang_key) if lang_key else None
        if language is not None and not isinstance(language, str):
            raise InputError(name, line, f"{where}{lang_key}", "expected a language code")
        if language:
            try:
                check_language(language)
            except ValueError as exc:
                raise InputError(name, line, f"{where}{lang_key}", str(exc)) from None
        records.append(Record(number, ident, reference, output, question or None, language or None))
    return records


def read_records(
    path: str | os.PathLike[str],
    *,
    input_format: InputFormat = "auto",
    reference_field: str | None = None,
    output_field: str | None = None,
    id_field: str | None = None,
    question_field: str | None = None,
    language_field: str | None = None,
) -> list[Record]:
    """:func:`parse_records` of a UTF-8 regular file of at most :data:`MAX_INPUT_BYTES` (``-``
    reads standard input), read by :func:`lexeval.io.read_text`."""
    name, text = read_text(path, MAX_INPUT_BYTES)
    return parse_records(
        name,
        text,
        input_format=input_format,
        reference_field=reference_field,
        output_field=output_field,
        id_field=id_field,
        question_field=question_field,
        language_field=language_field,
    )


def score_records(
    metrics: Mapping[str, BaseMetric],
    records: Sequence[Record],
    *,
    workers: int | str = 1,
    progress: bool = False,
) -> dict[str, list[MetricResult]]:
    """Every metric's results over ``records``, in order (each metric's batch path, on
    ``workers`` processes: see :func:`lexeval.run.measure_many`), with the records'
    questions (read by keyword coverage, lexical correctness and the LLM judges).
    ``progress=True`` shows a progress bar per metric on standard error (the same results)."""
    resolve_workers(workers)  # a bad value fails before any metric runs
    references = [r.reference for r in records]
    outputs = [r.output for r in records]
    questions = [r.question for r in records]
    results: dict[str, list[MetricResult]] = {}
    for name, metric in metrics.items():
        results[name] = measure_many(
            metric, references, outputs, questions=questions, workers=workers, progress=progress
        )
    return results


def score_records_by_language(
    build: Callable[[str | None], Mapping[str, BaseMetric]],
    records: Sequence[Record],
    *,
    workers: int | str = 1,
    progress: bool = False,
) -> tuple[dict[str, list[MetricResult]], dict[str, str]]:
    """:func:`score_records` with each record scored by the metrics ``build(language)`` makes
    for its language (``record.language``; None: the run's), in order; and each metric's
    signature for the run: the one signature, or the distinct ones sorted (whatever the order
    of the records), joined by `` || ``.

    >>> from lexeval.registry import get_metric
    >>> records = [Record(1, "a", "Katzen", "Katze", language="de"),
    ...            Record(2, "b", "cats", "cat")]
    >>> columns, signatures = score_records_by_language(
    ...     lambda language: {"f1": get_metric("token_f1", language=language or "en")}, records)
    >>> [r.score for r in columns["f1"]], signatures["f1"].count("||")
    ([1.0, 1.0], 1)
    """
    groups: dict[str, list[int]] = {}
    for i, record in enumerate(records):
        groups.setdefault(record.language or "", []).append(i)
    found: dict[str, list[MetricResult | None]] = {}
    signatures: dict[str, list[str]] = {}
    for language in sorted(groups):
        indices = groups[language]
        metrics = build(language or None)
        part = score_records(
            metrics, [records[i] for i in indices], workers=workers, progress=progress
        )
        for name, results in part.items():
            column = found.setdefault(name, [None] * len(records))
            for i, result in zip(indices, results, strict=True):
                column[i] = result
            seen = signatures.setdefault(name, [])
            if metrics[name].signature not in seen:
                seen.append(metrics[name].signature)
    columns = {name: [r for r in column if r is not None] for name, column in found.items()}
    return columns, {name: " || ".join(sorted(seen)) for name, seen in signatures.items()}


def flatten_result(name: str, result: MetricResult) -> dict[str, Any]:
    """One result as flat columns prefixed by ``name``: the score as ``name``, then
    ``name_passed`` and every ``info`` entry (nested dicts such as ``counts`` one level down:
    ``name_counts_overlap``); lists (``matched``, ``missing``) stay lists.

    >>> from lexeval.metrics import MetricResult
    >>> flatten_result("m", MetricResult(0.5, {"recall": 1.0, "counts": {"overlap": 2}}))
    {'m': 0.5, 'm_passed': None, 'm_recall': 1.0, 'm_counts_overlap': 2}
    """
    row: dict[str, Any] = {name: result.score, f"{name}_passed": result.passed}
    for key, value in result.info.items():
        if isinstance(value, dict):
            for inner, item in value.items():
                row[f"{name}_{key}_{inner}"] = item
        else:
            row[f"{name}_{key}"] = value
    return row


def edits_text(result: MetricResult) -> str:
    """A result's edit operations (WER, CER, TER) as one text: shifts as ``words
    start->target``, substitutions as ``reference->output``, then deletions and insertions;
    empty when it lists none (the CSV evidence column and the HTML report show it).

    >>> from lexeval.metrics import MetricResult
    >>> edits_text(MetricResult(0.5, {"substituted": [("the", "a")], "deleted": ["cat"]}))
    'substituted: the->a; deleted: cat'
    """
    info = result.info
    parts: list[str] = []
    shifted, substituted = info.get("shifted"), info.get("substituted")
    if isinstance(shifted, list):
        moves = (
            f"{m[0]} {m[1]}->{m[2]}"
            for m in shifted
            if isinstance(m, (list, tuple)) and len(m) == 3
        )
        parts.append(f"shifted: {', '.join(moves)}")
    if isinstance(substituted, list):
        pairs = (
            f"{p[0]}->{p[1]}" for p in substituted if isinstance(p, (list, tuple)) and len(p) == 2
        )
        parts.append(f"substituted: {', '.join(pairs)}")
    for key in ("deleted", "inserted"):
        value = info.get(key)
        if isinstance(value, list) and parts:
            parts.append(f"{key}: {', '.join(str(v) for v in value)}")
    return "; ".join(parts)


def evidence_text(result: MetricResult) -> str:
    """A result's evidence as one short text: the matched and missing keywords (words,
    n-grams), or the edit operations (WER, CER, TER: shifts as ``words start->target``,
    substitutions as ``reference->output``), else a judge's reason or the reason its reply
    was unreadable.

    >>> from lexeval.metrics import MetricResult
    >>> evidence_text(MetricResult(0.5, {"matched": ["cat"], "missing": ["sat", "mat"]}))
    'matched: cat; missing: sat, mat'
    >>> evidence_text(MetricResult(0.5, {"shifted": [("on the mat", 0, 3)],
    ...     "substituted": [("the", "a")], "deleted": [], "inserted": ["x", "y"]}))
    'shifted: on the mat 0->3; substituted: the->a; deleted: ; inserted: x, y'
    >>> evidence_text(MetricResult(0.5, {"precision": 1.0}))
    ''
    """
    info = result.info
    parts = []
    for key in ("matched", "missing"):
        value = info.get(key)
        if isinstance(value, list):
            parts.append(f"{key}: {', '.join(str(v) for v in value)}")
    if parts:
        return "; ".join(parts)
    edits = edits_text(result)
    if edits:
        return edits
    for key, label in (("parse_error", "unreadable reply: "), ("reason", "")):
        value = info.get(key)
        if isinstance(value, str) and value:
            return label + " ".join(value.split())
    return ""


def tidy_result(name: str, result: MetricResult) -> dict[str, Any]:
    """One result as three flat columns: the score as ``name``, ``name_passed`` and
    ``name_evidence`` (:func:`evidence_text`): what ``lexeval score --format csv`` writes, a
    fixed set of columns whatever the keywords (the JSON forms keep the full ``info``).

    >>> from lexeval.metrics import MetricResult
    >>> tidy_result("kw", MetricResult(0.5, {"matched": ["a"], "missing": [], "weights": {"a": 1}}))
    {'kw': 0.5, 'kw_passed': None, 'kw_evidence': 'matched: a; missing: '}
    """
    return {
        name: result.score,
        f"{name}_passed": result.passed,
        f"{name}_evidence": evidence_text(result),
    }
