"""Mastra's NLP family (completeness, content similarity, textual difference, tone
consistency): each metric's ``compat="mastra"`` mode against its lexeval default, measured
against people, and their speed against the real package on Node.

Quality (``--quality``): ROC AUC against NQ301's human label (``Acceptable?`` of
NQ301_human.tsv; each answer scored against its gold alternatives, the best one counting), and
SummEval relevance as summary-level Kendall tau-b (per article across the 16 systems, averaged
over articles; each summary's score averaged over its 11 references), source support as SummEval
consistency, the same statistic with ``input=summary, output=source``, each with a 95%
bootstrap interval, and ``compare`` (default − compat, paired bootstrap interval and p-value).
EVOUNA TQ's AUC is printed beside NQ301 as a second held-out set. Nothing here was tuned on
these sets (the default modes are the shared normalizer's presets, unchanged).

Speed (``--speed``, needs Node and ``MASTRA_EVALS_DIR``, see ``mastra_nlp_speed.cjs``): per
call, on pairs neither side has scored before, interleaved batch by batch in one run (a
warm-up batch each first); CPU time of each process, the ratio, and the load average.

Agreement (``--agreement``): ``CompletenessMetric(compat="mastra")`` against the real package,
on the 441 recorded cases (``../shared/oracles/mastra_nlp``) and, with Node and
``NODE_DIR`` (default /tmp/mastra-nlp), on fresh pairs the real package scores in this run:
SummEval (reference, summary), EVOUNA TQ (gold, answer) and SQuAD (question, a sentence of its
paragraph), ``--fresh N`` of each, drawn with ``--seed`` (2 for the figures in docs/metrics.md;
seed 1 was looked at while writing the emulation). Exact = |diff| <= 1e-9.

Run: ``.venv/bin/python benchmarks/quality/mastra_nlp.py`` (quality and speed), ``--quality``,
``--speed`` or ``--agreement``; ``--resamples N`` for the bootstrap (default 1000).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import QAItem, load_evouna, load_nq301
from _shared import load_average, shared_path
from _summeval import load as load_summeval

from lexeval import get_metric
from lexeval.meta import agreement, compare, correlation
from lexeval.metrics import BaseMetric

NAMES = ["completeness", "content_similarity", "textual_difference", "tone_consistency"]


def _metrics(name: str) -> dict[str, BaseMetric]:
    """The compat mode and lexeval's mode (``compat=None``; completeness's default is compat)."""
    return {"compat": get_metric(name, compat="mastra"), "default": get_metric(name, compat=None)}


def _qa_scores(metric: BaseMetric, items: list[QAItem]) -> list[float]:
    return [
        r.score for r in metric.measure_many([i.golds for i in items], [i.answer for i in items])
    ]


def _summeval_scores(metric: BaseMetric, rows: list[dict[str, Any]]) -> list[float]:
    refs: list[str] = []
    outs: list[str] = []
    for row in rows:
        refs.extend(row["references"])
        outs.extend([str(row["decoded"])] * len(row["references"]))
    results = metric.measure_many(refs, outs)
    scores, k = [], 0
    for row in rows:
        n = len(row["references"])
        scores.append(float(np.mean([r.score for r in results[k : k + n]])))
        k += n
    return scores


def quality(resamples: int, names: list[str]) -> None:
    nq301 = load_nq301()
    tq = load_evouna("TQ")
    summeval = load_summeval()
    human_nq = [i.human for i in nq301]
    human_tq = [i.human for i in tq]
    relevance = summeval.human["relevance"]
    consistency = summeval.human["consistency"]
    print(f"NQ301 {len(nq301)} answers, EVOUNA TQ {len(tq)}, SummEval {len(summeval.rows)}")
    header = f"{'metric':20s} {'mode':8s} {'NQ301 AUC [95%]':>24s} {'TQ AUC':>7s}"
    print(header + f" {'SummEval rel. tau [95%]':>26s} {'SummEval cons. tau [95%]':>26s}")
    for name in names:
        scores: dict[str, dict[str, list[float]]] = {}
        for mode, metric in _metrics(name).items():
            t0 = time.process_time()
            s = {
                "nq": _qa_scores(metric, nq301),
                "tq": _qa_scores(metric, tq),
                "rel": _summeval_scores(metric, summeval.rows),
                "con": [
                    r.score
                    for r in metric.measure_many(
                        [str(row["decoded"]) for row in summeval.rows],
                        [row["source"] for row in summeval.rows],
                    )
                ],
            }
            scores[mode] = s
            a = agreement(s["nq"], human_nq, n_resamples=resamples)
            t = agreement(s["tq"], human_tq, n_resamples=1).auc
            c = correlation(
                s["rel"], relevance, groups=summeval.docs, level="summary", n_resamples=resamples
            )
            k = correlation(
                s["con"], consistency, groups=summeval.docs, level="summary", n_resamples=resamples
            )
            lo, hi = a.intervals["auc"]
            print(
                f"{name:20s} {mode:8s} {a.auc:7.3f} [{lo:.3f}, {hi:.3f}]     {t:7.3f}"
                f"   {c.value:7.3f} [{c.interval[0]:.3f}, {c.interval[1]:.3f}]"
                f"   {k.value:7.3f} [{k.interval[0]:.3f}, {k.interval[1]:.3f}]"
                f"   ({time.process_time() - t0:.0f}s CPU)"
            )
        d_nq = compare(
            scores["default"]["nq"], scores["compat"]["nq"], human_nq, n_resamples=resamples
        )
        d_rel, d_con = (
            compare(
                scores["default"][family],
                scores["compat"][family],
                human,
                groups=summeval.docs,
                level="summary",
                n_resamples=resamples,
            )
            for family, human in (("rel", relevance), ("con", consistency))
        )
        for label, d in (
            ("NQ301 AUC", d_nq),
            ("SummEval relevance tau", d_rel),
            ("SummEval consistency tau", d_con),
        ):
            print(
                f"{'':20s} default-compat {label}: {d.difference:+.3f} "
                f"[{d.interval[0]:+.3f}, {d.interval[1]:+.3f}] p={d.p_value:.3f}"
            )


def _pairs(seed: int) -> dict[str, list[tuple[str, str]]]:
    """Short (EVOUNA NQ gold, answer) and long (SummEval reference, summary) pairs, shuffled."""
    rng = random.Random(seed)
    qa = [(i.golds[0], i.answer) for i in load_evouna("NQ")]
    long = [(r["references"][0], str(r["decoded"])) for r in load_summeval().rows]
    rng.shuffle(qa)
    rng.shuffle(long)
    return {"short": qa, "long": long}


def speed(batches: int, size: int) -> None:
    directory = os.environ.get("MASTRA_EVALS_DIR")
    if not directory:
        print("speed skipped: set MASTRA_EVALS_DIR (see benchmarks/quality/mastra_nlp_speed.cjs)")
        return
    script = Path(__file__).resolve().parent / "mastra_nlp_speed.cjs"
    node = subprocess.Popen(
        ["node", str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "MASTRA_EVALS_DIR": directory},
    )
    assert node.stdin is not None and node.stdout is not None

    def on_node(name: str, pairs: list[tuple[str, str]]) -> float:
        node.stdin.write(json.dumps({"metric": name, "pairs": pairs}) + "\n")  # type: ignore[union-attr]
        node.stdin.flush()  # type: ignore[union-attr]
        return float(json.loads(node.stdout.readline())["cpu_s"])  # type: ignore[union-attr]

    def on_python(metric: BaseMetric, pairs: list[tuple[str, str]]) -> float:
        start = time.process_time()
        for i, o in pairs:
            metric.measure(i, o)
        return time.process_time() - start

    try:
        print(
            f"per call, CPU time, {batches} interleaved batches of {size} unseen pairs; "
            f"{load_average()}"
        )
        print(
            f"{'metric':20s} {'pairs':6s} {'Mastra/Node':>12s} {'compat':>10s} {'default':>10s}"
            f" {'Node/compat':>12s} {'Node/default':>13s}"
        )
        for kind, pairs in _pairs(20261125).items():
            quota = len(pairs) // len(NAMES)  # each metric its own pairs: no shared cache
            step = min(size, quota // (3 * (batches + 1)))
            for m, name in enumerate(NAMES):
                metrics = _metrics(name)
                pool = pairs[m * quota : (m + 1) * quota]
                chunks = [pool[k * step : (k + 1) * step] for k in range(3 * (batches + 1))]
                totals = {"node": 0.0, "compat": 0.0, "default": 0.0}
                for b in range(batches + 1):
                    a, c, d = chunks[3 * b : 3 * b + 3]  # each side scores pairs new to it
                    rotation = [("node", a), ("compat", c), ("default", d)]
                    if b % 2:
                        rotation.reverse()
                    for who, chunk in rotation:
                        took = (
                            on_node(name, chunk)
                            if who == "node"
                            else on_python(metrics[who], chunk)
                        )
                        if b:  # batch 0 warms up
                            totals[who] += took
                n = batches * step
                us = {k: v / n * 1e6 for k, v in totals.items()}
                print(
                    f"{name:20s} {kind:6s} {us['node']:9.1f} us {us['compat']:7.1f} us "
                    f"{us['default']:7.1f} us {us['node'] / us['compat']:11.2f}x "
                    f"{us['node'] / us['default']:12.2f}x"
                )
        print(load_average())
    finally:
        node.stdin.close()
        node.wait(timeout=30)


ORACLE_SCRIPT = "oracles/mastra_nlp/nlp_score.mjs"


def _fresh_pairs(seed: int, n: int) -> list[dict[str, str]]:
    """``n`` pairs of each kind (SummEval, EVOUNA TQ, SQuAD), drawn with ``seed``."""
    rng = random.Random(seed)
    rows = load_summeval().rows
    tq = load_evouna("TQ")
    with shared_path("data", "squad", "dev-v1.1.json").open(encoding="utf-8") as handle:
        squad = json.load(handle)["data"]
    cases = []
    for k in range(n):
        row = rng.choice(rows)
        ref = rng.choice(row["references"])
        cases.append({"id": f"se-{k}", "input": ref, "output": str(row["decoded"])})
        item = rng.choice(tq)
        cases.append({"id": f"tq-{k}", "input": item.golds[0], "output": item.answer})
        paragraph = rng.choice(rng.choice(squad)["paragraphs"])
        question = rng.choice(paragraph["qas"])["question"]
        sentence = rng.choice(paragraph["context"].split(". "))
        cases.append({"id": f"sq-{k}", "input": question, "output": sentence})
    return cases


def _real_completeness(cases: list[dict[str, str]]) -> list[float] | None:
    """The real package's completeness of each case (None without Node or the package)."""
    node_dir = os.environ.get("NODE_DIR", "/tmp/mastra-nlp")
    if not Path(node_dir, "node_modules", "@mastra", "evals").is_dir():
        print(f"fresh cases skipped: @mastra/evals is not installed in {node_dir} (NODE_DIR)")
        return None
    lines = "".join(json.dumps(c) + "\n" for c in cases)
    done = subprocess.run(
        ["node", str(shared_path(*ORACLE_SCRIPT.split("/")))],
        input=lines,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "NODE_DIR": node_dir},
    )
    return [json.loads(line)["completeness"]["score"] for line in done.stdout.splitlines()]


