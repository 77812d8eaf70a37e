"""Running a dataset, aggregating the results, gating them, and reporting (Rich, JSON, pandas).

>>> from lexeval.cards.dataset import EvalCase, EvalDataset, ExpectedCard, GeneratedCard
>>> ds = EvalDataset("d", "1", [EvalCase("c1", "t", [ExpectedCard(["Paris"], ["France"])])])
>>> run = evaluate(ds, {"c1": [GeneratedCard("Paris?", "France.")]}, normalizer=None)
>>> run.micro.recall, run.macro.f1
(1.0, 1.0)
>>> [g.passed for g in check_gates(run, [Gate.parse("recall=0.8")])]
[True]
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lexeval._version import __version__
from lexeval.cards.dataset import EvalCase, EvalDataset, GeneratedCard, Outputs
from lexeval.cards.matching import (
    DEFAULT_WEIGHTS,
    STRATEGIES,
    CardScorer,
    CaseResult,
    NormalizerArg,
    ScoreWeights,
    Strategy,
    f1_score,
)
from lexeval.io import write_text_atomic
from lexeval.records.report import (
    METRICS,
    SCHEMA_VERSION,
    GateCheck,
    Scores,
    add_totals_rows,
    case_table,
    case_totals,
    check_known_cases,
    macro_scores,
    micro_scores,
    parse_minimum,
    print_gates,
    score_style,
)
from lexeval.run.pool import map_chunks, resolve_workers
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from rich.console import Console

    from lexeval.cards.semantic import SemanticTier

__all__ = [
    "METRICS",
    "SCHEMA_VERSION",
    "Gate",
    "GateResult",
    "RunResult",
    "RunSettings",
    "Scores",
    "TypeBreakdown",
    "check_gates",
    "evaluate",
    "render_run",
    "write_text_atomic",
]

UNTYPED = "(untyped)"


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Every setting that changes results; :attr:`signature` goes into each report."""

    threshold: float = 0.3
    strategy: Strategy = "greedy"
    weights: ScoreWeights = DEFAULT_WEIGHTS
    normalizer: str = "plain"

    @property
    def signature(self) -> str:
        """E.g. ``cards:1|strategy:greedy|threshold:0.3|weights:0.5/0.5,0.4/0.4/0.2|norm:plain``."""
        return Signature(
            f"cards:1|strategy:{self.strategy}|threshold:{self.threshold:g}"
            f"|weights:{self.weights.signature}|norm:{self.normalizer}"
        )


@dataclass(frozen=True, slots=True)
class TypeBreakdown:
    """Counts for one card type: expected cards (recall) and generated cards (precision)."""

    card_type: str
    n_expected: int
    n_matched_expected: int
    n_generated: int
    n_matched_generated: int

    @property
    def recall(self) -> float:
        return self.n_matched_expected / self.n_expected if self.n_expected else 0.0

    @property
    def precision(self) -> float:
        return self.n_matched_generated / self.n_generated if self.n_generated else 0.0

    @property
    def f1(self) -> float:
        return f1_score(self.precision, self.recall)

    def to_dict(self) -> dict[str, float | int | None]:
        """Counts and rates; a rate without a denominator is None."""
        return {
            "n_expected": self.n_expected,
            "n_matched_expected": self.n_matched_expected,
            "n_generated": self.n_generated,
            "n_matched_generated": self.n_matched_generated,
            "recall": self.recall if self.n_expected else None,
            "precision": self.precision if self.n_generated else None,
            "f1": self.f1 if self.n_expected and self.n_generated else None,
        }


