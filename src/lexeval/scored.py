"""Scored runs (what ``lexeval score --format json`` writes) and their A/B comparison.

A :class:`ScoredRun` holds every record's id, texts and metric results; :func:`load_scored`
reads one back from its JSON document. :func:`compare_scored` pairs two runs of the same
records by id (by line when the records have no id), refuses different record sets, metrics
or settings, and gives each metric's mean delta with a paired bootstrap interval and p-value
(:mod:`lexeval.stats`, a recorded seed), and the records whose verdict changed. A comparison
fails when a metric's mean drops by more than ``max_drop`` (and, with ``alpha``, the drop is
significant).

>>> from lexeval.metrics import MetricResult
>>> def run(label, scores):
...     cases = [ScoredCase(f"q{i}", i + 1, "ref", "out", None,
...                         {"token_f1": MetricResult(s, {}, s >= 0.5, "token_f1|v:1")})
...              for i, s in enumerate(scores)]
...     return ScoredRun(label, {"token_f1": "token_f1|v:1"}, tuple(cases))
>>> result = compare_scored(run("A", [0.2, 0.6, 0.9, 0.4]), run("B", [0.6, 0.6, 0.9, 0.4]),
...                         n_resamples=1000)
>>> m = result.metrics[0]
>>> round(m.delta, 2), m.improved, m.regressed, result.passed
(0.1, ('q0',), (), True)
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lexeval.cards.compare import MAX_RESAMPLES, MIN_RESAMPLES, split_version
from lexeval.io import InputError, parse_json, read_text
from lexeval.metrics.base import MetricResult
from lexeval.text.signature import Signature

if TYPE_CHECKING:
    from rich.console import Console

    from lexeval.metrics import AggregateResult
    from lexeval.metrics.base import BaseMetric
    from lexeval.run.batch import Record

__all__ = [
    "MAX_SCORED_BYTES",
    "MetricComparison",
    "ScoredCase",
    "ScoredComparison",
    "ScoredRun",
    "compare_scored",
    "corpus_figure",
    "corpus_figures",
    "is_scored_document",
    "load_scored",
    "scored_document",
    "summary_entries",
]

#: Largest ``score --format json`` file read back (its results carry every record's evidence).
MAX_SCORED_BYTES = 500 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ScoredCase:
    """One scored record: its id (None without an id field), where it came from, its texts
    (None when the document did not record them) and each metric's result. Its :attr:`key`
    pairs it with the same record of another run: the id, else ``line N``."""

    ident: str | int | None
    line: int | None
    reference: str | list[str] | None
    output: str | None
    question: str | None
    results: Mapping[str, MetricResult]

    @property
    def key(self) -> str:
        return str(self.ident) if self.ident is not None else f"line {self.line}"


@dataclass(frozen=True, slots=True)
class ScoredRun:
    """The records of one ``lexeval score`` run with every metric's result; ``metrics`` maps
    each metric to its signature."""

    label: str
    metrics: Mapping[str, str]
    cases: tuple[ScoredCase, ...]

    @classmethod
    def from_results(
        cls,
        records: Sequence[Record],
        columns: Mapping[str, Sequence[MetricResult]],
        signatures: Mapping[str, str],
        label: str = "run",
    ) -> ScoredRun:
        """A run from :func:`lexeval.run.batch.score_records`'s records and results."""
        cases = tuple(
            ScoredCase(
                record.id,
                record.line,
                record.reference,
                record.output,
                record.question,
                {name: results[i] for name, results in columns.items()},
            )
            for i, record in enumerate(records)
        )
        return cls(label, dict(signatures), cases)

    def scores(self, metric: str) -> list[float]:
        return [case.results[metric].score for case in self.cases]


def scored_document(run: ScoredRun, summary: Mapping[str, Any]) -> dict[str, Any]:
    """The ``score --format json`` document of ``run``: the metrics' signatures, the summary,
    and one entry per record (line, id, texts, every metric's result)."""
    results = []
    for case in run.cases:
        entry: dict[str, Any] = {"line": case.line}
        if case.ident is not None:
            entry["id"] = case.ident
        entry["reference"] = case.reference
        entry["output"] = case.output
        if case.question is not None:
            entry["question"] = case.question
        for name, result in case.results.items():
            entry[name] = result.to_dict()
        results.append(entry)
    return {"metrics": dict(run.metrics), "summary": dict(summary), "results": results}