def _agreement_line(label: str, ids: list[str], ours: list[float], real: list[float]) -> None:
    diffs = [abs(a - b) for a, b in zip(ours, real, strict=True)]
    exact = sum(d <= 1e-9 for d in diffs)
    kinds = sorted({i.split("-")[0] for i in ids})
    parts = []
    for kind in kinds:
        mine = [d for i, d in zip(ids, diffs, strict=True) if i.split("-")[0] == kind]
        parts.append(f"{kind} {sum(d <= 1e-9 for d in mine)}/{len(mine)}")
    print(
        f"{label:28s} exact {exact}/{len(diffs)} = {exact / len(diffs):.1%}, "
        f"mean |diff| {sum(diffs) / len(diffs):.4f}  ({', '.join(parts)})"
    )


def completeness_agreement(seed: int, fresh: int) -> None:
    metric = get_metric("completeness", compat="mastra")
    cases_path = shared_path("oracles", "mastra", "cases.jsonl")
    expected_path = shared_path("oracles", "mastra_nlp", "expected.jsonl")
    with cases_path.open(encoding="utf-8") as a, expected_path.open(encoding="utf-8") as b:
        cases = [json.loads(line) for line in a if line.strip()]
        expected = [json.loads(line) for line in b if line.strip()]
    ours = [metric.measure(c["input"], c["output"]).score for c in cases]
    real = [e["completeness"]["score"] for e in expected]
    _agreement_line("441 recorded cases", [c["id"] for c in cases], ours, real)
    if fresh:
        pairs = _fresh_pairs(seed, fresh)
        scores = _real_completeness(pairs)
        if scores is not None:
            ours = [metric.measure(c["input"], c["output"]).score for c in pairs]
            _agreement_line(f"fresh pairs (seed {seed})", [c["id"] for c in pairs], ours, scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quality", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--agreement", action="store_true", help="completeness vs the package")
    parser.add_argument("--fresh", type=int, default=150, help="fresh pairs of each kind")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--metrics", default=",".join(NAMES), help="comma list (quality)")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--size", type=int, default=100)
    args = parser.parse_args()
    if args.agreement:
        completeness_agreement(args.seed, args.fresh)
        if not (args.quality or args.speed):
            return
    both = not (args.quality or args.speed)
    if args.quality or both:
        quality(args.resamples, args.metrics.split(","))
    if args.speed or both:
        speed(args.batches, args.size)


if __name__ == "__main__":
    main()
