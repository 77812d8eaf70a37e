"""Reading input files and writing reports safely.

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
turned into an exception (:func:`signals_as_exceptions`).

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

import bisect
import contextlib
import errno
import json
import json.decoder
import json.scanner
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, NoReturn, TypeAlias

import yaml

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_YAML_NODES",
    "TERMINATING_SIGNALS",
    "InputError",
    "ListNode",
    "MapNode",
    "Node",
    "OutputError",
    "ScalarNode",
    "Terminated",
    "check_output_path",
    "compose_yaml",
    "current_umask",
    "decode_utf8",
    "iter_jsonl",
    "iter_lines",
    "json_node",
    "locate_json",
    "parse_json",
    "read_text",
    "signals_as_exceptions",
    "write_text_atomic",
]

#: Largest input file read (bytes); larger files are refused before parsing.
MAX_FILE_BYTES = 20 * 1024 * 1024
#: Deepest nesting of lists and mappings accepted in JSON and YAML.
MAX_DEPTH = 64
#: Most YAML nodes in one file, each alias counting as the nodes it stands for.
MAX_YAML_NODES = 5_000_000

STDIN = "-"


class InputError(ValueError):
    """An input file that cannot be used; the message names file, line and field.

    >>> str(InputError("d.yaml", 3, "cases[0].id", "expected a string"))
    'd.yaml:3: cases[0].id: expected a string'
    >>> str(InputError("d.yaml", None, None, "file is empty"))
    'd.yaml: file is empty'
    """

    def __init__(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.file = file
        self.line = line
        self.field = field
        self.message = message
        where = file if line is None else f"{file}:{line}"
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


class OutputError(ValueError):
    """A report target that must not be written (a device, a directory, an input of the run).

    >>> str(OutputError("/dev/null", "is a character device, not a regular file"))
    '/dev/null: is a character device, not a regular file'
    """

    def __init__(self, target: str, message: str) -> None:
        self.target = target
        self.message = message
        super().__init__(f"{target}: {message}")


# ---------------------------------------------------------------- reading files


def _file_kind(mode: int) -> str:
    """What a non-regular file is, for messages.

    >>> _file_kind(stat.S_IFIFO)
    'a FIFO'
    """
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_text(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> tuple[str, str]:
    """Return (display name, text) of a UTF-8 regular file no larger than ``max_bytes``.

    ``-`` reads standard input (up to the same limit). FIFOs, devices and directories are
    refused without being opened for a blocking read; a leading byte-order mark is dropped.

    >>> read_text("/dev/null")
    Traceback (most recent call last):
    ...
    lexeval.io.InputError: /dev/null: is a character device, not a regular file
    """
    name = os.fspath(path)
    if name == STDIN:
        raw = sys.stdin.buffer.read(max_bytes + 1)
        name = "<stdin>"
    else:
        raw = _read_regular(name, max_bytes)
    if len(raw) > max_bytes:
        raise InputError(name, None, None, f"file is larger than {max_bytes} bytes")
    return name, decode_utf8(name, raw)


def _read_regular(name: str, max_bytes: int) -> bytes:
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(name, None, None, f"cannot read file: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(name, None, None, f"is {_file_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise InputError(
                name, None, None, f"file is {info.st_size} bytes, larger than {max_bytes}"
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            # Ask for the size stat gave (read(n) allocates n bytes first), then for whatever
            # the file grew by since, up to the limit.
            raw = handle.read(info.st_size + 1)
            if len(raw) > info.st_size:
                raw += handle.read(max_bytes + 1 - len(raw))
            return raw
    except OSError as exc:
        raise InputError(name, None, None, f"cannot read file: {exc.strerror}") from None
    finally:
        os.close(fd)


_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32-LE"),
    (b"\x00\x00\xfe\xff", "UTF-32-BE"),
    (b"\xff\xfe", "UTF-16-LE"),
    (b"\xfe\xff", "UTF-16-BE"),
)


def _encoding_hint(raw: bytes) -> str:
    """A guess at what a file that is not UTF-8 is.

    >>> _encoding_hint("name: x".encode("utf-16-le"))
    'looks like UTF-16-LE'
    >>> _encoding_hint("café".encode("latin-1"))
    'looks like Latin-1 or Windows-1252'
    """
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return f"{encoding} with a byte-order mark"
    sample = raw[:4096]
    half = len(sample) // 2
    if half:
        odd = sample[1::2].count(0)
        even = sample[0::2].count(0)
        if odd > 0.3 * half and odd > 2 * even:
            return "looks like UTF-16-LE"
        if even > 0.3 * half and even > 2 * odd:
            return "looks like UTF-16-BE"
    if 0 in sample:
        return "contains NUL bytes: a binary file?"
    return "looks like Latin-1 or Windows-1252"


def decode_utf8(name: str, raw: bytes) -> str:
    """Decode UTF-8 text; anything else (UTF-16, Latin-1, NUL bytes) is refused with its line.

    >>> decode_utf8("a.txt", b"ok\\n\\xe9t\\xe9")
    Traceback (most recent call last):
    ...
    lexeval.io.InputError: a.txt:2: not UTF-8 (looks like Latin-1 or Windows-1252; byte 3); \
