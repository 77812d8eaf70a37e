"""The history page of a run store (``lexeval runs html``): each metric's headline figure over
the saved runs (:meth:`lexeval.runs.StoredRun.figures`: the corpus figure of BLEU, chrF, TER,
WER and CER where stored, else the mean) as an inline SVG line per kind of run, the list of
runs, and each run's summary (command, version, commit, baselines, corpus figures and means
with their change from the previous run of its kind) linked to the previous and next runs.
One self-contained file, no script, no request.

>>> from lexeval.runs import StoredRun
>>> runs = [StoredRun(1, "score", "v1", "2026-01-01T00:00:00+00:00", ("lexeval",), "0.1.0",
...                   None, {"rouge1": 0.5}),
...         StoredRun(2, "score", "<b>v2", "2026-01-02T00:00:00+00:00", ("lexeval",), "0.1.0",
...                   "abc", {"rouge1": 0.75}, ("main",))]
>>> page = render_history(runs)
>>> 'href="#run-2"' in page and "&lt;b&gt;v2" in page and "<b>v2" not in page
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lexeval.htmlreport.page import esc, number
from lexeval.runs import StoredRun

__all__ = ["render_history", "trend_chart"]

_CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:1em;max-width:70em;color:#1b1b1b;
background:#fff;overflow-wrap:anywhere}
h1{font-size:1.4em;margin:0 0 .4em}h2{font-size:1.15em;margin:1.4em 0 .4em}
h3{font-size:1em;margin:0 0 .3em}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;
vertical-align:top}th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:
tabular-nums;white-space:nowrap}
.scroll{overflow-x:auto;max-width:100%}
table.runs td,table.runs th{overflow-wrap:normal;white-space:nowrap}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,22em),1fr));
gap:1em}
figure.trend{margin:0;border:1px solid #eee;background:#fafafa;padding:.4em}
figure.trend svg{display:block;width:100%;height:auto}
figure.trend figcaption{font-size:.85em;color:#444}
polyline.line{fill:none;stroke:#4a78b5;stroke-width:2}
circle.point{fill:#4a78b5}circle.point.blessed{fill:#fff;stroke:#c47f00;stroke-width:3}
svg text{font-size:11px;fill:#666}line.grid{stroke:#ddd}
section.run{border:1px solid #e3e3e3;border-radius:4px;padding:.6em .8em;margin:.8em 0}
section.run:target{border-color:#4a78b5;box-shadow:0 0 0 2px #cfe0f5}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1em .8em;margin:.3em 0}
dt{font-weight:600}dd{margin:0;font-family:ui-monospace,monospace;font-size:.9em;
word-break:break-all}
.nav{display:flex;flex-wrap:wrap;gap:1em;margin:.4em 0 0;font-size:.9em}
.neg{color:#b3261e}.pos{color:#16701f}.note{color:#555;font-size:.9em}
.badge{display:inline-block;border-radius:3px;padding:0 .35em;background:#fdecc8;
font-size:.85em}
"""


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def trend_chart(
    kind: str,
    metric: str,
    points: Sequence[tuple[StoredRun, float]],
    *,
    width: int = 400,
    figure: str = "mean",
) -> str:
    """An inline SVG line of ``metric``'s ``figure`` (``mean`` or ``corpus``) over ``points``
    (run, value), oldest first; each point links to its run's summary, blessed runs drawn as
    rings."""
    height, left, right, top, bottom = 160, 34, 10, 10, 22
    values = [v for _, v in points]
    low, high = min([0.0, *values]), max([1.0, *values])
    span = (high - low) or 1.0
    inner_w, inner_h = width - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + (inner_w / 2 if len(points) == 1 else inner_w * i / (len(points) - 1))

    def y(v: float) -> float:
        return top + inner_h * (1 - (v - low) / span)

    grid = "".join(
        f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
        f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{esc(f"{v:g}")}</text>'
        for v in (low, (low + high) / 2, high)
    )
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, (_, v) in enumerate(points))
    dots = "".join(
        f'<a href="#run-{r.id}"><circle class="point{" blessed" if r.baselines else ""}" '
        f'cx="{x(i):.1f}" cy="{y(v):.1f}" r="5" data-run="{r.id}"><title>'
        f"{esc(f'run {r.id}' + (f' ({r.label})' if r.label else '') + f': {v:.4f}')}"
        "</title></circle></a>"
        for i, (r, v) in enumerate(points)
    )
    first, last = points[0][0], points[-1][0]
    axis = f'<text x="{x(0):.1f}" y="{height - 5}" text-anchor="middle">run {first.id}</text>'
    if len(points) > 1:
        axis += (
            f'<text x="{x(len(points) - 1):.1f}" y="{height - 5}" text-anchor="end">'
            f"run {last.id}</text>"
        )
    label = f"{kind}: {metric}" + (" (corpus)" if figure == "corpus" else "")
    return (
        f'<figure class="trend" data-metric="{esc(label)}"><svg xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(label)}">{grid}'
        f'<polyline class="line" points="{line}"/>{dots}{axis}</svg>'
        f"<figcaption>{esc(label)} ({esc(figure)}, {len(points)} runs)</figcaption></figure>"
    )


