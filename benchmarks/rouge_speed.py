"""ROUGE speed: rouge-score 0.1.2 vs rouge-score-rs vs lexeval's compat mode, one process.

SummEval, 1,600 summaries against their first reference, rouge1 + rouge2 + rougeL + rougeLsum,
stemming off and on. Each figure is the best of three runs. "cold": lexeval's caches (tokens,
Porter stems, prepared texts) are emptied before every run; "warm stems": only the Porter stem
cache is kept (a process that has scored anything before). lexeval runs as one RougeMetric per
type (``measure_many``) and as one ``RougeScorer`` for the four types (``score_many``, the batch
path). Scores are compared too (max |dF|). rouge-score-rs (a Rust port, ``pip install
rouge-score-rs``; a benchmark-only tool, not a dependency) runs per pair and with
``score_batch`` when installed. Target (issue 14): lexeval compat >= 0.5x rouge-score-rs.
lexeval runs with ``evidence_limit=0`` (no matched/missing lists: rouge-score computes none),
then once more cold with the default evidence lists.

Run: .venv/bin/python benchmarks/rouge_speed.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import shared_path, timed

from lexeval.compat import _rouge_stem
from lexeval.metrics.rouge import RougeMetric, RougeScorer
from lexeval.text.peers import clear_caches

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def _clear_tokens() -> None:
    clear_caches()


def _clear_all() -> None:
    _rouge_stem.cache_clear()
    _clear_tokens()


def main() -> None:
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    refs = [r["references"][0] for r in rows]
    outs = [r["decoded"] for r in rows]
    pairs = list(zip(refs, outs, strict=True))
    from rouge_score import rouge_scorer

    try:
        import rouge_score_rs  # type: ignore[import-not-found]
    except ImportError:
        rouge_score_rs = None
        print("rouge-score-rs is not installed (pip install rouge-score-rs): skipped")

    print(f"SummEval: {len(rows)} pairs, {', '.join(TYPES)}; best of 3 runs")
    for stem in (False, True):
        scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
        t_ref, theirs = timed(lambda sc=scorer: [sc.score(r, o) for r, o in pairs])

        def ours_run(stem: bool = stem, evidence: int = 0) -> list[list[Any]]:
            # new metric objects each run: their prepared-text caches start empty
            ms = [
                RougeMetric(t, compat="rouge-score", use_stemmer=stem, evidence_limit=evidence)
                for t in TYPES
            ]
            return [m.measure_many(refs, outs) for m in ms]

        # like for like with rouge-score: no evidence lists (evidence_limit=0)
        t_cold, ours = timed(ours_run, setup=_clear_all)
        t_warm, _ = timed(ours_run, setup=_clear_tokens)
        # the default: matched/missing evidence (evidence_limit=20)
        t_evidence, _ = timed(lambda stem=stem: ours_run(stem, 20), setup=_clear_all)

        def scorer_run(stem: bool = stem) -> list[dict[str, Any]]:
            return RougeScorer(
                TYPES, compat="rouge-score", use_stemmer=stem, evidence_limit=0
            ).score_many(refs, outs)

        t_scorer, batch = timed(scorer_run, setup=_clear_all)
        t_scorer_warm, _ = timed(scorer_run, setup=_clear_tokens)
        assert all(batch[i][t] == ours[k][i] for k, t in enumerate(TYPES) for i in range(len(rows)))
        worst = max(
            abs(ours[k][i].info["fmeasure"] - theirs[i][t].fmeasure)
            for k, t in enumerate(TYPES)
            for i in range(len(rows))
        )
        one, five, _ = os.getloadavg()
        print(
            f"stemmer={'on ' if stem else 'off'}: rouge-score {t_ref:.3f}s | lexeval cold "
            f"{t_cold:.3f}s = {t_ref / t_cold:.1f}x, warm stems {t_warm:.3f}s = "
            f"{t_ref / t_warm:.1f}x | max|dF| {worst:.1e} | with the evidence (the default) cold "
            f"{t_evidence:.3f}s = {t_ref / t_evidence:.1f}x | RougeScorer cold {t_scorer:.3f}s, "
            f"warm stems {t_scorer_warm:.3f}s | load {one:.1f}/{five:.1f}"
        )
        if rouge_score_rs is not None:
            rs = rouge_score_rs.RougeScorer(TYPES, use_stemmer=stem)
            t_rs, rs_scores = timed(lambda rs=rs: [rs.score(r, o) for r, o in pairs])
            t_rsb, _ = timed(lambda rs=rs: rs.score_batch(refs, outs))
            worst_rs = max(
                abs(rs_scores[i][t].fmeasure - theirs[i][t].fmeasure)
                for t in TYPES
                for i in range(len(rows))
            )
            print(
                f"    rouge-score-rs per pair {t_rs:.3f}s, score_batch {t_rsb:.3f}s "
                f"(max|dF| {worst_rs:.1e}); relative to it: lexeval per type cold "
                f"{t_rs / t_cold:.2f}x per pair, {t_rsb / t_cold:.2f}x batch; RougeScorer cold "
                f"{t_rs / t_scorer:.2f}x / {t_rsb / t_scorer:.2f}x, warm stems "
                f"{t_rs / t_scorer_warm:.2f}x / {t_rsb / t_scorer_warm:.2f}x"
            )


if __name__ == "__main__":
    main()
