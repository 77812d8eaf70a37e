"""The page every HTML report shares: one self-contained file (inline CSS, script and SVG; no
request leaves it, so it works from ``file://``), a case table sorted and filtered in the
browser, and the pieces the reports fill it with.

Every string from the data (ids, outputs, references, metric names, signatures) goes through
:func:`esc` (HTML escaping, quotes included); the script reads only ``data-`` attributes and
never turns text into markup.

>>> esc('<script>alert("x")</script>')
'&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'
>>> "<svg" in histogram([0.1, 0.5, 0.9], low=0.0, high=1.0)
True
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from lexeval.htmlreport.marks import Word
from lexeval.text.signature import short_signature

__all__ = [
    "Column",
    "Filter",
    "Page",
    "Row",
    "Verdict",
    "esc",
    "histogram",
    "marked_text",
    "number",
    "render_page",
    "setting_cell",
    "table",
]


def esc(value: object) -> str:
    """``value`` as text safe inside HTML elements and quoted attributes."""
    return html.escape(str(value), quote=True)


def number(value: float | None, digits: int = 3, *, signed: bool = False) -> str:
    """A score for a cell: ``-`` when missing or not finite."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


@dataclass(frozen=True, slots=True)
class Column:
    """A sortable numeric column of the case table (``signed``: shown as a delta)."""

    name: str
    signed: bool = False


@dataclass(frozen=True, slots=True)
class Filter:
    """A choice of the verdict filter: rows carrying ``token`` are shown."""

    token: str
    label: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """A verdict cell: its column (``label``), its text and its class (pass, fail, none)."""

    label: str
    text: str
    cls: str

    @classmethod
    def of(cls, label: str, passed: bool | None) -> Verdict:
        """``pass``, ``fail`` or ``-`` (no threshold)."""
        if passed is None:
            return cls(label, "-", "none")
        return cls(label, "pass", "pass") if passed else cls(label, "fail", "fail")


@dataclass(frozen=True, slots=True)
class Row:
    """One case: its id, a value per column, verdict cells, the filter tokens it carries and
    its detail (HTML built with :func:`esc`)."""

    case_id: str
    values: tuple[float | None, ...]
    verdicts: tuple[Verdict, ...]
    tokens: tuple[str, ...]
    detail: str