def corpus_figures(
    metrics: Mapping[str, BaseMetric], columns: Mapping[str, Sequence[MetricResult]]
) -> dict[str, MetricResult]:
    """The corpus figure (:meth:`~lexeval.metrics.base.BaseMetric.corpus_of`) of each metric
    whose corpus figure is not the mean of its sentence scores (BLEU, chrF, TER, WER, CER:
    ``corpus_level``), from its results' statistics."""
    return {
        name: metrics[name].corpus_of(results)
        for name, results in columns.items()
        if metrics[name].corpus_level and results
    }


def summary_entries(
    summary: Mapping[str, AggregateResult], corpus: Mapping[str, MetricResult]
) -> dict[str, dict[str, Any]]:
    """The ``summary`` of a scored document: each metric's aggregate, and under ``corpus``
    the corpus figure (score and info: the peer's figure, ``n``, the summed statistics) of
    each metric in ``corpus`` (:func:`corpus_figures`). ``lexeval score`` and the pytest
    plugin's ``--lexeval-save`` write it; ``lexeval runs list`` shows the corpus figure.

    >>> from lexeval import get_metric
    >>> from lexeval.metrics import aggregate
    >>> metrics = {"wer": get_metric("wer"), "rouge1": get_metric("rouge1")}
    >>> columns = {n: m.measure_many(["a b c d", "e f"], ["a b c", "e f"])
    ...            for n, m in metrics.items()}
    >>> entries = summary_entries({n: aggregate(r) for n, r in columns.items()},
    ...                           corpus_figures(metrics, columns))
    >>> round(entries["wer"]["corpus"]["score"], 4), "corpus" in entries["rouge1"]
    (0.8333, False)
    """
    entries = {name: agg.to_dict() for name, agg in summary.items()}
    for name, figure in corpus.items():
        entries[name]["corpus"] = {"score": figure.score, "info": figure.info}
    return entries


def corpus_figure(signature: str, results: Sequence[MetricResult]) -> float | None:
    """The corpus figure of stored results of a corpus-level metric (BLEU, chrF, TER, WER, CER:
    :func:`lexeval.metrics.mt.corpus_scorer` of its ``signature``) recomputed from their
    statistics (``info["stats"]``), as the metric's ``corpus_of`` gives it; None for any other
    metric, or when a result has no statistics."""
    from lexeval.metrics.mt import corpus_scorer
    from lexeval.metrics.mt_stats import sum_stats

    scorer = corpus_scorer(signature)
    rows = [result.info.get("stats") for result in results]
    if scorer is None or not rows or not all(isinstance(row, list) and row for row in rows):
        return None
    if len({len(row) for row in rows}) != 1:  # type: ignore[arg-type]
        return None
    return scorer(sum_stats(rows))  # type: ignore[arg-type]


def is_scored_document(data: object) -> bool:
    """Whether parsed JSON looks like a ``score --format json`` document (not a card report)."""
    return (
        isinstance(data, dict)
        and "schema_version" not in data
        and isinstance(data.get("metrics"), dict)
        and isinstance(data.get("results"), list)
    )


def load_scored(path: str | os.PathLike[str], *, max_bytes: int = MAX_SCORED_BYTES) -> ScoredRun:
    """Read a ``lexeval score --format json`` document; errors name the file and field."""
    name, text = read_text(path, max_bytes)
    return parse_scored(name, parse_json(name, text))


