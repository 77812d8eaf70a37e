"""Field checks: how one field of a generated record is scored against the expected value.

Each check is a small class behind one interface (:class:`Check`): it validates the expected
value a dataset gives (:meth:`Check.expected`), prepares expected and generated values once
per case, scores a pair in 0..1 (:meth:`Check.score`) and explains a pair
(:meth:`Check.detail`). A field *passes* when its score reaches the check's ``pass`` option
(1.0 by default; 0.5 for ``metric``).

======== =================================================== ==================================
check    expected value                                      score of a generated value
======== =================================================== ==================================
keywords a keyword (phrase) or a list of them                share of keywords found (normalized)
exact    a string, number or boolean                         1 when equal after normalization
number   a number, or a string such as ``"1,200"``           1 when within ``tolerance``
set      a list of items                                     F1 of the normalized items
one_of   a value or a list of accepted values                1 when equal to one of them
regex    a pattern                                           1 when the value matches (fullmatch)
metric   a reference text (or several)                       the metric's score (``metric:``)
======== =================================================== ==================================

>>> from lexeval.records.keywords import KeywordIndex
>>> index = KeywordIndex(None)
>>> check = NumberCheck(tolerance=0.01)
>>> check.score(check.prepare_expected(4.25, index), check.prepare_generated("$4.25", index))
1.0
>>> parse_number("1,200"), parse_number("USD 4.25"), parse_number("1,5"), parse_number(True)
(1200.0, 4.25, None, None)
"""

from __future__ import annotations

import json
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lexeval.io import (
    InputError,
    ListNode,
    MapNode,
    Node,
    NodeReader,
    ScalarNode,
    join_path,
    json_node,
    node_kind,
)
from lexeval.records.keywords import KeywordIndex

__all__ = [
    "CHECKS",
    "Check",
    "ExactCheck",
    "FieldScore",
    "KeywordsCheck",
    "MetricCheck",
    "NumberCheck",
    "OneOfCheck",
    "RegexCheck",
    "SetCheck",
    "fold",
    "node_value",
    "parse_check",
    "parse_number",
    "to_text",
]


@dataclass(frozen=True, slots=True)
class FieldScore:
    """One field of one pair: its score in 0..1, whether it passed, and the evidence."""

    score: float
    passed: bool
    info: dict[str, Any] = field(default_factory=dict)


class _Missing:
    """The prepared form of a field the generated record does not have (scores 0)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def node_value(node: Node) -> Any:
    """The plain value of a node: str, int, float, bool, None, list or dict.

    >>> from lexeval.io import compose_yaml
    >>> node_value(compose_yaml("x", "a: [1, 2.5, b, null, true]"))
    {'a': [1, 2.5, 'b', None, True]}
    """
    if isinstance(node, MapNode):
        return {
            (k.value if isinstance(k, ScalarNode) else str(node_value(k))): node_value(v)
            for k, v in node.pairs
        }
    if isinstance(node, ListNode):
        return [node_value(item) for item in node.items]
    if node.tag == "int":
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return node.value
    if node.tag == "float":
        try:
            return float(node.value.replace("_", ""))
        except ValueError:
            return node.value
    if node.tag == "bool":
        return node.value.lower() in ("true", "yes", "on", "y")
    if node.tag == "null":
        return None
    return node.value


def to_text(value: Any) -> str:
    """A generated value as text: strings as they are, lists joined by spaces, anything else
    as JSON.

    >>> to_text(["a", 2]), to_text(3.5), to_text(None)
    ('a 2', '3.5', '')
    """
    if isinstance(value, str):
        return value
    if value is None or value is MISSING:
        return ""
    if isinstance(value, list):
        return " ".join(to_text(item) for item in value)
    return json.dumps(value, ensure_ascii=False)


_PLAIN_NUMBER = re.compile(r"[-+]?(?:0|[1-9]\d*)(?:\.\d+)?")  # "007" is a code: kept


def fold(text: str, index: KeywordIndex) -> str:
    """A label normalized for equality: whitespace collapsed, case folded and a plain number
    written one way (``42.0`` is ``42``); as is in plain mode.

    >>> index = KeywordIndex("default")
    >>> fold("  Multiple  Choice ", index), fold("42.0", index), fold("0.50", index)
    ('multiple choice', '42', '0.5')
    """
    if index.normalizer is None:
        return text
    folded = " ".join(text.split()).casefold()
    if _PLAIN_NUMBER.fullmatch(folded):
        number = float(folded)
        return str(int(number)) if number.is_integer() and abs(number) < 2**53 else repr(number)
    return folded


_CURRENCY = re.compile(r"[$€£¥₹\s\u00a0]")
_NUMBER = re.compile(
    r"[-+\u2212]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
)


def parse_number(value: Any) -> float | None:
    """A number from a JSON/YAML number or from a string holding exactly one number, with
    thousands separators (``"1,200"``), currency signs and codes (``"$4.25"``, ``"4.25 EUR"``)
    or a percent sign around it; None otherwise (booleans included).

    >>> parse_number("-$1,234.50"), parse_number("12%"), parse_number("2 to 3")
    (-1234.5, 12.0, None)
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an int beyond a float's range
            return None
        return number if math.isfinite(number) else None
    if not isinstance(value, str):
        return None
    found = _NUMBER.findall(_CURRENCY.sub("", value))
    if len(found) != 1:
        return None
    number = float(found[0].replace(",", "").replace("\u2212", "-"))
    return number if math.isfinite(number) else None


