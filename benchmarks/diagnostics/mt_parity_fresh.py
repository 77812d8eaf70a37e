"""BLEU, chrF and TER (``compat="sacrebleu"``) against sacrebleu, WER and CER (``compat="jiwer"``)
against jiwer, on cases no test or fix used: a seeded sample of one SQuAD system's predictions
against their gold answers (short, punctuation-heavy, several references), plus four odd strings.
Settings: 8 BLEU (tokenizers, case, smoothing), 5 chrF, 4 TER; every figure compared, the
mismatches printed (at most a few per metric) and counted.

Run: PYTHONPATH=src .venv/bin/python benchmarks/diagnostics/mt_parity_fresh.py [--seed 7]
     [--n 400] [--system logreg_baseline_stanford]
(2026-11-29, seed 7, n 400: 7,674 comparisons, 0 mismatches.)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path

from lexeval.metrics import BleuMetric, CerMetric, ChrfMetric, TerMetric, WerMetric

Pair = tuple[list[str], str]  # (references, output)


def fresh_pairs(seed: int, n: int, system: str) -> list[Pair]:
    """``n`` predictions of ``system`` with their gold answers, sampled with ``seed``."""
    with open(shared_path("data", "squad", "dev-v1.1.json"), encoding="utf-8") as fh:
        dev = json.load(fh)
    with open(
        shared_path("data", "squad", "predictions", f"{system}.json"), encoding="utf-8"
    ) as fh:
        predictions: dict[str, str] = json.load(fh)
    golds = {
        q["id"]: [a["text"] for a in q["answers"]]
        for article in dev["data"]
        for paragraph in article["paragraphs"]
        for q in paragraph["qas"]
    }
    ids = random.Random(seed).sample(sorted(predictions), n)
    pairs: list[Pair] = [(golds[i], predictions[i]) for i in ids]
    pairs += [
        (["Ünïcödé — “quoted” text!!"], "unicode quoted text"),
        (["", "x"], "x"),
        (["a b c"], ""),
        (["1,000.5 km/h"], "1000.5 km / h"),
    ]
    return pairs


def _same(want: Any, got: Any, tolerance: float) -> bool:
    if isinstance(want, float) and isinstance(got, float):
        return abs(want - got) <= tolerance
    return bool(want == got)


def _outcome(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``, or the name of the error it raised (the same refusal on both sides
    counts as agreement)."""
    try:
        return call(*args)
    except Exception as error:
        return type(error).__name__


def _sacrebleu_figure(peer: Any) -> Callable[[list[str], str], float]:
    return lambda refs, hyp: peer.sentence_score(hyp, refs).score


def _lexeval_figure(metric: Any, key: str) -> Callable[[Any, str], float]:
    return lambda refs, hyp: metric.measure(refs, hyp).info[key]


def _settings() -> list[tuple[str, dict[str, Any], Any, Any]]:
    """(name, setting, peer figure, lexeval figure) for every metric and setting compared."""
    import jiwer
    from sacrebleu.metrics import BLEU, CHRF, TER

    bleu: list[dict[str, Any]] = [
        {}, {"lowercase": True}, {"tokenize": "intl"}, {"tokenize": "char"},
        {"tokenize": "none"}, {"smooth_method": "floor"},
        {"smooth_method": "add-k", "smooth_value": 2}, {"smooth_method": "none"},
    ]  # fmt: skip
    chrf: list[dict[str, Any]] = [
        {}, {"word_order": 2}, {"lowercase": True, "word_order": 2}, {"whitespace": True},
        {"char_order": 4, "beta": 1},
    ]  # fmt: skip
    ter: list[dict[str, Any]] = [
        {}, {"normalized": True}, {"no_punct": True, "case_sensitive": True},
        {"asian_support": True, "normalized": True},
    ]  # fmt: skip
    out: list[tuple[str, dict[str, Any], Any, Any]] = []
    for s in bleu:
        peer = _sacrebleu_figure(BLEU(effective_order=True, **s))
        out.append(("bleu", s, peer, _lexeval_figure(BleuMetric(**s), "bleu")))
    for s in chrf:
        out.append(
            ("chrf", s, _sacrebleu_figure(CHRF(**s)), _lexeval_figure(ChrfMetric(**s), "chrf"))
        )
    for s in ter:
        out.append(("ter", s, _sacrebleu_figure(TER(**s)), _lexeval_figure(TerMetric(**s), "ter")))
    # jiwer takes one reference (the first); an empty one it refuses, as lexeval does (tested)
    wer = _lexeval_figure(WerMetric(compat="jiwer"), "wer")
    cer = _lexeval_figure(CerMetric(compat="jiwer"), "cer")
    out.append(("wer", {}, lambda refs, hyp: jiwer.wer(refs[0], hyp), lambda r, h: wer(r[0], h)))
    out.append(("cer", {}, lambda refs, hyp: jiwer.cer(refs[0], hyp), lambda r, h: cer(r[0], h)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--system", default="logreg_baseline_stanford")
    args = parser.parse_args()
    pairs = fresh_pairs(args.seed, args.n, args.system)
    compared = mismatches = 0
    for name, setting, peer, ours in _settings():
        for refs, hyp in pairs:
            if name in ("wer", "cer") and not refs[0].strip():
                continue
            want, got = _outcome(peer, refs, hyp), _outcome(ours, refs, hyp)
            compared += 1
            if not _same(want, got, 1e-9):
                mismatches += 1
                if mismatches <= 10:
                    print(f"{name} {setting} {(refs, hyp)!r}: peer {want!r}, lexeval {got!r}")
    print(f"{len(pairs)} pairs, {compared} comparisons, {mismatches} mismatches")


if __name__ == "__main__":
    main()
