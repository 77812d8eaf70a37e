"""The plain node tree that YAML and JSON inputs are read into, each node with its line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

__all__ = ["ListNode", "MapNode", "Node", "ScalarNode", "json_node"]


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
