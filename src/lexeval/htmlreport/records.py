"""The HTML page of a record run (``lexeval match --html``); two record reports compare
as card reports do (``lexeval compare --html``).

A case *passes* on the page when every expected record found a generated one (recall 1).

>>> from lexeval.records.checks import ExactCheck
>>> from lexeval.records.dataset import RecordCase, RecordDataset
>>> from lexeval.records.report import match_records
>>> from lexeval.records.schema import Field, Schema
>>> schema = Schema((Field("sku", ExactCheck()),))
>>> ds = RecordDataset("d", "1", schema, [RecordCase("c<1>", "t", [{"sku": "<b>A1</b>"}])])
>>> page = render_records_page(match_records(ds, {"c<1>": [{"sku": "<b>A1</b>"}]}))
>>> "c&lt;1&gt;" in page and "<b>A1</b>" not in page
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from lexeval.htmlreport.page import (
    Column,
    Filter,
    Page,
    Row,
    Verdict,
    esc,
    histogram,
    number,
    render_page,
    table,
)
from lexeval.records.matching import CaseCounts, CaseMatch
from lexeval.records.report import METRICS, GateCheck, RecordGateResult, RecordRun, Scores

__all__ = ["gates_table", "metric_charts", "render_records_page", "scores_table"]


def scores_table(micro: Scores, macro: Scores) -> str:
    """The summary table: the micro and macro values of each metric."""
    return table(
        ["scope", *METRICS],
        [
            (scope, *(number(getattr(scores, m)) for m in METRICS))
            for scope, scores in (("micro", micro), ("macro", macro))
        ],
    )


def gates_table(gates: Sequence[GateCheck[Any]]) -> str:
    """The gates' table (value, minimum, verdict); empty without gates."""
    if not gates:
        return ""
    return table(
        ["gate", "value", "minimum", "verdict"],
        [
            (g.gate.name, number(g.value), f"{g.gate.minimum:g}", "pass" if g.passed else "FAIL")
            for g in gates
        ],
    )


def metric_charts(cases: Sequence[CaseCounts]) -> str:
    """A histogram of each metric over the cases."""
    return "".join(
        histogram([getattr(c, m) for c in cases], low=0.0, high=1.0, label=m) for m in METRICS
    )


def _value(value: Any) -> str:
    if isinstance(value, str):
        return esc(value)
    return esc(json.dumps(value, ensure_ascii=False, default=str))


def _case_detail(case: CaseMatch, fields: Sequence[str]) -> str:
    parts = []
    if case.status == "no_output":
        parts.append('<p class="fail">no output for this case</p>')
    elif case.status == "parse_error":
        parts.append(f'<p class="fail">parse error: {esc(case.reason or "")}</p>')
    for pair in case.pairs:
        expected = case.expected[pair.expected_index]
        generated = case.generated[pair.generated_index]
        lines = []
        for name in fields:
            result = pair.fields.get(name)
            if result is None:
                verdict = '<span class="chip">not scored</span>'
            else:
                cls = "match" if result.passed else "missing"
                verdict = f'<span class="chip {cls}">{number(result.score)}</span>'
            lines.append(
                f"<b>{esc(name)}</b> {verdict} expected {_value(expected.get(name, '-'))}; "
                f"generated {_value(generated.get(name, '-'))}"
            )
        parts.append(
            f'<div class="pair"><div class="output"><h4>expected record {pair.expected_index} '
            f"↔ generated record {pair.generated_index} (score {number(pair.score)})</h4>"
            + "<br>".join(lines)
            + "</div></div>"
        )
    for i in case.unmatched_expected_indices:
        best = case.best_scores[i] if i < len(case.best_scores) else 0.0
        parts.append(
            f'<div class="evidence"><b>expected record {i} not found</b> (best score '
            f"{number(best)}): {_value(dict(case.expected[i]))}</div>"
        )
    for j in case.extra_generated_indices:
        parts.append(
            f'<div class="evidence"><b>extra generated record {j}</b>: '
            f"{_value(dict(case.generated[j]))}</div>"
        )
    return "".join(parts)


def render_records_page(
    run: RecordRun, gates: Sequence[RecordGateResult] = (), *, title: str | None = None
) -> str:
    """The HTML report of a record run (one self-contained page)."""
    summary = scores_table(run.micro, run.macro)
    summary += table(
        ["field", "check", "pairs", "accuracy", "mean"],
        [
            (
                t.name,
                t.check,
                str(t.n),
                number(t.accuracy) if t.n else "-",
                number(t.mean) if t.n else "-",
            )
            for t in run.fields.values()
        ],
    )
    summary += gates_table(gates)
    charts = metric_charts(run.cases)
    names = run.dataset.schema.names
    rows = []
    for case in run.cases:
        complete = case.n_matched == case.n_expected
        tokens = ["complete" if complete else "incomplete"]
        if case.status != "ok":
            tokens.append(case.status.replace("_", "-"))
        if case.extra_generated_indices:
            tokens.append("extra")
        rows.append(
            Row(
                case.case_id,
                tuple(float(getattr(case, m)) for m in METRICS),
                (Verdict.of("every expected record found", complete),),
                tuple(tokens),
                _case_detail(case, names),
            )
        )
    settings = [
        ("dataset", f"{run.dataset.name} {run.dataset.version}"),
        ("dataset file", run.dataset.path or "-"),
        ("signature", run.signature),
        ("threshold", f"{run.threshold:g}"),
        ("strategy", run.strategy),
        ("normalizer", run.normalizer),
    ]
    return render_page(
        Page(
            title or f"lexeval match: {run.dataset.name}",
            tuple(settings),
            summary,
            charts,
            tuple(Column(m) for m in METRICS),
            tuple(rows),
            (
                Filter("complete", "every expected record found"),
                Filter("incomplete", "some expected record missing"),
                Filter("extra", "extra generated records"),
                Filter("parse-error", "parse error"),
                Filter("no-output", "no output"),
            ),
            (),
            ("A case passes when every expected record found a generated record.",),
        )
    )
