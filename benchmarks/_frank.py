"""FRANK (Pagnoni et al., NAACL 2021; github artidoro/frank, MIT): 2,246 summaries of CNN/DM
(5 systems x 250 articles) and XSum/BBC (4 systems x 249 articles) with people's factuality
(``Factuality`` of ``human_annotations.json``: the share of the summary's sentences without a
factual error, 0..1), for source support: ``measure(input=summary, output=article)``.

The corpus is not in the repository (nor in ../shared): put it in a folder and name it with the
``LEXEVAL_FRANK_DIR`` environment variable (default ``/work/wt/data/frank``):

* ``human_annotations.json``: ``data/human_annotations.json`` of artidoro/frank (HEAD);
* ``articles/<hash>.json``: the per-article files of ``data/articles-wbertscore-json/`` at
  artidoro/frank commit 5860706 (the article and each system's summary; the later
  ``benchmark_data.json`` holding the same texts is stored with Git LFS).

Benchmarks skip FRANK with a message when the folder is absent.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DIR = "/work/wt/data/frank"


@dataclass(frozen=True)
class FrankItem:
    summary: str
    article: str
    factuality: float
    dataset: str  # "cnndm" or "bbc"
    system: str
    doc: str
    split: str  # FRANK's "valid" or "test"


def frank_dir() -> Path | None:
    """The FRANK folder, or None (with a message on stderr) when it is absent."""
    path = Path(os.environ.get("LEXEVAL_FRANK_DIR", DEFAULT_DIR))
    if not (path / "human_annotations.json").is_file() or not (path / "articles").is_dir():
        print(
            f"FRANK skipped: {path} has no human_annotations.json and articles/ "
            "(set LEXEVAL_FRANK_DIR; see benchmarks/_frank.py)",
            file=sys.stderr,
        )
        return None
    return path


def load_frank() -> list[FrankItem] | None:
    """Every annotated FRANK summary with its article and human factuality (None if absent)."""
    path = frank_dir()
    if path is None:
        return None
    annotations = json.loads((path / "human_annotations.json").read_text(encoding="utf-8"))
    articles: dict[str, dict[str, object]] = {}
    items: list[FrankItem] = []
    for row in annotations:
        doc = row["hash"]
        if doc not in articles:
            articles[doc] = json.loads((path / "articles" / f"{doc}.json").read_text("utf-8"))
        article = articles[doc]
        summary = article[row["model_name"]]
        if not isinstance(summary, str) or not isinstance(article["article"], str):
            raise SystemExit(f"FRANK: no summary of {row['model_name']} for {doc}")
        items.append(
            FrankItem(
                summary=summary,
                article=article["article"],
                factuality=float(row["Factuality"]),
                dataset=row["dataset"],
                system=row["model_name"],
                doc=doc,
                split=row["split"],
            )
        )
    return items
