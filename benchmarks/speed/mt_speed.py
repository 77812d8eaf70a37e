"""BLEU, chrF++ and TER speed: lexeval's ``BleuMetric``/``ChrfMetric``/``TerMetric`` against
sacrebleu 2.6's best path (one reused ``BLEU``/``CHRF``/``TER`` object, ``sentence_score`` per
pair, ``corpus_score`` per corpus), interleaved in one process, CPU time, on pairs neither side
has scored before.

Pairs: SummEval (``summeval_expert_avg_11refs.jsonl``), system k of each article against the
article's reference k (k < 11): every summary and every reference occurs in one pair only
(repeated summaries left out).
Each round takes the next chunk of pairs, makes NEW scorers on both sides (sacrebleu's
tokenizers cache per object: a new object has seen nothing), warms them on the previous
chunk, then times the chunk with ``time.process_time``; the order of the two sides alternates
each round. Printed per task: the median sacrebleu/lexeval CPU-time ratio (above 1: lexeval is
faster) with its range over the rounds, the CPU time per pair of each side, the load average,
and whether every figure was equal.

Tasks: ``bleu``, ``chrf`` (chrF++, ``word_order=2``), ``ter``, each per call (``sentence``)
and per corpus (``corpus``: one corpus score over the chunk).

Run: nice /work/main/.venv/bin/python benchmarks/speed/mt_speed.py [--rounds 10] [--chunk 100]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import load_average, shared_path

from lexeval.metrics import BleuMetric, ChrfMetric, TerMetric

Pairs = list[tuple[str, str]]  # (reference, output)


def unseen_pairs() -> Pairs:
    """SummEval's (reference k, system k's summary) pairs, k < 11: no text occurs twice."""
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    seen: dict[str, int] = {}
    used: set[str] = set()
    pairs: Pairs = []
    for row in rows:
        k = seen.get(row["doc_id"], 0)
        seen[row["doc_id"]] = k + 1
        if k < len(row["references"]):
            reference, output = row["references"][k], row["decoded"]
            if reference not in used and output not in used:  # a few summaries repeat
                used.update((reference, output))
                pairs.append((reference, output))
    return pairs


def _sides(task: str) -> tuple[Callable[[], Any], Callable[[], Any], str]:
    """(a new lexeval metric, a new sacrebleu metric, the info key) for a task."""
    from sacrebleu.metrics import BLEU, CHRF, TER

    if task == "bleu":
        return BleuMetric, lambda: BLEU(effective_order=True), "bleu"
    if task == "chrf":
        return lambda: ChrfMetric(word_order=2), lambda: CHRF(word_order=2), "chrf"
    return TerMetric, TER, "ter"


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    value = fn()
    return time.process_time() - start, value


def _run_sentence(
    ours: Any, peer: Any, pairs: Pairs, key: str, peer_first: bool = False
) -> tuple[float, float, bool]:
    measure, score = ours.measure, peer.sentence_score

    def mine() -> list[float]:
        return [measure(r, o).info[key] for r, o in pairs]

    def theirs() -> list[float]:
        return [score(o, [r]).score for r, o in pairs]

    if peer_first:
        t_peer, b = _timed(theirs)
        t_ours, a = _timed(mine)
    else:
        t_ours, a = _timed(mine)
        t_peer, b = _timed(theirs)
    return t_ours, t_peer, a == b


def _run_corpus(
    ours: Any, peer: Any, pairs: Pairs, key: str, peer_first: bool = False
) -> tuple[float, float, bool]:
    refs = [r for r, _ in pairs]
    outs = [o for _, o in pairs]

    def mine() -> float:
        return float(ours.corpus_score(refs, outs).info[key])

    def theirs() -> float:
        return float(peer.corpus_score(outs, [refs]).score)

    if peer_first:
        t_peer, b = _timed(theirs)
        t_ours, a = _timed(mine)
    else:
        t_ours, a = _timed(mine)
        t_peer, b = _timed(theirs)
    return t_ours, t_peer, a == b


def bench(task: str, level: str, pairs: Pairs, rounds: int, chunk: int) -> str:
    make_ours, make_peer, key = _sides(task)
    run = _run_sentence if level == "sentence" else _run_corpus
    ratios: list[float] = []
    per_ours: list[float] = []
    per_peer: list[float] = []
    equal = True
    if (rounds + 1) * chunk > len(pairs):
        raise SystemExit(f"{rounds} rounds of {chunk} pairs need {(rounds + 1) * chunk} pairs")
    for i in range(rounds):
        warm = pairs[i * chunk : (i + 1) * chunk]
        timed = pairs[(i + 1) * chunk : (i + 2) * chunk]
        ours, peer = make_ours(), make_peer()
        run(ours, peer, warm, key)  # warm both objects on other, already seen pairs
        t_ours, t_peer, same = run(ours, peer, timed, key, bool(i % 2))  # alternate the order
        equal &= same
        ratios.append(t_peer / t_ours)
        per_ours.append(t_ours / len(timed))
        per_peer.append(t_peer / len(timed))
    return (
        f"{task:<5} {level:<8} sacrebleu/lexeval CPU {statistics.median(ratios):.2f}x "
        f"(range {min(ratios):.2f}-{max(ratios):.2f}, {rounds} rounds x {chunk} pairs) | "
        f"lexeval {statistics.median(per_ours) * 1e6:.0f} us/pair, sacrebleu "
        f"{statistics.median(per_peer) * 1e6:.0f} us/pair | equal figures: {equal}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--ter-chunk", type=int, default=25, help="TER's chunk (slow)")
    parser.add_argument("--only", nargs="*", default=["bleu", "chrf", "ter"])
    args = parser.parse_args()
    pairs = unseen_pairs()
    import sacrebleu

    print(f"{len(pairs)} unseen SummEval pairs; sacrebleu {sacrebleu.__version__}")
    for task in args.only:
        chunk = args.ter_chunk if task == "ter" else args.chunk
        for level in ("sentence", "corpus"):
            line = bench(task, level, pairs, args.rounds, chunk)
            print(f"{line} | {load_average()}", flush=True)


if __name__ == "__main__":
    main()
