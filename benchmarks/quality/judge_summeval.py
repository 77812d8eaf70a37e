"""A local GGUF judge's pairwise and rubric verdicts on SummEval, against the experts.

Pairwise (``PairwiseJudge``, both orders): for a seeded sample of ``--pairs`` articles, two
of its 16 system summaries whose experts' mean relevance differs by at least one point (a
clear human preference), drawn at random among such pairs, A and B in random order. The
prompt asks for a summary of the article and shows a person's summary of it (its first
reference, the original highlights) for reference. Reported: agreement with the experts'
preference (``lexeval.meta.pairwise_agreement``: TIE counts as a miss), the judge's ties,
position consistency (the two passes agree) and its first-position share, length bias
(``length_bias``), and ROUGE-1 F against the same reference picking the winner, as a lexical
baseline on the same pairs.

Rubric (``RubricJudge``, one criterion, relevance, levels 1-5): a seeded sample of ``--items``
summaries scored against the first reference; Kendall tau-b against the experts' mean
relevance with a 95% bootstrap interval (``lexeval.meta.correlation``, flat over the sample),
beside ROUGE-1 F's on the same sample.

The judge takes no parameter from SummEval (no threshold, no band): nothing is tuned here.
The server runs on 1 thread with the judgment cache on, so a re-run replays the verdicts.
Slow on a CPU; never part of ``make test``.

Run: .venv/bin/python benchmarks/quality/judge_summeval.py --local-model PATH
     [--mode logprobs|justified] [--pairs 60] [--items 40] [--skip-rubric] [--skip-pairwise]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import defaultdict
from math import isnan
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _summeval import load

from lexeval.judge import Criterion, LocalServer, PairwiseJudge, RubricJudge
from lexeval.judge.pairwise import PairwiseResult, length_bias, position_consistency
from lexeval.meta import correlation, pairwise_agreement
from lexeval.metrics import RougeMetric

SEED = 12345
N_RESAMPLES = 2000
RELEVANCE = Criterion(
    "relevance",
    "The summary keeps the important information of the article and leaves out the rest.",
    levels={
        1: "misses the main points or is mostly unimportant detail",
        2: "one main point, much unimportant detail",
        3: "some main points, some unimportant detail",
        4: "most main points, little unimportant detail",
        5: "all the main points and nothing unimportant",
    },
)
TASK = "Summarize the news article in a few sentences."


def prompt_for(reference: str) -> str:
    return f"{TASK} A person's summary of the article, for reference: {reference}"


def fmt(value: float, interval: tuple[float, float]) -> str:
    return f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def choose_pairs(n: int) -> list[tuple[int, int]]:
    """(row of A, row of B) for ``n`` articles with a clear expert preference between them."""
    data = load()
    relevance = data.human["relevance"]
    by_doc: dict[str, list[int]] = defaultdict(list)
    for i, doc in enumerate(data.docs):
        by_doc[doc].append(i)
    rng = random.Random(SEED)
    docs = sorted(by_doc)
    rng.shuffle(docs)
    pairs = []
    for doc in docs:
        rows = by_doc[doc]
        clear = [
            (x, y)
            for k, x in enumerate(rows)
            for y in rows[k + 1 :]
            if abs(relevance[x] - relevance[y]) >= 1.0
        ]
        if not clear:
            continue
        x, y = rng.choice(clear)
        pairs.append((x, y) if rng.random() < 0.5 else (y, x))
        if len(pairs) == n:
            break
    return pairs


def pairwise(backend: LocalServer, mode: str, n_pairs: int) -> None:
    data = load()
    relevance = data.human["relevance"]
    pairs = choose_pairs(n_pairs)
    a = [str(data.rows[x]["decoded"]) for x, _ in pairs]
    b = [str(data.rows[y]["decoded"]) for _, y in pairs]
    references = [str(data.rows[x]["references"][0]) for x, _ in pairs]
    human = ["A" if relevance[x] > relevance[y] else "B" for x, y in pairs]
    judge = PairwiseJudge(backend, [RELEVANCE], mode=mode)  # type: ignore[arg-type]
    start = time.perf_counter()
    results: list[PairwiseResult] = judge.compare_many([prompt_for(r) for r in references], a, b)
    elapsed = time.perf_counter() - start
    readable = [(r, h) for r, h in zip(results, human, strict=True) if r.winner is not None]
    verdicts = [str(r.winner) for r, _ in readable]
    agreement = pairwise_agreement(
        verdicts, [h for _, h in readable], seed=SEED, n_resamples=N_RESAMPLES
    )
    consistency = position_consistency([r for r, _ in readable], n_resamples=N_RESAMPLES)
    bias = length_bias(results, a, b, human)  # type: ignore[arg-type]
    rouge = RougeMetric("rouge1")
    lexical = [
        "A" if rouge.measure(ref, x).score > rouge.measure(ref, y).score else "B"
        for ref, x, y in zip(references, a, b, strict=True)
    ]
    lexical_agreement = pairwise_agreement(lexical, human, seed=SEED, n_resamples=N_RESAMPLES)
    print(
        f"\npairwise, {mode} mode: {len(pairs)} SummEval pairs with a clear expert preference "
        f"(relevance differs by >= 1 point), {len(results) - len(readable)} unreadable, "
        f"{elapsed / len(pairs):.2f} s per pair ({backend.usage.requests} requests; load "
        f"average {os.getloadavg()[0]:.2f})"
    )
    print(
        f"  agreement with the experts' preference: "
        f"{fmt(agreement.agreement, agreement.intervals['agreement'])} "
        f"(a TIE counts as a miss; {agreement.judge_ties} TIEs; without them "
        f"{agreement.agreement_without_ties:.3f} over {agreement.n_without_ties})"
    )
    print(
        f"  position consistency {fmt(consistency.consistency, consistency.interval)}"
        f"; first position won both passes in {consistency.first_position:.1%}, second in "
        f"{consistency.second_position:.1%}"
    )
    print(
        f"  length bias: the longer summary won {bias.longer_wins} of {bias.n_decided} decided "
        f"pairs ({bias.share:.1%} [{bias.ci_low:.1%}, {bias.ci_high:.1%}], p = {bias.p_value:.3f});"
        f" the experts preferred the longer one in {bias.human_share:.1%}"
    )
    print(
        f"  lexical baseline, ROUGE-1 F against the same reference picks the winner: "
        f"{fmt(lexical_agreement.agreement, lexical_agreement.intervals['agreement'])}"
    )


def rubric(backend: LocalServer, n_items: int) -> None:
    data = load()
    rows = list(range(len(data.rows)))
    random.Random(SEED).shuffle(rows)
    rows = sorted(rows[:n_items])
    references = [str(data.rows[i]["references"][0]) for i in rows]
    outputs = [str(data.rows[i]["decoded"]) for i in rows]
    human = [data.human["relevance"][i] for i in rows]
    judge = RubricJudge(backend, [RELEVANCE], threshold=None)
    start = time.perf_counter()
    results = judge.measure_many(references, outputs, questions=[TASK] * len(rows))
    elapsed = time.perf_counter() - start
    readable = [(r.score, h) for r, h in zip(results, human, strict=True) if not isnan(r.score)]
    tau = correlation(
        [s for s, _ in readable], [h for _, h in readable], seed=SEED, n_resamples=N_RESAMPLES
    )
    rouge = RougeMetric("rouge1")
    lexical = [rouge.measure(ref, out).score for ref, out in zip(references, outputs, strict=True)]
    lexical_tau = correlation(lexical, human, seed=SEED, n_resamples=N_RESAMPLES)
    levels = sorted({s for s, _ in readable})
    print(
        f"\nrubric (relevance, 1-5, justified): {len(rows)} SummEval summaries, "
        f"{len(rows) - len(readable)} unreadable, {elapsed / len(rows):.2f} s per summary "
        f"({backend.usage.requests} requests; load average {os.getloadavg()[0]:.2f})"
    )
    print(
        f"  Kendall tau-b with the experts' relevance: {fmt(tau.value, tau.interval)}; "
        f"scores used: {', '.join(f'{s:.2f}' for s in levels)}"
    )
    print(
        f"  lexical baseline, ROUGE-1 F against the same reference: "
        f"{fmt(lexical_tau.value, lexical_tau.interval)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--local-model", metavar="PATH", required=True)
    parser.add_argument("--mode", choices=("logprobs", "justified"), default="logprobs")
    parser.add_argument("--pairs", type=int, default=60)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--skip-pairwise", action="store_true")
    parser.add_argument("--skip-rubric", action="store_true")
    args = parser.parse_args()
    with LocalServer(args.local_model, n_threads=1, parallel=1, cache=True) as backend:
        print(f"judge {backend.signature}; SummEval (experts' mean ratings), seed {SEED}")
        if not args.skip_pairwise:
            pairwise(backend, args.mode, args.pairs)
        backend.reset_usage()
        if not args.skip_rubric:
            rubric(backend, args.items)


if __name__ == "__main__":
    main()
