"""WER and CER speed: jiwer 4.0's functions vs lexeval's WerMetric and CerMetric, interleaved in
one process, CPU time, on pairs neither side has scored before.

Pairs: EVOUNA NQ and TQ (each answer against each gold alternative, and each gold against the
answer: short references, short and long outputs) and SummEval (each summary against each of
its 11 references: long texts). The pairs are shuffled with a fixed seed and cut into chunks;
each chunk is scored once by each side, the side that goes first alternating from chunk to
chunk, so both sides see every pair exactly once and share the machine's load. A warm-up
chunk (not counted) is scored first by both.

Per call: ``jiwer.wer(r, h)`` (the rate alone), ``jiwer.process_words(r, h)`` (the rate and
the counts lexeval reports too) and ``metric.measure(r, h)`` (a MetricResult with the rate,
counts and signature); the same for characters (``jiwer.cer``, ``process_characters``).
Per corpus: ``jiwer.wer(refs, hyps)`` vs ``metric.corpus_score(refs, hyps)`` on each chunk.
lexeval runs ``compat="jiwer"`` (the same numbers, checked pair by pair) and its default mode
(lexeval's normalization: different numbers, timed for its cost). Figures are this process's
CPU time per call in microseconds; "ratio" is jiwer's time over lexeval's (above 1: lexeval
is faster).

Run: nice -n 10 .venv/bin/python benchmarks/wer_speed.py [--chunks N] [--chunk-size N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
import jiwer
from _shared import evouna_pairs, load_average, shared_path

from lexeval.metrics import CerMetric, WerMetric
from lexeval.normalize import Normalizer

Pairs = list[tuple[str, str]]
#: The word-level sides (compared with jiwer.wer); the others are compared with jiwer.cer.
WORD_SIDES = {
    "jiwer.wer",
    "jiwer.process_words",
    "WerMetric(compat='jiwer').measure",
    "WerMetric().measure (default)",
    "jiwer.wer(refs, hyps)",
    "WerMetric(compat='jiwer').corpus_score",
}


def _pairs() -> tuple[Pairs, Pairs]:
    """(short pairs: EVOUNA, long pairs: SummEval), each shuffled with a fixed seed."""
    refs, outs = evouna_pairs(("NQ", "TQ"))
    short = [(str(r), o) for r, o in zip(refs, outs, strict=True)]
    short += [(o, str(r)) for r, o in zip(refs, outs, strict=True) if o.strip()]
    short = [(r, o) for r, o in dict.fromkeys(short) if r.strip()]  # jiwer: no empty reference
    long: Pairs = []
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            long += [(ref, row["decoded"]) for ref in row["references"]]
    random.Random(12345).shuffle(short)
    random.Random(12345).shuffle(long)
    return short, list(dict.fromkeys(long))


def _cpu(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _race(chunks: list[Pairs], sides: dict[str, Callable[[Pairs], Any]]) -> dict[str, float]:
    """CPU seconds of each side over every chunk, the first side alternating per chunk."""
    totals = dict.fromkeys(sides, 0.0)
    names = list(sides)
    for index, chunk in enumerate(chunks):
        order = names if index % 2 == 0 else names[::-1]
        for name in order:
            totals[name] += _cpu(lambda name=name, chunk=chunk: sides[name](chunk))
    return totals


def _check(chunks: list[Pairs]) -> tuple[int, int]:
    """Pairs checked and mismatches: lexeval's compat rates and counts against jiwer's."""
    wer, cer = WerMetric(compat="jiwer"), CerMetric(compat="jiwer")
    checked = mismatches = 0
    for chunk in chunks:
        for r, h in chunk:
            w, c = jiwer.process_words(r, h), jiwer.process_characters(r, h)
            ow, oc = wer.measure(r, h).info, cer.measure(r, h).info
            for o, info, key in ((w, ow, "wer"), (c, oc, "cer")):
                got = (info[key], info["hits"], info["substitutions"], info["deletions"])
                want = (getattr(o, key), o.hits, o.substitutions, o.deletions)
                mismatches += got != want or info["insertions"] != o.insertions
            checked += 1
    return checked, mismatches


def _per_call(label: str, chunks: list[Pairs], n: int) -> None:
    wer, cer = WerMetric(compat="jiwer"), CerMetric(compat="jiwer")
    # two normalizers: the second side would otherwise find the first one's texts cached
    wer_default = WerMetric(normalizer=Normalizer("tokens", lemmatize=False))
    cer_default = CerMetric(normalizer=Normalizer("tokens", lemmatize=False))
    peers: dict[str, Callable[[Pairs], Any]] = {
        "jiwer.wer": lambda c: [jiwer.wer(r, h) for r, h in c],
        "jiwer.cer": lambda c: [jiwer.cer(r, h) for r, h in c],
    }
    # compat sides first, then the default mode's in a race of their own: the normalizers'
    # caches grow the heap every garbage collection walks, which would slow the compat sides
    races: list[dict[str, Callable[[Pairs], Any]]] = [
        {
            **peers,
            "jiwer.process_words": lambda c: [jiwer.process_words(r, h) for r, h in c],
            "jiwer.process_characters": lambda c: [jiwer.process_characters(r, h) for r, h in c],
            "WerMetric(compat='jiwer').measure": lambda c: [wer.measure(r, h) for r, h in c],
            "CerMetric(compat='jiwer').measure": lambda c: [cer.measure(r, h) for r, h in c],
        },
        {
            **peers,
            "WerMetric().measure (default)": lambda c: [wer_default.measure(r, h) for r, h in c],
            "CerMetric().measure (default)": lambda c: [cer_default.measure(r, h) for r, h in c],
        },
    ]
    for race in races:
        totals = _race(chunks, race)
        print(f"\n{label}: per call, {n} pairs, {load_average()}")
        for name, seconds in totals.items():
            peer = "jiwer.wer" if name in WORD_SIDES else "jiwer.cer"
            ratio = totals[peer] / seconds
            print(f"  {name:36s} {seconds / n * 1e6:8.2f} us/call   ratio vs {peer}: {ratio:5.2f}x")


def _per_corpus(label: str, chunks: list[Pairs], n: int) -> None:
    wer, cer = WerMetric(compat="jiwer"), CerMetric(compat="jiwer")

    def split(chunk: Pairs) -> tuple[list[str], list[str]]:
        return [r for r, _ in chunk], [h for _, h in chunk]

    prepared = [split(c) for c in chunks]
    index = {id(c): p for c, p in zip(chunks, prepared, strict=True)}
    sides: dict[str, Callable[[Pairs], Any]] = {
        "jiwer.wer(refs, hyps)": lambda c: jiwer.wer(*index[id(c)]),
        "WerMetric(compat='jiwer').corpus_score": lambda c: wer.corpus_score(*index[id(c)]),
        "jiwer.cer(refs, hyps)": lambda c: jiwer.cer(*index[id(c)]),
        "CerMetric(compat='jiwer').corpus_score": lambda c: cer.corpus_score(*index[id(c)]),
    }
    for refs, hyps in prepared:
        assert wer.corpus_score(refs, hyps).info["wer"] == jiwer.wer(refs, hyps)
        assert cer.corpus_score(refs, hyps).info["cer"] == jiwer.cer(refs, hyps)
    totals = _race(chunks, sides)
    print(
        f"\n{label}: per corpus, {len(chunks)} corpora of {len(chunks[0])} pairs, {load_average()}"
    )
    for name, seconds in totals.items():
        peer = "jiwer.wer(refs, hyps)" if name in WORD_SIDES else "jiwer.cer(refs, hyps)"
        print(
            f"  {name:40s} {seconds / len(chunks) * 1e3:8.2f} ms/corpus   "
            f"ratio vs {peer}: {totals[peer] / seconds:5.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=12, help="chunks per set (default 12)")
    parser.add_argument("--chunk-size", type=int, default=1000, help="pairs per chunk")
    args = parser.parse_args()
    short, long = _pairs()
    size = args.chunk_size
    for label, pairs in (("EVOUNA (short)", short), ("SummEval (long)", long)):
        warm, rest = pairs[:200], pairs[200:]
        calls = [rest[i * size : (i + 1) * size] for i in range(args.chunks)]
        calls = [c for c in calls if c]
        # the corpora: pairs not yet scored by either side
        used = sum(map(len, calls))
        corpora = [rest[used + i * size : used + (i + 1) * size] for i in range(args.chunks)]
        corpora = [c for c in corpora if len(c) == size] or calls
        _per_call(label + " warm-up", [warm], len(warm))
        _per_call(label, calls, sum(map(len, calls)))
        _per_corpus(label, corpora, sum(map(len, corpora)))
        checked, mismatches = _check(calls)
        print(f"\n{label}: parity on the timed pairs: {checked} pairs, {mismatches} mismatches")


if __name__ == "__main__":
    main()
