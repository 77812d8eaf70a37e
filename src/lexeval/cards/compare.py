"""Comparing two JSON run reports (baseline and candidate): deltas, a paired bootstrap, Markdown.

The per-case F1 differences ``candidate - baseline`` over the cases both runs share are
resampled with :func:`scipy.stats.bootstrap` (percentile interval, a recorded seed). The
two-sided p-value comes from the same bootstrap distribution shifted to the null of no change:
``p = (1 + #{|m* - m| >= |m|}) / (B + 1)`` where ``m`` is the observed mean difference and
``m*`` the ``B`` resampled means.

A comparison *fails* (exit 1 on the command line) when a gated metric (micro recall, precision,
F1 and macro F1) drops by more than ``max_drop``; with ``alpha`` set, a drop must also be
significant (``p < alpha``) to fail.
"""

from __future__ import annotations

import html
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lexeval.cards.dataset import DatasetError
from lexeval.cards.report import SCHEMA_VERSION, RunResult
from lexeval.io import (
    MAX_FILE_BYTES,
    ListNode,
    MapNode,
    Node,
    ScalarNode,
    locate_json,
    parse_json,
    read_text,
)
from lexeval.text.signature import Signature, short_signature

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "DEFAULT_SEED",
    "GATED_METRICS",
    "MAX_RESAMPLES",
    "MIN_RESAMPLES",
    "CaseDelta",
    "Comparison",
    "MetricDelta",
    "RunSummary",
    "SignatureMismatchError",
    "compare_runs",
    "load_report",
    "parse_report",
    "split_version",
]

DEFAULT_SEED = 12345
#: Fewest bootstrap resamples a comparison accepts: a 95% percentile interval needs its 2.5%
#: tails to hold a few resamples each.
MIN_RESAMPLES = 200
#: Most bootstrap resamples (the resampled means alone take 8 bytes each).
MAX_RESAMPLES = 1_000_000
#: Metrics whose drop beyond ``max_drop`` fails a comparison.
GATED_METRICS: tuple[str, ...] = ("micro.recall", "micro.precision", "micro.f1", "macro.f1")
_SHOWN_METRICS: tuple[str, ...] = (
    "micro.recall",
    "micro.precision",
    "micro.f1",
    "micro.avg_similarity",
    "macro.recall",
    "macro.precision",
    "macro.f1",
    "macro.avg_similarity",
)


