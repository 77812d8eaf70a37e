"""Record datasets (YAML): a schema of named fields with their checks, and cases with the
records expected from each text.

.. code-block:: yaml

    name: invoices
    version: 1
    threshold: 0.5            # minimum pair score (0.3 by default, as for cards)
    normalizer: default       # a normalizer preset, or plain (optional)
    fields:
      description: keywords                 # a check name ...
      quantity: {check: number}             # ... or a mapping with its options
      unit_price: {check: number, tolerance: 0.01}
      currency: {check: exact, optional: true}
    weights: {description: 2}               # per field (1 by default)
    cases:
      - id: inv-001
        text: "the document the model read"
        expected:
          - {description: [blue widget], quantity: 3, unit_price: 4.25, currency: USD}

A file without ``fields:`` is a flashcard dataset (cases with ``expected_cards``; see
:mod:`lexeval.records.flashcards`). Every error names the file, the line and the field, e.g.
``d.yaml:7: fields.price.check: unknown check 'numbr' (known: ...)``.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "ds.yaml").write_text('''
... name: demo
... fields: {sku: exact, qty: number}
... cases:
...   - id: c1
...     text: two A1
...     expected: [{sku: A1, qty: 2}]
... ''')
>>> ds = load_dataset(d / "ds.yaml")
>>> ds.schema.names, ds.cases[0].expected
(('sku', 'qty'), ({'sku': 'A1', 'qty': 2.0},))
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lexeval.io import (
    MAX_FILE_BYTES,
    InputError,
    MapNode,
    Node,
    NodeReader,
    ScalarNode,
    compose_yaml,
    join_path,
    node_kind,
    read_text,
)
from lexeval.records.checks import node_value, parse_check
from lexeval.records.flashcards import flashcard_schema
from lexeval.records.matching import Record
from lexeval.records.schema import Field, Schema
from lexeval.text.config import PRESETS

__all__ = ["DEFAULT_THRESHOLD", "RecordCase", "RecordDataset", "check_unique_ids", "load_dataset"]

#: The minimum pair score when a dataset names none (as for cards).
DEFAULT_THRESHOLD = 0.3


def check_unique_ids(ids: Iterable[str]) -> None:
    """Raise ValueError at the first case id seen twice.

    >>> check_unique_ids(["a", "b", "a"])
    Traceback (most recent call last):
    ...
    ValueError: duplicate case id 'a'
    """
    seen: set[str] = set()
    for case_id in ids:
        if case_id in seen:
            raise ValueError(f"duplicate case id {case_id!r}")
        seen.add(case_id)


@dataclass(frozen=True, slots=True)
class RecordCase:
    """One input text and the records expected from it."""

    id: str
    text: str
    expected: tuple[Record, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "expected", tuple(self.expected))


@dataclass(frozen=True, slots=True)
class RecordDataset:
    """A named, versioned schema and its cases (unique ids), with the dataset's threshold and
    normalizer (a preset name, or None for plain matching)."""

    name: str
    version: str
    schema: Schema
    cases: tuple[RecordCase, ...]
    threshold: float = DEFAULT_THRESHOLD
    normalizer: str | None = "default"
    path: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", tuple(self.cases))
        check_unique_ids(case.id for case in self.cases)

    def __len__(self) -> int:
        return len(self.cases)


_TOP = ("version", "description", "fields", "weights", "threshold", "normalizer")


def load_dataset(path: str | os.PathLike[str], *, max_bytes: int = MAX_FILE_BYTES) -> RecordDataset:
    """Read and validate a YAML record dataset (or a flashcard dataset)."""
    name, text = read_text(path, max_bytes)
    root = compose_yaml(name, text)
    if root is None:
        raise InputError(name, None, None, "file is empty")
    reader = NodeReader(name)
    top = reader.mapping(root, "", ("name", "cases"), _TOP)
    ds_name = reader.nonblank(top["name"], "name")
    version = reader.nonblank(top["version"], "version", numbers=True) if "version" in top else ""
    if "fields" in top:
        schema = _schema(reader, top["fields"], top.get("weights"))
    else:
        if "weights" in top:
            raise reader.error(
                top["weights"], "weights", "needs fields: (a flashcard dataset has fixed weights)"
            )
        schema = flashcard_schema()
    threshold = DEFAULT_THRESHOLD
    if "threshold" in top:
        threshold = _unit(reader, top["threshold"], "threshold")
    normalizer: str | None = "default"
    if "normalizer" in top:
        preset = reader.nonblank(top["normalizer"], "normalizer")
        if preset != "plain" and preset not in PRESETS:
            known = ", ".join(["plain", *PRESETS])
            raise reader.error(
                top["normalizer"], "normalizer", f"unknown preset {preset!r} (known: {known})"
            )
        normalizer = None if preset == "plain" else preset
    cases: list[RecordCase] = []
    seen: dict[str, int | None] = {}
    case_nodes = reader.sequence(top["cases"], "cases")
    if not case_nodes:
        raise reader.error(top["cases"], "cases", "the list is empty")
    for index, node in enumerate(case_nodes):
        cases.append(_case(reader, schema, node, f"cases[{index}]", seen))
    return RecordDataset(ds_name, version, schema, tuple(cases), threshold, normalizer, name)


def _unit(reader: NodeReader, node: Node, path: str) -> float:
    value = node_value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise reader.error(node, path, f"expected a number, got {node_kind(node)}")
    if not 0.0 <= value <= 1.0:
        raise reader.error(node, path, f"must be in [0, 1], got {value!r}")
    return float(value)


def _schema(reader: NodeReader, node: Node, weights_node: Node | None) -> Schema:
    if not isinstance(node, MapNode):
        raise reader.error(node, "fields", f"expected a mapping, got {node_kind(node)}")
    if not node.pairs:
        raise reader.error(node, "fields", "no fields")
    specs = reader.mapping(node, "fields", (), (), strict=False)
    weights: dict[str, float] = {}
    if weights_node is not None:
        for key, value in reader.mapping(weights_node, "weights", (), specs).items():
            weight = node_value(value) if isinstance(value, ScalarNode) else None
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
                raise reader.error(
                    value, f"weights.{key}", f"expected a number >= 0, got {node_kind(value)}"
                )
            try:
                weights[key] = float(weight)
            except OverflowError:
                raise reader.error(value, f"weights.{key}", "number too large") from None
    fields = []
    for key, spec in specs.items():
        if key in ("case_id", "records", "output"):
            raise reader.error(spec, f"fields.{key}", "reserved name (outputs use it)")
        check, weight, optional = parse_check(reader, spec, f"fields.{key}")
        fields.append(Field(key, check, weights.get(key, weight), optional))
    if not any(f.weight > 0 for f in fields):
        raise reader.error(node, "weights", "at least one field weight must be > 0")
    return Schema(tuple(fields))


def _case(
    reader: NodeReader, schema: Schema, node: Node, where: str, seen: dict[str, int | None]
) -> RecordCase:
    key = schema.expected_key
    fields = reader.mapping(node, where, ("id", "text", key), ("subject", "notes"))
    case_id = reader.nonblank(fields["id"], f"{where}.id", numbers=True)
    if case_id in seen:
        raise reader.error(
            fields["id"],
            f"{where}.id",
            f"duplicate case id {case_id!r} (first on line {seen[case_id]})",
        )
    seen[case_id] = reader.line(fields["id"])
    case_text = reader.string(fields["text"], f"{where}.text")
    record_nodes = reader.sequence(fields[key], f"{where}.{key}")
    if not record_nodes:
        raise reader.error(fields[key], f"{where}.{key}", "the list is empty")
    records = tuple(
        _record(reader, schema, item, f"{where}.{key}[{j}]") for j, item in enumerate(record_nodes)
    )
    return RecordCase(case_id, case_text, records)


def _record(reader: NodeReader, schema: Schema, node: Node, where: str) -> dict[str, Any]:
    required = [f.expected_key for f in schema.fields if not f.optional]
    optional = [f.expected_key for f in schema.fields if f.optional]
    given = reader.mapping(node, where, required, optional)
    record: dict[str, Any] = {}
    for f in schema.fields:
        value = given.get(f.expected_key)
        if value is None or (f.optional and isinstance(value, ScalarNode) and value.tag == "null"):
            continue
        record[f.name] = f.check.expected(reader, value, join_path(where, f.expected_key))
    return record