class Check(ABC):
    """The interface of a field check (see the module's table).

    ``pass_at``: the score from which the field passes (``pass`` in a dataset).
    """

    #: The check's name in a dataset (``check: number``).
    name: ClassVar[str]
    #: Options a dataset may give besides ``check``, ``weight``, ``optional`` and ``pass``.
    options: ClassVar[tuple[str, ...]] = ()
    default_pass: ClassVar[float] = 1.0

    def __init__(self, *, pass_at: float | None = None) -> None:
        self.pass_at = self.default_pass if pass_at is None else float(pass_at)
        if not 0.0 <= self.pass_at <= 1.0:
            raise ValueError(f"pass must be in [0, 1], got {pass_at!r}")

    @property
    def signature(self) -> str:
        """The check and the options that change scores, e.g. ``number(tolerance=0.01)``."""
        settings = self.settings()
        inner = ",".join(f"{k}={v}" for k, v in settings.items())
        return f"{self.name}({inner})" if inner else self.name

    def settings(self) -> dict[str, Any]:
        """The options that change scores (in the signature and the report)."""
        return {}

    @abstractmethod
    def expected(self, reader: NodeReader, node: Node, path: str) -> Any:
        """The expected value a dataset gives, validated (an error names file, line, field)."""

    def check_expected(self, value: Any) -> Any:
        """An expected value given in Python, validated like a dataset's (ValueError)."""
        try:
            return self.expected(NodeReader("<records>"), json_node(value), "value")
        except InputError as exc:
            raise ValueError(exc.message) from None

    def prepare_expected(self, value: Any, index: KeywordIndex) -> Any:
        return value

    def prepare_generated(self, value: Any, index: KeywordIndex) -> Any:
        return value

    @abstractmethod
    def score(self, expected: Any, generated: Any) -> float:
        """The score of prepared values in 0..1 (0 for a MISSING generated value)."""

    def score_row(self, expected: Any, generated: Sequence[Any]) -> list[float]:
        """The scores of one prepared expected value against prepared generated values."""
        score = self.score
        return [score(expected, g) for g in generated]

    def detail(self, expected: Any, generated: Any, index: KeywordIndex) -> FieldScore:
        """Score, verdict and evidence of raw values (``generated`` may be MISSING)."""
        score = self.score(
            self.prepare_expected(expected, index), self.prepare_generated(generated, index)
        )
        return FieldScore(score, score >= self.pass_at, self.evidence(expected, generated, index))

    def evidence(self, expected: Any, generated: Any, index: KeywordIndex) -> dict[str, Any]:
        return {}


def _scalar_text(reader: NodeReader, node: Node, path: str) -> str:
    if isinstance(node, ScalarNode) and node.tag in ("str", "int", "float", "bool"):
        if node.tag == "str" and not node.value.strip():
            raise reader.error(node, path, "must not be blank")
        return node.value
    raise reader.error(node, path, f"expected a string or a number, got {node_kind(node)}")


def _scalar_list(reader: NodeReader, node: Node, path: str, *, single: bool) -> tuple[str, ...]:
    """A non-empty list of scalars (or, with ``single``, one scalar) as text."""
    if single and isinstance(node, ScalarNode):
        return (_scalar_text(reader, node, path),)
    items = reader.sequence(node, path)
    if not items:
        raise reader.error(node, path, "the list is empty")
    return tuple(_scalar_text(reader, item, f"{path}[{k}]") for k, item in enumerate(items))


def _generated_text(value: Any) -> Any:
    return MISSING if value is MISSING or value is None else to_text(value)