@dataclass(frozen=True, slots=True)
class RunResult:
    """The per-case results of one run over a dataset, with micro/macro/per-type aggregates."""

    dataset_name: str
    dataset_version: str
    settings: RunSettings
    cases: tuple[CaseResult, ...]
    dataset_path: str | None = None

    @property
    def signature(self) -> str:
        return self.settings.signature

    @property
    def micro(self) -> Scores:
        """Pooled counts: matched / expected, matched / generated; similarity over all pairs."""
        return micro_scores(self.cases)

    @property
    def macro(self) -> Scores:
        """Means of the per-case values (each case weighs the same)."""
        return macro_scores(self.cases)

    @property
    def per_card_type(self) -> dict[str, TypeBreakdown]:
        """Breakdown by card type (expected cards by their type, generated ones by theirs)."""
        counts: dict[str, list[int]] = {}
        for case in self.cases:
            matched_exp = {p.expected_index for p in case.pairs}
            matched_gen = {p.generated_index for p in case.pairs}
            for i, card in enumerate(case.expected):
                row = counts.setdefault(card.card_type or UNTYPED, [0, 0, 0, 0])
                row[0] += 1
                row[1] += i in matched_exp
            for j, gen in enumerate(case.generated):
                row = counts.setdefault(gen.card_type or UNTYPED, [0, 0, 0, 0])
                row[2] += 1
                row[3] += j in matched_gen
        return {name: TypeBreakdown(name, *counts[name]) for name in sorted(counts)}

    def value(self, metric: str, scope: str = "micro") -> float:
        """One aggregate, e.g. ``value("f1", "macro")``."""
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r} (known: {', '.join(METRICS)})")
        scores = self.micro if scope == "micro" else self.macro if scope == "macro" else None
        if scores is None:
            raise ValueError(f"unknown scope {scope!r} (use micro or macro)")
        result: float = getattr(scores, metric)
        return result

    def to_dict(self, gates: Sequence[GateResult] = ()) -> dict[str, Any]:
        """The JSON report as a dict (see :meth:`write_json`)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "lexeval_version": __version__,
            "signature": self.signature,
            "settings": {
                "threshold": self.settings.threshold,
                "strategy": self.settings.strategy,
                "weights": {
                    "front": self.settings.weights.front,
                    "back": self.settings.weights.back,
                    "typed_front": self.settings.weights.typed_front,
                    "typed_back": self.settings.weights.typed_back,
                    "card_type": self.settings.weights.card_type,
                },
                "normalizer": self.settings.normalizer,
            },
            "dataset": {
                "name": self.dataset_name,
                "version": self.dataset_version,
                "path": self.dataset_path,
                "n_cases": len(self.cases),
            },
            "totals": {
                "micro": self.micro.to_dict(),
                "macro": self.macro.to_dict(),
                "per_card_type": {k: v.to_dict() for k, v in self.per_card_type.items()},
            },
            "gates": [g.to_dict() for g in gates],
            "cases": [_case_dict(c) for c in self.cases],
        }

    def to_json(self, gates: Sequence[GateResult] = ()) -> str:
        """The JSON report as text (what :meth:`write_json` writes)."""
        return json.dumps(self.to_dict(gates), ensure_ascii=False, indent=2) + "\n"

    def write_json(
        self,
        path: str | os.PathLike[str],
        gates: Sequence[GateResult] = (),
        *,
        inputs: Mapping[str, str | os.PathLike[str] | None] | None = None,
    ) -> None:
        """Write the JSON report atomically (:func:`lexeval.io.write_text_atomic`).

        The dataset the run read, and any other ``inputs`` (label -> path), are never
        overwritten: such a target raises :class:`lexeval.io.OutputError`.
        """
        protected = {"dataset": self.dataset_path, **(inputs or {})}
        write_text_atomic(path, self.to_json(gates), inputs=protected)

    def to_dataframe(self) -> Any:
        """A ``pandas.DataFrame``, one row per case, indexed by case id.

        pandas is an optional extra (``pip install 'lexeval[notebooks]'``), imported only here.
        """
        try:
            pandas = importlib.import_module("pandas")
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError(
                "to_dataframe() needs pandas: pip install 'lexeval[notebooks]'"
            ) from None
        rows = [{"case_id": c.case_id, **case_totals(c, c.has_output)} for c in self.cases]
        return pandas.DataFrame(rows).set_index("case_id")


def _case_dict(case: CaseResult) -> dict[str, Any]:
    return {
        "id": case.case_id,
        **case_totals(case, case.has_output),
        "pairs": [
            {
                "expected_index": p.expected_index,
                "generated_index": p.generated_index,
                "score": p.score,
                "front_similarity": p.front_similarity,
                "back_similarity": p.back_similarity,
                "card_type_match": p.card_type_match,
                "missing_front_keywords": list(p.missing_front),
                "missing_back_keywords": list(p.missing_back),
                "front": case.generated[p.generated_index].front,
                "back": case.generated[p.generated_index].back,
                **({} if p.semantic_similarity is None else {"semantic": p.semantic_similarity}),
            }
            for p in case.pairs
        ],
        "unmatched_expected": [
            {
                "index": i,
                "front_keywords": list(case.expected[i].front_keywords),
                "back_keywords": list(case.expected[i].back_keywords),
                "card_type": case.expected[i].card_type,
                "best_score": case.best_scores[i] if i < len(case.best_scores) else 0.0,
            }
            for i in case.unmatched_expected_indices
        ],
        "extra_generated": [
            {
                "index": j,
                "front": case.generated[j].front,
                "back": case.generated[j].back,
                "card_type": case.generated[j].card_type,
            }
            for j in case.extra_generated_indices
        ],
    }


# ---------------------------------------------------------------- running


#: How :func:`evaluate` gets a case's generated cards: ``generate(case)``.
Generate = Callable[[EvalCase], Iterable[GeneratedCard]]


def evaluate(
    dataset: EvalDataset,
    outputs: Outputs | Generate,
    *,
    threshold: float = 0.3,
    strategy: Strategy = "greedy",
    normalizer: NormalizerArg = "default",
    weights: ScoreWeights = DEFAULT_WEIGHTS,
    progress: bool = False,
    allow_unknown_cases: bool = False,
    workers: int | str = 1,
    semantic: SemanticTier | None = None,
) -> RunResult:
    """Match every case's generated cards (a mapping by case id, or ``generate(case)``).

    A case without output counts all its expected cards as unmatched (``has_output`` False).
    Output for a case id the dataset does not have raises :class:`DatasetError` unless
    ``allow_unknown_cases``. ``workers=N`` matches the cases on N processes (``"auto"``:
    every core; see :mod:`lexeval.run.pool`), with the same results in the same order;
    ``generate(case)`` still runs in this process. ``semantic``: embeddings decide the
    uncertain pairs (:class:`~lexeval.cards.semantic.SemanticTier`, optional extra).
    """
    if not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be 'greedy' or 'optimal', got {strategy!r}")
    scorer = CardScorer(normalizer, weights, semantic)
    resolved = scorer.normalizer
    norm = resolved.signature if resolved else "plain"
    if semantic is not None:
        norm += f"|{semantic.signature}#{semantic.digest}"
    settings = RunSettings(float(threshold), strategy, weights, norm)
    if isinstance(outputs, Mapping) and not allow_unknown_cases:
        check_known_cases(dataset.name, (case.id for case in dataset.cases), outputs)
    processes = resolve_workers(workers)
    cases = dataset.cases
    if processes > 1 and len(cases) >= 2 * _MIN_CASES:
        items = [_generated(outputs, case) for case in cases]
        matcher = _CaseMatcher(scorer, float(threshold), strategy)
        columns: list[Sequence[Any]] = [
            [case.expected_cards for case in cases],
            [generated for generated, _ in items],
            [case.id for case in cases],
            [found for _, found in items],
        ]
        matched = map_chunks(matcher.match_many, columns, processes, min_chunk=_MIN_CASES)
        return RunResult(dataset.name, dataset.version, settings, tuple(matched), dataset.path)
    iterable: Iterable[EvalCase] = cases
    if progress:
        from lexeval.io.progress import track_on_stderr

        iterable = track_on_stderr(
            cases, total=len(cases), description="matching cards", transient=True
        )
    results = []
    for case in iterable:
        generated, found = _generated(outputs, case)
        results.append(
            scorer.match(case.expected_cards, generated, threshold, strategy, case.id, found)
        )
    return RunResult(dataset.name, dataset.version, settings, tuple(results), dataset.path)


_MIN_CASES = 20  # the smallest chunk of cases sent to a worker process


def _generated(
    outputs: Outputs | Generate, case: EvalCase
) -> tuple[tuple[GeneratedCard, ...], bool]:
    """The cards generated for ``case`` and whether there was output for it."""
    if isinstance(outputs, Mapping):
        found = case.id in outputs
        return (tuple(outputs[case.id]) if found else ()), found
    generated = tuple(outputs(case))
    for card in generated:
        if not isinstance(card, GeneratedCard):
            raise TypeError(f"generate() returned {type(card).__name__} for {case.id!r}")
    return generated, True


class _CaseMatcher:
    """Matches chunks of cases in a worker process: the scorer (pickled as its normalizer's
    configuration and the weights) and the run's settings."""

    def __init__(self, scorer: CardScorer, threshold: float, strategy: Strategy) -> None:
        self.scorer = scorer
        self.threshold = threshold
        self.strategy = strategy

    def match_many(
        self,
        expected: Sequence[Any],
        generated: Sequence[tuple[GeneratedCard, ...]],
        ids: Sequence[str],
        found: Sequence[bool],
    ) -> list[CaseResult]:
        return [
            self.scorer.match(e, g, self.threshold, self.strategy, i, f)
            for e, g, i, f in zip(expected, generated, ids, found, strict=True)
        ]


