"""The compiled paths leak nothing: resident memory over 100,000 calls of each entry point
(ROUGE: ``RougeScorer.score``, ``score_many``, the module's ``tokens``, ``counts`` and ``stem``,
and the error paths), after a warm-up that fills every bounded cache. RSS should stay flat (a
few hundred kB of allocator noise); a leak of one object per call would add megabytes. New
words fill the table of stems (2**18 entries, then cleared whole): four rounds that fill it
once each (65,536 calls of 4 new words), RSS after each, should not grow.

Run: PYTHONPATH=src nice .venv/bin/python benchmarks/diagnostics/native_memory.py
[--calls 100000] [--only NAME]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path

from lexeval.metrics.rouge import RougeScorer
from lexeval.native import load

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--only", default="", help="run the entry points whose name has this")
    args = parser.parse_args()
    native = load("rouge")
    if native is None:
        print("lexeval.native.rouge is not built (or LEXEVAL_PURE_PYTHON is set)")
        return
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    pairs = [(r["references"][0], r["decoded"].replace(" . ", " .\n")) for r in rows]
    scorer = RougeScorer(TYPES, compat="rouge-score", use_stemmer=True)
    tokens = [(native.tokens(r, True), native.tokens(o, True)) for r, o in pairs]

    def bad_calls() -> None:
        for call in (lambda: native.tokens(None, True), lambda: native.counts([1], [], (), (), 1)):
            with contextlib.suppress(TypeError):
                call()

    tasks: dict[str, Callable[[int], object]] = {
        "RougeScorer.score": lambda i: scorer.score(*pairs[i % len(pairs)]),
        "score_many (64 pairs a call)": lambda i: scorer.score_many(
            [r for r, _ in pairs[i % 1536 : i % 1536 + 64]],
            [o for _, o in pairs[i % 1536 : i % 1536 + 64]],
        ),
        "tokens": lambda i: native.tokens(pairs[i % len(pairs)][1], True),
        "counts (every bit)": lambda i: native.counts(
            *tokens[i % len(tokens)],
            [len(tokens[i % len(tokens)][0])],
            [len(tokens[i % len(tokens)][1])],
            15,
        ),
        "tokens of new words": lambda i: native.tokens(f"w{i}ing x{i}ations {i}y q{i}", True),
        "stem": lambda i: native.stem("generalizations"),
        "error paths": lambda i: bad_calls(),
    }
    for name, task in tasks.items():
        if args.only not in name:
            continue
        calls = args.calls // 64 if "score_many" in name else args.calls
        if name == "tokens of new words":  # 4 new words a call: a round fills the table once
            calls = 2**18 // 4
        # warm-up: the caches reach their size (new words: the table of stems fills, 2**18
        # entries, and is cleared whole; the timed calls then fill it again)
        # (the rouge preset's new words are stemmed: the table of stems fills first too)
        long_warm_up = "new words" in name or name == "tokens, words split (new chunks)"
        for i in range(calls if long_warm_up else min(calls, 5000)):
            task(-i - 1)
        before = rss_kb()
        rounds = 4 if name == "tokens of new words" else 1
        seen = []
        for r in range(rounds):
            for i in itertools.islice(itertools.count(r * calls), calls):
                task(i)
            seen.append(f"{rss_kb() / 1024:.1f}")
        print(f"{name:30s} {calls:7d} calls x {rounds}  RSS {before / 1024:.1f} MB -> {seen} MB")


if __name__ == "__main__":
    main()