class KeywordsCheck(Check):
    """The share of the expected keywords found in the generated text, on normalized forms
    (:class:`~lexeval.records.keywords.KeywordIndex`, the card matcher's lookup)."""

    name = "keywords"

    def expected(self, reader: NodeReader, node: Node, path: str) -> tuple[str, ...]:
        return _scalar_list(reader, node, path, single=True)

    def prepare_expected(self, value: Any, index: KeywordIndex) -> Any:
        if index.normalizer is None:
            return tuple(value)
        return tuple(index.key(k) for k in value)

    def prepare_generated(self, value: Any, index: KeywordIndex) -> Any:
        text = _generated_text(value)
        if text is MISSING or index.normalizer is None:
            return text
        return index.text(text)

    def score(self, expected: Any, generated: Any) -> float:
        if generated is MISSING:
            return 0.0
        if isinstance(generated, str):
            return sum(k in generated for k in expected) / len(expected)
        found: int = sum(generated.contains(k) for k in expected)
        return found / len(expected)

    def score_row(self, expected: Any, generated: Sequence[Any]) -> list[float]:
        n = len(expected)
        if expected and isinstance(expected[0], str):  # plain mode: ``kw in text``
            return [0.0 if g is MISSING else sum(k in g for k in expected) / n for g in generated]
        return [
            0.0 if g is MISSING else sum(g.contains(k) for k in expected) / n for g in generated
        ]

    def detail(self, expected: Any, generated: Any, index: KeywordIndex) -> FieldScore:
        text = _generated_text(generated)
        found = [False] * len(expected) if text is MISSING else index.found(expected, text)
        score = sum(found) / len(found)
        missing = [k for k, ok in zip(expected, found, strict=True) if not ok]
        return FieldScore(score, score >= self.pass_at, {"missing": missing})


class ExactCheck(Check):
    """1 when the generated value equals the expected one after :func:`fold`; ``values``
    restricts what a dataset may expect."""

    name = "exact"
    options: ClassVar[tuple[str, ...]] = ("values",)

    def __init__(self, *, values: Sequence[str] | None = None, pass_at: float | None = None):
        super().__init__(pass_at=pass_at)
        self.values = None if values is None else tuple(values)

    def expected(self, reader: NodeReader, node: Node, path: str) -> str:
        value = _scalar_text(reader, node, path)
        if self.values is not None and value not in self.values:
            raise reader.error(
                node, path, f"unknown value {value!r} (known: {', '.join(sorted(self.values))})"
            )
        return value

    def prepare_expected(self, value: Any, index: KeywordIndex) -> Any:
        return fold(value, index)

    def prepare_generated(self, value: Any, index: KeywordIndex) -> Any:
        text = _generated_text(value)
        return text if text is MISSING else fold(text, index)

    def score(self, expected: Any, generated: Any) -> float:
        return 1.0 if generated is not MISSING and expected == generated else 0.0

    def evidence(self, expected: Any, generated: Any, index: KeywordIndex) -> dict[str, Any]:
        return {"expected": expected, "got": None if generated is MISSING else generated}


class OneOfCheck(ExactCheck):
    """1 when the generated value equals (after :func:`fold`) one of the accepted values."""

    name = "one_of"
    options: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *, pass_at: float | None = None) -> None:
        super().__init__(pass_at=pass_at)

    def expected(self, reader: NodeReader, node: Node, path: str) -> tuple[str, ...]:  # type: ignore[override]
        return _scalar_list(reader, node, path, single=True)

    def prepare_expected(self, value: Any, index: KeywordIndex) -> Any:
        return frozenset(fold(v, index) for v in value)

    def score(self, expected: Any, generated: Any) -> float:
        return 1.0 if generated is not MISSING and generated in expected else 0.0

    def evidence(self, expected: Any, generated: Any, index: KeywordIndex) -> dict[str, Any]:
        return {"expected": list(expected), "got": None if generated is MISSING else generated}


