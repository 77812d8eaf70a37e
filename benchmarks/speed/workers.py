"""lexeval.run.measure_many(..., workers=N) against one process (``workers=1``), on pairs the
process has not scored before; optionally against another lexeval source tree
(``--baseline-src``, e.g. an older checkout), called the way that tree scores with workers.

The pairs: EVOUNA (gold alternative, answer) and SummEval (reference, system summary) pairs,
shuffled together once (a fixed seed) and cut into slices of ``--pairs``: every timed call gets
a slice of its own, so serial and the pool score different pairs of the same size and mix (and
the warm-up a slice of its own; each metric's calls use the same slices). Each measurement runs
in a new process, which loads the metric and scores ``--warm-up`` pairs (spaCy and the tables
loaded), then times one call on its slice (a pool starts inside the call). The kinds alternate
in each round (serial, pool, baseline; the first kind of a round alternates too), so that the
machine's load falls on all of them alike; ``--rounds K`` repeats the round and prints the
median ratio. Each line gives the wall time, the CPU seconds of every busy process (below),
the CPU seconds of the caller's own collections (``gc.callbacks``), and the load average
before and after: on a shared machine the wall-clock ratio says little without them. After
its timed call, a pool process scores its slice again in one process (untimed): the results
must be identical (a digest of every result).

ratio = serial wall / pool wall (the target: >= 1.7x with ``workers=2`` on an idle 2-core
machine). The estimate for idle cores from CPU time: serial CPU over the larger of the busiest
process's CPU and all processes' CPU shared by the cores.

Run: .venv/bin/python benchmarks/speed/workers.py [--pairs 20000] [--workers 2]
     [--metrics keyword_coverage,rougeL] [--rounds 3] [--warm-up 2000]
     [--start-method fork|forkserver|spawn (fork)] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
import _summeval
from _shared import evouna_pairs

SEED = 45


class CpuSampler:
    """CPU seconds (user + system) of this process and of every descendant while a call runs.
    The descendants (the pool's workers, which end with the call) are sampled every 0.1 s
    while they live, and their total is then taken exactly from what the kernel reports for
    the children this process waited for (``RUSAGE_CHILDREN``: the pool waits for its
    workers), shared out in proportion to the samples (a worker's last 0.1 s would be missed
    otherwise). The sampling thread's own CPU (it reads ``/proc``) is left out of this
    process's figure."""

    def __init__(self) -> None:
        import psutil  # installed with dask[distributed]

        self.me = psutil.Process()
        self.seen: dict[int, float] = {}
        self.own = 0.0
        self.start = self._read(self.me)
        self.children = self._children()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    @staticmethod
    def _read(proc: Any) -> float:
        times = proc.cpu_times()
        return float(times.user + times.system)

    @staticmethod
    def _children() -> float:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime

    def _run(self) -> None:
        import psutil

        while not self.stop.wait(0.1):
            for proc in self.me.children(recursive=True):
                try:
                    self.seen[proc.pid] = self._read(proc)
                except psutil.Error:
                    continue
        self.own = time.thread_time()

    def finish(self) -> tuple[float, list[float]]:
        """The caller's CPU seconds, and each busy descendant's (largest first)."""
        self.stop.set()
        self.thread.join()
        caller = self._read(self.me) - self.start - self.own
        sampled = sum(self.seen.values())
        exact = self._children() - self.children
        scale = exact / sampled if sampled > 0 and exact > 0 else 1.0
        shares = (c * scale for c in self.seen.values())
        return caller, sorted((c for c in shares if c > 0.05), reverse=True)


def digest(results: list[Any]) -> str:
    text = json.dumps([r.to_dict() for r in results], default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def all_pairs() -> list[tuple[str, str]]:
    """EVOUNA's and SummEval's pairs, shuffled together (the same order in every process)."""
    references, answers = evouna_pairs()
    pairs = [(str(r), a) for r, a in zip(references, answers, strict=True)]
    for row in _summeval.load().rows:
        pairs.extend((reference, row["decoded"]) for reference in row["references"])
    random.Random(SEED).shuffle(pairs)
    return pairs


def one_run(kind: str, piece: int, args: argparse.Namespace) -> None:
    """In a new process: warm up on the warm-up slice, then one timed call on slice
    ``piece``; one JSON line."""
    pairs = all_pairs()
    warm = pairs[: args.warm_up]
    start_at = args.warm_up + piece * args.pairs
    mine = pairs[start_at : start_at + args.pairs]
    if len(mine) < args.pairs:
        raise SystemExit(f"not enough pairs for slice {piece} of {args.pairs}")
    inputs, outputs = [p[0] for p in mine], [p[1] for p in mine]
    warm_in, warm_out = [p[0] for p in warm], [p[1] for p in warm]
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

    collecting = [0.0, 0.0]  # the caller's collections: CPU seconds, start of the current one

    def clock(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[1] = time.process_time()
        else:
            collecting[0] += time.process_time() - collecting[1]

    load_before = os.getloadavg()[0]
    gc.callbacks.append(clock)  # a benchmark may watch its own collector
    sampler = CpuSampler()
    start = time.perf_counter()
    results = call()
    seconds = time.perf_counter() - start
    caller, others = sampler.finish()
    gc.callbacks.remove(clock)
    load_after = os.getloadavg()[0]
    found = digest(results)
    # the same slice in this process (untimed): the pool's results must be identical
    same = kind == "serial" or digest(metric.measure_many(inputs, outputs)) == found
    report = {
        "seconds": seconds,
        "cpu": [caller, *others],
        "caller": caller,
        "collector": collecting[0],
        "others": others,
        "identical": same,
        "load": [load_before, load_after],
    }
    print(json.dumps(report))


def in_new_process(kind: str, piece: int, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, __file__, "--pairs", str(args.pairs), "--metrics", args.metric]
    command += ["--workers", str(args.workers), "--one", kind, "--piece", str(piece)]
    command += ["--start-method", args.start_method, "--warm-up", str(args.warm_up)]
    env = dict(os.environ)
    if kind == "baseline":  # an older tree: its own way of choosing the start method
        env["PYTHONPATH"] = args.baseline_src
        env["LEXEVAL_START_METHOD"] = args.start_method
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--workers", default="2")
    parser.add_argument("--metrics", default="keyword_coverage,rougeL")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm-up", type=int, default=2000)
    parser.add_argument("--start-method", choices=["fork", "forkserver", "spawn"], default="fork")
    parser.add_argument("--baseline-src", help="another lexeval src/ directory to compare")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one run of this kind
    parser.add_argument("--piece", type=int, help=argparse.SUPPRESS)  # internal: its slice
    args = parser.parse_args()
    if args.one:
        args.metric = args.metrics
        one_run(args.one, args.piece, args)
        return
    kinds = ["serial", "pool"] + (["baseline"] if args.baseline_src else [])
    cores = os.cpu_count() or 1
    # each metric's calls: a slice each (a new process for every call: one metric's slices
    # serve the other's calls too, new to that process)
    pieces = {metric: iter(range(1_000_000)) for metric in args.metrics.split(",")}
    print(
        f"{args.pairs:,} pairs a call (EVOUNA + SummEval, shuffled; every call its own), "
        f"workers={args.workers}, start method {args.start_method}, {cores} cores; warm "
        "processes; metrics and kinds interleaved"
    )
    seen: dict[tuple[str, str], list[dict[str, Any]]] = {}
    metrics = args.metrics.split(",")
    for round_ in range(1, args.rounds + 1):
        for metric in metrics:
            args.metric = metric
            order = kinds if round_ % 2 else [*kinds[1:], kinds[0]]
            for kind in order:
                report = in_new_process(kind, next(pieces[metric]), args)
                seen.setdefault((metric, kind), []).append(report)
                shown = f"{report['caller']:.2f} (collector {report['collector']:.2f})"
                if report["others"]:
                    shown += " + workers " + " + ".join(f"{c:.2f}" for c in report["others"])
                print(
                    f"round {round_} {metric:16s} {kind:8s} {report['seconds']:7.2f} s wall, "
                    f"CPU s caller {shown}; load {report['load'][0]:.2f} -> "
                    f"{report['load'][1]:.2f}",
                    flush=True,
                )
    for metric in metrics:
        serial = seen[(metric, "serial")]
        for kind in kinds[1:]:
            runs = seen[(metric, kind)]
            same = all(r["identical"] for r in runs)
            wall = [s["seconds"] / r["seconds"] for s, r in zip(serial, runs, strict=True)]
            # on idle cores a call takes at least its busiest process's CPU time, and at least
            # its processes' CPU time shared by the cores
            idle = [
                sum(s["cpu"]) / max(max(r["cpu"]), sum(r["cpu"]) / cores)
                for s, r in zip(serial, runs, strict=True)
            ]
            loads = [x for r in [*serial, *runs] for x in r["load"]]
            print(
                f"{metric} {kind}: ratio serial wall / {kind} wall by round "
                f"{', '.join(f'{w:.2f}' for w in wall)}; median {statistics.median(wall):.2f}x "
                f"(load {min(loads):.2f}-{max(loads):.2f}); estimated on {cores} idle cores "
                f"from CPU time: {', '.join(f'{e:.2f}' for e in idle)}, median "
                f"{statistics.median(idle):.2f}x; results identical to one process: {same}"
            )


if __name__ == "__main__":
    main()