def parse_scored(name: str, data: Any) -> ScoredRun:
    """Validate a parsed ``score --format json`` document (see :func:`load_scored`)."""

    def fail(where: str | None, message: str) -> InputError:
        return InputError(name, None, where, message)

    if not is_scored_document(data):
        raise fail(None, "not a 'lexeval score --format json' document (metrics, results)")
    metrics = data["metrics"]
    for metric, signature in metrics.items():
        if not isinstance(signature, str):
            raise fail(f"metrics.{metric}", "expected a signature string")
    cases: list[ScoredCase] = []
    seen: set[str] = set()
    for i, entry in enumerate(data["results"]):
        where = f"results[{i}]"
        if not isinstance(entry, dict):
            raise fail(where, "expected an object")
        line = entry.get("line")
        if line is not None and (type(line) is not int or line < 0):
            raise fail(f"{where}.line", "expected a line number")
        ident = entry.get("id")
        if ident is not None and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
            raise fail(f"{where}.id", "expected a string or an integer")
        key = str(ident) if ident is not None else f"line {line}"
        if key in seen:
            raise fail(f"{where}.id", f"duplicate record {key!r}")
        seen.add(key)
        results = {m: _result(entry.get(m), f"{where}.{m}", fail) for m in metrics}
        reference = entry.get("reference")
        if reference is not None and not (
            isinstance(reference, str)
            or (isinstance(reference, list) and all(isinstance(r, str) for r in reference))
        ):
            raise fail(f"{where}.reference", "expected a string or a list of strings")
        texts = {k: entry.get(k) for k in ("output", "question")}
        for field_name, value in texts.items():
            if value is not None and not isinstance(value, str):
                raise fail(f"{where}.{field_name}", "expected a string")
        cases.append(
            ScoredCase(ident, line, reference, texts["output"], texts["question"], results)
        )
    if not cases:
        raise fail("results", "no records")
    return ScoredRun(name, dict(metrics), tuple(cases))


def _result(value: Any, where: str, fail: Any) -> MetricResult:
    if not isinstance(value, dict):
        raise fail(where, "missing, or not a result object")
    score = value.get("score")
    if score is None:  # strict JSON writes an unreadable judge reply's NaN as null
        score = math.nan
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise fail(f"{where}.score", "expected a number")
    passed = value.get("passed")
    if passed is not None and not isinstance(passed, bool):
        raise fail(f"{where}.passed", "expected true, false or null")
    info = value.get("info", {})
    if not isinstance(info, dict):
        raise fail(f"{where}.info", "expected an object")
    signature = value.get("signature")
    return MetricResult(
        float(score), info, passed, signature if isinstance(signature, str) else None
    )


# ---------------------------------------------------------------- comparing


@dataclass(frozen=True, slots=True)
class MetricComparison:
    """One metric of two runs: means over the paired records with a finite score in both,
    the paired bootstrap interval of the mean delta and its p-value (None below 2 pairs),
    pass rates, and the records whose verdict changed."""

    name: str
    n: int
    base: float
    candidate: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    base_pass_rate: float | None
    candidate_pass_rate: float | None
    regressed: tuple[str, ...]
    improved: tuple[str, ...]
    max_drop: float
    #: "mean" (the mean of record scores) or "corpus" (BLEU, chrF, TER: the corpus figure of
    #: the records' summed statistics, resampled by the bootstrap as sacrebleu's paired one)
    level: str = "mean"

    @property
    def delta(self) -> float:
        return self.candidate - self.base

    @property
    def dropped(self) -> bool:
        """The mean fell by more than ``max_drop``."""
        return self.delta < -self.max_drop - 1e-12

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n": self.n,
            "base": self.base,
            "candidate": self.candidate,
            "delta": self.delta,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "p_value": self.p_value,
            "base_pass_rate": self.base_pass_rate,
            "candidate_pass_rate": self.candidate_pass_rate,
            "regressed": list(self.regressed),
            "improved": list(self.improved),
            "dropped": self.dropped,
            "level": self.level,
        }


