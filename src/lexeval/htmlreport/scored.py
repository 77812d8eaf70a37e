"""HTML pages of a scored run (``lexeval score --html``) and of two compared scored runs
(``lexeval compare A.json B.json --html``).

>>> from lexeval.run.batch import Record, score_records
>>> from lexeval import get_metric
>>> from lexeval.scored import ScoredRun
>>> records = [Record(1, "q1", "Paris is the capital", "<b> Paris")]
>>> metrics = {"token_f1": get_metric("token_f1", threshold=0.5, evidence_limit=20)}
>>> run = ScoredRun.from_results(records, score_records(metrics, records),
...                              {"token_f1": metrics["token_f1"].signature})
>>> page = render_scored(run)
>>> "&lt;b&gt;" in page and "<b>Paris" not in page and 'data-match="0"' in page
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lexeval.htmlreport.marks import mark_words
from lexeval.htmlreport.page import (
    Column,
    Filter,
    Page,
    Row,
    Verdict,
    esc,
    histogram,
    marked_text,
    number,
    render_page,
    table,
)
from lexeval.metrics.base import MetricResult
from lexeval.run.batch import edits_text
from lexeval.scored import ScoredCase, ScoredComparison, ScoredRun, corpus_figure

__all__ = ["render_scored", "render_scored_comparison", "scored_page"]


def _evidence(result: MetricResult) -> tuple[list[str], list[str]]:
    """A result's matched and missing keywords (words, n-grams), when it reports them."""

    def strings(key: str) -> list[str]:
        value = result.info.get(key)
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    return strings("matched"), strings("missing")


def _chips(words: Sequence[str], cls: str) -> str:
    # a space between chips: the line may wrap there (without it, the row grows to fit them all)
    return " ".join(f'<span class="chip {cls}">{esc(w)}</span>' for w in words) or "none"


def _references(reference: str | list[str] | None) -> list[str]:
    if reference is None:
        return []
    return [reference] if isinstance(reference, str) else list(reference)


def _texts(case: ScoredCase, names: Sequence[str], *, title: str = "output") -> tuple[str, str]:
    """The output and the reference(s), each word marked with the metrics whose keywords it
    spells (indexes into ``names``)."""
    evidence = {i: _evidence(case.results[n]) for i, n in enumerate(names) if n in case.results}
    output = (
        marked_text(mark_words(case.output, {i: (m, []) for i, (m, _) in evidence.items()}))
        if case.output is not None
        else '<span class="none">(not recorded)</span>'
    )
    references = _references(case.reference)
    reference = (
        "<hr>".join(marked_text(mark_words(r, evidence)) for r in references)
        if references
        else '<span class="none">(not recorded)</span>'
    )
    return (
        f'<div class="output"><h4>{esc(title)}</h4>{output}</div>',
        f'<div class="reference"><h4>reference</h4>{reference}</div>',
    )


def _metric_lines(case: ScoredCase, names: Sequence[str]) -> str:
    lines = []
    for name in names:
        result = case.results[name]
        matched, missing = _evidence(result)
        verdict = Verdict.of(name, result.passed)
        evidence = ""
        if matched or missing:
            evidence = (
                f" · matched: {_chips(matched, 'match')} · missing: {_chips(missing, 'missing')}"
            )
        elif edits := edits_text(result):  # WER, CER, TER: the edit operations
            evidence = f' · <span class="edits">{esc(edits)}</span>'
        lines.append(
            f'<div class="evidence"><b>{esc(name)}</b> {number(result.score, 4)} '
            f'<span class="{verdict.cls}">{esc(verdict.text)}</span>{evidence}</div>'
        )
    return "".join(lines)


def _question(case: ScoredCase) -> str:
    if not case.question:
        return ""
    return f'<div class="evidence"><b>question</b> {esc(case.question)}</div>'


def _bounds(values: Sequence[float]) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    return min([0.0, *finite]), max([1.0, *finite])


def scored_page(run: ScoredRun, *, title: str | None = None) -> Page:
    """The :class:`~lexeval.htmlreport.page.Page` of a scored run."""
    from lexeval.metrics import aggregate

    names = list(run.metrics)
    summary_rows = []
    charts = []
    for name in names:
        scores = run.scores(name)
        agg = aggregate([c.results[name] for c in run.cases], n_boot=1000)
        rate = (
            "-" if agg.pass_rate is None else f"{agg.pass_rate:.1%} ({agg.n_passed}/{agg.n_judged})"
        )
        summary_rows.append(
            (name, str(agg.n), number(agg.mean, 4), f"[{agg.ci_low:.4f}, {agg.ci_high:.4f}]", rate)
        )
        corpus = corpus_figure(run.metrics[name], [c.results[name] for c in run.cases])
        if corpus is not None:  # BLEU, chrF, TER, WER, CER: the corpus figure, as the summary
            summary_rows.append((f"{name} (corpus)", str(agg.n), number(corpus, 4), "-", "-"))
        low, high = _bounds(scores)
        charts.append(histogram(scores, low=low, high=high, label=name))
    summary = table(["metric", "n", "mean", "95% CI", "pass rate"], summary_rows)
    rows = []
    for case in run.cases:
        tokens = []
        for i, name in enumerate(names):
            passed = case.results[name].passed
            if passed is not None:
                tokens.append(f"m{i}:{'pass' if passed else 'fail'}")
        output, reference = _texts(case, names)
        detail = _question(case) + f'<div class="pair">{output}{reference}</div>'
        detail += _metric_lines(case, names)
        rows.append(
            Row(
                case.key,
                tuple(case.results[n].score for n in names),
                tuple(Verdict.of(f"{n} verdict", case.results[n].passed) for n in names),
                tuple(tokens),
                detail,
            )
        )
    filters = []
    for i, name in enumerate(names):
        if any(c.results[name].passed is not None for c in run.cases):
            filters += [
                Filter(f"m{i}:pass", f"{name} passed"),
                Filter(f"m{i}:fail", f"{name} failed"),
            ]
    settings = [("file", run.label)] + [(f"{n} signature", s) for n, s in run.metrics.items()]
    return Page(
        title or f"lexeval score: {run.label}",
        tuple(settings),
        summary,
        "".join(charts),
        tuple(Column(n) for n in names),
        tuple(rows),
        tuple(filters),
        tuple(names),
    )


