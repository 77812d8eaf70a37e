"""Validating node trees (:mod:`lexeval.io.nodes`) with errors that name file, line and field.

>>> from lexeval.io.yamlfile import compose_yaml
>>> reader = NodeReader("d.yaml")
>>> root = compose_yaml("d.yaml", "name: demo\\nsize: [1]\\n")
>>> fields = reader.mapping(root, "", ("name",), ("size",))
>>> reader.nonblank(fields["name"], "name")
'demo'
>>> reader.string(fields["size"], "size")
Traceback (most recent call last):
...
lexeval.io.InputError: d.yaml:2: size: expected a string, got a list
"""

from __future__ import annotations

from collections.abc import Iterable

from lexeval.io.errors import InputError
from lexeval.io.nodes import ListNode, MapNode, Node, ScalarNode

__all__ = ["NodeReader", "join_path", "node_kind"]


class NodeReader:
    """Validates nodes, building error messages with file, line and field."""

    def __init__(self, name: str, default_line: int | None = None) -> None:
        self.name = name
        self.default_line = default_line

    def line(self, node: Node) -> int | None:
        return node.line if node.line is not None else self.default_line

    def error(self, node: Node, path: str, message: str) -> InputError:
        return InputError(self.name, self.line(node), path or None, message)

    def mapping(
        self,
        node: Node,
        path: str,
        required: Iterable[str],
        optional: Iterable[str],
        strict: bool = True,
    ) -> dict[str, Node]:
        if not isinstance(node, MapNode):
            raise self.error(node, path, f"expected a mapping, got {node_kind(node)}")
        known = {*required, *optional}
        out: dict[str, Node] = {}
        for key_node, value_node in node.pairs:
            key = self.key(key_node, path)
            if key in out:
                raise self.error(key_node, join_path(path, key), "duplicate key")
            if strict and key not in known:
                allowed = ", ".join(sorted(known))
                raise self.error(
                    key_node, join_path(path, key), f"unknown field (allowed: {allowed})"
                )
            out[key] = value_node
        for key in required:
            if key not in out:
                raise self.error(node, join_path(path, key), "missing required field")
        return out

    def key(self, node: Node, path: str) -> str:
        if not isinstance(node, ScalarNode):
            raise self.error(node, path, "mapping keys must be strings")
        return node.value

    def string(self, node: Node, path: str, *, numbers: bool = False) -> str:
        """A string scalar; with ``numbers`` an unquoted number is taken as its source text."""
        tags = ("str", "int", "float") if numbers else ("str",)
        if isinstance(node, ScalarNode) and node.tag in tags:
            return node.value
        raise self.error(node, path, f"expected a string, got {node_kind(node)}")

    def nonblank(self, node: Node, path: str, *, numbers: bool = False) -> str:
        value = self.string(node, path, numbers=numbers)
        if not value.strip():
            raise self.error(node, path, "must not be blank")
        return value

    def sequence(self, node: Node, path: str) -> list[Node]:
        if not isinstance(node, ListNode):
            raise self.error(node, path, f"expected a list, got {node_kind(node)}")
        return node.items

    def optional_string(self, node: Node | None, path: str) -> str | None:
        if node is None or (isinstance(node, ScalarNode) and node.tag == "null"):
            return None
        return self.nonblank(node, path)


def node_kind(node: Node) -> str:
    """How an error names a node's type: ``a mapping``, ``a list``, ``an integer``, ...

    >>> node_kind(ScalarNode("int", "3"))
    'an integer'
    """
    if isinstance(node, MapNode):
        return "a mapping"
    if isinstance(node, ListNode):
        return "a list"
    return {
        "str": "a string",
        "int": "an integer",
        "float": "a number",
        "null": "null",
        "bool": "a boolean",
    }.get(node.tag, f"a {node.tag}")


def join_path(path: str, key: str) -> str:
    """``path.key`` (``key`` alone at the top).

    >>> join_path("cases[0]", "id"), join_path("", "name")
    ('cases[0].id', 'name')
    """
    return f"{path}.{key}" if path else key