save the file as UTF-8
    """
    position: int | None = raw.find(0)
    if position == -1:
        position = None
        try:
            return raw.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            position = exc.start
    line = raw[:position].count(b"\n") + 1
    hint = _encoding_hint(raw)
    raise InputError(
        name, line, None, f"not UTF-8 ({hint}; byte {position}); save the file as UTF-8"
    )


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of a text split on ``\\n`` only (JSONL's line separator).

    U+2028, U+2029, U+0085 and a lone ``\\r`` stay inside their line (JSON allows them raw in
    strings); a ``\\r\\n`` line end is JSON whitespace.

    >>> [n for n, _ in iter_lines('{"a": "x\\u2028y"}\\n{"b": 1}\\n')]
    [1, 2, 3]
    """
    yield from enumerate(text.split("\n"), start=1)


# ---------------------------------------------------------------- JSON


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# A high surrogate escape not followed by a low one, or a low one not preceded by a high one:
# what may decode to a lone surrogate (surrogate pairs, e.g. emoji, do not match).
_LONE_SURROGATE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|(?<![\w.])(?:NaN|-?Infinity)\b')


def _line_of(text: str, offset: int, first_line: int) -> int:
    return first_line + text.count("\n", 0, offset)


def _scan_json(text: str, *, depth_limit: int | None) -> tuple[int, str] | None:
    """Offset and description of the first bracket deeper than ``depth_limit``, NaN/Infinity,
    or lone surrogate escape; None if there is none (slow: only used to locate an error)."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            if _SURROGATE_ESCAPE.search(token) and _has_lone_surrogate(json.loads(token)):
                return match.start(), "a lone surrogate escape (invalid Unicode)"
        elif token in "[{":
            depth += 1
            if depth_limit is not None and depth > depth_limit:
                return match.start(), f"nested deeper than {depth_limit} levels"
        elif token in "]}":
            depth -= 1
        else:
            return match.start(), f"{token} is not valid JSON"
    return None


def _has_lone_surrogate(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def parse_json(name: str, text: str, *, line: int = 1, max_depth: int = MAX_DEPTH) -> Any:
    """Parse one JSON document strictly: no NaN/Infinity, no lone surrogate escapes, nesting
    at most ``max_depth`` deep. ``line`` is the line of ``text``'s start (JSONL).

    >>> parse_json("o.json", '{"front": "\\\\ud83c\\\\udf31"}')
    {'front': '🌱'}
    >>> parse_json("o.json", '{"a": 1,\\n "b": NaN}')
    Traceback (most recent call last):
    ...
    lexeval.io.InputError: o.json:2: invalid JSON: NaN is not valid JSON
    >>> parse_json("o.json", "[" * 100 + "]" * 100)
    Traceback (most recent call last):
    ...
    lexeval.io.InputError: o.json:1: invalid JSON: nested deeper than 64 levels
    """

    def fail(offset: int | None, message: str) -> InputError:
        where = None if offset is None else _line_of(text, offset, line)
        return InputError(name, where, None, f"invalid JSON: {message}")

    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise fail(exc.pos, exc.msg) from None
    except (ValueError, RecursionError) as exc:
        found = _scan_json(text, depth_limit=max_depth)
        if found is None:  # pragma: no cover - the scan finds what json refused
            raise fail(None, str(exc)) from None
        raise fail(*found) from None
    if _LONE_SURROGATE_ESCAPE.search(text) or _too_deep(value, max_depth):
        found = _scan_json(text, depth_limit=max_depth)
        if found is not None:
            raise fail(*found)
    return value


def _too_deep(value: Any, max_depth: int) -> bool:
    """True if ``value`` nests lists/dicts deeper than ``max_depth`` (iterative).

    >>> _too_deep([[1]], 2), _too_deep([[[1]]], 2), _too_deep("x", 0)
    (False, True, False)
    """
    if not isinstance(value, (dict, list)):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def iter_jsonl(name: str, text: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of each non-blank line of a JSONL text.

    >>> list(iter_jsonl("x.jsonl", chr(10).join(['{"a": 1}', "", "[2]"])))
    [(1, {'a': 1}), (3, [2])]
    """
    for number, line in iter_lines(text):
        if line.strip():
            yield number, parse_json(name, line, line=number)


