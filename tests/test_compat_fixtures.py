"""Parity with the peers on the small recorded fixtures of tests/data/ (never skipped): Mastra's
keyword coverage, the official SQuAD v1.1 script and rouge-score 0.1.2, 0 mismatches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lexeval.compat import mastra_keyword_coverage, squad_exact_match, squad_f1
from lexeval.metrics import KeywordCoverageMetric, RougeMetric, TokenF1Metric

DATA = Path(__file__).resolve().parent / "data"
ROUGE_TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]


def _rows(name: str) -> list[dict[str, Any]]:
    with (DATA / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def test_mastra_fixture() -> None:
    rows = _rows("mastra_parity.jsonl")
    assert len(rows) >= 200
    metric = KeywordCoverageMetric(compat="mastra")
    scorer = KeywordCoverageMetric(compat="mastra-scorer")
    mismatches = []
    for row in rows:
        got = mastra_keyword_coverage(row["input"], row["output"])
        want = (row["score"], row["matched"], row["total"])
        m = metric.measure(row["input"], row["output"])
        s = scorer.measure(row["input"], row["output"])
        if (
            got[:3] != want
            or (got[3], got[4]) != (row["input_keywords"], row["output_keywords"])
            or (m.score, m.info["matchedKeywords"], m.info["totalKeywords"]) != want
            or (s.score, s.info["matchedKeywords"], s.info["totalKeywords"])
            != (row["scorer_score"], row["scorer_matched"], row["scorer_total"])
        ):
            mismatches.append(row["id"])
    assert mismatches == []


def test_squad_fixture() -> None:
    rows = _rows("squad_parity.jsonl")
    assert len(rows) >= 300
    assert any(0 < row["f1"] < 1 for row in rows)
    metric = TokenF1Metric(compat="squad")
    mismatches = []
    for row in rows:
        result = metric.measure(row["golds"], row["prediction"])
        got = (
            squad_f1(row["prediction"], row["golds"]),
            squad_exact_match(row["prediction"], row["golds"]),
            result.score,
            result.info["exact_match"],
        )
        if got != (row["f1"], row["em"], row["f1"], row["em"]):
            mismatches.append((row["system"], row["id"]))
    assert mismatches == []


@pytest.mark.parametrize("stem", [False, True])
def test_rouge_score_fixture(stem: bool) -> None:
    rows = _rows("rouge_parity.jsonl")
    assert len(rows) >= 100
    assert sum("\n" in row["target"] for row in rows) >= 30  # rougeLsum over several sentences
    metrics = {t: RougeMetric(t, compat="rouge-score", use_stemmer=stem) for t in ROUGE_TYPES}
    mismatches = []
    for i, row in enumerate(rows):
        for rouge_type, metric in metrics.items():
            info = metric.measure(row["target"], row["prediction"]).info
            got = [info["precision"], info["recall"], info["fmeasure"]]
            if got != row["scores"][f"{rouge_type}{'_stem' if stem else ''}"]:
                mismatches.append((i, rouge_type))
    assert mismatches == []
