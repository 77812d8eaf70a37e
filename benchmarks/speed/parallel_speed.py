"""lexeval.run.measure_many(..., workers=N) against one process, on pairs the process has not
scored before; optionally against another lexeval source tree (``--baseline-src``, e.g. an
older checkout), called the way that tree scores with workers.

The pairs are the first ``--pairs`` EVOUNA (gold alternative, answer) pairs of NQ then TQ.
Each measurement runs in a new process, which loads the metric and scores 2,000 other pairs
(warm-up: spaCy and the tables loaded), then times one call on the pairs (new to it; a pool
starts inside the call). The kinds alternate in each round (serial, pool, baseline), so that
the machine's load falls on all of them alike; ``--rounds K`` repeats the round and prints the
median ratio. Each line gives the wall time, the CPU seconds of every busy process (psutil),
and the load average before and after: on a shared machine the wall-clock ratio says little
without them. Every run's results must equal the serial ones (a digest of every result).

Run: .venv/bin/python benchmarks/speed/parallel_speed.py [--pairs 100000] [--workers 2]
     [--metric keyword_coverage] [--rounds 3] [--start-method fork|forkserver|spawn (fork)]
     [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import evouna_pairs

WARM_UP = 2000


class CpuSampler:
    """CPU seconds (user + system) of this process and of every descendant, sampled every
    0.1 s while a call runs (the pool's workers end with the call, so they are read while
    they live; a worker's last 0.1 s may be missed)."""

    def __init__(self) -> None:
        import psutil  # installed with dask[distributed]

        self.me = psutil.Process()
        self.seen: dict[int, float] = {}
        self.start = self._read(self.me)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    @staticmethod
    def _read(proc: Any) -> float:
        times = proc.cpu_times()
        return float(times.user + times.system)

    def _run(self) -> None:
        import psutil

        while not self.stop.wait(0.1):
            for proc in self.me.children(recursive=True):
                try:
                    self.seen[proc.pid] = self._read(proc)
                except psutil.Error:
                    continue

    def finish(self) -> tuple[float, list[float]]:
        """The caller's CPU seconds, and each busy descendant's (largest first)."""
        self.stop.set()
        self.thread.join()
        caller = self._read(self.me) - self.start
        return caller, sorted((c for c in self.seen.values() if c > 0.05), reverse=True)


def digest(results: list[Any]) -> str:
    text = json.dumps([r.to_dict() for r in results], default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def one_run(kind: str, args: argparse.Namespace) -> None:
    """In a new process: warm up on other pairs, then one timed call; one JSON line."""
    references, answers = evouna_pairs()
    inputs, outputs = references[: args.pairs], answers[: args.pairs]
    warm_in, warm_out = references[-WARM_UP:], answers[-WARM_UP:]
    workers = (
        1 if kind == "serial" else (args.workers if args.workers == "auto" else int(args.workers))
    )
    if kind == "baseline" and importlib.util.find_spec("lexeval.run") is None:
        from lexeval.metrics import get_metric  # a tree from before the run layer

        metric = get_metric(args.metric)
        metric.measure_many(warm_in, warm_out)

        def call() -> list[Any]:
            return metric.measure_many(inputs, outputs, workers=workers)  # type: ignore[call-arg]

    else:
        from lexeval import get_metric
        from lexeval.run import measure_many

        metric = get_metric(args.metric)
        metric.measure_many(warm_in, warm_out)

        def call() -> list[Any]:
            return measure_many(
                metric, inputs, outputs, workers=workers, start_method=args.start_method
            )

    load_before = os.getloadavg()[0]
    sampler = CpuSampler()
    start = time.perf_counter()
    results = call()
    seconds = time.perf_counter() - start
    caller, others = sampler.finish()
    report = {
        "seconds": seconds,
        "cpu": [caller, *others],
        "caller": caller,
        "others": others,
        "digest": digest(results),
        "load": [load_before, os.getloadavg()[0]],
    }
    print(json.dumps(report))


def in_new_process(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, __file__, "--pairs", str(args.pairs), "--metric", args.metric]
    command += ["--workers", str(args.workers), "--one", kind]
    command += ["--start-method", args.start_method]
    env = dict(os.environ)
    if kind == "baseline":  # an older tree: its own way of choosing the start method
        env["PYTHONPATH"] = args.baseline_src
        env["LEXEVAL_START_METHOD"] = args.start_method
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--workers", default="2")
    parser.add_argument("--metric", default="keyword_coverage")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--start-method", choices=["fork", "forkserver", "spawn"], default="fork")
    parser.add_argument("--baseline-src", help="another lexeval src/ directory to compare")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one run of this kind
    args = parser.parse_args()
    if args.one:
        one_run(args.one, args)
        return
    kinds = ["serial", "pool"] + (["baseline"] if args.baseline_src else [])
    print(
        f"{args.pairs:,} EVOUNA pairs, {args.metric}, workers={args.workers}, "
        f"{os.cpu_count()} cores; warm processes, pairs they have not scored"
    )
    seen: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds}
    for round_ in range(1, args.rounds + 1):
        for kind in kinds:
            report = in_new_process(kind, args)
            seen[kind].append(report)
            shown = f"{report['caller']:.2f}"
            if report["others"]:
                shown += " + workers " + " + ".join(f"{c:.2f}" for c in report["others"])
            print(
                f"round {round_} {kind:8s} {report['seconds']:7.2f} s wall, CPU s caller {shown}; "
                f"load {report['load'][0]:.2f} -> {report['load'][1]:.2f}"
            )
    serial = seen["serial"]
    same = all(r["digest"] == serial[0]["digest"] for kind in kinds for r in seen[kind])
    print(f"results identical to one process: {same}")
    cores = os.cpu_count() or 1
    for kind in kinds[1:]:
        wall = [s["seconds"] / r["seconds"] for s, r in zip(serial, seen[kind], strict=True)]
        # on idle cores a call takes at least its busiest process's CPU time, and at least its
        # processes' CPU time shared by the cores
        idle = [
            sum(s["cpu"]) / max(max(r["cpu"]), sum(r["cpu"]) / cores)
            for s, r in zip(serial, seen[kind], strict=True)
        ]
        print(
            f"{kind}: speed-up over serial by round {', '.join(f'{w:.2f}' for w in wall)}; "
            f"median {statistics.median(wall):.2f}x wall; estimated on {cores} idle cores from "
            f"CPU time (serial CPU over max(busiest process, all processes / cores)): "
            f"{', '.join(f'{e:.2f}' for e in idle)}, median {statistics.median(idle):.2f}x"
        )


if __name__ == "__main__":
    main()
