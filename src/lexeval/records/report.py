"""Running a record dataset, aggregating (micro, macro, per field), gating and reporting
(Rich, JSON).

>>> from lexeval.records.checks import ExactCheck, NumberCheck
>>> from lexeval.records.dataset import RecordCase, RecordDataset
>>> from lexeval.records.schema import Field, Schema
>>> schema = Schema((Field("sku", ExactCheck()), Field("qty", NumberCheck())))
>>> ds = RecordDataset("d", "1", schema, [RecordCase("c1", "t", [{"sku": "A1", "qty": 2.0}])])
>>> run = match_records(ds, {"c1": [{"sku": "A1", "qty": "3"}]}, threshold=0.5)
>>> run.micro.recall, run.fields["qty"].accuracy, run.fields["sku"].accuracy
(1.0, 0.0, 1.0)
>>> [g.passed for g in check_gates(run, [RecordGate.parse("fields.qty.accuracy=0.9")])]
[False]
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from lexeval._version import __version__
from lexeval.io import InputError, write_text_atomic
from lexeval.normalize import shared_normalizer
from lexeval.records.assign import Strategy, check_settings
from lexeval.records.dataset import RecordDataset
from lexeval.records.matching import CaseCounts, CaseMatch, Record, RecordMatcher, Status, f1_score
from lexeval.records.outputs import CaseOutput
from lexeval.records.schema import WeightedMean
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

__all__ = [
    "METRICS",
    "SCHEMA_VERSION",
    "FieldTotals",
    "GateCheck",
    "RecordGate",
    "RecordGateResult",
    "RecordRun",
    "Scores",
    "add_totals_rows",
    "case_table",
    "case_totals",
    "check_gates",
    "check_known_cases",
    "macro_scores",
    "match_records",
    "micro_scores",
    "parse_minimum",
    "print_gates",
    "render_records",
    "score_style",
]

#: The report's schema version (the card report's: ``lexeval compare`` reads both).
SCHEMA_VERSION = 1
#: Metrics a gate or a comparison can name (micro or macro).
METRICS: tuple[str, ...] = ("recall", "precision", "f1", "avg_similarity")
#: Per-field values a gate can name (``fields.<name>.accuracy``).
FIELD_METRICS: tuple[str, ...] = ("accuracy", "mean")


@dataclass(frozen=True, slots=True)
class Scores:
    """Recall, precision, F1 and mean similarity, with the counts behind them when pooled."""

    recall: float
    precision: float
    f1: float
    avg_similarity: float
    n_expected: int = 0
    n_generated: int = 0
    n_matched: int = 0

    def to_dict(self) -> dict[str, float | int]:
        return {
            "recall": self.recall,
            "precision": self.precision,
            "f1": self.f1,
            "avg_similarity": self.avg_similarity,
            "n_expected": self.n_expected,
            "n_generated": self.n_generated,
            "n_matched": self.n_matched,
        }


def micro_scores(cases: Sequence[Any]) -> Scores:
    """Pooled counts: matched / expected, matched / generated; similarity over all pairs
    (cases with ``n_expected``, ``n_generated``, ``n_matched`` and ``pairs`` with ``score``)."""
    n_exp = sum(c.n_expected for c in cases)
    n_gen = sum(c.n_generated for c in cases)
    n_match = sum(c.n_matched for c in cases)
    scores = [p.score for c in cases for p in c.pairs]
    recall = n_match / n_exp if n_exp else 0.0
    precision = n_match / n_gen if n_gen else 0.0
    sim = sum(scores) / len(scores) if scores else 0.0
    return Scores(recall, precision, f1_score(precision, recall), sim, n_exp, n_gen, n_match)


def macro_scores(cases: Sequence[Any]) -> Scores:
    """Means of the per-case values (each case weighs the same)."""
    n = len(cases)
    if not n:
        return Scores(0.0, 0.0, 0.0, 0.0)
    return Scores(
        sum(c.recall for c in cases) / n,
        sum(c.precision for c in cases) / n,
        sum(c.f1 for c in cases) / n,
        sum(c.avg_similarity for c in cases) / n,
        sum(c.n_expected for c in cases),
        sum(c.n_generated for c in cases),
        sum(c.n_matched for c in cases),
    )


@dataclass(frozen=True, slots=True)
class FieldTotals:
    """One field over the matched pairs that score it: ``accuracy`` (share whose check
    passed) and ``mean`` (mean field score); both 0.0 without such pairs (``n`` = 0)."""

    name: str
    check: str
    n: int
    n_passed: int
    total: float

    @property
    def accuracy(self) -> float:
        return self.n_passed / self.n if self.n else 0.0

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "accuracy": self.accuracy if self.n else None,
            "mean": self.mean if self.n else None,
            "n": self.n,
            "n_passed": self.n_passed,
        }


@dataclass(frozen=True, slots=True)
class RecordRun:
    """The per-case results of one run over a record dataset, with the aggregates."""

    dataset: RecordDataset
    threshold: float
    strategy: Strategy
    normalizer: str
    cases: tuple[CaseMatch, ...]

    @property
    def dataset_name(self) -> str:
        return self.dataset.name

    @property
    def dataset_path(self) -> str | None:
        return self.dataset.path

    @property
    def signature(self) -> str:
        """E.g. ``records:1|fields:...|w:1/1|strategy:greedy|threshold:0.5|norm:...``."""
        return Signature(
            f"records:1|{self.dataset.schema.signature}|strategy:{self.strategy}"
            f"|threshold:{self.threshold:g}|norm:{self.normalizer}"
        )

    @property
    def micro(self) -> Scores:
        return micro_scores(self.cases)

    @property
    def macro(self) -> Scores:
        return macro_scores(self.cases)

    @property
    def statuses(self) -> dict[str, int]:
        counts = {"ok": 0, "parse_error": 0, "no_output": 0}
        for case in self.cases:
            counts[case.status] += 1
        return counts

    @property
    def fields(self) -> dict[str, FieldTotals]:
        """Per field, over the matched pairs."""
        out = {}
        for f in self.dataset.schema.fields:
            results = [p.fields[f.name] for c in self.cases for p in c.pairs if f.name in p.fields]
            out[f.name] = FieldTotals(
                f.name,
                f.check.signature,
                len(results),
                sum(r.passed for r in results),
                sum(r.score for r in results),
            )
        return out

    def value(self, key: str) -> float | None:
        """One aggregate by key: ``micro.recall``, ``macro.f1``, ``fields.qty.accuracy``; None
        for a field that no matched pair scores (as in the JSON report)."""
        scope, _, rest = key.partition(".")
        if scope in ("micro", "macro") and rest in METRICS:
            result: float = getattr(self.micro if scope == "micro" else self.macro, rest)
            return result
        name, _, metric = rest.rpartition(".")
        if scope == "fields" and metric in FIELD_METRICS:
            totals = self.fields.get(name)
            if totals is None:
                known = ", ".join(self.dataset.schema.names)
                raise ValueError(f"unknown field {name!r} in {key!r} (fields: {known})")
            if not totals.n:
                return None
            value: float = getattr(totals, metric)
            return value
        raise ValueError(f"unknown aggregate {key!r}")

    def to_dict(self, gates: Sequence[RecordGateResult] = ()) -> dict[str, Any]:
        """The JSON report as a dict."""
        schema = self.dataset.schema
        combiner = schema.combiner
        weights: Any = (
            dict(zip(schema.names, combiner.weights, strict=True))
            if isinstance(combiner, WeightedMean)
            else combiner.signature
        )
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": "records",
            "lexeval_version": __version__,
            "signature": self.signature,
            "settings": {
                "threshold": self.threshold,
                "strategy": self.strategy,
                "weights": weights,
                "normalizer": self.normalizer,
            },
            "dataset": {
                "name": self.dataset.name,
                "version": self.dataset.version,
                "path": self.dataset.path,
                "n_cases": len(self.cases),
                "schema": schema.name,
                "fields": {
                    f.name: {"check": f.check.signature, "weight": f.weight, "optional": f.optional}
                    for f in schema.fields
                },
            },
            "totals": {
                "micro": self.micro.to_dict(),
                "macro": self.macro.to_dict(),
                "fields": {k: v.to_dict() for k, v in self.fields.items()},
                "statuses": self.statuses,
            },
            "gates": [g.to_dict() for g in gates],
            "cases": [_case_dict(c) for c in self.cases],
        }

    def to_json(self, gates: Sequence[RecordGateResult] = ()) -> str:
        return json.dumps(self.to_dict(gates), ensure_ascii=False, indent=2, default=str) + "\n"

    def write_json(
        self,
        path: str | os.PathLike[str],
        gates: Sequence[RecordGateResult] = (),
        *,
        inputs: Mapping[str, str | os.PathLike[str] | None] | None = None,
    ) -> None:
        """Write the JSON report atomically, never over the dataset or another input."""
        protected = {"dataset": self.dataset.path, **(inputs or {})}
        write_text_atomic(path, self.to_json(gates), inputs=protected)


def case_totals(case: CaseCounts, has_output: bool) -> dict[str, Any]:
    """A case's counts and rates as a report writes them, after ``has_output``."""
    return {
        "has_output": has_output,
        "n_expected": case.n_expected,
        "n_generated": case.n_generated,
        "n_matched": case.n_matched,
        "recall": case.recall,
        "precision": case.precision,
        "f1": case.f1,
        "avg_similarity": case.avg_similarity,
    }


