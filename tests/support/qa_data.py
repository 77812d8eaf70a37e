"""EVOUNA NQ from ``../shared`` for the tests that read real QA judgments (not a test module)."""

from __future__ import annotations

import json
from pathlib import Path

QA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "qa_human"
SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")


def load_evouna_nq(
    questions_limit: int | None = None,
) -> tuple[list[list[str]], list[str], list[str], list[bool]]:
    """Gold alternatives, answers, questions and human labels of EVOUNA NQ's first
    ``questions_limit`` questions (all without a limit), improper rows left out."""
    with open(QA / "evouna" / "NQ.json", encoding="utf-8") as fh:
        rows = json.load(fh)
    golds: list[list[str]] = []
    answers: list[str] = []
    questions: list[str] = []
    human: list[bool] = []
    for row in rows[:questions_limit]:
        alternatives = [g.strip() for g in row["golden_answer"].split("/") if g.strip()]
        for system in SYSTEMS:
            answer, label = row.get(f"answer_{system}"), row.get(f"judge_{system}")
            if not row.get("improper") and isinstance(answer, str) and isinstance(label, bool):
                golds.append(alternatives)
                answers.append(answer)
                questions.append(row["question"])
                human.append(label)
    return golds, answers, questions, human


def evouna_golds(name: str, limit: int) -> list[str]:
    """Every gold alternative of EVOUNA ``name``'s (NQ, TQ) first ``limit`` rows; the test is
    skipped when ``../shared`` is absent."""
    import pytest

    path = QA / "evouna" / f"{name}.json"
    if not path.exists():
        pytest.skip(f"{path} not found (../shared beside the checkout)")
    rows = json.loads(path.read_text(encoding="utf-8"))[:limit]
    return [g.strip() for row in rows for g in (row["golden_answer"] or "").split("/") if g.strip()]
