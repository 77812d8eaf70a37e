"""HTML reports (``--html`` on score, cards and compare), read as text and driven in a real
browser: Debian's chromium, headless, through Playwright (``make test`` installs chromium; the
browser tests are skipped, with the reason, only where it cannot be found)."""

from __future__ import annotations

import html
import json
import os
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from lexeval.cli import main
from lexeval.htmlreport.marks import mark_words

HOSTILE = (
    "<script>window.__pwned = 1</script>"
    '<img src="https://example.invalid/x.png" onerror="window.__pwned = 2">'
)
RECORDS = [
    {"id": "c1", "reference": "The capital of France is Paris", "output": "Paris is the capital"},
    {"id": "c2", "reference": "Water boils at 100 degrees Celsius", "output": "It boils at 90"},
    {"id": "c3", "reference": "The cat sat on the mat", "output": "the cat sat on the mat"},
    {"id": '"><b>id</b>', "reference": "Berlin is in Germany", "output": "Berlin " + HOSTILE},
    {"id": "c5", "reference": "Rome is the capital of Italy", "output": "Madrid"},
]


ALLOWED_TAGS = {
    *("html", "head", "meta", "title", "style", "body", "h1", "h2", "h4", "p", "div", "span"),
    *("b", "br", "hr", "table", "thead", "tbody", "tr", "th", "td", "details", "summary"),
    *("label", "select", "option", "script", "figure", "figcaption", "svg", "rect", "line"),
    "text",
}


def _tags(text: str) -> list[tuple[str, list[str]]]:
    """Every start tag of ``text`` with its attribute names."""
    found: list[tuple[str, list[str]]] = []

    class Collector(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, [name for name, _ in attrs]))

    Collector().feed(text)
    return found


