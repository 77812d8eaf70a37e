"""The garbage collector's share of default keyword coverage per call (each round: a new metric
warmed on the previous round's pairs, then pairs the process has not scored), observed with
``gc.callbacks`` (observing only: the thresholds and the collector stay as they are).

The run is ``per_call.py``'s keyword task without the peer: EVOUNA NQ pairs whose texts occur
once, then EVOUNA TQ's (a longer run: a full collection comes every few thousand calls), in
rounds of ``--size`` pairs; each round makes a NEW metric, warms it on the previous round's
pairs (texts the process has seen) and scores its own (texts it has not). Counted over every
scoring call after the first round (warm-up calls included: they run in the same process):

* collections of each generation per 1,000 calls, and their CPU time (ms per 1,000 calls; a
  full collection walks every tracked object of the process, spaCy's included);
* the share of the CPU time of the calls spent collecting;
* GC-capable objects allocated net per call (the generation-0 counter: allocations minus
  deallocations, summed over collections);
* the objects that the last metric's caches keep tracked, per call it made (what full
  collections walk, and what makes them come), counted after the run.

Run: PYTHONPATH=src nice .venv/bin/python benchmarks/diagnostics/keyword_gc.py [--size 500]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "speed"))
from _shared import load_average
from per_call import evouna_unseen

from lexeval.metrics import KeywordCoverageMetric


class Observer:
    """Counts collections and their CPU time while ``on`` (a ``gc.callbacks`` entry)."""

    def __init__(self) -> None:
        self.on = False
        self.collections = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self.allocated = 0  # the generation-0 counter at each collection's start, summed
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if not self.on:
            return
        generation = info["generation"]
        if phase == "start":
            self.collections[generation] += 1
            self.allocated += gc.get_count()[0]
            self._start = time.process_time()
        else:
            self.seconds[generation] += time.process_time() - self._start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=500, help="pairs per round")
    args = parser.parse_args()
    pairs = evouna_unseen(("NQ", "TQ"))
    size = args.size
    chunks = [pairs[i : i + size] for i in range(0, len(pairs) - size + 1, size)]
    observer = Observer()
    gc.callbacks.append(observer)
    cpu = 0.0
    calls = 0
    try:
        metric = KeywordCoverageMetric()
        for reference, output in chunks[0]:  # the first round: spaCy and the word caches load
            metric.measure(reference, output)
        for previous, chunk in itertools.pairwise(chunks):
            metric = KeywordCoverageMetric()
            count = gc.get_count()[0]
            observer.on = True
            start = time.process_time()
            for reference, output in previous + chunk:
                metric.measure(reference, output)
            cpu += time.process_time() - start
            observer.on = False
            observer.allocated += gc.get_count()[0] - count
            calls += len(previous) + len(chunk)
    finally:
        gc.callbacks.remove(observer)
    gc.collect()  # after the observed calls: what the last metric's caches keep tracked
    gc.collect()  # (a tuple is untracked once its items are: some need a second pass)
    with_metric = len(gc.get_objects())
    del metric
    gc.collect()
    gc.collect()
    kept = (with_metric - len(gc.get_objects())) / (2 * size)
    per = 1000 / calls
    print(
        f"keyword coverage default, {len(chunks) - 1} rounds x {2 * size} calls "
        f"(warm + unseen), {calls} calls; {load_average()}"
    )
    # (the warm-up pairs were scored by the previous metric: shared caches; per_call.py times
    # unseen pairs alone)
    print(f"  CPU per call, warm-up and unseen   {cpu / calls * 1e6:8.1f} us")
    print(
        "  collections per 1000 calls gen0/1/2 "
        + " / ".join(f"{n * per:.2f}" for n in observer.collections)
    )
    print(
        "  GC ms per 1000 calls gen0/1/2       "
        + " / ".join(f"{s * per * 1e3:.2f}" for s in observer.seconds)
    )
    print(f"  GC share of the calls' CPU         {100 * sum(observer.seconds) / cpu:8.1f} %")
    print(f"  GC-capable objects net per call    {observer.allocated / calls:8.1f}")
    print(f"  tracked objects kept per call      {kept:8.2f} (the last metric's caches)")


if __name__ == "__main__":
    main()