# ---------------------------------------------------------------- nodes (YAML and JSON)


@dataclass(slots=True)
class ScalarNode:
    """A scalar: ``tag`` is ``str``, ``int``, ``float``, ``bool``, ``null`` or ``timestamp``."""

    tag: str
    value: str
    line: int | None = None


@dataclass(slots=True)
class ListNode:
    """A list of nodes."""

    items: list[Node] = field(default_factory=list)
    line: int | None = None


@dataclass(slots=True)
class MapNode:
    """A mapping, as its (key, value) pairs in file order (duplicate keys kept)."""

    pairs: list[tuple[Node, Node]] = field(default_factory=list)
    line: int | None = None


Node: TypeAlias = ScalarNode | ListNode | MapNode

_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = ("str", "int", "float", "bool", "null")
_EXPLICIT_TAGS = {f"{_CORE}{t}": t for t in (*_SCALAR_TAGS, "seq", "map")}


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix(_CORE) if tag.startswith(_CORE) else tag


def _event_line(event: yaml.Event) -> int | None:
    mark = event.start_mark
    return None if mark is None else int(mark.line) + 1


class _Composer:
    """Builds nodes from libyaml's parse events in one loop, without recursion."""

    def __init__(self, name: str, max_depth: int, max_nodes: int) -> None:
        self.name = name
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.resolver = yaml.resolver.Resolver()
        self.plain_tags: dict[str, str] = {}

    def error(self, event: yaml.Event, message: str) -> InputError:
        return InputError(self.name, _event_line(event), None, message)

    def too_many(self, event: yaml.Event) -> InputError:
        return self.error(
            event,
            f"more than {self.max_nodes} YAML nodes (aliases count as the nodes they repeat): "
            "refused",
        )

    def plain_tag(self, value: str) -> str:
        """The implicit tag of a plain scalar (``str``, ``int``, ``null``, ...), cached."""
        tag = self.plain_tags.get(value)
        if tag is None:
            full: str = self.resolver.resolve(  # type: ignore[no-untyped-call]
                yaml.ScalarNode, value, (True, False)
            )
            tag = full.removeprefix(_CORE)
            if len(self.plain_tags) < 100_000:
                self.plain_tags[value] = tag
        return tag

    def explicit_tag(self, event: yaml.NodeEvent, tag: str, kind: str) -> str:
        """The short tag of an explicitly tagged node of ``kind`` (``str``, ``seq``, ``map``);
        anything but a core tag that fits the node is refused."""
        if tag == "!":
            return kind
        short = _EXPLICIT_TAGS.get(tag)
        fits = short == kind if kind in ("seq", "map") else short in _SCALAR_TAGS
        if short is None or not fits:
            raise self.error(event, f"unsupported YAML tag {_short_tag(tag)!r}")
        return short

    def compose(
        self,
        next_event: Callable[[], yaml.Event],
        stream: Mapping[str, Callable[[int, Node], None]] | None = None,
    ) -> Node | None:
        scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
        seq_start, map_start = yaml.SequenceStartEvent, yaml.MappingStartEvent
        seq_end, map_end = yaml.SequenceEndEvent, yaml.MappingEndEvent
        stream_end, document_start = yaml.StreamEndEvent, yaml.DocumentStartEvent
        max_nodes, max_depth = self.max_nodes, self.max_depth
        plain_tags = self.plain_tags
        anchors: dict[str, tuple[Node, int]] = {}
        open_anchors: set[str] = set()
        root: Node | None = None
        documents = 0
        count = 0
        # Each open collection: the node, the node count when it opened, its anchor, for a
        # mapping the key waiting for its value, for a streamed list its callback and count.
        stack: list[list[Any]] = []
        while True:
            event: Any = next_event()
            cls = event.__class__
            node: Node
            if cls is scalar_event:
                count += 1
                if count > max_nodes:
                    raise self.too_many(event)
                value = event.value
                tag = event.tag
                if tag is None:
                    short = (
                        (plain_tags.get(value) or self.plain_tag(value))
                        if event.implicit[0]
                        else "str"
                    )
                else:
                    short = self.explicit_tag(event, tag, "str")
                node = ScalarNode(short, value, event.start_mark.line + 1)
                if event.anchor is not None:
                    anchors[event.anchor] = (node, 1)
            elif cls is seq_end or cls is map_end:
                closed, start, anchor = stack.pop()[:3]
                if anchor is not None:
                    open_anchors.discard(anchor)
                    anchors[anchor] = (closed, count - start)
                node = closed
            elif cls is seq_start or cls is map_start:
                is_sequence = cls is seq_start
                if event.tag is not None:
                    self.explicit_tag(event, event.tag, "seq" if is_sequence else "map")
                if len(stack) >= max_depth:
                    raise self.error(event, f"nested deeper than {max_depth} levels")
                count += 1
                if count > max_nodes:
                    raise self.too_many(event)
                line = event.start_mark.line + 1
                collection: Node = ListNode([], line) if is_sequence else MapNode([], line)
                # The items of a top-level list named in ``stream`` go to its callback.
                sink = None
                if stream and is_sequence and len(stack) == 1 and event.anchor is None:
                    key = stack[0][3]
                    if key.__class__ is ScalarNode and stack[0][0].__class__ is MapNode:
                        sink = stream.get(key.value)
                stack.append([collection, count - 1, event.anchor, None, sink, 0])
                if event.anchor is not None:
                    open_anchors.add(event.anchor)
                continue
            elif cls is alias_event:
                anchor = str(event.anchor)
                if anchor in open_anchors:
                    raise self.error(event, f"recursive alias *{anchor}")
                if anchor not in anchors:
                    raise self.error(event, f"undefined alias *{anchor}")
                node, size = anchors[anchor]
                count += size
                if count > max_nodes:
                    raise self.too_many(event)
            elif cls is document_start:
                documents += 1
                if documents > 1:
                    raise self.error(event, "expected a single YAML document, found another")
                continue
            elif cls is stream_end:
                return root
            else:
                continue
            if not stack:
                root = node
                continue
            frame = stack[-1]
            parent = frame[0]
            if frame[4] is not None:
                frame[4](frame[5], node)
                frame[5] += 1
            elif parent.__class__ is ListNode:
                parent.items.append(node)
            elif frame[3] is None:
                frame[3] = node
            else:
                parent.pairs.append((frame[3], node))
                frame[3] = None