def _write_jsonl(path: Path, records: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["score", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, Path]:
    """(records, score --format json output, its HTML report)."""
    records = _write_jsonl(tmp_path / "records.jsonl", RECORDS)
    page = tmp_path / "report.html"
    code, out, err = _score(
        capsys,
        str(records),
        "--metric",
        "keyword_coverage,token_f1",
        "--threshold",
        "0.5",
        "--format",
        "json",
        "--html",
        str(page),
    )
    assert code == 0, err
    document = tmp_path / "a.json"
    document.write_text(out, encoding="utf-8")
    return records, document, page


# ---------------------------------------------------------------- the page as text


def test_marks_follow_normalized_evidence() -> None:
    words = mark_words(
        "Water boils at 90 degrees", {0: (["boil", "degre"], ["water"]), 1: (["at"], [])}
    )
    marked = {w.text: (w.matched, w.missing) for w in words if w.matched or w.missing}
    assert marked == {
        "Water": ((), (0,)),
        "boils": ((0,), ()),
        "at": ((1,), ()),
        "degrees": ((0,), ()),
    }
    phrase = mark_words("a neural network, not neural nets", {0: (["neural network"], [])})
    assert [w.text for w in phrase if w.matched] == ["neural", "network"]


def test_score_html_holds_every_case_escaped(scored: tuple[Path, Path, Path]) -> None:
    _, document, page = scored
    text = page.read_text(encoding="utf-8")
    assert text.count('<tr data-id="') == len(RECORDS)
    # untrusted strings are escaped wherever they appear
    assert "<script>window.__pwned" not in text and "<img src=" not in text
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in text
    assert 'data-id="&quot;&gt;&lt;b&gt;id&lt;/b&gt;"' in text
    # no address to fetch: no element or attribute that loads anything, no CSS url()
    tags = _tags(text)
    assert {name for name, _ in tags} <= ALLOWED_TAGS
    assert not {a for _, attributes in tags for a in attributes} & {"src", "href", "srcset"}
    assert "url(" not in text.split("</style>")[0] and "@import" not in text
    assert "default-src 'none'" in text
    # the signature and the matched and missing keywords
    results = json.loads(document.read_text(encoding="utf-8"))
    assert results["metrics"]["keyword_coverage"] in html.unescape(text)
    assert 'data-match="' in text and 'data-missing="' in text


def test_score_html_shows_corpus_figures_and_edits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """BLEU, TER and WER: the summary's corpus figure (labelled, beside the mean), as the
    terminal summary; each pair's edit operations, escaped (the output is data)."""
    edited = {
        "id": "e1",
        "reference": "the cat sat on the mat",
        "output": "the <b>cat</b> sat on mat",
    }
    records = [*RECORDS, edited]
    path = _write_jsonl(tmp_path / "records.jsonl", records)
    page = tmp_path / "report.html"
    code, out, err = _score(
        capsys,
        str(path),
        "--metric",
        "bleu,ter,wer,rouge1",
        "--option",
        "wer.compat=jiwer",
        "--format",
        "json",
        "--html",
        str(page),
    )
    assert code == 0, err
    summary = json.loads(out)["summary"]
    text = page.read_text(encoding="utf-8")
    n = len(records)
    for metric in ("bleu", "ter", "wer"):
        corpus, mean = summary[metric]["corpus"]["score"], summary[metric]["mean"]
        assert abs(corpus - mean) > 1e-3, metric  # else the test could not tell them apart
        assert f"<td>{metric} (corpus)</td><td>{n}</td><td>{corpus:.4f}</td>" in text, metric
        assert f"<td>{metric}</td><td>{n}</td><td>{mean:.4f}</td>" in text, metric
    assert "rouge1 (corpus)" not in text  # a mean is its corpus figure
    # the last pair's edits: WER (jiwer's words) substitutes the marked-up word, deletes "the"
    wer = json.loads(out)["results"][-1]["wer"]["info"]
    assert wer["substituted"] == [["cat", "<b>cat</b>"]] and wer["deleted"] == ["the"]
    shown = html.escape("substituted: cat-><b>cat</b>; deleted: the; inserted: ")
    assert f'<span class="edits">{shown}</span>' in text
    assert "<b>cat</b>" not in text
    assert {name for name, _ in _tags(text)} <= ALLOWED_TAGS


def test_html_is_never_written_over_an_input(
    scored: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    records, _, _ = scored
    before = records.read_bytes()
    code, out, err = _score(capsys, str(records), "--metric", "token_f1", "--html", str(records))
    assert code == 2 and out == "" and "FILE" in err and err.count("\n") == 1
    assert records.read_bytes() == before
    code, _, err = _score(capsys, str(records), "--metric", "token_f1", "--html", "/dev/null")
    assert code == 2 and "not a regular file" in err


def test_cards_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = tmp_path / "d.yaml"
    dataset.write_text(
        "name: d\nversion: '1'\ncases:\n"
        "  - id: '<i>c1</i>'\n    text: t\n    expected_cards:\n"
        "      - front_keywords: [capital, France]\n        back_keywords: [Paris]\n"
        "      - front_keywords: [river]\n        back_keywords: [Seine]\n",
        encoding="utf-8",
    )
    outputs = tmp_path / "o.jsonl"
    outputs.write_text(
        json.dumps({"case_id": "<i>c1</i>", "front": "Capital of France?", "back": HOSTILE}) + "\n",
        encoding="utf-8",
    )
    page, report = tmp_path / "cards.html", tmp_path / "cards.json"
    code = main(
        ["cards", str(dataset), str(outputs), "--quiet", "--html", str(page), "--json", str(report)]
    )
    capsys.readouterr()
    assert code == 0
    text = page.read_text(encoding="utf-8")
    assert text.count('<tr data-id="') == 1 and "&lt;i&gt;c1&lt;/i&gt;" in text
    assert {name for name, _ in _tags(text)} <= ALLOWED_TAGS
    assert "<script>window" not in text and 'class="chip missing">Seine<' in text
    assert main(["cards", str(dataset), str(outputs), "--quiet", "--html", str(dataset)]) == 2
    assert "DATASET" in capsys.readouterr().err
    # two card reports compared, with the HTML page of the comparison
    compared = tmp_path / "compare.html"
    assert main(["compare", str(report), str(report), "--html", str(compared)]) == 0
    capsys.readouterr()
    text = compared.read_text(encoding="utf-8")
    assert text.count('<tr data-id="') == 1 and "mean per-case F1 delta +0.000" in text


# ---------------------------------------------------------------- in the browser


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # On CI (where 'make test' installs both) a missing browser fails instead of skipping.
    on_ci = os.environ.get("CI") == "true"
    try:
        from playwright import sync_api as playwright_api
    except ImportError:
        if on_ci:
            pytest.fail("playwright is not installed (a dev dependency)")
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    executable = _chromium()
    if executable is None:
        if on_ci:
            pytest.fail("no chromium on PATH although 'make test' installs it")
        pytest.skip("no chromium on PATH ('make test' installs Debian's chromium)")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            yield launched
        finally:
            launched.close()


class Opened:
    """A page opened from ``file://``, with every request and console message it caused."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.url = path.resolve().as_uri()
        self.context = browser.new_context()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []

        def route(request_route: Any) -> None:
            if request_route.request.url == self.url:
                request_route.continue_()
            else:
                request_route.abort()

        self.context.route("**/*", route)
        self.page = self.context.new_page()
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", dialog)
        self.page.goto(self.url)
        self.page.wait_for_load_state("load")

    def visible_ids(self) -> list[str]:
        ids: list[str] = self.page.eval_on_selector_all(
            "#cases tbody tr", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.id)"
        )
        return ids

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def opened(browser: Any) -> Iterator[Any]:
    pages: list[Opened] = []

    def open_page(path: Path) -> Opened:
        pages.append(Opened(browser, path))
        return pages[-1]

    yield open_page
    for page in pages:
        page.close()


def _results(document: Path) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = json.loads(document.read_text(encoding="utf-8"))["results"]
    return results


def test_browser_renders_sorts_and_filters(scored: tuple[Path, Path, Path], opened: Any) -> None:
    _, document, page_path = scored
    results = _results(document)
    page = opened(page_path)
    assert page.visible_ids() == [r["id"] for r in results]  # every case, file order
    # sort by token_f1 (column 1), descending; ties keep file order
    page.page.select_option("#sort", "1:desc")
    by_score = sorted(results, key=lambda r: -r["token_f1"]["score"])
    assert page.visible_ids() == [r["id"] for r in by_score]
    page.page.select_option("#sort", "0:asc")
    by_kw = sorted(results, key=lambda r: r["keyword_coverage"]["score"])
    assert page.visible_ids() == [r["id"] for r in by_kw]
    # filter on keyword_coverage (metric 0) failing
    page.page.select_option("#filter", "m0:fail")
    failing = [r["id"] for r in by_kw if r["keyword_coverage"]["passed"] is False]
    assert failing and page.visible_ids() == failing
    assert page.page.inner_text("#shown") == str(len(failing))
    page.page.select_option("#filter", "m1:pass")
    assert page.visible_ids() == [r["id"] for r in by_kw if r["token_f1"]["passed"]]
    page.page.select_option("#filter", "")
    assert len(page.visible_ids()) == len(RECORDS)
    # matched and missing keywords are marked for the chosen metric, and only for it
    colours = """() => Array.from(document.querySelectorAll("span.kw")).map(
        s => [s.dataset.match || "", s.dataset.missing || "",
              getComputedStyle(s).backgroundColor])"""
    green, red, none = "rgb(205, 236, 207)", "rgb(246, 205, 202)", "rgba(0, 0, 0, 0)"

    def marked(metric: str) -> set[tuple[str, str]]:
        found = set()
        for match, missing, colour in page.page.evaluate(colours):
            expected = (
                green if metric in match.split() else red if metric in missing.split() else none
            )
            assert colour == expected, (match, missing, colour, metric)
            found.add((colour, metric))
        return found

    assert {(green, "0"), (red, "0")} <= marked("0")  # keyword_coverage, chosen at first
    page.page.select_option("#highlight", "1")
    assert {(green, "1"), (red, "1")} <= marked("1")
    page.page.select_option("#highlight", "")
    assert marked("none") == {(none, "none")}
    assert page.errors == [] and page.dialogs == []
    assert page.requests == [page.url]


def test_browser_keeps_injected_markup_as_text(
    scored: tuple[Path, Path, Path], opened: Any
) -> None:
    _, _, page_path = scored
    page = opened(page_path)
    hostile_row = page.page.locator("#cases tbody tr").nth(3)
    assert hostile_row.get_attribute("data-id") == '"><b>id</b>'
    hostile_row.locator("details summary").click()
    output = hostile_row.locator(".output").inner_text()
    assert "<script>window.__pwned = 1</script>" in output and "<img src=" in output
    assert page.page.evaluate("window.__pwned") is None
    assert page.page.locator("#cases script, #cases img, #cases td.id *").count() == 0
    assert page.errors == [] and page.dialogs == [] and page.requests == [page.url]


def test_browser_compare_page(
    scored: tuple[Path, Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    opened: Any,
) -> None:
    _, document, _ = scored
    better = [dict(r, output=r["reference"]) if r["id"] == "c2" else r for r in RECORDS]
    code, out, err = _score(
        capsys,
        str(_write_jsonl(tmp_path / "b.jsonl", better)),
        "--metric",
        "keyword_coverage,token_f1",
        "--threshold",
        "0.5",
        "--format",
        "json",
    )
    assert code == 0, err
    candidate = tmp_path / "b.json"
    candidate.write_text(out, encoding="utf-8")
    page_path = tmp_path / "compare.html"
    assert main(["compare", str(document), str(candidate), "--html", str(page_path)]) == 0
    capsys.readouterr()
    page = opened(page_path)
    assert len(page.visible_ids()) == len(RECORDS)
    page.page.select_option("#filter", "changed")
    assert page.visible_ids() == ["c2"]  # fail -> pass on keyword coverage
    page.page.select_option("#filter", "m0:up")
    assert page.visible_ids() == ["c2"]
    page.page.select_option("#filter", "")
    page.page.select_option("#sort", "0:desc")
    assert page.visible_ids()[0] == "c2"
    text = page.page.inner_text("body")
    assert "paired bootstrap over 5 records" in text and "PASS" in text
    assert page.errors == [] and page.dialogs == [] and page.requests == [page.url]


def test_browser_record_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: Any
) -> None:
    """``lexeval match --html`` on the worked invoice example: every case, the parse error and
    the missing output filterable, a hostile field value shown as text."""
    examples = Path(__file__).resolve().parents[2] / "examples" / "invoices"
    outputs = tmp_path / "outputs.jsonl"
    hostile = {"case_id": "inv-005", "records": [{"description": "<img src=x onerror=alert(1)>"}]}
    text = (examples / "outputs.jsonl").read_text(encoding="utf-8")
    outputs.write_text(text + json.dumps(hostile) + "\n", encoding="utf-8")
    page_path = tmp_path / "invoices.html"
    argv = ["match", str(examples / "dataset.yaml"), str(outputs), "--html", str(page_path)]
    assert main([*argv, "--quiet"]) == 0
    capsys.readouterr()
    page = opened(page_path)
    assert page.visible_ids() == ["inv-001", "inv-002", "inv-003", "inv-004", "inv-005"]
    page.page.select_option("#filter", "parse-error")
    assert page.visible_ids() == ["inv-004"]
    page.page.select_option("#filter", "extra")
    assert page.visible_ids() == ["inv-003", "inv-005"]
    page.page.select_option("#filter", "")
    row = page.page.locator("#cases tbody tr").nth(4)
    row.locator("details summary").click()
    assert "<img src=x onerror=alert(1)>" in row.inner_text()
    assert page.page.locator("#cases img").count() == 0
    body = page.page.inner_text("body")
    assert "unit_price" in body and "number(tolerance=0.01)" in body
    assert page.errors == [] and page.dialogs == [] and page.requests == [page.url]


LONG = "The mitochondria is the powerhouse of the cell and makes ATP by oxidative phosphorylation. "
LAYOUT_RECORDS = [
    {"id": f"case-{i}-with-a-longer-identifier", "reference": LONG * 6, "output": LONG * (i + 2)}
    for i in range(3)
] + [{"id": "x" * 80, "reference": "a " + "b" * 300, "output": "c" * 400}]


@pytest.mark.parametrize("width", [420, 1400, 1900])
def test_browser_layout_at_narrow_and_wide_windows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: Any, width: int
) -> None:
    """Long ids, texts and evidence lists: the id column keeps a readable width (it used to
    wrap one character per line), each opened detail fits in its cell, the case table fits a
    wide window (the detail column was cut beyond 1,400 px), and the ~900-character settings
    strings are collapsed to their short form, the full one a click away."""
    records = _write_jsonl(tmp_path / "long.jsonl", LAYOUT_RECORDS)
    page_path = tmp_path / "long.html"
    metrics = "keyword_coverage,token_f1,rougeL,rouge1"
    code, out, err = _score(
        capsys,
        str(records),
        "--metric",
        metrics,
        "--threshold",
        "0.5",
        "--format",
        "json",
        "--html",
        str(page_path),
    )
    assert code == 0, err
    signatures = json.loads(out)["metrics"]
    page = opened(page_path)
    page.page.set_viewport_size({"width": width, "height": 900})
    page.page.eval_on_selector_all(
        "#cases td.detail details", "ds => ds.forEach(d => d.open = true)"
    )
    layout = page.page.evaluate(
        """() => {
        const em = parseFloat(getComputedStyle(document.querySelector('#cases td.id')).fontSize);
        const box = document.querySelector('.scroll');
        return {
          em: em,
          ids: Array.from(document.querySelectorAll('#cases td.id'),
                          td => td.getBoundingClientRect().width),
          overflowing: Array.from(document.querySelectorAll('#cases td.detail'))
                            .filter(td => td.scrollWidth > td.clientWidth + 1).length,
          tableWidth: box.scrollWidth, boxWidth: box.clientWidth,
          settings: Array.from(document.querySelectorAll('table.settings tbody tr'),
                               tr => tr.innerText.length),
        };
    }"""
    )
    assert min(layout["ids"]) >= 6 * layout["em"], layout["ids"]  # not one character a line
    assert layout["overflowing"] == 0
    if width >= 1400:
        assert layout["tableWidth"] <= layout["boxWidth"], layout  # nothing cut at the right
    assert max(layout["settings"]) < 300, layout["settings"]  # collapsed: short forms only
    page.page.eval_on_selector_all("table.settings details", "ds => ds.forEach(d => d.open = true)")
    shown = page.page.inner_text("table.settings")
    for signature in signatures.values():
        assert signature in shown.replace("\n", "")
    assert page.errors == [] and page.requests == [page.url]