@dataclass(frozen=True, slots=True)
class Page:
    """What a report shows: a title, the settings, a summary block and charts (HTML), the case
    table (``columns``, ``rows``), the filter choices and, for evidence marks, the metrics
    whose keywords can be highlighted."""

    title: str
    settings: tuple[tuple[str, str], ...]
    summary: str
    charts: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    filters: tuple[Filter, ...]
    highlight: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], *, cls: str = "summary") -> str:
    """An HTML table; header and cells are text (escaped here)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def marked_text(words: Sequence[Word]) -> str:
    """Words as ``<span class="kw" data-match="0 2" data-missing="1">`` (metric indexes whose
    keywords they spell), the rest as escaped text."""
    parts: list[str] = []
    for word in words:
        if not word.is_word or not (word.matched or word.missing):
            parts.append(esc(word.text))
            continue
        attributes = ""
        if word.matched:
            attributes += f' data-match="{" ".join(map(str, word.matched))}"'
        if word.missing:
            attributes += f' data-missing="{" ".join(map(str, word.missing))}"'
        parts.append(f'<span class="kw"{attributes}>{esc(word.text)}</span>')
    return "".join(parts)


def histogram(
    values: Sequence[float],
    *,
    low: float,
    high: float,
    bins: int = 10,
    label: str = "",
    marker: float | None = None,
) -> str:
    """A small inline SVG histogram of ``values`` over ``[low, high]`` (``marker``: a dashed
    line, e.g. the pass threshold or zero)."""
    width, height, pad = 220, 80, 14
    finite = [v for v in values if math.isfinite(v)]
    counts = [0] * bins
    span = (high - low) or 1.0
    for v in finite:
        i = int((min(max(v, low), high) - low) / span * bins)
        counts[min(i, bins - 1)] += 1
    top = max(counts) or 1
    bar = (width - 2) / bins
    rects = []
    for i, c in enumerate(counts):
        h = (height - pad - 2) * c / top
        x = 1 + i * bar
        start = low + i * span / bins
        title = f"{start:.2f} to {start + span / bins:.2f}: {c}"
        rects.append(
            f'<rect class="bar" x="{x:.1f}" y="{height - pad - h:.1f}" width="{bar - 1:.1f}" '
            f'height="{h:.1f}"><title>{esc(title)}</title></rect>'
        )
    line = ""
    if marker is not None and low <= marker <= high:
        mx = 1 + (marker - low) / span * (width - 2)
        line = f'<line class="marker" x1="{mx:.1f}" x2="{mx:.1f}" y1="0" y2="{height - pad}"/>'
    axis = (
        f'<text x="1" y="{height - 2}">{esc(f"{low:g}")}</text>'
        f'<text x="{width - 1}" y="{height - 2}" text-anchor="end">{esc(f"{high:g}")}</text>'
    )
    caption = f"<figcaption>{esc(label)} (n = {len(finite)})</figcaption>" if label else ""
    return (
        f'<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{esc(label)}">{"".join(rects)}{line}{axis}</svg>{caption}</figure>'
    )


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1b1b1b;background:#fff}
h1{font-size:1.4em;margin:0 0 .4em}h2{font-size:1.1em;margin:1.2em 0 .4em}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;
vertical-align:top}th{background:#f4f4f4}
table.settings td:first-child{font-weight:600;white-space:nowrap}
table.settings td{font-family:ui-monospace,monospace;font-size:.85em;overflow-wrap:anywhere}
table.settings details>div{margin-top:.3em;color:#444}
.charts{display:flex;flex-wrap:wrap;gap:1em}figure.chart{margin:0}
figure.chart svg{border:1px solid #eee;background:#fafafa}
figure.chart figcaption{font-size:.85em;color:#555}
rect.bar{fill:#4a78b5}line.marker{stroke:#c33;stroke-dasharray:3 2}
svg text{font-size:9px;fill:#666}
.controls{margin:1em 0;display:flex;gap:1em;flex-wrap:wrap;align-items:center}
#cases td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
#cases td.id{font-family:ui-monospace,monospace;min-width:7em;max-width:16em;
overflow-wrap:anywhere}
.pass{color:#16701f}.fail{color:#b3261e;font-weight:600}.none{color:#777}
.neg{color:#b3261e}.pos{color:#16701f}
details>summary{cursor:pointer;color:#345}#cases td.detail{min-width:min(32em,80vw)}
.evidence{overflow-wrap:anywhere}
.scroll{overflow-x:auto}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em;margin:.4em 0}
.pair>div{border:1px solid #e3e3e3;padding:.4em;white-space:pre-wrap;word-break:break-word}
.pair h4{margin:0 0 .3em;font-size:.9em;color:#555}
.evidence{font-size:.9em;margin:.2em 0}
.kw{border-radius:2px}
.chip{display:inline-block;border-radius:3px;padding:0 .3em;margin:.1em;font-size:.9em}
.chip.match{background:#cdeccf}.chip.missing{background:#f6cdca}
.note{color:#555;font-size:.9em}
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var body = document.getElementById("cases").tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var sortBox = document.getElementById("sort");
  var filterBox = document.getElementById("filter");
  var markBox = document.getElementById("highlight");
  var counter = document.getElementById("shown");
  function key(row, column) {
    var text = row.getAttribute("data-v" + column);
    var value = text === null || text === "" ? NaN : Number(text);
    return isNaN(value) ? null : value;
  }
  function apply() {
    var choice = sortBox.value.split(":");
    var ordered = rows.slice();
    if (choice[0] === "id") {
      ordered.sort(function (a, b) {
        var x = a.getAttribute("data-id"), y = b.getAttribute("data-id");
        return x < y ? -1 : x > y ? 1 : 0;
      });
    } else if (choice[0] !== "order") {
      var column = choice[0], direction = choice[1] === "desc" ? -1 : 1;
      ordered.sort(function (a, b) {
        var x = key(a, column), y = key(b, column);
        if (x === null && y === null) { return 0; }
        if (x === null) { return 1; }
        if (y === null) { return -1; }
        return x === y ? 0 : (x < y ? -direction : direction);
      });
    }
    var token = filterBox.value, shown = 0, fragment = document.createDocumentFragment();
    ordered.forEach(function (row) {
      var tokens = (row.getAttribute("data-f") || "").split(" ");
      var visible = token === "" || tokens.indexOf(token) >= 0;
      row.hidden = !visible;
      shown += visible ? 1 : 0;
      fragment.appendChild(row);
    });
    body.appendChild(fragment);
    counter.textContent = String(shown);
  }
  function mark() {
    // the marks are CSS rules on the table's data-mark (one attribute change, any size)
    document.getElementById("cases").setAttribute("data-mark", markBox ? markBox.value : "");
  }
  sortBox.addEventListener("change", apply);
  filterBox.addEventListener("change", apply);
  if (markBox) { markBox.addEventListener("change", mark); }
  apply();
  mark();
}());
"""


def _mark_css(n_metrics: int) -> str:
    """The rules that colour the words of metric ``i``'s matched and missing keywords when the
    case table's ``data-mark`` is ``i``."""
    rules = []
    for i in range(n_metrics):
        on = f'#cases[data-mark="{i}"]'
        rules.append(f'{on} .kw[data-match~="{i}"]{{background:#cdeccf}}')
        rules.append(
            f'{on} .kw[data-missing~="{i}"]:not([data-match~="{i}"]){{background:#f6cdca}}'
        )
    return "".join(rules)


