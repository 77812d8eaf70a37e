"""YAML read as plain data: nodes composed from libyaml's events, with limits.

Only the core YAML tags are accepted, nesting depth is bounded and aliases count as the nodes
they stand for, so an alias bomb is refused with its line in milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import yaml

from lexeval.io.errors import InputError
from lexeval.io.nodes import ListNode, MapNode, Node, ScalarNode
from lexeval.io.reading import MAX_DEPTH

__all__ = ["MAX_YAML_NODES", "compose_yaml"]

#: Most YAML nodes in one file, each alias counting as the nodes it stands for.
MAX_YAML_NODES = 5_000_000

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