def _case_dict(case: CaseMatch) -> dict[str, Any]:
    out: dict[str, Any] = {"id": case.case_id, "status": case.status}
    if case.reason is not None:
        out["reason"] = case.reason
    out.update(
        {
            **case_totals(case, case.has_output),
            "pairs": [
                {
                    "expected_index": p.expected_index,
                    "generated_index": p.generated_index,
                    "score": p.score,
                    "fields": {
                        name: {"score": r.score, "passed": r.passed, **r.info}
                        for name, r in p.fields.items()
                    },
                    "generated": case.generated[p.generated_index],
                }
                for p in case.pairs
            ],
            "unmatched_expected": [
                {
                    "index": i,
                    "expected": case.expected[i],
                    "best_score": case.best_scores[i] if i < len(case.best_scores) else 0.0,
                }
                for i in case.unmatched_expected_indices
            ],
            "extra_generated": [
                {"index": j, "generated": case.generated[j]} for j in case.extra_generated_indices
            ],
        }
    )
    return out


# ---------------------------------------------------------------- running


def check_known_cases(dataset_name: str, known: Iterable[str], keys: Iterable[str]) -> None:
    """Raise :class:`lexeval.io.InputError` naming (up to five of) the output ``keys`` that
    are not ``known`` case ids of the dataset.

    >>> check_known_cases("d", ["c1"], ["c1"])
    >>> check_known_cases("d", ["c1"], ["c1", "c9"])
    Traceback (most recent call last):
    ...
    lexeval.io.InputError: outputs: output for case ids the dataset 'd' does not have: 'c9'
    """
    known_ids = set(known)
    unknown = [key for key in keys if key not in known_ids]
    if unknown:
        shown = ", ".join(repr(k) for k in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise InputError(
            "outputs",
            None,
            None,
            f"output for case ids the dataset {dataset_name!r} does not have: {shown}{more}",
        )


def match_records(
    dataset: RecordDataset,
    outputs: Mapping[str, CaseOutput | Sequence[Record]],
    *,
    threshold: float | None = None,
    strategy: Strategy = "greedy",
    allow_unknown_cases: bool = False,
    language: str | None = None,
) -> RecordRun:
    """Match every case's generated records (a :class:`CaseOutput` or a list of records by
    case id) to its expected records, with the dataset's threshold unless ``threshold`` is
    given and the dataset's normalizer (its preset in ``language`` when given: the
    signature says ``lang:``; ValueError for a plain dataset or an unknown language).

    A case the outputs do not name is ``no_output``; a ``parse_error`` output leaves every
    expected record of its case unmatched. Outputs for case ids the dataset does not have
    raise :class:`lexeval.io.InputError` unless ``allow_unknown_cases``.
    """
    threshold = dataset.threshold if threshold is None else threshold
    check_settings(threshold, strategy)
    if not allow_unknown_cases:
        check_known_cases(dataset.name, (case.id for case in dataset.cases), outputs)
    normalizer: Any = dataset.normalizer
    if language is not None:
        if normalizer is None:
            raise ValueError("a language needs a normalizer: the dataset matches plainly")
        normalizer = shared_normalizer(normalizer, language)
    matcher = RecordMatcher(dataset.schema, normalizer)
    results = []
    for case in dataset.cases:
        given = outputs.get(case.id)
        if given is None:
            results.append(
                matcher.match(case.expected, (), threshold, strategy, case.id, "no_output")
            )
            continue
        output = given if isinstance(given, CaseOutput) else CaseOutput(tuple(given))
        status: Status = "parse_error" if output.status == "parse_error" else "ok"
        records = () if status == "parse_error" else output.records
        results.append(
            matcher.match(
                case.expected, records, threshold, strategy, case.id, status, output.reason
            )
        )
    return RecordRun(
        dataset, float(threshold), strategy, matcher.normalizer_signature, tuple(results)
    )


# ---------------------------------------------------------------- gates


def parse_minimum(spec: str, raw: str) -> float:
    """A gate's minimum: ``raw`` (the text after ``=`` in ``spec``) as a number in [0, 1].

    >>> parse_minimum("recall=0.8", "0.8")
    0.8
    >>> parse_minimum("recall=2", "2")
    Traceback (most recent call last):
    ...
    ValueError: gate 'recall=2': the minimum must be in [0, 1]
    """
    try:
        minimum = float(raw)
    except ValueError:
        raise ValueError(f"gate {spec!r}: {raw!r} is not a number") from None
    if not 0.0 <= minimum <= 1.0:
        raise ValueError(f"gate {spec!r}: the minimum must be in [0, 1]")
    return minimum


@dataclass(frozen=True, slots=True)
class RecordGate:
    """A minimum for one aggregate: ``recall=0.8`` (micro), ``macro.f1=0.7``,
    ``fields.unit_price.accuracy=0.9``.

    >>> RecordGate.parse("fields.unit_price.accuracy=0.9")
    RecordGate(key='fields.unit_price.accuracy', minimum=0.9)
    >>> RecordGate.parse("recall").key
    Traceback (most recent call last):
    ...
    ValueError: gate 'recall' must look like KEY=MIN, e.g. recall=0.8
    """

    key: str
    minimum: float

    @classmethod
    def parse(cls, spec: str) -> RecordGate:
        name, sep, raw = spec.partition("=")
        if not sep:
            raise ValueError(f"gate {spec!r} must look like KEY=MIN, e.g. recall=0.8")
        name = name.strip()
        if name in METRICS:
            name = f"micro.{name}"
        scope, _, rest = name.partition(".")
        field_name, _, metric = rest.rpartition(".")
        valid = (scope in ("micro", "macro") and rest in METRICS) or (
            scope == "fields" and field_name and metric in FIELD_METRICS
        )
        if not valid:
            raise ValueError(
                f"gate {spec!r}: unknown key {name!r} (use recall, precision, f1, "
                "avg_similarity, micro./macro. of those, or fields.NAME.accuracy/mean)"
            )
        return cls(name, parse_minimum(spec, raw))

    @property
    def name(self) -> str:
        return self.key


class NamedGate(Protocol):
    """What :class:`GateCheck` reads of a gate: its name and its minimum."""

    @property
    def name(self) -> str: ...

    @property
    def minimum(self) -> float: ...


GateT = TypeVar("GateT", bound=NamedGate)


@dataclass(frozen=True, slots=True)
class GateCheck(Generic[GateT]):
    """A gate with the value the run reached: passed when the value is at least the minimum
    (a value of None, nothing to measure, does not pass)."""

    gate: GateT
    value: float | None

    @property
    def passed(self) -> bool:
        return self.value is not None and self.value >= self.gate.minimum

    def describe(self) -> str:
        """``fields.qty.accuracy = 0.857 (minimum 0.9)``; ``n/a (nothing scored)`` as the value
        when there was nothing to measure."""
        value = "n/a (nothing scored)" if self.value is None else f"{self.value:.3f}"
        return f"{self.gate.name} = {value} (minimum {self.gate.minimum:g})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate.name,
            "minimum": self.gate.minimum,
            "value": self.value,
            "passed": self.passed,
        }