def _row_html(row: Row, columns: Sequence[Column]) -> str:
    attributes = [f'data-id="{esc(row.case_id)}"', f'data-f="{esc(" ".join(row.tokens))}"']
    cells = [f'<td class="id">{esc(row.case_id)}</td>']
    for i, (column, value) in enumerate(zip(columns, row.values, strict=True)):
        finite = value if value is not None and math.isfinite(value) else None
        attributes.append(f'data-v{i}="{"" if finite is None else repr(float(finite))}"')
        style = ""
        if column.signed and finite is not None:
            style = " neg" if finite < 0 else " pos" if finite > 0 else ""
        cells.append(f'<td class="num{style}">{number(value, signed=column.signed)}</td>')
    for verdict in row.verdicts:
        cells.append(
            f'<td class="{esc(verdict.cls)}" title="{esc(verdict.label)}">{esc(verdict.text)}</td>'
        )
    cells.append(f'<td class="detail"><details><summary>show</summary>{row.detail}</details></td>')
    return f"<tr {' '.join(attributes)}>{''.join(cells)}</tr>"


#: Characters of a setting shown before the rest is collapsed (a signature: its short form).
SETTING_SHOWN = 100


def setting_cell(value: str) -> str:
    """A setting's value as HTML: as it is when short; else its short form (a signature's
    :func:`~lexeval.text.signature.short_signature`, other text clipped) with the whole value
    one click away in a ``<details>``.

    >>> setting_cell("greedy")
    'greedy'
    >>> setting_cell("a|" * 60).startswith("<details><summary>a")
    True
    """
    if len(value) <= SETTING_SHOWN:
        return esc(value)
    short = short_signature(value) if "|" in value else value[: SETTING_SHOWN - 1] + "…"
    return f"<details><summary>{esc(short)}</summary><div>{esc(value)}</div></details>"


def _settings_table(settings: Sequence[tuple[str, str]]) -> str:
    rows = "".join(
        f"<tr><td>{esc(name)}</td><td>{setting_cell(value)}</td></tr>" for name, value in settings
    )
    return (
        '<table class="settings"><thead><tr><th>setting</th><th>value</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def render_page(page: Page) -> str:
    """The whole HTML document of ``page``."""
    settings = _settings_table(page.settings)
    sort_options = ['<option value="order">file order</option>', '<option value="id">id</option>']
    for i, column in enumerate(page.columns):
        for direction, arrow in (("asc", "ascending"), ("desc", "descending")):
            sort_options.append(
                f'<option value="{i}:{direction}">{esc(column.name)}, {arrow}</option>'
            )
    filter_options = ['<option value="">every case</option>'] + [
        f'<option value="{esc(f.token)}">{esc(f.label)}</option>' for f in page.filters
    ]
    highlight = ""
    if page.highlight:
        choices = ['<option value="">none</option>'] + [
            f'<option value="{i}"{" selected" if i == 0 else ""}>{esc(name)}</option>'
            for i, name in enumerate(page.highlight)
        ]
        highlight = (
            '<label>mark keywords of <select id="highlight">'
            + "".join(choices)
            + '</select></label> <span class="note">'
            '<span class="chip match">matched</span><span class="chip missing">missing</span>'
            "</span>"
        )
    verdict_names = [v.label for v in page.rows[0].verdicts] if page.rows else []
    header = (
        "<th>id</th>"
        + "".join(f"<th>{esc(c.name)}</th>" for c in page.columns)
        + "".join(f"<th>{esc(v)}</th>" for v in verdict_names)
        + "<th>detail</th>"
    )
    body = "".join(_row_html(row, page.columns) for row in page.rows)
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in page.notes)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        # No request may leave the page: nothing but inline styles, scripts and images.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(page.title)}</title><style>{_CSS}{_mark_css(len(page.highlight))}</style>"
        "</head><body>"
        f"<h1>{esc(page.title)}</h1>{notes}"
        f"<h2>Summary</h2>{page.summary}"
        f'<h2>Distributions</h2><div class="charts">{page.charts}</div>'
        f"<h2>Settings</h2>{settings}"
        f'<h2>Cases (<span id="shown">{len(page.rows)}</span> of {len(page.rows)} shown)</h2>'
        '<div class="controls">'
        f'<label>sort by <select id="sort">{"".join(sort_options)}</select></label>'
        f'<label>show <select id="filter">{"".join(filter_options)}</select></label>'
        f"{highlight}</div>"
        f'<div class="scroll"><table id="cases" data-mark="{0 if page.highlight else ""}">'
        f"<thead><tr>{header}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )
