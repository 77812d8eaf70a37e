"""Evaluation datasets (YAML) and generated cards (JSONL, JSON, YAML or a callable).

Everything is read with safe loaders only, files are size-limited and every validation error
names the file, the line and the field, for example
``dataset.yaml:14: cases[2].expected_cards[0].front_keywords: the list is empty``.

>>> card = ExpectedCard(["photosynthesis"], ["light", "glucose"], card_type="qa")
>>> card.front_keywords
('photosynthesis',)
>>> GeneratedCard("What is photosynthesis?", "Light to glucose.").card_type is None
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lexeval.checks import check_text, check_texts
from lexeval.io import (
    MAX_FILE_BYTES,
    InputError,
    MapNode,
    Node,
    NodeReader,
    ScalarNode,
    compose_yaml,
    iter_jsonl,
    join_path,
    json_node,
    locate_json,
    node_kind,
    parse_json,
    read_text,
)
from lexeval.records.dataset import check_unique_ids
from lexeval.records.flashcards import CARD_TYPES

__all__ = [
    "CARD_TYPES",
    "MAX_FILE_BYTES",
    "DatasetError",
    "EvalCase",
    "EvalDataset",
    "ExpectedCard",
    "GeneratedCard",
    "Outputs",
    "generate_outputs",
    "iter_jsonl",
    "load_dataset",
    "load_outputs",
    "read_text",
]

#: A dataset, output or report file that cannot be used; the message names file, line and
#: field (the same class as :class:`lexeval.io.InputError`).
#:
#: >>> str(DatasetError("d.yaml", 3, "cases[0].id", "expected a string"))
#: 'd.yaml:3: cases[0].id: expected a string'
DatasetError = InputError


@dataclass(frozen=True, slots=True)
class ExpectedCard:
    """A card the model should produce, described by keywords for its front and back.

    Lists are stored as tuples; empty keyword lists and blank keywords are refused.

    >>> ExpectedCard(["mitochondria"], ["ATP"]).back_keywords
    ('ATP',)
    >>> ExpectedCard([], ["ATP"])
    Traceback (most recent call last):
    ...
    ValueError: front_keywords is empty
    """

    front_keywords: tuple[str, ...]
    back_keywords: tuple[str, ...]
    card_type: str | None = None

    def __post_init__(self) -> None:
        for name in ("front_keywords", "back_keywords"):
            items = tuple(check_texts(getattr(self, name), name))
            if not items:
                raise ValueError(f"{name} is empty")
            if any(not item.strip() for item in items):
                raise ValueError(f"{name} contains a blank keyword")
            object.__setattr__(self, name, items)
        if self.card_type is not None:
            check_text(self.card_type, "card_type")


@dataclass(frozen=True, slots=True)
class GeneratedCard:
    """A card the model produced.

    >>> GeneratedCard("Q?", "A.", tags=["bio"]).tags
    ('bio',)
    """

    front: str
    back: str
    card_type: str | None = None
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_text(self.front, "front")
        check_text(self.back, "back")
        if self.card_type is not None:
            check_text(self.card_type, "card_type")
        object.__setattr__(self, "tags", tuple(check_texts(self.tags, "tags")))


@dataclass(frozen=True, slots=True)
class EvalCase:
    """One input text and the cards expected from it."""

    id: str
    text: str
    expected_cards: tuple[ExpectedCard, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "expected_cards", tuple(self.expected_cards))


@dataclass(frozen=True, slots=True)
class EvalDataset:
    """A named, versioned list of cases with unique ids."""

    name: str
    version: str
    cases: tuple[EvalCase, ...]
    path: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", tuple(self.cases))
        check_unique_ids(case.id for case in self.cases)

    def __len__(self) -> int:
        return len(self.cases)


# ---------------------------------------------------------------- datasets


def load_dataset(
    path: str | os.PathLike[str],
    *,
    card_types: Iterable[str] = CARD_TYPES,
    max_bytes: int = MAX_FILE_BYTES,
) -> EvalDataset:
    """Read and validate a YAML dataset (``name``, ``version``, ``cases``).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ds.yaml").write_text('''
    ... name: demo
    ... version: 1.0
    ... cases:
    ...   - id: c1
    ...     text: Plants make glucose from light.
    ...     expected_cards:
    ...       - front_keywords: [photosynthesis]
    ...         back_keywords: [light, glucose]
    ...         card_type: qa
    ... ''')
    >>> ds = load_dataset(d / "ds.yaml")
    >>> ds.version, ds.cases[0].expected_cards[0].back_keywords
    ('1.0', ('light', 'glucose'))
    """
    name, text = read_text(path, max_bytes)
    builder = _DatasetBuilder(name, frozenset(card_types))
    # Each case is validated as soon as it is read and its nodes dropped: memory holds the
    # text, the dataset built so far and one case's nodes.
    root = compose_yaml(name, text, stream={"cases": builder.add_case})
    return builder.finish(root)


class _DatasetBuilder:
    """Validates a dataset's cases one by one, then its top-level fields."""

    def __init__(self, name: str, allowed_types: frozenset[str]) -> None:
        self.name = name
        self.reader = NodeReader(name)
        self.allowed_types = allowed_types
        self.cases: list[EvalCase] = []
        self.seen: dict[str, int | None] = {}

    def add_case(self, index: int, node: Node) -> None:
        reader = self.reader
        where = f"cases[{index}]"
        fields = reader.mapping(node, where, ("id", "text", "expected_cards"), ("subject", "notes"))
        case_id = reader.nonblank(fields["id"], f"{where}.id", numbers=True)
        if case_id in self.seen:
            raise reader.error(
                fields["id"],
                f"{where}.id",
                f"duplicate case id {case_id!r} (first on line {self.seen[case_id]})",
            )
        self.seen[case_id] = reader.line(fields["id"])
        case_text = reader.string(fields["text"], f"{where}.text")
        card_nodes = reader.sequence(fields["expected_cards"], f"{where}.expected_cards")
        if not card_nodes:
            raise reader.error(
                fields["expected_cards"], f"{where}.expected_cards", "the list is empty"
            )
        cards = [
            _expected_card(reader, node, f"{where}.expected_cards[{j}]", self.allowed_types)
            for j, node in enumerate(card_nodes)
        ]
        self.cases.append(EvalCase(case_id, case_text, tuple(cards)))

    def finish(self, root: Node | None) -> EvalDataset:
        if root is None:
            raise DatasetError(self.name, None, None, "file is empty")
        reader = self.reader
        top = reader.mapping(root, "", ("name", "cases"), ("version", "description"))
        ds_name = reader.nonblank(top["name"], "name")
        version = (
            reader.nonblank(top["version"], "version", numbers=True) if "version" in top else ""
        )
        # Items still in the list were not streamed (the list came through an alias).
        for case_node in reader.sequence(top["cases"], "cases"):
            self.add_case(len(self.cases), case_node)
        if not self.cases:
            raise reader.error(top["cases"], "cases", "the list is empty")
        return EvalDataset(ds_name, version, tuple(self.cases), path=self.name)


def _expected_card(
    reader: NodeReader, node: Node, where: str, allowed_types: frozenset[str]
) -> ExpectedCard:
    fields = reader.mapping(node, where, ("front_keywords", "back_keywords"), ("card_type",))
    lists: list[tuple[str, ...]] = []
    for side in ("front_keywords", "back_keywords"):
        items = reader.sequence(fields[side], f"{where}.{side}")
        if not items:
            raise reader.error(fields[side], f"{where}.{side}", "the list is empty")
        lists.append(
            tuple(
                reader.nonblank(item, f"{where}.{side}[{k}]", numbers=True)
                for k, item in enumerate(items)
            )
        )
    card_type = reader.optional_string(fields.get("card_type"), f"{where}.card_type")
    if card_type is not None and card_type not in allowed_types:
        raise reader.error(
            fields["card_type"],
            f"{where}.card_type",
            f"unknown card type {card_type!r} (known: {', '.join(sorted(allowed_types))})",
        )
    return ExpectedCard(lists[0], lists[1], card_type)


# ---------------------------------------------------------------- generated outputs

#: Generated cards by case id: what :func:`load_outputs` and :func:`generate_outputs` return
#: (a dict of tuples) and :func:`lexeval.cards.evaluate` takes (or a ``generate(case)``).
Outputs = Mapping[str, Sequence[GeneratedCard]]


def load_outputs(path: str | os.PathLike[str], *, max_bytes: int = MAX_FILE_BYTES) -> Outputs:
    """Read generated cards keyed by case id.

    Formats, chosen by extension:

    * ``.jsonl``: one object per line, either one card (``{"case_id", "front", "back",
      "card_type"?, "tags"?}``) or a case (``{"case_id", "cards": [...]}``); lines of the same case
      add up;
    * ``.json``, ``.yaml``/``.yml``: a mapping from case id to a list of cards.

    Unknown fields on a generated card are ignored (models add extras); a case listed with an
    empty list produced no cards.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.jsonl"
    >>> _ = p.write_text('{"case_id": "c1", "front": "Q?", "back": "A."}\\n')
    >>> load_outputs(p)["c1"][0].front
    'Q?'
    """
    name, text = read_text(path, max_bytes)
    suffix = Path(name).suffix.lower()
    if suffix == ".jsonl" or name == "<stdin>":
        return _outputs_jsonl(name, text)
    if suffix == ".json":
        data = parse_json(name, text)
        try:
            if not isinstance(data, dict):
                raise DatasetError(name, None, None, "expected a mapping")
            # One case's nodes at a time, not a second tree of the whole file.
            pairs = ((ScalarNode("str", k), json_node(v)) for k, v in data.items())
            return _outputs_mapping(NodeReader(name), MapNode([]), pairs)
        except DatasetError as exc:
            if exc.line is not None:  # pragma: no cover - JSON nodes carry no line
                raise
        # Parse again, slower, keeping each value's line, for an error that names it.
        return _outputs_mapping(NodeReader(name), locate_json(name, text))
    if suffix in (".yaml", ".yml"):
        return _outputs_mapping(NodeReader(name), compose_yaml(name, text))
    raise DatasetError(name, None, None, "unknown output format (use .jsonl, .json, .yaml or .yml)")


def _outputs_mapping(
    reader: NodeReader, root: Node | None, pairs: Iterable[tuple[Node, Node]] | None = None
) -> Outputs:
    """Validate a mapping from case id to cards (its ``pairs``, by default ``root``'s)."""
    if root is None:
        raise DatasetError(reader.name, None, None, "file is empty")
    if not isinstance(root, MapNode):
        raise reader.error(
            root, "", f"expected a mapping from case id to cards, got {node_kind(root)}"
        )
    out: dict[str, tuple[GeneratedCard, ...]] = {}
    validated: dict[int, tuple[GeneratedCard, ...]] = {}
    for key_node, value_node in root.pairs if pairs is None else pairs:
        if not isinstance(key_node, ScalarNode) or key_node.tag == "null":
            raise reader.error(key_node, "", "case ids must be strings")
        case_id = key_node.value
        if case_id in out:
            raise reader.error(key_node, case_id, "duplicate case id")
        # A list reached again through a YAML alias is the same node: validated once. (Only
        # for ``root``'s own pairs, whose nodes all stay alive, so that ids are not reused.)
        known = validated.get(id(value_node)) if pairs is None else None
        if known is not None:
            out[case_id] = known
            continue
        items = reader.sequence(value_node, case_id)
        out[case_id] = validated[id(value_node)] = tuple(
            _generated_card(reader, node, f"{case_id}[{i}]") for i, node in enumerate(items)
        )
    return out


def _outputs_jsonl(name: str, text: str) -> Outputs:
    collected: dict[str, list[GeneratedCard]] = {}
    for number, data in iter_jsonl(name, text):
        reader = NodeReader(name, default_line=number)
        node = json_node(data, number)
        if not isinstance(node, MapNode):
            raise reader.error(node, "", f"expected an object, got {node_kind(node)}")
        if "cards" in data:
            fields = reader.mapping(node, "", ("case_id", "cards"), (), strict=False)
            case_id = reader.nonblank(fields["case_id"], "case_id", numbers=True)
            cards = collected.setdefault(case_id, [])
            for i, card_node in enumerate(reader.sequence(fields["cards"], "cards")):
                cards.append(_generated_card(reader, card_node, f"cards[{i}]"))
        else:
            fields = reader.mapping(node, "", ("case_id",), (), strict=False)
            case_id = reader.nonblank(fields["case_id"], "case_id", numbers=True)
            collected.setdefault(case_id, []).append(_generated_card(reader, node, ""))
    return {case_id: tuple(cards) for case_id, cards in collected.items()}


def _generated_card(reader: NodeReader, node: Node, where: str) -> GeneratedCard:
    fields = reader.mapping(node, where, ("front", "back"), (), strict=False)
    front = reader.string(fields["front"], join_path(where, "front"))
    back = reader.string(fields["back"], join_path(where, "back"))
    card_type_node = fields.get("card_type")
    card_type = reader.optional_string(card_type_node, join_path(where, "card_type"))
    tags: tuple[str, ...] = ()
    if "tags" in fields:
        tags = tuple(
            reader.string(tag, f"{join_path(where, 'tags')}[{k}]")
            for k, tag in enumerate(reader.sequence(fields["tags"], join_path(where, "tags")))
        )
    return GeneratedCard(front, back, card_type, tags)


def generate_outputs(
    dataset: EvalDataset | Iterable[EvalCase],
    generate: Callable[[EvalCase], Iterable[GeneratedCard]],
) -> Outputs:
    """Run the user's pipeline ``generate(case) -> list[GeneratedCard]`` over every case.

    >>> ds = EvalDataset("d", "1", [EvalCase("c1", "text", [ExpectedCard(["a"], ["b"])])])
    >>> generate_outputs(ds, lambda case: [GeneratedCard("a?", case.text)])["c1"][0].back
    'text'
    """
    cases = dataset.cases if isinstance(dataset, EvalDataset) else tuple(dataset)
    out: dict[str, tuple[GeneratedCard, ...]] = {}
    for case in cases:
        cards = tuple(generate(case))
        for card in cards:
            if not isinstance(card, GeneratedCard):
                raise TypeError(
                    f"generate() returned {type(card).__name__} for case {case.id!r}; "
                    "expected GeneratedCard"
                )
        out[case.id] = cards
    return out
