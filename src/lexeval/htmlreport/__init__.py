"""HTML reports: one self-contained page per scored run, card run, record run or comparison.

Each page embeds its data as escaped HTML, sorts and filters the cases with an inline script,
draws the score distributions as inline SVG and makes no request (a Content-Security-Policy
forbids any): it opens from ``file://`` and can be attached to a CI run. Ids, outputs and
references are untrusted and always escaped. :func:`write_html` writes a page atomically and
never over one of the run's inputs (:func:`lexeval.io.write_text_atomic`).

>>> import pathlib, tempfile
>>> from lexeval.run.batch import Record, score_records
>>> from lexeval import get_metric
>>> from lexeval.scored import ScoredRun
>>> records = [Record(1, "a", "the cat sat", "the cat"), Record(2, "b", "a dog", "<script>")]
>>> metrics = {"rouge1": get_metric("rouge1", threshold=0.5)}
>>> run = ScoredRun.from_results(records, score_records(metrics, records),
...                              {"rouge1": metrics["rouge1"].signature})
>>> target = pathlib.Path(tempfile.mkdtemp()) / "report.html"
>>> write_html(target, render_scored(run))
>>> page = target.read_text(encoding="utf-8")
>>> page.startswith("<!DOCTYPE html>"), "<script>" in page.split("<script>")[0]
(True, False)
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from lexeval.htmlreport.cards import render_card_comparison, render_cards
from lexeval.htmlreport.records import render_records_page
from lexeval.htmlreport.scored import render_scored, render_scored_comparison, scored_page
from lexeval.io import write_text_atomic

__all__ = [
    "render_card_comparison",
    "render_cards",
    "render_records_page",
    "render_scored",
    "render_scored_comparison",
    "scored_page",
    "write_html",
]


def write_html(
    path: str | os.PathLike[str],
    page: str,
    *,
    inputs: Mapping[str, str | os.PathLike[str] | None] | None = None,
) -> None:
    """Write an HTML ``page`` to ``path`` atomically; ``inputs`` (label -> path) are refused
    as targets."""
    write_text_atomic(path, page, inputs=inputs)