def compose_yaml(
    name: str,
    text: str,
    *,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_YAML_NODES,
    stream: Mapping[str, Callable[[int, Node], None]] | None = None,
) -> Node | None:
    """The node tree of a single-document YAML text, or None for an empty document.

    Only plain data is read: an explicit tag other than ``!!str``, ``!!int``, ``!!float``,
    ``!!bool``, ``!!null``, ``!!seq`` and ``!!map`` is refused with its line, as are nesting
    deeper than ``max_depth`` and more than ``max_nodes`` nodes counting aliases expanded.

    ``stream`` maps keys of a top-level mapping to callbacks: each item of such a key's list is
    passed to ``callback(index, node)`` as soon as it is complete and is not kept in the tree
    (the list stays empty), so memory holds one item at a time. A list with an anchor is not
    streamed.

    >>> seen = []
    >>> tree = compose_yaml("d.yaml", "cases: [a, b]\\nname: x\\n",
    ...                     stream={"cases": lambda i, node: seen.append((i, node.value))})
    >>> seen, tree.pairs[0][1].items
    ([(0, 'a'), (1, 'b')], [])

    >>> compose_yaml("d.yaml", "a: 1\\nb: !!python/object:os.system {}\\n")
    Traceback (most recent call last):
    ...
    lexeval.io.InputError: d.yaml:2: unsupported YAML tag '!!python/object:os.system'
    >>> compose_yaml("d.yaml", "a: &x [1, 2]\\nb: [*x, *x, *x]\\n", max_nodes=8)
    Traceback (most recent call last):
    ...
    lexeval.io.InputError: d.yaml:2: more than 8 YAML nodes (aliases count as the nodes they \
repeat): refused
    """
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    composer = _Composer(name, max_depth, max_nodes)
    try:
        return composer.compose(loader.get_event, stream)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(name, line, None, f"invalid YAML: {problem}") from None
    except yaml.reader.ReaderError as exc:
        character = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)
        offset = text.find(character)
        line = text.count("\n", 0, offset) + 1 if offset >= 0 else None
        raise InputError(
            name, line, None, f"invalid YAML: control character U+{ord(character):04X}"
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(name, None, None, f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()


def json_node(value: Any, line: int | None = None) -> Node:
    """The node of a parsed JSON value (iterative), every node on ``line``.

    >>> json_node({"a": [1, None, "x"]}, 3).pairs[0][1]
    ListNode(items=[ScalarNode(tag='int', value='1', line=3), \
ScalarNode(tag='null', value='null', line=3), ScalarNode(tag='str', value='x', line=3)], line=3)
    """

    def make(item: Any) -> Node:
        if isinstance(item, dict):
            return MapNode([], line)
        if isinstance(item, list):
            return ListNode([], line)
        if isinstance(item, str):
            return ScalarNode("str", item, line)
        if item is None:
            return ScalarNode("null", "null", line)
        if isinstance(item, bool):
            return ScalarNode("bool", "true" if item else "false", line)
        if isinstance(item, int):
            return ScalarNode("int", str(item), line)
        return ScalarNode("float", repr(item), line)

    root = make(value)
    work: list[tuple[Any, Node]] = [(value, root)]
    while work:
        item, node = work.pop()
        if isinstance(node, MapNode):
            for key, child_value in item.items():
                child = make(child_value)
                node.pairs.append((ScalarNode("str", str(key), line), child))
                work.append((child_value, child))
        elif isinstance(node, ListNode):
            for child_value in item:
                child = make(child_value)
                node.items.append(child)
                work.append((child_value, child))
    return root


# The pure-Python JSON scanner and its object/array parsers (not in typeshed).
_JSON_OBJECT: Any = vars(json.decoder)["JSONObject"]
_JSON_ARRAY: Any = vars(json.decoder)["JSONArray"]
_PY_MAKE_SCANNER: Any = vars(json.scanner)["py_make_scanner"]


def locate_json(name: str, text: str) -> Node:
    """The node tree of a JSON text with each value's line (keys take their value's line).

    Slower than :func:`parse_json` + :func:`json_node` (a pure-Python scan): used to name the
    line of an error found in a large file. The text is checked by :func:`parse_json` first.

    >>> tree = locate_json("o.json", '{"c1": [\\n  {"front": 1}\\n]}')
    >>> card = tree.pairs[0][1].items[0]
    >>> card.line, card.pairs[0][1]
    (2, ScalarNode(tag='int', value='1', line=2))
    """
    parse_json(name, text)
    newlines = [i for i, char in enumerate(text) if char == "\n"]

    def line_at(offset: int) -> int:
        return bisect.bisect_right(newlines, offset) + 1

    def scan(string: str, index: int) -> tuple[Node, int]:
        value, end = scan_value(string, index)
        line = line_at(index)
        if isinstance(value, dict):
            pairs: list[tuple[Node, Node]] = [
                (ScalarNode("str", str(k), v.line), v) for k, v in value.items()
            ]
            return MapNode(pairs, line), end
        if isinstance(value, list):
            return ListNode(value, line), end
        node = json_node(value, line)
        return node, end

    def parse_object(
        s_and_end: tuple[str, int], strict: bool, _scan: Any, hook: Any, pairs: Any, memo: Any
    ) -> tuple[Any, int]:
        result: tuple[Any, int] = _JSON_OBJECT(s_and_end, strict, scan, hook, pairs, memo)
        return result

    def parse_array(s_and_end: tuple[str, int], _scan: Any) -> tuple[Any, int]:
        result: tuple[Any, int] = _JSON_ARRAY(s_and_end, scan)
        return result

    decoder = json.JSONDecoder(parse_constant=_refuse_constant)
    vars(decoder).update(parse_object=parse_object, parse_array=parse_array)
    scan_value = _PY_MAKE_SCANNER(decoder)
    start = len(text) - len(text.lstrip())
    node, _ = scan(text, start)
    return node


# ---------------------------------------------------------------- writing files


def current_umask() -> int:
    """The process umask (read from ``/proc`` where possible, not changed).

    >>> 0 <= current_umask() <= 0o777
    True
    """
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_output_path(
    path: str | os.PathLike[str], inputs: Mapping[str, str | os.PathLike[str] | None] | None = None
) -> str:
    """The file to write for report target ``path``, after checking it is safe to write.

    A target must be a regular file or a new name in an existing directory; symbolic links are
    followed (the file they point to is replaced, the link stays). Refused with
    :class:`OutputError`: an empty name, a device, FIFO, socket or directory, and one of the
    run's ``inputs`` (label -> path, compared by device and inode, so hard links and symlinks
    are caught). A missing directory raises ``FileNotFoundError``.

    >>> check_output_path("/dev/null")
    Traceback (most recent call last):
    ...
    lexeval.io.OutputError: /dev/null: is a character device, not a regular file
    >>> check_output_path("")
    Traceback (most recent call last):
    ...
    lexeval.io.OutputError: '': an empty file name
    """
    name = os.fspath(path)
    if not name.strip():
        raise OutputError(repr(name), "an empty file name")
    real = os.path.realpath(name)
    try:
        # stat the name itself: the kernel follows links, /dev/stdout included, to what is there
        info = os.stat(name)
    except FileNotFoundError:
        parent = os.path.dirname(real) or "."
        if not os.path.isdir(parent):  # an OSError, as open() would raise
            raise FileNotFoundError(errno.ENOENT, f"no such directory {parent}", name) from None
        return real
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror or str(exc), name) from None
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(name, f"is {_file_kind(info.st_mode)}, not a regular file")
    for label, input_path in (inputs or {}).items():
        if input_path is None or os.fspath(input_path) == STDIN:
            continue
        try:
            other = os.stat(input_path)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            raise OutputError(name, f"is the run's {label} ({os.fspath(input_path)}): refused")
    return real


#: Signals whose default action ends the process; :func:`signals_as_exceptions` turns them
#: into :class:`Terminated` so that temporary files are removed (SIGKILL cannot be caught).
TERMINATING_SIGNALS: tuple[str, ...] = (
    "SIGTERM",
    "SIGHUP",
    "SIGQUIT",
    "SIGUSR1",
    "SIGUSR2",
    "SIGALRM",
    "SIGVTALRM",
    "SIGPROF",
    "SIGXCPU",
)
_BLOCKED = {signal.SIGINT} | {
    getattr(signal, name) for name in TERMINATING_SIGNALS if hasattr(signal, name)
}


def write_text_atomic(
    path: str | os.PathLike[str],
    text: str,
    *,
    inputs: Mapping[str, str | os.PathLike[str] | None] | None = None,
) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: whole, or the old file untouched.

    The target is checked with :func:`check_output_path`; the text goes to a temporary file in
    the target's directory, created with the permissions of the file it replaces (or
    ``0o666`` less the umask), then renamed over the target. On any error or exception
    (including signals turned into exceptions) the temporary file is removed; write errors
    name the target.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "r.md"
    >>> write_text_atomic(target, "# ok\\n")
    >>> target.read_text(), oct(target.stat().st_mode & 0o777) == oct(0o666 & ~current_umask())
    ('# ok\\n', True)
    """
    name = os.fspath(path)
    real = check_output_path(name, inputs)
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~current_umask()
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror or str(exc), name) from None
    directory, base = os.path.split(real)
    tmp: str | None = None
    mask_signals = threading.current_thread() is threading.main_thread()
    try:
        if mask_signals:  # no signal between creating the temporary file and knowing its name
            signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory or ".")
        finally:
            if mask_signals:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _BLOCKED)
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, real)
        tmp = None
    except OSError as exc:  # name the target, not the temporary file
        raise type(exc)(exc.errno, exc.strerror or str(exc), name) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


# ---------------------------------------------------------------- signals


class Terminated(BaseException):
    """Raised in the main thread when SIGTERM or SIGHUP arrives (see
    :func:`signals_as_exceptions`), so that ``finally`` blocks clean up."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


@contextlib.contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """Within the block, SIGTERM, SIGHUP and the other :data:`TERMINATING_SIGNALS` that still
    have their default action raise :class:`Terminated` (SIGINT already raises
    ``KeyboardInterrupt``); the previous handlers come back afterwards. Main thread only.

    >>> import os, signal
    >>> with signals_as_exceptions():
    ...     try:
    ...         os.kill(os.getpid(), signal.SIGTERM)
    ...         for _ in range(1000):
    ...             pass
    ...     except Terminated as exc:
    ...         print("caught", exc)
    caught SIGTERM
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        del frame
        raise Terminated(signum)

    numbers = [getattr(signal, n) for n in TERMINATING_SIGNALS if hasattr(signal, n)]
    # A signal someone already handles (a profiler's SIGPROF, say) keeps its handler.
    previous = {
        n: signal.signal(n, handler) for n in numbers if signal.getsignal(n) is signal.SIG_DFL
    }
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
