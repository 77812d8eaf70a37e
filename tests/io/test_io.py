"""lexeval.io: locating JSON values by line without the standard library's internals, and
report targets that are streams (``--json /dev/stdout`` never replaces the file behind it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lexeval.io
from lexeval.io import (
    InputError,
    ListNode,
    MapNode,
    Node,
    OutputError,
    ScalarNode,
    check_output_path,
    json_node,
    locate_json,
    parse_json,
    stream_fd,
)

ROOT = Path(__file__).resolve().parents[2]


def _plain(node: Node) -> Any:
    """A node tree without its lines."""
    if isinstance(node, ScalarNode):
        return (node.tag, node.value)
    if isinstance(node, ListNode):
        return [_plain(item) for item in node.items]
    return [(_plain(k), _plain(v)) for k, v in node.pairs]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values, st.sampled_from([None, 0, 2]), st.booleans())
def test_located_tree_holds_what_the_parser_returned(
    value: Any, indent: int | None, ascii_only: bool
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert _plain(locate_json("v.json", text)) == _plain(json_node(parse_json("v.json", text)))


def test_each_value_has_its_line_and_a_repeated_key_its_last_value() -> None:
    text = '{\n  "a": [1,\n    {"b": "x\\"y"}],\n  "c": true,\n  "a": -2.5e3\n}'
    tree = locate_json("o.json", text)
    assert isinstance(tree, MapNode) and tree.line == 1
    (key_a, a), (key_c, c) = tree.pairs
    assert (key_a.value, a, key_a.line) == ("a", ScalarNode("float", "-2500.0", 5), 5)
    assert (key_c.value, c) == ("c", ScalarNode("bool", "true", 4))
    nested = locate_json("o.json", text.replace('"a": -2.5e3', '"d": null'))
    assert isinstance(nested, MapNode)
    items = nested.pairs[0][1]
    assert isinstance(items, ListNode) and [i.line for i in items.items] == [2, 3]
    inner = items.items[1]
    assert isinstance(inner, MapNode) and inner.pairs[0][1] == ScalarNode("str", 'x"y', 3)


def test_locate_json_reports_invalid_json_with_its_line() -> None:
    with pytest.raises(InputError, match=r"^o\.json:3: invalid JSON"):
        locate_json("o.json", '{"a": 1,\n "b": 2,\n "c": }')


def test_io_uses_no_private_json_internals() -> None:
    for path in Path(lexeval.io.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for name in ("py_make_scanner", "JSONObject", "JSONArray", "json.scanner"):
            assert name not in text, (path.name, name)


def test_stream_names() -> None:
    assert [stream_fd(n) for n in ("-", "/dev/stdout", "/dev/stderr", "/dev/stdin")] == [
        1,
        1,
        2,
        0,
    ]
    assert stream_fd("/dev/fd/7") == stream_fd("/proc/self/fd/7") == 7
    assert stream_fd("/dev/stdout2") is None and stream_fd("out/dev/stdout") is None
    with pytest.raises(OutputError, match="not open"):
        check_output_path("/dev/fd/987")


SHELL_WRITE = """
import sys
from lexeval.io import write_text_atomic
write_text_atomic(sys.argv[1], "REPORT\\n")
"""


def _shell(command: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        ["sh", "-c", command, "sh", sys.executable, SHELL_WRITE, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("target", "redirect"),
    [("/dev/stdout", ">"), ("/dev/stdout", ">>"), ("-", ">"), ("/dev/fd/3", "3>")],
)
def test_a_stream_target_is_written_where_it_stands(
    tmp_path: Path, target: str, redirect: str
) -> None:
    out = tmp_path / "out.txt"
    out.write_text("OLD\n")
    fd = "3" if redirect.startswith("3") else "1"
    proc = _shell(
        f'{{ echo before >&{fd}; "$1" -c "$2" "$3"; echo after >&{fd}; }} {redirect} "$4"',
        target,
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    kept = "OLD\n" if redirect == ">>" else ""
    assert out.read_text() == f"{kept}before\nREPORT\nafter\n"
    assert os.listdir(tmp_path) == ["out.txt"]  # no temporary file, nothing renamed


def test_stdin_and_inputs_are_refused_as_streams(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("{}\n")
    proc = _shell('"$1" -c "$2" "$3" < "$4"', "/dev/stdin", str(data))
    assert proc.returncode != 0 and "not open for writing" in proc.stderr
    refuse = (
        "import sys\nfrom lexeval.io import check_output_path\n"
        "check_output_path('/dev/stdout', {'dataset': sys.argv[1]})\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    with data.open("a") as handle:
        proc = subprocess.run(
            [sys.executable, "-c", refuse, str(data)],
            stdout=handle,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    assert proc.returncode != 0 and "is the run's dataset" in proc.stderr
    assert data.read_text() == "{}\n"


def test_cli_json_to_dev_stdout_keeps_the_shells_file(tmp_path: Path) -> None:
    dataset = tmp_path / "ds.yaml"
    dataset.write_text(
        "name: tiny\nversion: 1\ncases:\n  - id: c1\n    text: t\n    expected_cards:\n"
        "      - front_keywords: [photosynthesis]\n        back_keywords: [glucose]\n"
    )
    outputs = tmp_path / "out.jsonl"
    outputs.write_text('{"case_id": "c1", "front": "photosynthesis?", "back": "glucose"}\n')
    report = tmp_path / "report.txt"
    command = (
        '{ echo before; "$1" -m lexeval cards "$2" "$3" --plain --json /dev/stdout; echo after; }'
        ' > "$4"'
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run(
        ["sh", "-c", command, "sh", sys.executable, str(dataset), str(outputs), str(report)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    first, *middle, last = report.read_text().splitlines()
    assert (first, last) == ("before", "after")
    assert json.loads("\n".join(middle))["totals"]["micro"]["recall"] == 1.0
    assert "recall" in proc.stderr  # the table went to stderr, as with --json -