class NumberCheck(Check):
    """1 when the generated number is within ``tolerance`` (absolute, default 0) of the
    expected one; numbers are read by :func:`parse_number`."""

    name = "number"
    options = ("tolerance",)

    def __init__(self, *, tolerance: float = 0.0, pass_at: float | None = None) -> None:
        super().__init__(pass_at=pass_at)
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)):
            raise ValueError(f"tolerance must be a number, got {tolerance!r}")
        if not (math.isfinite(tolerance) and tolerance >= 0):
            raise ValueError(f"tolerance must be a number >= 0, got {tolerance!r}")
        self.tolerance = float(tolerance)

    def settings(self) -> dict[str, Any]:
        return {"tolerance": f"{self.tolerance:g}"} if self.tolerance else {}

    def expected(self, reader: NodeReader, node: Node, path: str) -> float:
        number = parse_number(node_value(node)) if isinstance(node, ScalarNode) else None
        if number is None:
            raise reader.error(node, path, f"expected a number, got {node_kind(node)}")
        return number

    def prepare_generated(self, value: Any, index: KeywordIndex) -> Any:
        return MISSING if value is MISSING else parse_number(value)

    def score(self, expected: Any, generated: Any) -> float:
        if generated is MISSING or generated is None:
            return 0.0
        gap = abs(float(expected) - float(generated))
        return 1.0 if gap <= self.tolerance + 1e-9 * abs(float(expected)) else 0.0

    def evidence(self, expected: Any, generated: Any, index: KeywordIndex) -> dict[str, Any]:
        got = None if generated is MISSING else parse_number(generated)
        return {"expected": expected, "got": got}


_SPLIT = re.compile(r"[,;\n]")


class SetCheck(Check):
    """The F1 of the generated items against the expected ones (normalized, duplicates
    dropped); a generated string is split on commas, semicolons and newlines."""

    name = "set"

    def expected(self, reader: NodeReader, node: Node, path: str) -> tuple[str, ...]:
        items = reader.sequence(node, path)
        return tuple(_scalar_text(reader, item, f"{path}[{k}]") for k, item in enumerate(items))

    def prepare_expected(self, value: Any, index: KeywordIndex) -> Any:
        return frozenset(fold(v, index) for v in value)

    def prepare_generated(self, value: Any, index: KeywordIndex) -> Any:
        if value is MISSING or value is None:
            return MISSING
        items = value if isinstance(value, list) else _SPLIT.split(to_text(value))
        return frozenset(f for f in (fold(to_text(item), index) for item in items) if f)

    def score(self, expected: Any, generated: Any) -> float:
        if generated is MISSING:
            return 0.0
        if not expected and not generated:
            return 1.0
        common = len(expected & generated)
        return 2 * common / (len(expected) + len(generated))

    def evidence(self, expected: Any, generated: Any, index: KeywordIndex) -> dict[str, Any]:
        want = {fold(v, index): v for v in expected}
        got = self.prepare_generated(generated, index)
        got = frozenset() if got is MISSING else got
        return {
            "missing": [v for k, v in want.items() if k not in got],
            "extra": sorted(g for g in got if g not in want),
        }


