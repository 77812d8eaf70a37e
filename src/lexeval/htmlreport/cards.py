"""HTML pages of a card run (``lexeval cards --html``) and of two compared card runs
(``lexeval compare BASE.json CANDIDATE.json --html`` on card reports).

A card case *passes* on the page when every expected card found a generated one (recall 1).

>>> from lexeval.cards.dataset import EvalCase, EvalDataset, ExpectedCard, GeneratedCard
>>> from lexeval.cards.report import evaluate
>>> ds = EvalDataset("d", "1", [EvalCase("c<1>", "t", [ExpectedCard(["Paris"], ["France"])])])
>>> run = evaluate(ds, {"c<1>": [GeneratedCard("Paris?", "France.")]}, normalizer=None)
>>> page = render_cards(run)
>>> "c&lt;1&gt;" in page and "c<1>" not in page
True
"""

from __future__ import annotations

from collections.abc import Sequence

from lexeval.cards.compare import Comparison
from lexeval.cards.matching import CaseResult
from lexeval.cards.report import METRICS, GateResult, RunResult
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
from lexeval.htmlreport.records import gates_table, metric_charts, scores_table

__all__ = ["render_card_comparison", "render_cards"]


def _chips(keywords: Sequence[str], missing: Sequence[str]) -> str:
    lost = set(missing)
    return " ".join(  # a space between chips: the line may wrap there
        f'<span class="chip {"missing" if k in lost else "match"}">{esc(k)}</span>'
        for k in keywords
    )


def _card_detail(case: CaseResult) -> str:
    parts = []
    if not case.has_output:
        parts.append('<p class="fail">no output for this case</p>')
    for pair in case.pairs:
        expected = case.expected[pair.expected_index]
        generated = case.generated[pair.generated_index]
        front_found = [k for k in expected.front_keywords if k not in pair.missing_front]
        back_found = [k for k in expected.back_keywords if k not in pair.missing_back]
        front = marked_text(mark_words(generated.front, {0: (front_found, [])}))
        back = marked_text(mark_words(generated.back, {0: (back_found, [])}))
        parts.append(
            '<div class="pair"><div class="output"><h4>generated card '
            f"{pair.generated_index} (score {number(pair.score)})</h4>"
            f"<b>front</b> {front}<br><b>back</b> {back}</div>"
            f'<div class="reference"><h4>expected card {pair.expected_index}</h4>'
            f"<b>front</b> {_chips(expected.front_keywords, pair.missing_front)}<br>"
            f"<b>back</b> {_chips(expected.back_keywords, pair.missing_back)}</div></div>"
        )
    for i in case.unmatched_expected_indices:
        expected = case.expected[i]
        best = case.best_scores[i] if i < len(case.best_scores) else 0.0
        parts.append(
            f'<div class="evidence"><b>expected card {i} not found</b> (best score '
            f"{number(best)}): front {_chips(expected.front_keywords, expected.front_keywords)} "
            f"back {_chips(expected.back_keywords, expected.back_keywords)}</div>"
        )
    for j in case.extra_generated_indices:
        card = case.generated[j]
        parts.append(
            f'<div class="evidence"><b>extra generated card {j}</b>: {esc(card.front)} / '
            f"{esc(card.back)}</div>"
        )
    return "".join(parts)


def render_cards(
    run: RunResult, gates: Sequence[GateResult] = (), *, title: str | None = None
) -> str:
    """The HTML report of a card run (one self-contained page)."""
    summary = scores_table(run.micro, run.macro) + gates_table(gates)
    charts = metric_charts(run.cases)
    rows = []
    for case in run.cases:
        complete = case.n_matched == case.n_expected
        tokens = ["complete" if complete else "incomplete"]
        if not case.has_output:
            tokens.append("no-output")
        if case.extra_generated_indices:
            tokens.append("extra")
        rows.append(
            Row(
                case.case_id,
                tuple(float(getattr(case, m)) for m in METRICS),
                (Verdict.of("every expected card found", complete),),
                tuple(tokens),
                _card_detail(case),
            )
        )
    settings = [
        ("dataset", f"{run.dataset_name} {run.dataset_version}"),
        ("dataset file", run.dataset_path or "-"),
        ("signature", run.signature),
        ("threshold", f"{run.settings.threshold:g}"),
        ("strategy", run.settings.strategy),
        ("normalizer", run.settings.normalizer),
    ]
    return render_page(
        Page(
            title or f"lexeval cards: {run.dataset_name}",
            tuple(settings),
            summary,
            charts,
            tuple(Column(m) for m in METRICS),
            tuple(rows),
            (
                Filter("complete", "every expected card found"),
                Filter("incomplete", "some expected card missing"),
                Filter("extra", "extra generated cards"),
                Filter("no-output", "no output"),
            ),
            ("expected keywords",),
            ("A case passes when every expected card found a generated card.",),
        )
    )


def render_card_comparison(comparison: Comparison, *, title: str | None = None) -> str:
    """The HTML report of two compared card runs: metric deltas, the paired bootstrap interval
    of the per-case F1 delta, per-case deltas, regressed and improved cases."""
    summary = table(
        ["metric", "baseline", "candidate", "delta"],
        [
            (m.name, number(m.base), number(m.candidate), number(m.delta, signed=True))
            for m in comparison.metrics
        ],
    )
    verdict_class = "pass" if comparison.passed else "fail"
    summary = (
        f'<p class="{verdict_class}">{"PASS" if comparison.passed else "FAIL"}: '
        f"{esc(comparison.verdict)}</p>{summary}"
        f'<p class="note">{esc(comparison.interval_text)}</p>'
    )
    rows = []
    for case in comparison.cases:
        delta = case.delta
        token = "regressed" if delta < 0 else "improved" if delta > 0 else "unchanged"
        text = {"regressed": "F1 fell", "improved": "F1 rose", "unchanged": "same"}[token]
        cls = {"regressed": "fail", "improved": "pass", "unchanged": "none"}[token]
        rows.append(
            Row(
                case.case_id,
                (case.base_f1, case.candidate_f1, delta),
                (Verdict("change", text, cls),),
                (token,),
                f'<div class="evidence">F1 {number(case.base_f1)} → {number(case.candidate_f1)}'
                "</div>",
            )
        )
    notes = [f"only in baseline: {', '.join(comparison.only_in_base)}"] * bool(
        comparison.only_in_base
    ) + [f"only in candidate: {', '.join(comparison.only_in_candidate)}"] * bool(
        comparison.only_in_candidate
    )
    settings = [
        ("baseline", comparison.base.label),
        ("candidate", comparison.candidate.label),
        ("baseline signature", comparison.base.signature),
        ("candidate signature", comparison.candidate.signature),
        ("max drop", f"{comparison.max_drop:g}"),
    ]
    return render_page(
        Page(
            title or f"lexeval compare: {comparison.base.label} vs {comparison.candidate.label}",
            tuple(settings),
            summary,
            histogram(
                [c.delta for c in comparison.cases],
                low=-1.0,
                high=1.0,
                bins=20,
                label="per-case F1: candidate − baseline",
                marker=0.0,
            ),
            (Column("baseline F1"), Column("candidate F1"), Column("delta", signed=True)),
            tuple(rows),
            (
                Filter("regressed", "regressed"),
                Filter("improved", "improved"),
                Filter("unchanged", "unchanged"),
            ),
            (),
            (*notes, *comparison.warnings),
        )
    )
