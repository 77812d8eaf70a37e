"""Derive the small parity fixtures of tests/data/ from ../shared (run from the repository root).

``python tests/data/make_parity_fixtures.py`` writes:

- ``mastra_parity.jsonl``: every 2nd case of ``oracles/mastra/cases.jsonl`` and every docs example,
  each with the real @mastra/evals outputs recorded in the oracle;
- ``mastra_nlp_parity.jsonl``: every 4th case of ``oracles/mastra/cases.jsonl`` with the real
  @mastra/evals 0.14.4 NLP metrics' outputs recorded in ``oracles/mastra_nlp`` (completeness
  without its element lists: score and counts);
- ``squad_parity.jsonl``: every 100th question of each recorded system, with the prediction, the
  gold answers of ``dev-v1.1.json`` and the official script's EM and F1 from the oracle;
- ``rouge_parity.jsonl``: 40 SummEval summaries (every 40th) against their first 3 references, half
  rewritten one sentence per line, with rouge-score 0.1.2's precision/recall/F for rouge1, rouge2,
  rouge3, rougeL and rougeLsum, with and without stemming (computed by the installed rouge-score).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
OUT = Path(__file__).resolve().parent
TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _write(name: str, rows: list[dict[str, Any]]) -> None:
    with (OUT / name).open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{name}: {len(rows)} rows")


def mastra() -> None:
    oracle = SHARED / "oracles" / "mastra"
    rows = []
    for cases, expected, step in [
        ("cases.jsonl", "expected.jsonl", 2),
        ("docs_examples.jsonl", "docs_examples.expected.jsonl", 1),
    ]:
        pairs = list(zip(_jsonl(oracle / cases), _jsonl(oracle / expected), strict=True))
        for case, exp in pairs[::step]:
            assert case["id"] == exp["id"]
            rows.append({**case, **{k: v for k, v in exp.items() if k != "id"}})
    _write("mastra_parity.jsonl", rows)


def mastra_nlp() -> None:
    cases = _jsonl(SHARED / "oracles" / "mastra" / "cases.jsonl")
    expected = _jsonl(SHARED / "oracles" / "mastra_nlp" / "expected.jsonl")
    rows = []
    for case, exp in list(zip(cases, expected, strict=True))[::4]:
        assert case["id"] == exp["id"]
        completeness = exp["completeness"]
        exp["completeness"] = {
            "score": completeness["score"],
            "elementCounts": completeness["metrics"]["elementCounts"],
        }
        rows.append({**case, **{k: v for k, v in exp.items() if k != "id"}})
    _write("mastra_nlp_parity.jsonl", rows)


def squad() -> None:
    with (SHARED / "data" / "squad" / "dev-v1.1.json").open(encoding="utf-8") as handle:
        dev = json.load(handle)
    golds = {
        qa["id"]: [a["text"] for a in qa["answers"]]
        for article in dev["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    }
    rows = []
    for oracle in sorted((SHARED / "oracles" / "squad").glob("*.expected.jsonl")):
        system = oracle.name.removesuffix(".expected.jsonl")
        predictions = json.loads(
            (SHARED / "data" / "squad" / "predictions" / f"{system}.json").read_text("utf-8")
        )
        for row in _jsonl(oracle)[::100]:
            rows.append(
                {
                    "system": system,
                    "id": row["id"],
                    "prediction": predictions[row["id"]],
                    "golds": golds[row["id"]],
                    "em": row["em"],
                    "f1": row["f1"],
                }
            )
    _write("squad_parity.jsonl", rows)


def rouge() -> None:
    from rouge_score import rouge_scorer

    summeval = _jsonl(SHARED / "data" / "summeval" / "summeval_expert_avg_11refs.jsonl")
    scorers = {stem: rouge_scorer.RougeScorer(TYPES, use_stemmer=stem) for stem in (False, True)}
    rows = []
    for i, row in enumerate(summeval[::40]):
        for reference in row["references"][:3]:
            target, prediction = reference, row["decoded"]
            if i % 2:  # one sentence per line: rougeLsum's union-LCS over several sentences
                target = re.sub(r" ([.!?]) ", r" \1\n", target)
                prediction = re.sub(r" ([.!?]) ", r" \1\n", prediction)
            scores = {}
            for stem, scorer in scorers.items():
                result = scorer.score(target, prediction)
                for rouge_type in TYPES:
                    s = result[rouge_type]
                    scores[f"{rouge_type}{'_stem' if stem else ''}"] = [
                        s.precision,
                        s.recall,
                        s.fmeasure,
                    ]
            rows.append({"target": target, "prediction": prediction, "scores": scores})
    _write("rouge_parity.jsonl", rows)


if __name__ == "__main__":
    mastra()
    mastra_nlp()
    squad()
    rouge()
