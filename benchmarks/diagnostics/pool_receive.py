"""What the pool's caller pays to receive results: CPU per result for 20 chunks of 5,000
results of one metric, received the way ``lexeval.run.measure_many(..., workers=N)`` receives
them, in a process that holds a loaded metric (as a caller does), with its collector on.

* ``pickled results``: the chunk pickled as a list of ``MetricResult``, as the earlier pool
  sent it;
* ``columns``: ``lexeval.run.packing`` (signature once; scores, verdicts, infos as lists),
  built with ``MetricResult`` as it is (slots);
* ``columns, dict fields``: the same, built as a frozen dataclass with a ``__dict__`` would be
  (``MetricResult`` before it had slots).

Each is timed three times, interleaved; the best is printed with the collector's share (the
collections' CPU, from ``gc.callbacks``, which a benchmark may use) and the tracked objects
per result. Also the worker's CPU per result to pack a chunk.

Run: .venv/bin/python benchmarks/diagnostics/pool_receive.py [--metric keyword_coverage]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import evouna_pairs, load_average

from lexeval import get_metric
from lexeval.run.packing import pack_results, unpack_results

CHUNK, CHUNKS = 5000, 20


@dataclass(frozen=True)
class DictResult:
    """``MetricResult`` as it was: a frozen dataclass whose fields live in a ``__dict__``."""

    score: float
    info: dict[str, Any] = field(default_factory=dict, hash=False)
    passed: bool | None = None
    signature: str | None = None


def dict_fields(packed: tuple[Any, ...]) -> list[Any]:
    _, signature, scores, verdicts, infos = packed
    made = []
    for score, info, passed in zip(scores, infos, verdicts, strict=True):
        result = object.__new__(DictResult)
        fields = result.__dict__
        fields["score"], fields["info"] = score, info
        fields["passed"], fields["signature"] = passed, signature
        made.append(result)
    return made


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--metric", default="keyword_coverage")
    args = parser.parse_args()
    references, answers = evouna_pairs()
    metric = get_metric(args.metric)
    metric.measure_many(references[-2000:], answers[-2000:])
    chunk = metric.measure_many(references[:CHUNK], answers[:CHUNK])
    packed = pack_results(chunk)
    assert packed[0] == 0, "one signature per chunk expected"
    kinds = {
        "pickled results": (pickle.dumps(chunk, 5), pickle.loads),
        "columns": (pickle.dumps(packed, 5), lambda b: unpack_results(pickle.loads(b))),
        "columns, dict fields": (pickle.dumps(packed, 5), lambda b: dict_fields(pickle.loads(b))),
    }
    collecting = [0.0]
    started = [0.0]

    def clock(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            collecting[0] += time.process_time() - started[0]

    best: dict[str, tuple[float, float, float]] = {}
    gc.callbacks.append(clock)
    for _ in range(3):
        for name, (blob, receive) in kinds.items():
            held: list[Any] = []
            tracked = len(gc.get_objects())
            collecting[0] = 0.0
            start = time.process_time()
            for _ in range(CHUNKS):
                held.extend(receive(blob))
            cpu = time.process_time() - start
            per = (len(gc.get_objects()) - tracked) / len(held)
            if name not in best or cpu < best[name][0]:
                best[name] = (cpu, collecting[0], per)
            del held
    gc.callbacks.remove(clock)
    n = CHUNK * CHUNKS
    print(f"{args.metric}: receiving {n:,} results in the caller; {load_average()}")
    for name, (cpu, collector, per) in best.items():
        print(
            f"  {name:22s} {cpu / n * 1e6:5.1f} us/result (collector {collector / n * 1e6:4.1f}),"
            f" {per:.2f} tracked objects/result"
        )
    for name, pack in [("pickled results", lambda: chunk), ("columns", lambda: packed)]:
        start = time.process_time()
        for _ in range(CHUNKS):
            pickle.dumps(pack_results(chunk) if name == "columns" else pack(), 5)
        cpu = time.process_time() - start
        print(f"  worker packs, {name:15s} {cpu / n * 1e6:5.1f} us/result")


if __name__ == "__main__":
    main()