class SignatureMismatchError(ValueError):
    """The two runs were made with different settings, so their numbers are not comparable."""


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What a comparison needs from a run: its signature, aggregates and per-case F1."""

    label: str
    signature: str
    dataset_name: str
    totals: Mapping[str, float]
    case_f1: Mapping[str, float]

    @classmethod
    def from_run(cls, run: RunResult, label: str = "run") -> RunSummary:
        totals = {}
        for scope, scores in (("micro", run.micro), ("macro", run.macro)):
            for metric in ("recall", "precision", "f1", "avg_similarity"):
                totals[f"{scope}.{metric}"] = float(getattr(scores, metric))
        return cls(
            label, run.signature, run.dataset_name, totals, {c.case_id: c.f1 for c in run.cases}
        )


def load_report(path: str | os.PathLike[str], *, max_bytes: int = MAX_FILE_BYTES) -> RunSummary:
    """Read a JSON report written by :meth:`RunResult.write_json`.

    Read like every input (:func:`lexeval.io.read_text`: a regular file up to ``max_bytes``,
    UTF-8) with a strict JSON parser (:func:`lexeval.io.parse_json`), then validated.
    """
    name, text = read_text(path, max_bytes)
    try:
        return _summary(name, parse_json(name, text))
    except DatasetError as exc:
        if exc.line is not None or not exc.field:  # pragma: no cover - JSON errors have lines
            raise
        # Parse again, keeping lines, to name the line of the field at fault.
        line = _line_of_field(locate_json(name, text), exc.field)
        raise DatasetError(name, line, exc.field, exc.message) from None


def parse_report(name: str, data: Any) -> RunSummary:
    """Validate a parsed JSON report (what :func:`load_report` reads from a file; a run store
    keeps the same document): :class:`DatasetError` names the field at fault."""
    return _summary(name, data)


def _line_of_field(root: Node, field: str) -> int | None:
    """The line of ``field`` (``totals.micro.f1``, ``cases[3].id``) in a located JSON tree,
    or of the deepest part of it that exists."""
    node: Node = root
    for key, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", field):
        child: Node | None = None
        if key and isinstance(node, MapNode):
            child = next(
                (v for k, v in node.pairs if isinstance(k, ScalarNode) and k.value == key), None
            )
        elif index and isinstance(node, ListNode) and int(index) < len(node.items):
            child = node.items[int(index)]
        if child is None:
            break
        node = child
    return node.line


_RATES = ("recall", "precision", "f1", "avg_similarity")
_COUNTS = ("n_expected", "n_generated", "n_matched")


def _summary(name: str, data: Any) -> RunSummary:
    """Validate a parsed report: types, and ranges (rates in [0, 1], counts >= 0)."""

    def fail(field: str, message: str) -> DatasetError:
        return DatasetError(name, None, field or None, message)

    def rate(block: dict[str, Any], key: str, where: str) -> float:
        value: Any = block.get(key)
        if not _is_number(value):
            raise fail(where, f"missing or not a number (got {value!r})")
        if not 0.0 <= value <= 1.0:
            raise fail(where, f"{value!r} is not in [0, 1]")
        return float(value)

    def counts(block: dict[str, Any], where: str) -> None:
        for key in _COUNTS:
            value = block.get(key)
            if value is not None and (type(value) is not int or value < 0):
                raise fail(f"{where}.{key}", f"{value!r} is not a count (an integer >= 0)")

    if not isinstance(data, dict):
        raise fail("", "a report must be a JSON object")
    version = data.get("schema_version")
    if type(version) is not int or version != SCHEMA_VERSION:
        raise fail("schema_version", f"expected {SCHEMA_VERSION}, got {version!r}")
    signature = data.get("signature")
    if not isinstance(signature, str):
        raise fail("signature", "missing or not a string")
    totals: dict[str, float] = {}
    all_totals = data.get("totals")
    for scope in ("micro", "macro"):
        block = all_totals.get(scope) if isinstance(all_totals, dict) else None
        if not isinstance(block, dict):
            raise fail(f"totals.{scope}", "missing or not an object")
        for metric in _RATES:
            totals[f"{scope}.{metric}"] = rate(block, metric, f"totals.{scope}.{metric}")
        counts(block, f"totals.{scope}")
    cases = data.get("cases")
    if not isinstance(cases, list):
        raise fail("cases", "missing or not a list")
    case_f1: dict[str, float] = {}
    for i, case in enumerate(cases):
        where = f"cases[{i}]"
        if not isinstance(case, dict) or not isinstance(case.get("id"), str):
            raise fail(f"{where}.id", "missing or not a string")
        f1 = rate(case, "f1", f"{where}.f1")
        for metric in ("recall", "precision", "avg_similarity"):
            if metric in case:
                rate(case, metric, f"{where}.{metric}")
        counts(case, where)
        if case["id"] in case_f1:
            raise fail(f"{where}.id", f"duplicate case id {case['id']!r}")
        case_f1[case["id"]] = f1
    dataset = data.get("dataset")
    dataset_name = dataset.get("name", "") if isinstance(dataset, dict) else ""
    if not isinstance(dataset_name, str):
        raise fail("dataset.name", "not a string")
    return RunSummary(name, signature, dataset_name, totals, case_f1)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True, slots=True)
class MetricDelta:
    name: str
    base: float
    candidate: float
    max_drop: float | None = None

    @property
    def delta(self) -> float:
        return self.candidate - self.base

    @property
    def dropped(self) -> bool:
        """True for a gated metric that fell by more than ``max_drop``."""
        return self.max_drop is not None and self.delta < -self.max_drop - 1e-12


@dataclass(frozen=True, slots=True)
class CaseDelta:
    case_id: str
    base_f1: float
    candidate_f1: float

    @property
    def delta(self) -> float:
        return self.candidate_f1 - self.base_f1


@dataclass(frozen=True, slots=True)
class Comparison:
    """The outcome of :func:`compare_runs`; :attr:`passed` is the gate."""

    base: RunSummary
    candidate: RunSummary
    metrics: tuple[MetricDelta, ...]
    cases: tuple[CaseDelta, ...]
    only_in_base: tuple[str, ...]
    only_in_candidate: tuple[str, ...]
    mean_delta: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    seed: int
    n_resamples: int
    confidence: float
    max_drop: float
    alpha: float | None = None
    #: Differences that do not stop the comparison (e.g. another lexeval version).
    warnings: tuple[str, ...] = ()

    @property
    def regressed(self) -> tuple[CaseDelta, ...]:
        """Cases whose F1 fell, worst first."""
        return tuple(sorted((c for c in self.cases if c.delta < 0), key=lambda c: c.delta))

    @property
    def improved(self) -> tuple[CaseDelta, ...]:
        """Cases whose F1 rose, best first."""
        return tuple(sorted((c for c in self.cases if c.delta > 0), key=lambda c: -c.delta))

    @property
    def dropped_metrics(self) -> tuple[MetricDelta, ...]:
        return tuple(m for m in self.metrics if m.dropped)

    @property
    def significant(self) -> bool:
        return self.alpha is None or (self.p_value is not None and self.p_value < self.alpha)

    @property
    def passed(self) -> bool:
        return not (self.dropped_metrics and self.significant)

    @property
    def verdict(self) -> str:
        if self.passed and not self.dropped_metrics:
            return f"no metric dropped by more than {self.max_drop:g}"
        drops = ", ".join(f"{m.name} {m.delta:+.3f}" for m in self.dropped_metrics)
        if self.passed:
            return f"drops ({drops}) are not significant (p = {self.p_value:.3g})"
        return f"regression beyond {self.max_drop:g}: {drops}"

    @property
    def command(self) -> str:
        """The command whose reports these are: ``match`` (record reports) or ``cards``."""
        return "match" if self.candidate.signature.startswith("records:") else "cards"

    @property
    def interval_text(self) -> str:
        if self.ci_low is None or self.ci_high is None or self.p_value is None:
            return f"mean per-case F1 delta {self.mean_delta:+.3f} (too few cases for a bootstrap)"
        return (
            f"mean per-case F1 delta {self.mean_delta:+.3f}, "
            f"{self.confidence:.0%} CI [{self.ci_low:+.3f}, {self.ci_high:+.3f}], "
            f"p = {self.p_value:.3g} (paired bootstrap over {len(self.cases)} cases, "
            f"{self.n_resamples} resamples, seed {self.seed})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "verdict": self.verdict,
            "base": {"path": self.base.label, "signature": self.base.signature},
            "candidate": {"path": self.candidate.label, "signature": self.candidate.signature},
            "metrics": [
                {"name": m.name, "base": m.base, "candidate": m.candidate, "delta": m.delta}
                for m in self.metrics
            ],
            "bootstrap": {
                "mean_delta": self.mean_delta,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "p_value": self.p_value,
                "confidence": self.confidence,
                "seed": self.seed,
                "n_resamples": self.n_resamples,
                "n_cases": len(self.cases),
            },
            "regressed": [c.case_id for c in self.regressed],
            "improved": [c.case_id for c in self.improved],
            "only_in_base": list(self.only_in_base),
            "only_in_candidate": list(self.only_in_candidate),
            "warnings": list(self.warnings),
        }

    def to_markdown(self) -> str:
        """A Markdown block for a pull-request comment."""
        icon = "✅" if self.passed else "❌"
        lines = [
            f"### lexeval {self.command}: candidate vs baseline",
            "",
            f"**{icon} {self.verdict}**",
            "",
            "| metric | baseline | candidate | delta |",
            "|---|---:|---:|---:|",
        ]
        for m in self.metrics:
            flag = " ⚠️" if m.dropped else ""
            lines.append(f"| {m.name} | {m.base:.3f} | {m.candidate:.3f} | {m.delta:+.3f}{flag} |")
        lines += ["", self.interval_text[0].upper() + self.interval_text[1:] + "."]
        for title, group in (("Regressed", self.regressed), ("Improved", self.improved)):
            if group:
                items = ", ".join(
                    f"`{c.case_id}` ({c.base_f1:.2f} → {c.candidate_f1:.2f})" for c in group
                )
                lines += ["", f"**{title} ({len(group)}):** {items}"]
        for title, ids in (
            ("Only in baseline", self.only_in_base),
            ("Only in candidate", self.only_in_candidate),
        ):
            if ids:
                lines += ["", f"**{title}:** " + ", ".join(f"`{i}`" for i in ids)]
        for warning in self.warnings:
            lines += ["", f"⚠️ {warning}"]
        # the short settings in sight, the full signature one click away (GitHub's <details>)
        lines += ["", _signature_markdown("settings", self.candidate.signature)]
        if self.base.signature != self.candidate.signature:
            lines += ["", _signature_markdown("baseline signature differs", self.base.signature)]
        return "\n".join(lines) + "\n"

    def render(self, console: Console | None = None) -> None:
        """Print the comparison with Rich."""
        from rich.console import Console
        from rich.table import Table

        console = console or Console()
        table = Table(title="baseline vs candidate")
        for name in ("metric", "baseline", "candidate", "delta"):
            table.add_column(name, justify="left" if name == "metric" else "right")
        for m in self.metrics:
            style = "bold red" if m.dropped else "green" if m.delta > 0 else "dim"
            table.add_row(
                m.name, f"{m.base:.3f}", f"{m.candidate:.3f}", f"[{style}]{m.delta:+.3f}[/]"
            )
        console.print(table)
        console.print(self.interval_text)
        for title, group in (("regressed", self.regressed), ("improved", self.improved)):
            if group:
                items = ", ".join(
                    f"{c.case_id} ({c.base_f1:.2f}→{c.candidate_f1:.2f})" for c in group
                )
                console.print(f"{title} ({len(group)}): {items}", markup=False, highlight=False)
        for title, ids in (
            ("only in baseline", self.only_in_base),
            ("only in candidate", self.only_in_candidate),
        ):
            if ids:
                console.print(f"{title}: {', '.join(ids)}", markup=False, highlight=False)
        for warning in self.warnings:
            console.print(f"warning: {warning}", markup=False, highlight=False, style="yellow")
        colour = "green" if self.passed else "bold red"
        console.print(f"[{colour}]{'PASS' if self.passed else 'FAIL'}[/] {self.verdict}")


def _signature_markdown(label: str, signature: str) -> str:
    """``label``, the short signature, and the full one in a collapsed ``<details>``."""
    return (
        f"<details><summary><sub>{label}: <code>{html.escape(short_signature(signature))}"
        f"</code></sub></summary>\n\n`{signature}`\n\n</details>"
    )


def split_version(signature: str) -> tuple[str, tuple[str, ...]]:
    """A signature without its version parts (``v:...``), and those parts.

    Two runs are comparable when everything but the version is equal: a new lexeval release
    that changes no setting does not make every stored baseline incomparable.

    >>> split_version("cards:1|threshold:0.3|norm:preset:default|lang:en|v:0.1.0")
    ('cards:1|threshold:0.3|norm:preset:default|lang:en', ('v:0.1.0',))
    """
    parts = signature.split("|")
    settings = "|".join(p for p in parts if not p.startswith("v:"))
    return settings, tuple(p for p in parts if p.startswith("v:"))


def compare_runs(
    base: RunSummary | RunResult,
    candidate: RunSummary | RunResult,
    *,
    max_drop: float = 0.02,
    seed: int = DEFAULT_SEED,
    n_resamples: int = 10000,
    confidence: float = 0.95,
    alpha: float | None = None,
    allow_signature_mismatch: bool = False,
) -> Comparison:
    """Compare a candidate run with a baseline (run results or loaded reports).

    >>> from lexeval.cards.report import RunSettings
    >>> a = RunSummary("a", "sig", "d", {m: 0.5 for m in _SHOWN_METRICS}, {"c1": 0.5, "c2": 1.0})
    >>> b = RunSummary("b", "sig", "d", {m: 0.6 for m in _SHOWN_METRICS}, {"c1": 1.0, "c2": 1.0})
    >>> result = compare_runs(a, b)
    >>> result.passed, [c.case_id for c in result.improved], result.mean_delta
    (True, ['c1'], 0.25)
    """
    if not 0.0 <= max_drop <= 1.0:
        raise ValueError(f"max_drop must be in [0, 1], got {max_drop!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, int)
        or not MIN_RESAMPLES <= n_resamples <= MAX_RESAMPLES
    ):
        raise ValueError(
            f"n_resamples must be an integer in [{MIN_RESAMPLES}, {MAX_RESAMPLES}], "
            f"got {n_resamples!r}"
        )
    base_s = base if isinstance(base, RunSummary) else RunSummary.from_run(base, "baseline")
    cand_s = (
        candidate
        if isinstance(candidate, RunSummary)
        else RunSummary.from_run(candidate, "candidate")
    )
    base_settings, base_versions = split_version(base_s.signature)
    cand_settings, cand_versions = split_version(cand_s.signature)
    warnings: list[str] = []
    if base_versions != cand_versions:
        warnings.append(
            f"lexeval versions differ (baseline {'|'.join(base_versions) or 'none'}, candidate "
            f"{'|'.join(cand_versions) or 'none'}); the settings that change results are "
            + ("equal" if base_settings == cand_settings else "not")
        )
    if base_settings != cand_settings and not allow_signature_mismatch:
        difference = Signature(base_settings).describe_difference(cand_settings)
        raise SignatureMismatchError(
            f"signatures differ ({difference}): baseline {base_s.signature!r} vs candidate "
            f"{cand_s.signature!r} (results are not comparable; pass --allow-signature-mismatch "
            "to compare anyway)"
        )
    shared = [case_id for case_id in base_s.case_f1 if case_id in cand_s.case_f1]
    if not shared:
        raise ValueError("the two runs have no case id in common")
    cases = tuple(CaseDelta(i, base_s.case_f1[i], cand_s.case_f1[i]) for i in shared)
    metrics = tuple(
        MetricDelta(
            name,
            base_s.totals[name],
            cand_s.totals[name],
            max_drop if name in GATED_METRICS else None,
        )
        for name in _SHOWN_METRICS
    )
    diffs = [c.delta for c in cases]
    mean_delta = sum(diffs) / len(diffs)
    ci_low, ci_high, p_value = _bootstrap(diffs, mean_delta, seed, n_resamples, confidence)
    return Comparison(
        base=base_s,
        candidate=cand_s,
        metrics=metrics,
        cases=cases,
        only_in_base=tuple(i for i in base_s.case_f1 if i not in cand_s.case_f1),
        only_in_candidate=tuple(i for i in cand_s.case_f1 if i not in base_s.case_f1),
        mean_delta=mean_delta,
        ci_low=ci_low,
        ci_high=ci_high,
        p_value=p_value,
        seed=seed,
        n_resamples=n_resamples,
        confidence=confidence,
        max_drop=max_drop,
        alpha=alpha,
        warnings=tuple(warnings),
    )


def _bootstrap(
    diffs: Sequence[float], observed: float, seed: int, n_resamples: int, confidence: float
) -> tuple[float | None, float | None, float | None]:
    if len(diffs) < 2:
        return None, None, None
    import numpy as np

    from lexeval.stats import bootstrap_mean

    low, high, distribution = bootstrap_mean(
        diffs, seed=seed, n_resamples=n_resamples, confidence=confidence
    )
    means = np.asarray(distribution, dtype=float)
    extreme = int(np.count_nonzero(np.abs(means - observed) >= abs(observed) - 1e-12))
    p_value = (1 + extreme) / (n_resamples + 1)
    return low, high, min(1.0, p_value)