@dataclass(frozen=True, slots=True)
class ScoredComparison:
    """The outcome of :func:`compare_scored`; :attr:`passed` is the gate."""

    base: ScoredRun
    candidate: ScoredRun
    keys: tuple[str, ...]
    metrics: tuple[MetricComparison, ...]
    seed: int
    n_resamples: int
    confidence: float
    max_drop: float
    alpha: float | None = None
    warnings: tuple[str, ...] = ()

    def _fails(self, m: MetricComparison) -> bool:
        significant = self.alpha is None or (m.p_value is not None and m.p_value < self.alpha)
        return m.dropped and significant

    @property
    def passed(self) -> bool:
        return not any(self._fails(m) for m in self.metrics)

    @property
    def verdict(self) -> str:
        drops = [m for m in self.metrics if m.dropped]
        if not drops:
            return f"no metric's mean dropped by more than {self.max_drop:g}"
        text = ", ".join(f"{m.name} {m.delta:+.4f}" for m in drops)
        if self.passed:
            return f"drops ({text}) are not significant (p >= {self.alpha:g})"
        return f"regression beyond {self.max_drop:g}: {text}"

    def interval(self, m: MetricComparison) -> str:
        if m.ci_low is None or m.ci_high is None:
            return "too few records"
        return f"[{m.ci_low:+.4f}, {m.ci_high:+.4f}]"

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "verdict": self.verdict,
            "base": {"path": self.base.label, "metrics": dict(self.base.metrics)},
            "candidate": {"path": self.candidate.label, "metrics": dict(self.candidate.metrics)},
            "n_records": len(self.keys),
            "bootstrap": {
                "confidence": self.confidence,
                "seed": self.seed,
                "n_resamples": self.n_resamples,
            },
            "metrics": [m.to_dict() for m in self.metrics],
            "warnings": list(self.warnings),
        }

    def table_rows(self) -> list[tuple[str, ...]]:
        """One row per metric under :attr:`HEADER` (terminal, Markdown and HTML alike)."""
        return [
            (
                m.name if m.level == "mean" else f"{m.name} ({m.level})",
                f"{m.base:.4f}",
                f"{m.candidate:.4f}",
                f"{m.delta:+.4f}",
                self.interval(m),
                "-" if m.p_value is None else f"{m.p_value:.3g}",
                f"{len(m.regressed)} / {len(m.improved)}",
            )
            for m in self.metrics
        ]

    HEADER = ("metric", "baseline", "candidate", "delta", "CI", "p", "pass→fail / fail→pass")

    def describe_bootstrap(self) -> str:
        return (
            f"paired bootstrap over {len(self.keys)} records: {self.confidence:.0%} interval "
            f"of the mean delta, {self.n_resamples} resamples, seed {self.seed}"
        )

    def to_markdown(self) -> str:
        """A Markdown block for a pull-request comment."""
        icon = "✅" if self.passed else "❌"
        lines = [
            "### lexeval score: candidate vs baseline",
            "",
            f"**{icon} {self.verdict}**",
            "",
            "| " + " | ".join(self.HEADER) + " |",
            "|---|" + "---:|" * (len(self.HEADER) - 1),
        ]
        lines += ["| " + " | ".join(row) + " |" for row in self.table_rows()]
        lines += ["", self.describe_bootstrap()[0].upper() + self.describe_bootstrap()[1:] + "."]
        lines += [f"⚠️ {w}" for w in self.warnings]
        return "\n".join(lines) + "\n"

    def render(self, console: Console | None = None) -> None:
        """Print the comparison with Rich."""
        from rich.console import Console
        from rich.table import Table

        console = console or Console()
        table = Table(title="baseline vs candidate")
        for i, name in enumerate(self.HEADER):
            table.add_column(name, justify="left" if i == 0 else "right")
        for m, row in zip(self.metrics, self.table_rows(), strict=True):
            style = "bold red" if m.dropped else "green" if m.delta > 0 else "dim"
            table.add_row(*row[:3], f"[{style}]{row[3]}[/]", *row[4:])
        console.print(table)
        console.print(self.describe_bootstrap(), markup=False, highlight=False)
        for warning in self.warnings:
            console.print(f"warning: {warning}", markup=False, highlight=False, style="yellow")
        colour = "green" if self.passed else "bold red"
        console.print(f"[{colour}]{'PASS' if self.passed else 'FAIL'}[/] ", end="")
        console.print(self.verdict, markup=False, highlight=False)