@dataclass(frozen=True, slots=True)
class RecordGateResult(GateCheck[RecordGate]):
    """A :class:`RecordGate` with the value the run reached."""


def check_gates(run: RecordRun, gates: Iterable[RecordGate]) -> tuple[RecordGateResult, ...]:
    """Evaluate each gate on the run's aggregates (a ValueError for an unknown field)."""
    return tuple(RecordGateResult(g, run.value(g.key)) for g in gates)


# ---------------------------------------------------------------- Rich table


def score_style(value: float, minimum: float | None) -> str:
    """The Rich style of a score: against its gate's minimum, else by 0.8 and 0.5 bands."""
    if minimum is not None:
        return "green" if value >= minimum else "bold red"
    return "green" if value >= 0.8 else "yellow" if value >= 0.5 else "red"


def case_table(title: str) -> Table:
    """An empty per-case table: case, exp, gen, match, recall, precision, F1, sim, note (the
    title is data, never markup)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title))
    table.add_column("case", no_wrap=True)
    for name in ("exp", "gen", "match", "recall", "precision", "F1", "sim"):
        table.add_column(name, justify="right")
    table.add_column("note")
    return table


def print_gates(console: Console, gates: Sequence[GateCheck[Any]], signature: str) -> None:
    """Print a PASS or FAIL line per gate, then the run's signature (never wrapped)."""
    from rich.text import Text

    for g in gates:
        mark = "[green]PASS[/]" if g.passed else "[bold red]FAIL[/]"
        console.print(f"{mark} {g.describe()}", highlight=False)
    console.print(Text(f"signature: {signature}", style="dim"), soft_wrap=True)