# ---------------------------------------------------------------- gates


@dataclass(frozen=True, slots=True)
class Gate:
    """A minimum for one aggregate, e.g. ``Gate.parse("recall=0.8")`` or ``"macro.f1=0.7"``.

    >>> Gate.parse("macro.f1=0.7")
    Gate(metric='f1', minimum=0.7, scope='macro')
    >>> Gate.parse("recall")
    Traceback (most recent call last):
    ...
    ValueError: gate 'recall' must look like METRIC=MIN, e.g. recall=0.8
    """

    metric: str
    minimum: float
    scope: str = "micro"

    @classmethod
    def parse(cls, spec: str) -> Gate:
        name, sep, raw = spec.partition("=")
        if not sep:
            raise ValueError(f"gate {spec!r} must look like METRIC=MIN, e.g. recall=0.8")
        scope, dot, metric = name.strip().rpartition(".")
        scope = scope if dot else "micro"
        if scope not in ("micro", "macro"):
            raise ValueError(f"gate {spec!r}: scope must be micro or macro, got {scope!r}")
        if metric not in METRICS:
            raise ValueError(f"gate {spec!r}: unknown metric {metric!r} ({', '.join(METRICS)})")
        return cls(metric, parse_minimum(spec, raw), scope)

    @property
    def name(self) -> str:
        return f"{self.scope}.{self.metric}"


