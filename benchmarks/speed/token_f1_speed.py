"""Token-F1 (SQuAD v1.1) speed: a plain Counter implementation of the official formula vs
lexeval's ``TokenF1Metric(compat="squad")``, same process, same answers.

SQuAD v1.1 dev with the five prediction files (52,850 predictions, max over gold answers).
lexeval's normalization caches are emptied before every run (cold); best of three runs. The
F1 and EM of both sides are compared per question.

Run: .venv/bin/python benchmarks/speed/token_f1_speed.py
"""

from __future__ import annotations

import json
import re
import string
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path, timed

from lexeval.compat import squad_counts, squad_normalize_answer
from lexeval.metrics import TokenF1Metric

_PUNCT = set(string.punctuation)


def plain_normalize(s: str) -> str:
    """The official normalization as usually written: four passes, a set of punctuation."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def plain_f1(prediction: str, gold: str) -> float:
    p = plain_normalize(prediction).split()
    g = plain_normalize(gold).split()
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0.0
    precision = 1.0 * same / len(p)
    recall = 1.0 * same / len(g)
    return (2 * precision * recall) / (precision + recall)


def plain_em(prediction: str, gold: str) -> float:
    return float(plain_normalize(prediction) == plain_normalize(gold))


def _clear() -> None:
    squad_normalize_answer.cache_clear()
    squad_counts.cache_clear()


def main() -> None:
    dev_path = shared_path("data", "squad", "dev-v1.1.json")
    with open(dev_path, encoding="utf-8") as fh:
        dev = json.load(fh)
    golds = {
        qa["id"]: [a["text"] for a in qa["answers"]]
        for art in dev["data"]
        for para in art["paragraphs"]
        for qa in para["qas"]
    }
    pairs: list[tuple[list[str], str]] = []
    for path in sorted(shared_path("data", "squad", "predictions").glob("*.json")):
        with open(path, encoding="utf-8") as fh:
            preds = json.load(fh)
        pairs += [(golds[qid], pred) for qid, pred in preds.items() if qid in golds]

    def plain() -> list[tuple[float, float]]:
        return [
            (max(plain_f1(p, g) for g in gs), max(plain_em(p, g) for g in gs)) for gs, p in pairs
        ]

    metric = TokenF1Metric(compat="squad")

    def ours() -> list[tuple[float, float]]:
        out = []
        for gs, p in pairs:
            r = metric.measure(gs, p)
            out.append((r.score, r.info["exact_match"]))
        return out

    t_plain, expected = timed(plain)
    t_ours, got = timed(ours, setup=_clear)
    worst = max(abs(a[0] - b[0]) for a, b in zip(got, expected, strict=True))
    em_diff = sum(a[1] != b[1] for a, b in zip(got, expected, strict=True))
    print(f"SQuAD dev x 5 systems: {len(pairs)} predictions (F1 and EM, max over golds)")
    print(
        f"plain Counter {t_plain:.3f}s | lexeval squad {t_ours:.3f}s (cold) = "
        f"{t_plain / t_ours:.2f}x | max|dF1| {worst:.1e}, EM differences {em_diff}"
    )


if __name__ == "__main__":
    main()
