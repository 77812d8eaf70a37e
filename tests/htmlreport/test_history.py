"""The history page of a run store (``lexeval runs html``) in Chromium, as the other HTML
reports are tested (tests/htmlreport/test_reports.py): at a phone's width and a desktop's, the page
fits the window, draws a trend per metric, its links go from run to run, and it makes no
request and no error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lexeval.cli import main
from lexeval.runs import RunStore
from tests.htmlreport.test_reports import Opened
from tests.htmlreport.test_reports import browser as chromium

assert chromium  # the module-scoped browser fixture (registered here under this name)


def _document(means: dict[str, float]) -> dict[str, Any]:
    return {
        "metrics": {name: f"{name}|v:1" for name in means},
        "summary": {name: {"mean": mean} for name, mean in means.items()},
        "results": [{"line": 1, **{n: {"score": m} for n, m in means.items()}}],
    }


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 6 scored runs (two metrics) and 2 card runs, and its history page."""
    root = tmp_path_factory.mktemp("history")
    store = root / "runs.sqlite"
    with RunStore.open(store, create=True) as opened:
        for i, (a, b) in enumerate(
            [(0.5, 0.2), (0.55, 0.3), (0.4, 0.35), (0.6, 0.5), (0.62, 0.55), (0.7, 0.6)]
        ):
            label = "<script>window.__pwned=1</script>" if i == 2 else f"prompt v{i + 1}"
            opened.save(
                "score",
                _document({"rouge1": a, "token_f1": b}),
                label=label,
                command=["lexeval", "score", "answers.jsonl", "--save"] + ["x" * 60] * 3,
                detect_git=False,
            )
        for f1 in (0.7, 0.8):
            opened.save(
                "cards",
                {"totals": {"micro": {"f1": f1, "recall": f1}, "macro": {"f1": f1 - 0.1}}},
                detect_git=False,
            )
        opened.bless(4, "main")
    page = root / "history.html"
    assert main(["runs", "html", "--store", str(store), "--out", str(page)]) == 0
    return page


@pytest.fixture
def window(chromium: Any) -> Iterator[Any]:
    pages: list[Opened] = []

    def open_page(path: Path, width: int, height: int) -> Opened:
        opened = Opened(chromium, path)
        opened.page.set_viewport_size({"width": width, "height": height})
        opened.page.wait_for_timeout(50)
        pages.append(opened)
        return opened

    yield open_page
    for page in pages:
        page.close()


@pytest.mark.parametrize("size", [(360, 740), (1400, 900)], ids=["narrow", "wide"])
def test_history_page_in_chromium(history: Path, window: Any, size: tuple[int, int]) -> None:
    opened = window(history, *size)
    page = opened.page
    # nothing wider than the window: the page never scrolls sideways
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, overflow
    # one trend per kind and metric with points, each drawn inside the window
    charts = page.eval_on_selector_all(
        "figure.trend",
        """figures => figures.map(f => {
            const box = f.querySelector('svg').getBoundingClientRect();
            return [f.dataset.metric, f.querySelectorAll('circle').length, box.width, box.right];
        })""",
    )
    metrics = {name: count for name, count, _, _ in charts}
    assert metrics == {
        "score: rouge1": 6,
        "score: token_f1": 6,
        "cards: micro.recall": 2,
        "cards: micro.f1": 2,
        "cards: macro.f1": 2,
    }
    for _, _, width, right in charts:
        assert width > 150 and right <= size[0] + 0.5
    # the blessed run is marked on every trend of its kind
    assert page.locator("circle.point.blessed").count() == 2
    # a point links to its run's summary, which links to the previous and next runs
    page.locator('figure[data-metric="score: rouge1"] a').nth(3).click()
    assert page.evaluate("location.hash") == "#run-4"
    section = page.locator("#run-4")
    assert section.is_visible() and "baseline main" in section.inner_text()
    assert page.evaluate("document.querySelector('#run-4').getBoundingClientRect().top") < size[1]
    section.locator("a.next").click()
    assert page.evaluate("location.hash") == "#run-5"
    page.locator("#run-5 a.previous").click()
    page.locator("#run-4 a.previous").click()
    assert page.evaluate("location.hash") == "#run-3"
    # the change from the previous run, signed and coloured
    assert "-0.1500" in page.locator("#run-3 table.means").inner_text()
    # card runs link among themselves, not to scored runs
    assert page.locator("#run-8 a.previous").get_attribute("href") == "#run-7"
    assert page.locator("#run-7 a.previous").count() == 0
    # untrusted labels stay text
    assert "<script>window.__pwned=1</script>" in page.locator("#run-3 h3").inner_text()
    assert page.evaluate("window.__pwned") is None
    assert opened.errors == [] and opened.dialogs == [] and opened.requests == [opened.url]


def test_history_of_an_empty_store(tmp_path: Path, window: Any) -> None:
    store = tmp_path / "runs.sqlite"
    RunStore.open(store, create=True).close()
    page = tmp_path / "empty.html"
    assert main(["runs", "html", "--store", str(store), "--out", str(page)]) == 0
    opened = window(page, 360, 740)
    assert "no run has a mean to draw yet" in opened.page.inner_text("body")
    assert json.loads("[]") == [] and opened.errors == []