def add_totals_rows(
    table: Table, micro: Scores, macro: Scores, cell: Callable[[float, str, str], str]
) -> None:
    """Add a section with the micro and macro rows to a per-case table (case, exp, gen,
    match, recall, precision, F1, sim, note); ``cell(value, "micro", "recall")`` styles a
    score."""
    table.add_section()
    for label, scores in (("micro", micro), ("macro", macro)):
        table.add_row(
            f"[bold]{label}[/]",
            str(scores.n_expected),
            str(scores.n_generated),
            str(scores.n_matched),
            cell(scores.recall, label, "recall"),
            cell(scores.precision, label, "precision"),
            cell(scores.f1, label, "f1"),
            f"{scores.avg_similarity:.3f}",
            "",
        )


def render_records(
    run: RecordRun,
    console: Console | None = None,
    gates: Sequence[RecordGateResult] = (),
    title: str | None = None,
) -> None:
    """Print the per-case table, the totals, the per-field table and the gates."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    minimum = {g.gate.key: g.gate.minimum for g in gates}

    def cell(value: float, key: str) -> str:
        return f"[{score_style(value, minimum.get(key))}]{value:.3f}[/]"

    dataset = run.dataset
    table = case_table(title or f"{dataset.name} {dataset.version}".strip())
    for c in run.cases:
        notes = Text()
        if c.status == "no_output":
            notes.append("no output", style="bold red")
        elif c.status == "parse_error":
            notes.append(f"parse error: {c.reason}", style="bold red")
        else:
            if c.unmatched_expected_indices:
                notes.append(f"-{len(c.unmatched_expected_indices)} missed ")
            if c.extra_generated_indices:
                notes.append(f"+{len(c.extra_generated_indices)} extra")
        table.add_row(
            Text(c.case_id),
            str(c.n_expected),
            str(c.n_generated),
            str(c.n_matched),
            cell(c.recall, "micro.recall"),
            cell(c.precision, "micro.precision"),
            cell(c.f1, "micro.f1"),
            f"{c.avg_similarity:.3f}",
            notes,
        )
    add_totals_rows(
        table, run.micro, run.macro, lambda value, label, metric: cell(value, f"{label}.{metric}")
    )
    console.print(table)
    fields = Table(title="per field (matched pairs)")
    for name in ("field", "check", "pairs", "accuracy", "mean"):
        fields.add_column(name, justify="left" if name in ("field", "check") else "right")
    for totals in run.fields.values():
        fields.add_row(
            Text(totals.name),
            Text(totals.check),
            str(totals.n),
            cell(totals.accuracy, f"fields.{totals.name}.accuracy") if totals.n else "-",
            cell(totals.mean, f"fields.{totals.name}.mean") if totals.n else "-",
        )
    console.print(fields)
    print_gates(console, gates, run.signature)