def _series(
    runs: Sequence[StoredRun],
) -> list[tuple[str, str, str, list[tuple[StoredRun, float]]]]:
    """(kind, metric, figure, points) for every headline figure of every kind, in order of
    first appearance (a metric's corpus figures and means are separate lines)."""
    series: dict[tuple[str, str, str], list[tuple[StoredRun, float]]] = {}
    for run in runs:
        for metric, figure in run.figures().items():
            finite = _finite(figure.value)
            points = series.setdefault((run.kind, metric, figure.kind), [])
            if finite is not None:
                points.append((run, finite))
    return [(*key, points) for key, points in series.items() if points]


def _rows(run: StoredRun) -> dict[tuple[str, str], float | None]:
    """A run's figures for its summary, keyed (metric, figure): the corpus figure, then the
    mean, of a corpus-level metric; the mean of any other."""
    rows: dict[tuple[str, str], float | None] = {}
    for metric, figure in run.figures().items():
        if figure.kind == "corpus":
            rows[metric, "corpus"] = figure.value
        rows[metric, "mean"] = run.means[metric]
    return rows


def _run_section(run: StoredRun, before: StoredRun | None, after: StoredRun | None) -> str:
    title = f"run {run.id}" + (f": {run.label}" if run.label else "")
    badges = "".join(f' <span class="badge">baseline {esc(n)}</span>' for n in run.baselines)
    fields = [
        ("kind", run.kind),
        ("created", run.created),
        ("command", " ".join(run.command) or "-"),
        ("lexeval", run.lexeval_version),
        ("git commit", run.git_commit or "-"),
    ]
    details = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in fields)
    rows = []
    earlier = _rows(before) if before is not None else {}
    for (metric, figure), value in _rows(run).items():
        previous = _finite(earlier.get((metric, figure)))
        current = _finite(value)
        delta = None if previous is None or current is None else current - previous
        style = "" if not delta else " neg" if delta < 0 else " pos"
        rows.append(
            f'<tr><td>{esc(metric)}</td><td>{esc(figure)}</td><td class="num">'
            f'{number(value, 4)}</td><td class="num{style}">{number(delta, 4, signed=True)}'
            "</td></tr>"
        )
    versus = f"change from run {before.id}" if before is not None else "change"
    means = (
        '<div class="scroll"><table class="means"><thead><tr><th>metric</th><th>figure</th>'
        f"<th>value</th><th>{esc(versus)}</th></tr></thead><tbody>{''.join(rows)}</tbody>"
        "</table></div>"
        if rows
        else '<p class="note">no per-metric means</p>'
    )
    nav = []
    if before is not None:
        nav.append(
            f'<a class="previous" href="#run-{before.id}">← previous {esc(run.kind)} run '
            f"({before.id})</a>"
        )
    if after is not None:
        nav.append(
            f'<a class="next" href="#run-{after.id}">next {esc(run.kind)} run ({after.id}) →</a>'
        )
    nav.append('<a href="#runs">all runs</a>')
    return (
        f'<section class="run" id="run-{run.id}"><h3>{esc(title)}{badges}</h3>'
        f'<dl>{details}</dl>{means}<div class="nav">{"".join(nav)}</div></section>'
    )


def render_history(runs: Sequence[StoredRun], *, store: str = "", title: str | None = None) -> str:
    """The history page of ``runs`` (oldest first, as :meth:`lexeval.runs.RunStore.list`
    gives them)."""
    charts = "".join(
        trend_chart(kind, metric, points, figure=figure)
        for kind, metric, figure, points in _series(runs)
    )
    if not charts:
        charts = '<p class="note">no run has a mean to draw yet</p>'
    listing = "".join(
        f'<tr><td class="num"><a href="#run-{r.id}">{r.id}</a></td><td>{esc(r.label or "-")}</td>'
        f"<td>{esc(r.kind)}</td><td>{esc(r.created)}</td>"
        f"<td>{esc(', '.join(r.baselines) or '-')}</td></tr>"
        for r in reversed(runs)
    )
    sections = []
    by_kind: dict[str, list[StoredRun]] = {}
    for run in runs:
        by_kind.setdefault(run.kind, []).append(run)
    neighbours: dict[int, tuple[StoredRun | None, StoredRun | None]] = {}
    for same in by_kind.values():
        for i, run in enumerate(same):
            neighbours[run.id] = (
                same[i - 1] if i > 0 else None,
                same[i + 1] if i + 1 < len(same) else None,
            )
    for run in reversed(runs):
        sections.append(_run_section(run, *neighbours[run.id]))
    heading = title or f"lexeval run history ({len(runs)} runs)"
    source = f'<p class="note">store: {esc(store)}</p>' if store else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(heading)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{esc(heading)}</h1>{source}"
        f'<h2>Trends</h2><div class="charts">{charts}</div>'
        '<h2 id="runs">Runs (newest first)</h2><div class="scroll"><table class="runs">'
        "<thead><tr><th>id</th><th>label</th><th>kind</th><th>created</th><th>baseline</th>"
        f"</tr></thead><tbody>{listing}</tbody></table></div>"
        f"{''.join(sections)}</body></html>\n"
    )
