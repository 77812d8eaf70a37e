"""Helpers shared by the notebooks: find ``../shared``, load its data or the bundled sample.

``../shared`` (beside the checkout) holds public data with their own licences; it is never
copied into the repository. When it is absent, or when the environment variable
``LEXEVAL_SHARED=none`` asks for it, the notebooks use ``notebooks/sample/``: a few hand-written
pairs in the same formats, enough to run every cell but not to measure anything.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "sample"


def find_shared(start: Path | None = None) -> Path | None:
    """The ``shared`` directory (with ``data/``) beside the checkout, or None.

    ``LEXEVAL_SHARED`` overrides the search: a path, or ``none`` to force the bundled sample.
    Otherwise the working directory and its parents are searched for ``shared/data``.
    """
    env = os.environ.get("LEXEVAL_SHARED")
    if env is not None:
        if env.strip().lower() in ("", "none", "0", "no"):
            return None
        path = Path(env).expanduser().resolve()
        return path if (path / "data").is_dir() else None
    here = (start or Path.cwd()).resolve()
    for parent in (here, *here.parents):
        candidate = parent / "shared"
        if (candidate / "data").is_dir():
            return candidate
    return None


@dataclass(frozen=True)
class Source:
    """Where the data of a section came from."""

    shared: Path | None

    @property
    def real(self) -> bool:
        return self.shared is not None

    def announce(self, what: str) -> None:
        if self.shared is not None:
            print(f"{what}: real data from ../shared ({self.shared.name}/data)")
        else:
            print(
                f"{what}: ../shared/data not found, using the small bundled sample in "
                "notebooks/sample/ (hand-written; the figures below illustrate, they measure "
                "nothing)"
            )


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def keyword_examples(src: Source) -> list[dict[str, Any]]:
    """Mastra's documentation examples ({id, input, output} plus, with ../shared, the real
    Mastra result as ``expected``), or the sample's own pairs."""
    if src.shared is None:
        return _jsonl(SAMPLE / "keyword_pairs.jsonl")
    base = src.shared / "oracles" / "mastra"
    rows = _jsonl(base / "docs_examples.jsonl")
    expected = {e["id"]: e for e in _jsonl(base / "docs_examples.expected.jsonl")}
    for row in rows:
        row["expected"] = expected.get(row["id"])
    return rows


def mastra_nlp_oracle(src: Source) -> list[dict[str, Any]] | None:
    """The 441 cases of ``../shared/oracles/mastra`` with what the real ``@mastra/evals``
    0.14.4 NLP metrics returned for them (``oracles/mastra_nlp``); None without ../shared."""
    if src.shared is None:
        return None
    base = src.shared / "oracles"
    cases = _jsonl(base / "mastra" / "cases.jsonl")
    expected = _jsonl(base / "mastra_nlp" / "expected.jsonl")
    return [{**c, **e} for c, e in zip(cases, expected, strict=True)]


def summeval(src: Source) -> list[dict[str, Any]]:
    """SummEval rows: doc_id, model_id, decoded, references (11), expert_avg."""
    if src.shared is None:
        return _jsonl(SAMPLE / "summeval_sample.jsonl")
    return _jsonl(src.shared / "data" / "summeval" / "summeval_expert_avg_11refs.jsonl")


EVOUNA_SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")


def evouna(src: Source, name: str = "NQ") -> list[tuple[list[str], str, bool]]:
    """(gold alternatives, answer, human judgment) for every judged answer; improper
    questions skipped; gold alternatives are the ``/``-separated parts of ``golden_answer``."""
    if src.shared is None:
        rows = _jsonl(SAMPLE / "qa_sample.jsonl")
    else:
        path = src.shared / "data" / "qa_human" / "evouna" / f"{name}.json"
        with open(path, encoding="utf-8") as fh:
            rows = json.load(fh)
    items: list[tuple[list[str], str, bool]] = []
    for row in rows:
        if row.get("improper"):
            continue
        golds = [g.strip() for g in row["golden_answer"].split("/") if g.strip()]
        for system in EVOUNA_SYSTEMS:
            answer, judge = row.get(f"answer_{system}"), row.get(f"judge_{system}")
            if golds and isinstance(answer, str) and isinstance(judge, bool):
                items.append((golds, answer, judge))
    return items


@dataclass(frozen=True)
class JudgedAnswer:
    """One NQ301 answer: gold alternatives, the answer, the human label, recorded verdicts."""

    golds: list[str]
    answer: str
    human: bool
    verdicts: dict[str, bool]


def nq301(src: Source) -> list[JudgedAnswer] | None:
    """NQ301 with the HUMAN label (``Acceptable?`` of NQ301_human.tsv; gold answers from
    NQ301_BEM.tsv, whose own ``Acceptable?`` is BEM's decision) and the recorded verdicts of
    GPT-4, text-davinci-003 (its verdict sits in the shifted ``Model answer`` column) and BEM;
    None without ../shared."""
    if src.shared is None:
        return None
    import csv

    base = src.shared / "data" / "qa_human" / "openqa_eval"

    def tsv(name: str) -> list[dict[str, str]]:
        with open(base / name, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh, delimiter="\t"))

    def yes(value: str | None) -> bool:
        return (value or "").strip().lower() == "yes"

    files = [tsv(f"NQ301_{n}.tsv") for n in ("human", "BEM", "gpt-4", "text-davinci-003")]
    items = []
    for human, bem, gpt4, davinci in zip(*files, strict=True):
        assert human["Question"] == bem["Question"], human["Question"]
        verdicts = {
            "GPT-4": yes(gpt4["Acceptable?"]),
            "InstructGPT": yes(davinci["Model answer"]),
            "BEM": yes(bem["Acceptable?"]),
        }
        golds = [g.strip() for g in bem["Gold answers"].split(" | ") if g.strip()]
        items.append(
            JudgedAnswer(golds, human["Model answer"], yes(human["Acceptable?"]), verdicts)
        )
    return items
