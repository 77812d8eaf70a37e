"""SQuAD v1.1: per-question parity with the official script's recorded EM and F1."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from lexeval.compat import squad_exact_match, squad_f1, squad_normalize_answer, squad_tokens
from lexeval.metrics import TokenF1Metric

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SQUAD = SHARED / "data" / "squad"
ORACLE = SHARED / "oracles" / "squad"


def _golds() -> dict[str, list[str]]:
    path = SQUAD / "dev-v1.1.json"
    if not path.is_file() or not ORACLE.is_dir():
        pytest.skip(f"../shared is absent ({path} not found): SQuAD oracle parity not run")
    with open(path, encoding="utf-8") as fh:
        dev = json.load(fh)
    return {
        qa["id"]: [a["text"] for a in qa["answers"]]
        for article in dev["data"]
        for para in article["paragraphs"]
        for qa in para["qas"]
    }


def _systems() -> list[str]:
    if not ORACLE.is_dir():
        return ["<absent>"]
    return sorted(p.name.removesuffix(".expected.jsonl") for p in ORACLE.glob("*.expected.jsonl"))


@pytest.mark.parametrize("system", _systems())
def test_official_em_f1_per_question(system: str) -> None:
    golds = _golds()
    with open(SQUAD / "predictions" / f"{system}.json", encoding="utf-8") as fh:
        preds = json.load(fh)
    metric = TokenF1Metric(compat="squad")
    n = 0
    worst = 0.0
    em_wrong = 0
    with open(ORACLE / f"{system}.expected.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            pred, gold = preds[row["id"]], golds[row["id"]]
            f1 = squad_f1(pred, gold)
            em = squad_exact_match(pred, gold)
            res = metric.measure(gold, pred)
            worst = max(worst, abs(f1 - row["f1"]), abs(res.score - row["f1"]))
            em_wrong += (em != row["em"]) + (res.info["exact_match"] != row["em"])
            n += 1
    assert n > 10_000
    assert worst == 0.0
    assert em_wrong == 0


def test_normalization_rules_from_the_definition() -> None:
    assert squad_normalize_answer("The  Cat, a dog & AN owl.") == "cat dog owl"
    assert squad_normalize_answer("theatre another") == "theatre another"  # whole words only
    assert squad_normalize_answer(string.punctuation) == ""
    assert squad_tokens("") == []


def test_f1_hand_computed() -> None:
    # pred {cat, sat}, gold {cat, sat, down}: P = 1, R = 2/3, F = 0.8
    assert squad_f1("the cat sat", "a cat sat down") == pytest.approx(0.8)
    assert squad_f1("", "anything") == 0.0
    assert squad_f1("x", []) == 0.0
    assert squad_exact_match("The cat.", ["dog", "cat"]) == 1.0


def test_type_errors() -> None:
    with pytest.raises(TypeError, match="prediction"):
        squad_f1(1, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ground_truth"):
        squad_f1("x", [1])  # type: ignore[list-item]