class RegexCheck(Check):
    """1 when the generated text matches the expected pattern (``re.fullmatch``; with
    ``search: true`` anywhere; ``ignore_case: true`` for case-insensitive patterns)."""

    name = "regex"
    options = ("search", "ignore_case")

    def __init__(
        self, *, search: bool = False, ignore_case: bool = False, pass_at: float | None = None
    ) -> None:
        super().__init__(pass_at=pass_at)
        self.search = bool(search)
        self.flags = re.IGNORECASE if ignore_case else 0

    def settings(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.search:
            out["search"] = "true"
        if self.flags:
            out["ignore_case"] = "true"
        return out

    def expected(self, reader: NodeReader, node: Node, path: str) -> str:
        pattern = _scalar_text(reader, node, path)
        try:
            re.compile(pattern, self.flags)
        except re.error as exc:
            raise reader.error(node, path, f"invalid regular expression: {exc}") from None
        return pattern

    def prepare_expected(self, value: Any, index: KeywordIndex) -> Any:
        return re.compile(value, self.flags)

    def prepare_generated(self, value: Any, index: KeywordIndex) -> Any:
        return _generated_text(value)

    def score(self, expected: Any, generated: Any) -> float:
        if generated is MISSING:
            return 0.0
        found = expected.search(generated) if self.search else expected.fullmatch(generated)
        return 1.0 if found else 0.0

    def evidence(self, expected: Any, generated: Any, index: KeywordIndex) -> dict[str, Any]:
        return {"pattern": expected}


class MetricCheck(Check):
    """A registered metric (:func:`lexeval.registry.get_metric`) scores the generated text
    against the expected reference(s): ``metric: rougeL`` and its ``options``; the score is
    divided by the metric's ``scale``. Passes from 0.5 by default."""

    name = "metric"
    options = ("metric", "options")
    default_pass = 0.5

    def __init__(
        self,
        *,
        metric: str = "",
        options: Mapping[str, Any] | None = None,
        pass_at: float | None = None,
    ) -> None:
        super().__init__(pass_at=pass_at)
        from lexeval.registry import get_metric

        if not isinstance(metric, str) or not metric:
            raise ValueError("metric: the name of a registered metric is required")
        self.metric_name = metric
        self.metric_options = dict(options or {})
        self.metric = get_metric(metric, **self.metric_options)

    @property
    def signature(self) -> str:
        return f"metric({self.metric.signature.replace('|', ';')})"

    def expected(self, reader: NodeReader, node: Node, path: str) -> tuple[str, ...]:
        return _scalar_list(reader, node, path, single=True)

    def prepare_generated(self, value: Any, index: KeywordIndex) -> Any:
        return _generated_text(value)

    def score(self, expected: Any, generated: Any) -> float:
        if generated is MISSING:
            return 0.0
        references = expected[0] if len(expected) == 1 else list(expected)
        result = self.metric.measure(references, generated)
        scale = float(getattr(self.metric, "scale", 1.0)) or 1.0
        return min(1.0, max(0.0, float(result.score) / scale))


#: The checks by name.
CHECKS: dict[str, type[Check]] = {
    cls.name: cls
    for cls in (
        KeywordsCheck,
        ExactCheck,
        NumberCheck,
        SetCheck,
        OneOfCheck,
        RegexCheck,
        MetricCheck,
    )
}

_COMMON = ("check", "weight", "optional", "pass")


def parse_check(reader: NodeReader, node: Node, path: str) -> tuple[Check, float, bool]:
    """A field's check, weight and whether expected records may omit it, from a dataset's
    ``fields:`` entry: a check name (``number``) or a mapping (``{check: number, tolerance:
    0.01, weight: 2, optional: true, pass: 1}``)."""
    if isinstance(node, ScalarNode):
        spec: dict[str, Node] = {"check": node}
    else:
        spec = reader.mapping(node, path, ("check",), (), strict=False)
    name = reader.nonblank(spec["check"], join_path(path, "check"))
    cls = CHECKS.get(name)
    if cls is None:
        raise reader.error(
            spec["check"],
            join_path(path, "check"),
            f"unknown check {name!r} (known: {', '.join(sorted(CHECKS))})",
        )
    allowed = (*_COMMON, *cls.options)
    if not isinstance(node, ScalarNode):
        spec = reader.mapping(node, path, ("check",), allowed[1:])
    kwargs: dict[str, Any] = {}
    for option in cls.options:
        if option in spec:
            kwargs[option] = _option(reader, spec[option], join_path(path, option), option)
    weight, optional = 1.0, False
    if "weight" in spec:
        weight = _number(reader, spec["weight"], join_path(path, "weight"))
    if "optional" in spec:
        optional = _boolean(reader, spec["optional"], join_path(path, "optional"))
    if "pass" in spec:
        kwargs["pass_at"] = _number(reader, spec["pass"], join_path(path, "pass"), high=1.0)
    try:
        check = cls(**kwargs)
    except (ValueError, TypeError) as exc:
        raise reader.error(node, path, str(exc)) from None
    return check, weight, optional


def _number(reader: NodeReader, node: Node, path: str, *, high: float | None = None) -> float:
    value = node_value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise reader.error(node, path, f"expected a number, got {node_kind(node)}")
    if parse_number(value) is None:  # NaN, infinity or an int beyond a float's range
        raise reader.error(node, path, f"expected a finite number, got {value!r:.40}")
    if value < 0 or (high is not None and value > high):
        bounds = f"in [0, {high:g}]" if high is not None else ">= 0"
        raise reader.error(node, path, f"must be {bounds}, got {value!r}")
    return float(value)


def _boolean(reader: NodeReader, node: Node, path: str) -> bool:
    if isinstance(node, ScalarNode) and node.tag == "bool":
        return bool(node_value(node))
    raise reader.error(node, path, f"expected true or false, got {node_kind(node)}")


def _option(reader: NodeReader, node: Node, path: str, option: str) -> Any:
    if option == "tolerance":
        return _number(reader, node, path)
    if option in ("search", "ignore_case"):
        return _boolean(reader, node, path)
    if option == "values":
        return _scalar_list(reader, node, path, single=False)
    if option == "metric":
        return reader.nonblank(node, path)
    if option == "options":
        if not isinstance(node, MapNode):
            raise reader.error(node, path, f"expected a mapping, got {node_kind(node)}")
        return node_value(node)
    raise reader.error(node, path, f"unknown option {option!r}")  # pragma: no cover
