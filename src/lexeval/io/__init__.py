"""Reading input files and writing reports safely, in three modules re-exported here:
:mod:`lexeval.io.reading` (files, UTF-8, JSON and JSONL), :mod:`lexeval.io.yamlfile` (YAML as
plain nodes, :mod:`lexeval.io.nodes`) and :mod:`lexeval.io.writing` (reports, signals).

Reading: only regular files (or ``-`` for standard input) up to a size limit, decoded as UTF-8
with a hint when they are not; JSON is read with a JSON parser, JSONL split on ``\\n`` only,
YAML composed from libyaml's events into plain :class:`ScalarNode`/:class:`ListNode`/
:class:`MapNode` nodes with their line, nesting depth bounded, aliases counted as the nodes they
stand for and only the core YAML tags accepted. Every error is an :class:`InputError` naming
the file, the line and the field.

Writing: :func:`write_text_atomic` writes a regular file or a new path, never a device, a FIFO,
a directory or one of the run's own inputs; the text goes to a temporary file beside the target
(permissions from the umask, or those of the file it replaces), then is renamed over it, so the
target is whole or untouched, and the temporary file is removed on every error or signal
turned into an exception (:func:`signals_as_exceptions`). A stream the process has open (``-``,
``/dev/stdout``, ``/dev/fd/N``: :func:`stream_fd`) is written where it stands, never replaced.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_text_atomic(d / "r.json", '{"a": [1, 2]}\\n')
>>> name, text = read_text(d / "r.json")
>>> parse_json(name, text)
{'a': [1, 2]}
>>> compose_yaml("x.yaml", "a: [1, b]\\n")
MapNode(pairs=[(ScalarNode(tag='str', value='a', line=1), ListNode(items=[...], line=1))], line=1)
"""

from __future__ import annotations

from lexeval.io.errors import InputError, OutputError
from lexeval.io.nodes import ListNode, MapNode, Node, ScalarNode, json_node
from lexeval.io.reading import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    STDIN,
    decode_utf8,
    iter_jsonl,
    iter_lines,
    locate_json,
    parse_json,
    read_text,
)
from lexeval.io.validation import NodeReader, join_path, node_kind
from lexeval.io.writing import (
    TERMINATING_SIGNALS,
    Terminated,
    check_output_path,
    current_umask,
    signals_as_exceptions,
    stream_fd,
    write_text_atomic,
)
from lexeval.io.yamlfile import MAX_YAML_NODES, compose_yaml

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_YAML_NODES",
    "STDIN",
    "TERMINATING_SIGNALS",
    "InputError",
    "ListNode",
    "MapNode",
    "Node",
    "NodeReader",
    "OutputError",
    "ScalarNode",
    "Terminated",
    "check_output_path",
    "compose_yaml",
    "current_umask",
    "decode_utf8",
    "iter_jsonl",
    "iter_lines",
    "join_path",
    "json_node",
    "locate_json",
    "node_kind",
    "parse_json",
    "read_text",
    "signals_as_exceptions",
    "stream_fd",
    "write_text_atomic",
]