def render_scored(run: ScoredRun, *, title: str | None = None) -> str:
    """The HTML report of a scored run (one self-contained page)."""
    return render_page(scored_page(run, title=title))


def _change(a: MetricResult, b: MetricResult) -> str:
    if a.passed is None or b.passed is None:
        return "-"
    if a.passed == b.passed:
        return "pass" if a.passed else "fail"
    return "pass → fail" if a.passed else "fail → pass"


def render_scored_comparison(comparison: ScoredComparison, *, title: str | None = None) -> str:
    """The HTML report of two compared scored runs: per-metric deltas with their paired
    bootstrap intervals, per-record deltas, and the records whose verdict changed."""
    base, candidate = comparison.base, comparison.candidate
    names = list(base.metrics)
    by_key = {c.key: c for c in candidate.cases}
    summary = table(list(comparison.HEADER), comparison.table_rows())
    verdict_class = "pass" if comparison.passed else "fail"
    summary = (
        f'<p class="{verdict_class}">{"PASS" if comparison.passed else "FAIL"}: '
        f"{esc(comparison.verdict)}</p>{summary}"
        f'<p class="note">{esc(comparison.describe_bootstrap())}</p>'
    )
    charts = []
    columns: list[Column] = []
    for name in names:
        columns.append(Column(f"{name} Δ", signed=True))
        deltas = [by_key[a.key].results[name].score - a.results[name].score for a in base.cases]
        charts.append(
            histogram(deltas, low=-1.0, high=1.0, bins=20, label=f"{name}: B − A", marker=0.0)
        )
    rows = []
    for a in base.cases:
        b = by_key[a.key]
        values: list[float | None] = []
        verdicts = []
        tokens = []
        for i, name in enumerate(names):
            ra, rb = a.results[name], b.results[name]
            delta = rb.score - ra.score
            values.append(delta)
            change = _change(ra, rb)
            cls = (
                "fail" if change == "pass → fail" else "pass" if change == "fail → pass" else "none"
            )
            verdicts.append(Verdict(f"{name} verdict", change, cls))
            if "→" in change:
                tokens += ["changed", f"m{i}:{'down' if ra.passed else 'up'}"]
            if math.isfinite(delta) and delta < 0:
                tokens.append(f"m{i}:fell")
            elif math.isfinite(delta) and delta > 0:
                tokens.append(f"m{i}:rose")
        output_a, reference = _texts(a, names, title=f"output A ({base.label})")
        reference = reference.replace("<h4>reference</h4>", "<h4>reference (marks of A)</h4>", 1)
        output_b, _ = _texts(b, names, title=f"output B ({candidate.label})")
        detail = (
            _question(a)
            + f'<div class="pair">{output_a}{output_b}</div>'
            + f'<div class="pair">{reference}<div>'
            + "<h4>A</h4>"
            + _metric_lines(a, names)
            + "<h4>B</h4>"
            + _metric_lines(b, names)
            + "</div></div>"
        )
        rows.append(
            Row(a.key, tuple(values), tuple(verdicts), tuple(dict.fromkeys(tokens)), detail)
        )
    filters = [Filter("changed", "verdict changed (any metric)")]
    for i, name in enumerate(names):
        filters += [
            Filter(f"m{i}:down", f"{name}: pass → fail"),
            Filter(f"m{i}:up", f"{name}: fail → pass"),
            Filter(f"m{i}:fell", f"{name}: score fell"),
            Filter(f"m{i}:rose", f"{name}: score rose"),
        ]
    settings: list[tuple[str, str]] = [
        ("A (baseline)", base.label),
        ("B (candidate)", candidate.label),
    ]
    settings += [(f"{n} signature", s) for n, s in candidate.metrics.items()]
    settings += [("max drop", f"{comparison.max_drop:g}")]
    if comparison.alpha is not None:
        settings.append(("alpha", f"{comparison.alpha:g}"))
    return render_page(
        Page(
            title or f"lexeval compare: {base.label} vs {candidate.label}",
            tuple(settings),
            summary,
            "".join(charts),
            tuple(columns),
            tuple(rows),
            tuple(filters),
            tuple(names),
            tuple(comparison.warnings),
        )
    )
