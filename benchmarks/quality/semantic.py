"""The semantic tier beside the lexical one: cosine alone, the blend, keyword coverage alone.

Quality, each with a bootstrap interval (``lexeval.meta``): ROC AUC against the human labels on
EVOUNA NQ (the tuning set: the blend was fitted there), EVOUNA TQ and NQ301 (held out), with
the paired difference blend - keyword coverage (``compare``); SummEval relevance, the
summary-level Kendall tau-b (per article across the 16 systems, max over the 11 references).
Speed: warm pairs per second, CPU time, on pairs the process has not scored before.

    python benchmarks/quality/semantic.py            # quality and speed
    python benchmarks/quality/semantic.py --speed    # speed only
    python benchmarks/quality/semantic.py --fit      # refit the blend on EVOUNA NQ, rewrite it
    python benchmarks/quality/semantic.py --cards    # the card tier's band (EVOUNA NQ as cards)

Needs the ``semantic`` extra and ``../shared``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import QAItem, load_evouna, load_nq301
from _shared import load_average

from lexeval.meta import agreement, calibrate, compare, correlation
from lexeval.metrics import KeywordCoverageMetric
from lexeval.metrics.semantic import (
    BLEND_FILE,
    DEFAULT_MODEL,
    BlendModel,
    SemanticSimilarityMetric,
)

BOOT = {"n_resamples": 1000, "seed": 12345}
DATA = Path(__file__).resolve().parents[2] / "src" / "lexeval" / "data" / BLEND_FILE


def qa_scores(items: list[QAItem]) -> dict[str, list[float]]:
    golds, answers = [i.golds for i in items], [i.answer for i in items]
    alone = SemanticSimilarityMetric().measure_many(golds, answers)
    blend = SemanticSimilarityMetric(lexical=KeywordCoverageMetric()).measure_many(golds, answers)
    return {
        "semantic alone": [r.score for r in alone],
        "blend": [r.score for r in blend],
        "keyword coverage": [r.info["lexical"] for r in blend],
    }


def fit() -> None:
    """Fit the two weights and the intercept on EVOUNA NQ; write the data file."""
    from sklearn.linear_model import LogisticRegression

    items = load_evouna("NQ")
    golds, answers = [i.golds for i in items], [i.answer for i in items]
    lexical = [r.score for r in KeywordCoverageMetric().measure_many(golds, answers)]
    semantic = [r.score for r in SemanticSimilarityMetric().measure_many(golds, answers)]
    x = np.column_stack([lexical, semantic])
    y = np.array([i.human for i in items], dtype=int)
    model = LogisticRegression(C=1e6, max_iter=1000).fit(x, y)
    b = BlendModel(
        float(model.intercept_[0]),
        float(model.coef_[0, 0]),
        float(model.coef_[0, 1]),
        0.5,
        f"EVOUNA NQ ({len(items)} answers, human labels)",
        "keyword_coverage",
        DEFAULT_MODEL,
    )
    probabilities = [b.probability(lx, sm) for lx, sm in zip(lexical, semantic, strict=True)]
    threshold = calibrate(probabilities, y).value
    data = {**b.to_dict(), "threshold": round(threshold, 6)}
    for key in ("intercept", "lexical", "semantic"):
        data[key] = round(data[key], 6)
    DATA.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {DATA}: {json.dumps(data)}")


def quality() -> None:
    sets = {
        "EVOUNA NQ (tuning)": load_evouna("NQ"),
        "EVOUNA TQ (held out)": load_evouna("TQ"),
        "NQ301 (held out)": load_nq301(),
    }
    blend_threshold = SemanticSimilarityMetric(lexical=KeywordCoverageMetric())
    t_blend = blend_threshold.recommended_threshold
    nq = sets["EVOUNA NQ (tuning)"]
    nq_scores = qa_scores(nq)
    nq_human = [i.human for i in nq]
    t_kw = calibrate(nq_scores["keyword coverage"], nq_human).value
    t_alone = calibrate(nq_scores["semantic alone"], nq_human).value
    thresholds = {"semantic alone": t_alone, "blend": t_blend, "keyword coverage": t_kw}
    print(f"thresholds chosen on EVOUNA NQ (kappa-best): {thresholds}")
    for name, items in sets.items():
        scores = nq_scores if items is nq else qa_scores(items)
        human = [i.human for i in items]
        print(f"\n{name}: n={len(items)}")
        for label, values in scores.items():
            a = agreement(values, human, threshold=thresholds[label], **BOOT)
            print(f"  {label:18s} {a}")
        for label in ("blend", "semantic alone"):
            c = compare(scores[label], scores["keyword coverage"], human, statistic="auc", **BOOT)
            print(f"  {label} - keyword coverage: {c}")
    summeval()


def summeval() -> None:
    from _summeval import load

    data = load()
    refs = [list(r["references"]) for r in data.rows]
    outs = [str(r["decoded"]) for r in data.rows]
    alone = SemanticSimilarityMetric().measure_many(refs, outs)
    blend = SemanticSimilarityMetric(lexical=KeywordCoverageMetric()).measure_many(refs, outs)
    scores = {
        "semantic alone": [r.score for r in alone],
        "blend": [r.score for r in blend],
        "keyword coverage": [r.info["lexical"] for r in blend],
    }
    human = data.human["relevance"]
    print("\nSummEval relevance, summary-level Kendall tau-b (max over the 11 references):")
    for label, values in scores.items():
        c = correlation(values, human, groups=data.docs, level="summary", **BOOT)
        print(f"  {label:18s} {c.value:.3f} [{c.interval[0]:.3f}, {c.interval[1]:.3f}]")
    for label in ("blend", "semantic alone"):
        cmp = compare(
            scores[label],
            scores["keyword coverage"],
            human,
            groups=data.docs,
            level="summary",
            **BOOT,
        )
        print(f"  {label} - keyword coverage: {cmp}")


class WordLlamaPeer:
    """The peer: WordLlama's own ``embed(norm=True)`` on the same packaged files, then the best
    cosine per pair (imported here only: its import configures the root logger)."""

    def __init__(self) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        from wordllama import WordLlamaInference

        from lexeval.metrics.semantic import get_encoder

        enc = get_encoder()
        table = load_file(str(enc.weights_path))["embedding.weight"]
        self.model = WordLlamaInference(table, Tokenizer.from_file(str(enc.tokenizer_path)))

    def measure_many(self, golds: list[list[str]], answers: list[str]) -> list[float]:
        texts = sorted({t for g in golds for t in g} | set(answers))
        row = {t: k for k, t in enumerate(texts)}
        vectors = self.model.embed(texts, norm=True)
        return [
            max(float(vectors[row[g]] @ vectors[row[a]]) for g in gs)
            for gs, a in zip(golds, answers, strict=True)
        ]


def speed() -> None:
    """Warm figures: each metric warmed on EVOUNA NQ, then timed on TQ pairs no metric has
    scored, the four interleaved over three rounds, each on its own slices; CPU time."""
    metrics: list[tuple[str, Any]] = [
        ("semantic alone", SemanticSimilarityMetric()),
        ("wordllama embed (peer)", WordLlamaPeer()),
        ("blend", SemanticSimilarityMetric(lexical=KeywordCoverageMetric())),
        ("keyword coverage", KeywordCoverageMetric()),
    ]
    warm = load_evouna("NQ")[:500]
    for _, m in metrics:
        m.measure_many([i.golds for i in warm], [i.answer for i in warm])
    items = load_evouna("TQ")
    size = 800
    cpu = dict.fromkeys([label for label, _ in metrics], 0.0)
    n = 0
    for r in range(3):
        for k, (label, m) in enumerate(metrics):  # each metric its own slice: unseen texts
            lo = (len(metrics) * r + k) * size
            chunk = items[lo : lo + size]
            start = time.process_time()
            m.measure_many([i.golds for i in chunk], [i.answer for i in chunk])
            cpu[label] += time.process_time() - start
        n += size
    print(
        f"\nspeed, warm, unseen EVOUNA TQ pairs ({n} per metric, 3 interleaved rounds), "
        f"load average {load_average()}:"
    )
    for label, seconds in cpu.items():
        print(f"  {label:22s} {n / seconds:8.0f} pairs/s  CPU {seconds:.2f} s")
    alone, peer = cpu["semantic alone"], cpu["wordllama embed (peer)"]
    print(f"  semantic alone / peer CPU ratio {alone / peer:.2f}")
    print(f"  blend / keyword coverage CPU ratio {cpu['blend'] / cpu['keyword coverage']:.2f}")


def card_set(items: list[QAItem]) -> tuple[list[float], list[float], list[bool]]:
    """QA answers as one-card cases: the expected card's back keywords are the words of the
    first gold answer, the generated card's back the answer (fronts weigh 0). Per item: the
    keyword share (the matcher's lexical score), the back cosine and the human label."""
    from lexeval.cards.matching import keyword_similarity
    from lexeval.metrics.semantic import get_encoder

    keywords = [i.golds[0].split() for i in items]
    lexical = [keyword_similarity(k, i.answer) for k, i in zip(keywords, items, strict=True)]
    encoder = get_encoder()
    backs = encoder.encode([", ".join(k) for k in keywords])
    answers = encoder.encode([i.answer for i in items])
    cosine = np.maximum(0.0, (backs * answers).sum(axis=1)).tolist()
    return lexical, cosine, [i.human for i in items]


def tier_decisions(
    lexical: list[float], cosine: list[float], low: float, high: float, cutoff: float, t: float
) -> list[int]:
    """Match decisions: the keyword share at ``t`` outside ``[low, high)``, the cosine inside."""
    x, c = np.asarray(lexical), np.asarray(cosine)
    band = (x >= low) & (x < high)
    return np.where(band, c >= cutoff, x >= t).astype(int).tolist()


def cards() -> None:
    """Calibrate the card tier's band and cutoff on EVOUNA NQ as cards (kappa-best at the
    matcher's default threshold 0.3); held-out figures on EVOUNA TQ and NQ301 as cards; and
    what the tier changes on the bundled flashcards (which have no pair labels)."""
    from lexeval.meta import cohen_kappa

    t = 0.3
    lexical, cosine, labels = card_set(load_evouna("NQ"))
    human = [int(h) for h in labels]
    cutoffs = [round(float(q), 2) for q in np.quantile(cosine, np.linspace(0.05, 0.95, 37))]
    best = (-1.0, 0.0, 0.0, 0.0)
    for low in (0.0, 0.1, 0.2, 0.3):
        for high in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
            if high <= low:
                continue
            for cutoff in sorted(set(cutoffs)):
                decided = tier_decisions(lexical, cosine, low, high, cutoff, t)
                kappa = cohen_kappa(decided, human)
                if kappa > best[0]:
                    best = (kappa, low, high, cutoff)
    kappa, low, high, cutoff = best
    base = cohen_kappa([int(x >= t) for x in lexical], human)
    share = np.mean([low <= x < high for x in lexical])
    print(
        f"card tier calibrated on EVOUNA NQ as cards: band [{low:g}, {high:g}), cutoff "
        f"{cutoff:g}; kappa {kappa:.3f} (keywords alone {base:.3f}), {share:.1%} encoded"
    )
    for name, items in (("EVOUNA TQ", load_evouna("TQ")), ("NQ301", load_nq301())):
        lx, cs, hm = card_set(items)
        tiered = tier_decisions(lx, cs, low, high, cutoff, t)
        alone = [int(x >= t) for x in lx]
        c = compare(tiered, alone, hm, statistic="kappa", threshold_a=0.5, threshold_b=0.5, **BOOT)
        share = np.mean([low <= x < high for x in lx])
        print(f"  {name} as cards (held out), {share:.1%} encoded: tier - keywords alone: {c}")
    flashcards(low, high, cutoff)


def flashcards(low: float, high: float, cutoff: float) -> None:
    from lexeval.cards import evaluate, load_dataset, load_outputs
    from lexeval.cards.semantic import SemanticTier

    root = Path(__file__).resolve().parents[2] / "examples" / "flashcards"
    dataset = load_dataset(root / "dataset.yaml")
    tier = SemanticTier(low, high, cutoff)
    for name in ("prompt_v1.yaml", "prompt_v2.jsonl"):
        outputs = load_outputs(root / "outputs" / name)
        lexical = evaluate(dataset, outputs).micro
        tiered_run = evaluate(dataset, outputs, semantic=tier)
        tiered = tiered_run.micro
        decided = sum(p.semantic_similarity is not None for c in tiered_run.cases for p in c.pairs)
        print(
            f"  bundled flashcards {name}: recall {lexical.recall:.3f} -> {tiered.recall:.3f}, "
            f"precision {lexical.precision:.3f} -> {tiered.precision:.3f}; "
            f"{decided} matched pairs decided by embeddings"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="refit the blend on EVOUNA NQ")
    parser.add_argument("--speed", action="store_true", help="speed only")
    parser.add_argument("--cards", action="store_true", help="calibrate the card tier")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.fit:
        fit()
        return 0
    if args.cards:
        cards()
        return 0
    if not args.speed:
        quality()
    speed()
    return 0


if __name__ == "__main__":
    sys.exit(main())