@dataclass(frozen=True, slots=True)
class GateResult(GateCheck[Gate]):
    """A :class:`Gate` with the value the run reached."""


def check_gates(run: RunResult, gates: Iterable[Gate]) -> tuple[GateResult, ...]:
    """Evaluate each gate on the run's aggregates."""
    return tuple(GateResult(g, run.value(g.metric, g.scope)) for g in gates)


# ---------------------------------------------------------------- Rich table


def render_run(
    run: RunResult,
    console: Console | None = None,
    gates: Sequence[GateResult] = (),
    title: str | None = None,
) -> None:
    """Print the per-case table, the totals, the per-type breakdown and the gates."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    minimum = {g.gate.metric: g.gate.minimum for g in gates if g.gate.scope == "micro"}
    for g in gates:
        minimum.setdefault(g.gate.metric, g.gate.minimum)

    def cell(value: float, metric: str) -> str:
        return f"[{score_style(value, minimum.get(metric))}]{value:.3f}[/]"

    # Data strings (dataset name, case ids, card types) are Text, never parsed as markup.
    table = case_table(title or f"{run.dataset_name} {run.dataset_version}".strip())
    for c in run.cases:
        notes = []
        if not c.has_output:
            notes.append("[bold red]no output[/]")
        if c.unmatched_expected_indices and c.has_output:
            notes.append(f"-{len(c.unmatched_expected_indices)} missed")
        if c.extra_generated_indices:
            notes.append(f"+{len(c.extra_generated_indices)} extra")
        table.add_row(
            Text(c.case_id),
            str(c.n_expected),
            str(c.n_generated),
            str(c.n_matched),
            cell(c.recall, "recall"),
            cell(c.precision, "precision"),
            cell(c.f1, "f1"),
            f"{c.avg_similarity:.3f}",
            " ".join(notes),
        )
    add_totals_rows(table, run.micro, run.macro, lambda value, _label, metric: cell(value, metric))
    console.print(table)

    types = Table(title="per card type")
    for name in ("type", "exp", "matched", "recall", "gen", "matched", "precision", "F1"):
        types.add_column(name, justify="left" if name == "type" else "right")
    for t in run.per_card_type.values():
        types.add_row(
            Text(t.card_type),
            str(t.n_expected),
            str(t.n_matched_expected),
            f"{t.recall:.3f}" if t.n_expected else "-",
            str(t.n_generated),
            str(t.n_matched_generated),
            f"{t.precision:.3f}" if t.n_generated else "-",
            f"{t.f1:.3f}" if t.n_expected and t.n_generated else "-",
        )
    console.print(types)
    print_gates(console, gates, run.signature)
