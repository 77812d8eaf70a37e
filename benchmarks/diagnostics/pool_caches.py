"""What splitting a call over processes costs in the metric's caches: the same 20,000 unseen
pairs (EVOUNA + SummEval, shuffled as in ``benchmarks/speed/workers.py``) scored by keyword
coverage in one forked process, then by two forked processes taking alternate chunks (the
pool's chunks, ``lexeval.run.pool.chunk_bounds``) of the pairs in input order (the pool before
2026-11-29 11:00) and in the pool's order (``lexeval.run.pool.shared_text_order``: pairs that
share a text next to each other), one after the other and then at the same time. Each child
freezes and disables its own collector (as a pool worker does) and reports its CPU seconds and
how many entries the metric's large caches (the dicts of more than 3,000 entries in the warmed
parent) gained: a word the two processes both meet is analysed twice. Also printed: the CPU
time of the pool's ordering of these pairs.

Run: .venv/bin/python benchmarks/diagnostics/pool_caches.py [--metric keyword_coverage]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "speed"))
from _shared import load_average
from workers import all_pairs

from lexeval import get_metric
from lexeval.run.pool import chunk_bounds, shared_text_order

WARM, PAIRS = 2000, 20_000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--metric", default="keyword_coverage")
    args = parser.parse_args()
    pairs = all_pairs()
    metric = get_metric(args.metric)
    metric.measure_many([p[0] for p in pairs[:WARM]], [p[1] for p in pairs[:WARM]])
    gc.collect()
    caches = [o for o in gc.get_objects() if isinstance(o, dict) and len(o) > 3000]
    before = sum(len(c) for c in caches)
    mine = pairs[WARM : WARM + PAIRS]
    columns = [[p[0] for p in mine], [p[1] for p in mine], [None] * len(mine)]
    ordering = time.process_time()
    order = shared_text_order(columns)  # as the pool's caller does (questions: None)
    ordering = time.process_time() - ordering
    grouped = mine if order is None else [mine[i] for i in order]
    bounds = chunk_bounds(len(mine), 2)

    def child(chunks: list[int], out: int, items: list[tuple[str, str]]) -> None:
        gc.freeze()
        gc.disable()
        start = time.process_time()
        for i in chunks:
            part = items[bounds[i][0] : bounds[i][1]]
            metric.measure_many([p[0] for p in part], [p[1] for p in part])
        cpu = time.process_time() - start
        grown = sum(len(c) for c in caches) - before
        os.write(out, f"{cpu:.3f} {grown}\n".encode())
        os._exit(0)

    def run(
        groups: list[list[int]], together: bool, items: list[tuple[str, str]] = mine
    ) -> list[tuple[float, int]]:
        read, write = os.pipe()
        pids = []
        for group in groups:
            pid = os.fork()
            if pid == 0:
                os.close(read)
                child(group, write, items)
            pids.append(pid)
            if not together:
                os.waitpid(pid, 0)
        for pid in pids if together else []:
            os.waitpid(pid, 0)
        os.close(write)
        words = os.read(read, 10_000).decode().split()
        os.close(read)
        return [(float(words[i]), int(words[i + 1])) for i in range(0, len(words), 2)]

    every = list(range(len(bounds)))
    halves = [every[0::2], every[1::2]]
    print(f"{args.metric}, {PAIRS:,} unseen pairs, {len(bounds)} chunks; {load_average()}")
    print(f"  the pool's order (shared_text_order): {ordering * 1e3:.1f} ms CPU")
    for _ in range(2):
        kinds: list[tuple[str, Any]] = [
            ("one process", run([every], False)),
            ("two, one after the other", run(halves, False)),
            ("two at the same time", run(halves, True)),
            ("two grouped, one by one", run(halves, False, grouped)),
            ("two grouped, same time", run(halves, True, grouped)),
        ]
        for name, found in kinds:
            cpu = " + ".join(f"{c:.2f}" for c, _ in found)
            grown = " + ".join(f"{g:,}" for _, g in found)
            print(f"  {name:26s} CPU {cpu} s; cache entries added {grown}")
    print(f"  {load_average()}")


if __name__ == "__main__":
    main()
