"""QA data with human correctness labels for the quality benchmarks, and the scores compared.

- EVOUNA NQ (the tuning set) and TQ (held out): ``golden_answer`` split on ``/``, one item per
  answer of the five systems, label ``judge_<system>`` (people).
- NQ301 (held out): gold answers from ``NQ301_BEM.tsv`` (its ``Gold answers`` column), the
  HUMAN label from ``Acceptable?`` of ``NQ301_human.tsv`` (never BEM's own ``Acceptable?``),
  and the recorded verdicts of GPT-4, text-davinci-003 (InstructGPT) and BEM, plus the
  individual annotators. The four files list the same 1,490 answers in the same order.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from _shared import shared_path

from lexeval.metrics import KeywordCoverageMetric, RougeMetric, TokenF1Metric

SYSTEMS = ["fid", "gpt35", "chatgpt", "gpt4", "newbing"]


@dataclass
class QAItem:
    golds: list[str]
    answer: str
    human: bool
    verdicts: dict[str, bool] = field(default_factory=dict)
    question: str = ""


def load_evouna(name: str) -> list[QAItem]:
    """EVOUNA ``NQ`` or ``TQ``: every judged answer of the five systems (improper rows out)."""
    path = shared_path("data", "qa_human", "evouna", f"{name}.json")
    with open(path, encoding="utf-8") as fh:
        rows = json.load(fh)
    items: list[QAItem] = []
    for row in rows:
        if row.get("improper"):
            continue
        golds = [g.strip() for g in row["golden_answer"].split("/") if g.strip()]
        for system in SYSTEMS:
            answer = row.get(f"answer_{system}")
            judge = row.get(f"judge_{system}")
            if isinstance(answer, str) and isinstance(judge, bool) and golds:
                items.append(QAItem(golds, answer, judge, question=row["question"]))
    return items


def _tsv(name: str) -> list[dict[str, str]]:
    path = shared_path("data", "qa_human", "openqa_eval", name)
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _yes(value: str | None) -> bool:
    """A Yes/No cell; anything but Yes (the GPT-4 file has 2 empty verdicts) counts as No."""
    return (value or "").strip().lower() == "yes"


def load_nq301() -> list[QAItem]:
    """NQ301: gold answers (BEM file), human label (human file), judge verdicts, annotators."""
    human = _tsv("NQ301_human.tsv")
    bem = _tsv("NQ301_BEM.tsv")
    gpt4 = _tsv("NQ301_gpt-4.tsv")
    # text-davinci-003: question and answer run together, so the verdict sits in "Model answer"
    davinci = _tsv("NQ301_text-davinci-003.tsv")
    if not len(human) == len(bem) == len(gpt4) == len(davinci) == 1490:
        raise SystemExit("NQ301 files do not have 1,490 rows each")
    items: list[QAItem] = []
    for h, b, g, d in zip(human, bem, gpt4, davinci, strict=True):
        if h["Question"] != b["Question"]:
            raise SystemExit(f"NQ301 files out of step at question {h['Question']!r}")
        label = h["Acceptable?"].strip().lower()
        if label not in ("yes", "no"):
            raise SystemExit(f"NQ301_human.tsv: no Yes/No label for {h['Question']!r}")
        golds = [x.strip() for x in b["Gold answers"].split(" | ") if x.strip()]
        verdicts = {
            "GPT-4": _yes(g["Acceptable?"]),
            "InstructGPT (text-davinci-003)": _yes(d["Model answer"]),
            "BEM": _yes(b["Acceptable?"]),
        }
        annotators = {k: h[k].strip().lower() for k in ("annotator1", "annotator2")}
        if all(v in ("yes", "no") for v in annotators.values()):
            verdicts.update({k: v == "yes" for k, v in annotators.items()})
        items.append(
            QAItem(golds, h["Model answer"], label == "yes", verdicts, question=h["Question"])
        )
    return items


Scorer = Callable[[list[QAItem]], list[float]]


def scorers() -> dict[str, Scorer]:
    """Every lexeval score compared, each the maximum over the gold alternatives."""

    def batch(metric: KeywordCoverageMetric | TokenF1Metric | RougeMetric) -> Scorer:
        def run(items: list[QAItem]) -> list[float]:
            results = metric.measure_many([i.golds for i in items], [i.answer for i in items])
            return [r.score for r in results]

        return run

    squad = TokenF1Metric(compat="squad")

    def squad_recall(items: list[QAItem]) -> list[float]:
        return [
            max(float(squad.measure(g, i.answer).info["recall"]) for g in i.golds) for i in items
        ]

    return {
        "keyword coverage (default)": batch(KeywordCoverageMetric()),
        "keyword coverage (compat=mastra)": batch(KeywordCoverageMetric(compat="mastra")),
        "token F1 (default)": batch(TokenF1Metric()),
        "token F1 (compat=squad)": batch(squad),
        "token recall (SQuAD normalization)": squad_recall,
        "ROUGE-1 F (default)": batch(RougeMetric("rouge1")),
        "ROUGE-L F (default)": batch(RougeMetric("rougeL")),
    }
