"""Reading input files: regular files (or ``-``, standard input) up to a size limit, UTF-8
with a hint when they are not, JSON and JSONL parsed strictly with the line of every error.

>>> parse_json("o.json", '{"a": [1, 2]}')
{'a': [1, 2]}
"""

from __future__ import annotations

import bisect
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

from lexeval.io.errors import InputError, file_kind
from lexeval.io.nodes import ListNode, MapNode, Node, ScalarNode, json_node

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "STDIN",
    "decode_utf8",
    "iter_jsonl",
    "iter_lines",
    "locate_json",
    "parse_json",
    "read_text",
]

#: Largest input file read (bytes); larger files are refused before parsing.
MAX_FILE_BYTES = 20 * 1024 * 1024
#: Deepest nesting of lists and mappings accepted in JSON and YAML.
MAX_DEPTH = 64
#: The name that stands for standard input (and, for a report, standard output).
STDIN = "-"


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
            raise InputError(name, None, None, f"is {file_kind(info.st_mode)}, not a regular file")
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
_JSON_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|(?<![\w.])(?:NaN|-?Infinity)\b'
    r"|(?<![\w.+-])-?\d+(?![\w.])"  # an integer (Python refuses one of too many digits)
)


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
        elif token[-1].isdigit():
            digits = len(token.lstrip("-"))
            if 0 < sys.get_int_max_str_digits() < digits:
                return match.start(), f"an integer of {digits} digits (more than Python reads)"
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


# A JSON token: a string, a number, a literal or a structural character. In a valid document
# every character outside these is white space, so scanning token to token needs no parser.
_LOCATE_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[-0-9][-+.0-9eE]*|true|false|null|[\[\]{}]')


def locate_json(name: str, text: str) -> Node:
    """The node tree of a JSON text with each value's line (keys take their value's line).

    Slower than :func:`parse_json` + :func:`json_node` (one scan of every token in Python):
    used to name the line of an error found in a large file. The text is checked by
    :func:`parse_json` first, and the tree holds what it returned: a key given twice keeps its
    first place and its last value.

    >>> tree = locate_json("o.json", '{"c1": [\\n  {"front": 1}\\n]}')
    >>> card = tree.pairs[0][1].items[0]
    >>> card.line, card.pairs[0][1]
    (2, ScalarNode(tag='int', value='1', line=2))
    """
    parse_json(name, text)
    newlines = [m.start() for m in re.finditer("\n", text)]
    # Each open collection: its node, for a mapping the key waiting for its value and the
    # place of each key already seen.
    stack: list[tuple[Node, list[str | None], dict[str, int]]] = []
    root: Node | None = None
    for match in _LOCATE_TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first in "]}":
            stack.pop()
            continue
        line = bisect.bisect_right(newlines, match.start()) + 1
        if first == '"':
            value = json.loads(token) if "\\" in token else token[1:-1]
            if stack and isinstance(stack[-1][0], MapNode) and stack[-1][1][0] is None:
                stack[-1][1][0] = value  # a key: its value comes next
                continue
            node: Node = ScalarNode("str", value, line)
        elif first == "{":
            node = MapNode([], line)
        elif first == "[":
            node = ListNode([], line)
        else:
            node = json_node(json.loads(token), line)
        if stack:
            parent, key, seen = stack[-1]
            if isinstance(parent, ListNode):
                parent.items.append(node)
            elif isinstance(parent, MapNode):
                name_ = str(key[0])
                key[0] = None
                entry = (ScalarNode("str", name_, line), node)
                if name_ in seen:
                    parent.pairs[seen[name_]] = entry
                else:
                    seen[name_] = len(parent.pairs)
                    parent.pairs.append(entry)
        else:
            root = node
        if first in "[{":
            stack.append((node, [None], {}))
    assert root is not None  # parse_json accepted the text: it holds a value
    return root