def _check_comparable(
    base: ScoredRun, candidate: ScoredRun, allow_signature_mismatch: bool = False
) -> list[str]:
    """Refuse two runs of different metrics, settings or records; the warnings left."""
    if list(base.metrics) != list(candidate.metrics):
        raise ValueError(
            f"the runs score different metrics: {', '.join(base.metrics)} in {base.label} vs "
            f"{', '.join(candidate.metrics)} in {candidate.label}"
        )
    warnings = []
    for name, signature in base.metrics.items():
        settings, versions = split_version(signature)
        other_settings, other_versions = split_version(candidate.metrics[name])
        if settings != other_settings:
            difference = Signature(settings).describe_difference(other_settings)
            if not allow_signature_mismatch:
                raise ValueError(
                    f"{name}: signatures differ ({difference}); results are not comparable "
                    "(pass --allow-signature-mismatch to compare anyway)"
                )
            warnings.append(f"{name}: signatures differ ({difference})")
        if versions != other_versions:
            warnings.append(f"{name}: lexeval versions differ, settings equal")
    base_keys = {c.key for c in base.cases}
    cand_keys = {c.key for c in candidate.cases}
    if base_keys != cand_keys:
        only_base = sorted(base_keys - cand_keys)
        only_cand = sorted(cand_keys - base_keys)
        parts = []
        if only_base:
            parts.append(f"{len(only_base)} only in {base.label} (first {only_base[0]!r})")
        if only_cand:
            parts.append(f"{len(only_cand)} only in {candidate.label} (first {only_cand[0]!r})")
        raise ValueError(f"the runs score different records: {'; '.join(parts)}")
    references = {c.key: c.reference for c in candidate.cases}
    for case in base.cases:
        other = references[case.key]
        if case.reference is not None and other is not None and case.reference != other:
            raise ValueError(f"record {case.key!r}: the references differ between the runs")
    return warnings


