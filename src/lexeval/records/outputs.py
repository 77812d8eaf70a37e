"""Generated records by case id: given as records, or as the model's raw reply, from which the
JSON (object or array) is taken even inside prose or a markdown fence.

Formats, chosen by extension:

* ``.jsonl``: one object per line: ``{"case_id", "records": [...]}``, ``{"case_id", "output":
  "<raw reply>"}`` or one record ``{"case_id", <fields>...}``; lines of a case add up (a
  flashcard schema also reads ``"cards"`` for ``"records"``);
* ``.json``, ``.yaml``/``.yml``: a mapping from case id to a list of records or a raw reply.

A raw reply without usable JSON makes its case a ``parse_error`` (with the reason) and is not
an error of the file: the other cases are still scored. A malformed file is an error naming
the file, the line and the field.

>>> extract_json('Sure! Here they are:\\n```json\\n[{"sku": "A1"}]\\n```\\nAnything else?')
([{'sku': 'A1'}], None)
>>> extract_json("I could not find any line items.")
(None, 'no JSON object or array in the reply')
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexeval.io import (
    MAX_FILE_BYTES,
    InputError,
    MapNode,
    Node,
    NodeReader,
    ScalarNode,
    compose_yaml,
    iter_jsonl,
    json_node,
    locate_json,
    node_kind,
    parse_json,
    read_text,
)
from lexeval.records.checks import node_value
from lexeval.records.matching import Record
from lexeval.records.schema import Schema

__all__ = ["CaseOutput", "extract_json", "load_outputs", "records_from_reply"]

#: Most candidate openings (``{`` or ``[``) tried in a reply's prose before giving up.
MAX_CANDIDATES = 200

_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.S)
_DECODER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class CaseOutput:
    """What a case's output gave: its records, or a parse error and its reason."""

    records: tuple[Record, ...] = ()
    status: str = "ok"
    reason: str | None = None


