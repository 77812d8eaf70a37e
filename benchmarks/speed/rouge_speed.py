"""ROUGE speed: rouge-score 0.1.2 vs rouge-score-rs vs lexeval's compat mode, one process.

SummEval, rouge1 + rouge2 + rougeL + rougeLsum, stemming off and on, on two sets of pairs:

* "all references": the 17,600 (reference, summary) pairs, each of the 1,600 summaries scored
  against each of its 11 references (each reference is scored against 16 systems' summaries,
  each summary against 11 references: a batch path sees every text several times);
* "first reference": the 1,600 (first reference, summary) pairs (each reference 16 times,
  each summary once).

Each figure is the best of three runs, as wall time and as this process's CPU time (the
steadier figure on a shared machine). "cold": lexeval's caches (tokens, Porter stems,
prepared texts) are emptied before every run; "warm stems": the Porter stem cache is kept (a
process that has scored anything before). lexeval runs as one ``RougeScorer`` for the four
types (``score_many``, the batch path) and, on the first-reference pairs, as one RougeMetric
per type (``measure_many``) with and without the evidence lists. rouge-score-rs (a Rust port,
``pip install rouge-score-rs``; a benchmark-only tool, not a dependency) runs with
``score_batch``. Target (issue 14): lexeval compat >= 0.5x rouge-score-rs. lexeval runs with
``evidence_limit=0`` (no matched/missing lists: the peers compute none) unless said. Scores
are compared with the peers' (max |dF|).

Run: nice -n 10 .venv/bin/python benchmarks/speed/rouge_speed.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import load_average, shared_path, timed_cpu

from lexeval.compat import clear_stem_cache
from lexeval.metrics.rouge import RougeMetric, RougeScorer

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def _clear_all() -> None:
    clear_stem_cache()  # the texts' caches belong to each new scorer


def _keep_stems() -> None:
    pass


def _worst(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> float:
    """Largest |F-measure difference| between lexeval's results and a peer's Scores."""
    return max(
        abs(got[t].info["fmeasure"] - peer[t].fmeasure)
        for got, peer in zip(ours, theirs, strict=True)
        for t in TYPES
    )


def _figure(label: str, wall: float, cpu: float, peer: tuple[float, float] | None) -> str:
    text = f"    {label:44s} {wall:7.3f} s wall {cpu:7.3f} s CPU"
    if peer is not None:
        text += f"  = {peer[0] / wall:.2f}x / {peer[1] / cpu:.2f}x rouge-score-rs"
    return text


def run_set(name: str, refs: list[str], outs: list[str], per_type: bool) -> None:
    from rouge_score import rouge_scorer

    try:
        import rouge_score_rs  # type: ignore[import-not-found]
    except ImportError:
        rouge_score_rs = None
        print("rouge-score-rs is not installed (pip install rouge-score-rs): skipped")
    print(f"\nSummEval {name}: {len(refs):,} pairs, {', '.join(TYPES)}; best of 3 runs")
    for stem in (False, True):
        print(f"  stemmer {'on' if stem else 'off'}  ({load_average()})")
        peer: tuple[float, float] | None = None
        theirs: list[dict[str, Any]] | None = None
        if rouge_score_rs is not None:
            rs = rouge_score_rs.RougeScorer(TYPES, use_stemmer=stem)
            wall, cpu, theirs = timed_cpu(lambda rs=rs: rs.score_batch(refs, outs))
            peer = (wall, cpu)
            print(_figure("rouge-score-rs score_batch", wall, cpu, None))

        def scorer_run(stem: bool = stem) -> list[dict[str, Any]]:
            return RougeScorer(
                TYPES, compat="rouge-score", use_stemmer=stem, evidence_limit=0
            ).score_many(refs, outs)

        wall, cpu, batch = timed_cpu(scorer_run, setup=_clear_all)
        print(_figure("lexeval RougeScorer.score_many, cold", wall, cpu, peer))
        wall, cpu, _ = timed_cpu(scorer_run, setup=_keep_stems)
        print(_figure("lexeval RougeScorer.score_many, warm stems", wall, cpu, peer))
        if theirs is not None:
            print(f"    max |dF| lexeval vs rouge-score-rs: {_worst(batch, theirs):.1e}")
        if not per_type:
            continue
        scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
        wall, cpu, reference = timed_cpu(
            lambda sc=scorer: [sc.score(r, o) for r, o in zip(refs, outs, strict=True)], repeat=1
        )
        print(_figure("rouge-score 0.1.2 (Python), once", wall, cpu, peer))
        print(f"    max |dF| lexeval vs rouge-score: {_worst(batch, reference):.1e}")

        def per_type_run(stem: bool = stem, evidence: int = 0) -> list[list[Any]]:
            # new metric objects each run: their prepared-text caches start empty
            metrics = [
                RougeMetric(t, compat="rouge-score", use_stemmer=stem, evidence_limit=evidence)
                for t in TYPES
            ]
            return [m.measure_many(refs, outs) for m in metrics]

        wall, cpu, ours = timed_cpu(per_type_run, setup=_clear_all)
        assert all(batch[i][t] == ours[k][i] for k, t in enumerate(TYPES) for i in range(len(refs)))
        print(_figure("lexeval one RougeMetric per type, cold", wall, cpu, peer))
        wall, cpu, _ = timed_cpu(lambda stem=stem: per_type_run(stem, 20), setup=_clear_all)
        print(_figure("  the same with the evidence lists (evidence_limit=20)", wall, cpu, peer))


def main() -> None:
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    all_refs = [ref for row in rows for ref in row["references"]]
    all_outs = [row["decoded"] for row in rows for _ in row["references"]]
    run_set("all references", all_refs, all_outs, per_type=False)
    first_refs = [row["references"][0] for row in rows]
    first_outs = [row["decoded"] for row in rows]
    run_set("first reference", first_refs, first_outs, per_type=True)


if __name__ == "__main__":
    main()