def compare_scored(
    base: ScoredRun,
    candidate: ScoredRun,
    *,
    max_drop: float = 0.02,
    seed: int = 12345,
    n_resamples: int = 10000,
    confidence: float = 0.95,
    alpha: float | None = None,
    allow_signature_mismatch: bool = False,
) -> ScoredComparison:
    """Compare two scored runs of the same records (paired by key); ValueError when the
    records, metrics or settings (unless ``allow_signature_mismatch``) differ."""
    from lexeval.stats import bootstrap_mean, bootstrap_p_value

    if not 0.0 <= max_drop <= 1.0:
        raise ValueError(f"max_drop must be in [0, 1], got {max_drop!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if isinstance(n_resamples, bool) or not MIN_RESAMPLES <= n_resamples <= MAX_RESAMPLES:
        raise ValueError(
            f"n_resamples must be an integer in [{MIN_RESAMPLES}, {MAX_RESAMPLES}], "
            f"got {n_resamples!r}"
        )
    warnings = _check_comparable(base, candidate, allow_signature_mismatch)
    by_key = {c.key: c for c in candidate.cases}
    keys = tuple(c.key for c in base.cases)
    pairs = [(c, by_key[c.key]) for c in base.cases]
    metrics = []
    for name in base.metrics:
        scored = [
            (a.key, a.results[name], b.results[name])
            for a, b in pairs
            if math.isfinite(a.results[name].score) and math.isfinite(b.results[name].score)
        ]
        if not scored:
            raise ValueError(f"{name}: no record has a score in both runs")
        diffs = [b.score - a.score for _, a, b in scored]
        low = high = p_value = None
        level = "mean"
        corpus = _corpus_comparison(
            base.metrics[name],
            candidate.metrics[name],
            [(a, b) for _, a, b in scored],
            seed=seed,
            n_resamples=n_resamples,
            confidence=confidence,
        )
        if corpus is not None:
            level = "corpus"
            base_value, candidate_value, low, high, p_value = corpus
        else:
            base_value = sum(a.score for _, a, _ in scored) / len(scored)
            candidate_value = sum(b.score for _, _, b in scored) / len(scored)
            if len(diffs) >= 2:
                low, high, distribution = bootstrap_mean(
                    diffs, seed=seed, n_resamples=n_resamples, confidence=confidence
                )
                p_value = bootstrap_p_value(distribution, sum(diffs) / len(diffs))
        metrics.append(
            MetricComparison(
                name,
                len(scored),
                base_value,
                candidate_value,
                low,
                high,
                p_value,
                _pass_rate([a for _, a, _ in scored]),
                _pass_rate([b for _, _, b in scored]),
                tuple(k for k, a, b in scored if a.passed is True and b.passed is False),
                tuple(k for k, a, b in scored if a.passed is False and b.passed is True),
                max_drop,
                level,
            )
        )
    return ScoredComparison(
        base,
        candidate,
        keys,
        tuple(metrics),
        seed,
        n_resamples,
        confidence,
        max_drop,
        alpha,
        tuple(warnings),
    )


def _corpus_comparison(
    base_signature: str,
    candidate_signature: str,
    pairs: Sequence[tuple[MetricResult, MetricResult]],
    *,
    seed: int,
    n_resamples: int,
    confidence: float,
) -> tuple[float, float, float | None, float | None, float | None] | None:
    """For a metric with a corpus figure (BLEU, chrF, TER: :func:`lexeval.metrics.mt.
    corpus_scorer`) whose results all hold their statistics: the base and candidate corpus
    figures, and the paired bootstrap of their difference (the same resampled records on both
    sides, each corpus figure recomputed from the resampled statistics, as sacrebleu's paired
    bootstrap): interval and p-value (None below 2 records). None otherwise (the mean's
    comparison applies).
    """
    from lexeval.metrics.mt import corpus_scorer

    base_scorer = corpus_scorer(base_signature)
    candidate_scorer = corpus_scorer(candidate_signature)
    if base_scorer is None or candidate_scorer is None:
        return None
    stored = [(a.info.get("stats"), b.info.get("stats")) for a, b in pairs]
    if not all(isinstance(x, list) and x and isinstance(y, list) and y for x, y in stored):
        return None  # a document without statistics: the mean's comparison
    base_rows: list[list[float]] = [x for x, _ in stored]  # type: ignore[misc]
    candidate_rows: list[list[float]] = [y for _, y in stored]  # type: ignore[misc]
    if len({len(row) for row in base_rows}) != 1 or len({len(row) for row in candidate_rows}) != 1:
        return None
    base_value = corpus_figure(base_signature, [a for a, _ in pairs])
    candidate_value = corpus_figure(candidate_signature, [b for _, b in pairs])
    assert base_value is not None and candidate_value is not None  # checked above
    n = len(pairs)
    if n < 2:
        return base_value, candidate_value, None, None, None
    import numpy as np

    from lexeval.stats import bootstrap_p_value

    base_matrix = np.asarray(base_rows, dtype=float)
    candidate_matrix = np.asarray(candidate_rows, dtype=float)
    rng = np.random.default_rng(seed)
    deltas = np.empty(n_resamples)
    batch = max(1, min(n_resamples, 4_194_304 // n))
    done = 0
    while done < n_resamples:
        size = min(batch, n_resamples - done)
        draws = rng.integers(0, n, size=(size, n))
        offsets = (draws + (np.arange(size) * n)[:, None]).ravel()
        weights = np.bincount(offsets, minlength=size * n).reshape(size, n).astype(float)
        base_sums = (weights @ base_matrix).tolist()
        candidate_sums = (weights @ candidate_matrix).tolist()
        for i in range(size):
            deltas[done + i] = candidate_scorer(candidate_sums[i]) - base_scorer(base_sums[i])
        done += size
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(deltas, [tail, 1.0 - tail])
    p_value = bootstrap_p_value(deltas, candidate_value - base_value)
    return base_value, candidate_value, float(low), float(high), p_value


def _pass_rate(results: Sequence[MetricResult]) -> float | None:
    judged = [r.passed for r in results if r.passed is not None]
    return sum(judged) / len(judged) if judged else None