def _decode(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def extract_json(reply: str) -> tuple[Any, str | None]:
    """The first JSON object or array of a model's reply (the whole reply, else a fenced
    block, else the first opening brace or bracket in the prose that starts valid JSON,
    passing over arrays without an object, such as a citation ``[1]``, unless there is nothing
    else), or None and the reason."""
    value = _decode(reply.strip())
    if isinstance(value, (dict, list)):
        return value, None
    for fence in _FENCE.finditer(reply):
        value = _decode(fence.group(1).strip())
        if isinstance(value, (dict, list)):
            return value, None
    first_error: str | None = None
    markers: Any = None  # the first array of scalars, such as a citation "[1]": a fallback
    tried = 0
    for match in re.finditer(r"[{\[]", reply):
        tried += 1
        if tried > MAX_CANDIDATES:
            break
        try:
            value, _ = _DECODER.raw_decode(reply, match.start())
        except ValueError as exc:
            if first_error is None:
                first_error = f"invalid JSON: {exc.args[0] if exc.args else exc}"
            continue
        except RecursionError:
            first_error = first_error or "invalid JSON: nested too deeply"
            continue
        if isinstance(value, list) and value and not any(isinstance(v, dict) for v in value):
            if markers is None:
                markers = value
            continue
        if isinstance(value, (dict, list)):
            return value, None
    if markers is not None:
        return markers, None
    return None, first_error or "no JSON object or array in the reply"


def records_from_reply(reply: str, schema: Schema) -> CaseOutput:
    """A raw reply's records, or a ``parse_error`` output with the reason.

    A JSON array is the list of records; an object holding ``records`` (or the schema's
    ``records_key``), or a single key whose value is a list of objects, gives that list; any
    other object is one record.
    """
    value, reason = extract_json(reply)
    if value is None:
        return CaseOutput((), "parse_error", reason)
    if isinstance(value, dict):
        for key in ("records", schema.records_key):
            if isinstance(value.get(key), list):
                value = value[key]
                break
        else:
            lists = [v for v in value.values() if isinstance(v, list)]
            if (
                len(value) == 1
                and len(lists) == 1
                and lists[0]
                and all(isinstance(item, dict) for item in lists[0])
            ):
                value = lists[0]
            else:
                value = [value]
    for k, item in enumerate(value):
        if not isinstance(item, dict):
            kind = type(item).__name__
            return CaseOutput((), "parse_error", f"record {k} is not a JSON object ({kind})")
    return CaseOutput(tuple(value), "ok", None)


def load_outputs(
    path: str | os.PathLike[str], schema: Schema, *, max_bytes: int = MAX_FILE_BYTES
) -> dict[str, CaseOutput]:
    """Read generated records (or raw replies) keyed by case id (see the module's formats).

    >>> import tempfile, pathlib
    >>> from lexeval.records.checks import ExactCheck
    >>> from lexeval.records.schema import Field, Schema
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.jsonl"
    >>> _ = p.write_text('{"case_id": "c1", "output": "Found: {\\\\"sku\\\\": \\\\"A1\\\\"}"}\\n')
    >>> load_outputs(p, Schema((Field("sku", ExactCheck()),)))["c1"].records
    ({'sku': 'A1'},)
    """
    name, text = read_text(path, max_bytes)
    suffix = Path(name).suffix.lower()
    if suffix == ".jsonl" or name == "<stdin>":
        return _jsonl(name, text, schema)
    if suffix == ".json":
        data = parse_json(name, text)
        if not isinstance(data, dict):
            raise InputError(name, None, None, "expected a mapping from case id to records")
        pairs: list[tuple[Node, Node]] = [
            (ScalarNode("str", k), json_node(v)) for k, v in data.items()
        ]
        try:
            return _mapping(NodeReader(name), MapNode(pairs), schema)
        except InputError as exc:
            if exc.line is not None:  # pragma: no cover - JSON nodes carry no line
                raise
        # Parse again, slower, keeping each value's line, for an error that names it.
        return _mapping(NodeReader(name), locate_json(name, text), schema)
    if suffix in (".yaml", ".yml"):
        root = compose_yaml(name, text)
        if root is None:
            raise InputError(name, None, None, "file is empty")
        return _mapping(NodeReader(name), root, schema)
    raise InputError(name, None, None, "unknown output format (use .jsonl, .json, .yaml or .yml)")


def _record_list(reader: NodeReader, node: Node, where: str) -> list[Record]:
    records = []
    for k, item in enumerate(reader.sequence(node, where)):
        if not isinstance(item, MapNode):
            raise reader.error(item, f"{where}[{k}]", f"expected an object, got {node_kind(item)}")
        records.append(node_value(item))
    return records


def _mapping(reader: NodeReader, root: Node, schema: Schema) -> dict[str, CaseOutput]:
    if not isinstance(root, MapNode):
        raise reader.error(root, "", f"expected a mapping from case id, got {node_kind(root)}")
    out: dict[str, CaseOutput] = {}
    for key_node, value_node in root.pairs:
        if not isinstance(key_node, ScalarNode) or key_node.tag == "null":
            raise reader.error(key_node, "", "case ids must be strings")
        case_id = key_node.value
        if case_id in out:
            raise reader.error(key_node, case_id, "duplicate case id")
        if isinstance(value_node, ScalarNode) and value_node.tag == "str":
            out[case_id] = records_from_reply(value_node.value, schema)
        else:
            out[case_id] = CaseOutput(tuple(_record_list(reader, value_node, case_id)))
    return out


def _jsonl(name: str, text: str, schema: Schema) -> dict[str, CaseOutput]:
    collected: dict[str, list[Record]] = {}
    failed: dict[str, str] = {}
    keys = ("records", schema.records_key)
    for number, data in iter_jsonl(name, text):
        reader = NodeReader(name, default_line=number)
        if not isinstance(data, dict):
            raise reader.error(json_node(data, number), "", "expected an object")
        case_node = data.get("case_id")
        if case_node is None:
            raise InputError(name, number, "case_id", "missing required field")
        case_id = reader.nonblank(json_node(case_node, number), "case_id", numbers=True)
        records = collected.setdefault(case_id, [])
        key = next((k for k in keys if k in data), None)
        if "output" in data:
            reply = data["output"]
            if not isinstance(reply, str):
                raise InputError(name, number, "output", "expected a string (the raw reply)")
            parsed = records_from_reply(reply, schema)
            if parsed.status != "ok":
                failed.setdefault(case_id, parsed.reason or "parse error")
            records.extend(parsed.records)
        elif key is not None:
            records.extend(_record_list(reader, json_node(data[key], number), key))
        else:
            records.append({k: v for k, v in data.items() if k != "case_id"})
    return {
        case_id: CaseOutput((), "parse_error", failed[case_id])
        if case_id in failed
        else CaseOutput(tuple(records))
        for case_id, records in collected.items()
    }
