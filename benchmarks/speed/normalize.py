"""Normalizer speed on SummEval: lexeval's default normalizer against str.split and spaCy's pipe.

Run: ``.venv/bin/python benchmarks/speed/normalize.py``. Texts: the 100 SummEval source articles and
the 1,200 abstractive summaries (``../shared/data/summeval``), timed in one process.

- ``lexeval cold``: a new Normalizer in a fresh process state (loads spaCy and its tables) on
  every text once;
- ``lexeval fresh cache``: a new Normalizer (spaCy already loaded, empty chunk cache);
- ``lexeval warm``: the same Normalizer again over the same texts (chunk cache filled);
- ``str.lower().split()``: the floor, no normalization at all;
- ``spaCy nlp.pipe``: ``spacy.blank("en")`` with the lookup lemmatizer, reading ``lemma_``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path, timed


def load_texts() -> list[str]:
    path = shared_path("data", "summeval", "summeval_abstractive_12sys.aligned.jsonl")
    articles: dict[str, None] = {}
    summaries: list[str] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            articles.setdefault(row["text"], None)
            summaries.append(row["decoded"])
    return list(articles) + summaries


def main() -> None:
    texts = load_texts()
    words = sum(len(t.split()) for t in texts)
    print(f"{len(texts):,} texts, {words:,} white-space words")

    start = time.perf_counter()
    from lexeval.normalize import Normalizer

    cold_norm = Normalizer()
    for text in texts:
        cold_norm.tokens(text)
    cold = time.perf_counter() - start

    def fresh_normalizer() -> list[list[str]]:
        norm = Normalizer()
        return [norm.tokens(t) for t in texts]

    fresh, _ = timed(fresh_normalizer, repeat=3)
    warm_norm = Normalizer()
    warm_norm.tokens(texts[0])
    warm, _ = timed(lambda: [warm_norm.tokens(t) for t in texts], repeat=5)
    split, _ = timed(lambda: [t.lower().split() for t in texts], repeat=5)

    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
    nlp.initialize()

    def spacy_pipe() -> list[list[str]]:
        return [[t.lemma_.lower() for t in doc] for doc in nlp.pipe(texts)]

    spacy_pipe()
    spacy_time, _ = timed(spacy_pipe, repeat=3)

    rows: list[tuple[str, float]] = [
        ("lexeval cold (incl. loading spaCy)", cold),
        ("lexeval fresh cache", fresh),
        ("lexeval warm", warm),
        ("str.lower().split()", split),
        ("spaCy nlp.pipe + lookup lemmatizer", spacy_time),
    ]
    rate: Callable[[float], float] = lambda seconds: words / seconds  # noqa: E731
    for name, seconds in rows:
        print(f"{name:38s} {rate(seconds):>14,.0f} words/s  ({seconds:.3f} s)")
    print(f"warm / spaCy pipe ratio:        {spacy_time / warm:6.2f}x")
    print(f"fresh cache / spaCy pipe ratio: {spacy_time / fresh:6.2f}x")
    print(f"warm / str.split ratio:         {split / warm:8.4f}x")
    target = 100_000
    print(f"target >= {target:,} words/s warm: {'met' if rate(warm) >= target else 'NOT met'}")


if __name__ == "__main__":
    main()
