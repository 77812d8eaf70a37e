"""measure_many(..., workers=N) against one process: 100,000 EVOUNA pairs, default keyword
coverage.

The pairs are the first 100,000 (gold alternative, answer) pairs of EVOUNA NQ then TQ, single
references, none repeated. Two comparisons, each of the whole call:

* **cold**: a new process loads spaCy (one pair measured), then scores every pair once with a
  new metric: ``workers=1`` in one process, ``workers=N`` in another (its pool starts inside
  the timed call). Each in its own new process, so that neither profits from caches the other
  filled.
* **warm**: in this process, one metric scores the same pairs ``--calls`` times with
  ``workers=1``, another one ``--calls`` times with ``workers=N``; call 2 against call 2 (the
  serial metric has every pair cached; in the pool, each side first scores the part it scored
  in call 1, and who runs out first takes some of the other's, pairs it has not seen), and the
  last call against the last.

``--cold-runs K`` repeats the cold comparison K times (serial and parallel alternating) and
prints the median ratio beside each run's: on a shared machine one run proves little.

Every run's results must equal the serial ones. CPU seconds by process (psutil) stand beside
each figure, with what they predict for idle cores (the serial CPU time over the busiest
process's), and the load average: on a shared machine the wall-clock speed-up says little.

Run: .venv/bin/python benchmarks/parallel_speed.py [--pairs 100000] [--workers 2]
     [--metric keyword_coverage] [--calls 3] [--cold-runs 1] [--start-method fork|forkserver|spawn]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import evouna_pairs, load_average

from lexeval import get_metric
from lexeval.parallel import shutdown, start_method


def cpu_seconds() -> dict[int, float]:
    """CPU seconds (user + system) of this process and its descendants (the pool's workers),
    by pid; {} without psutil."""
    try:
        import psutil  # installed with dask[distributed]; only this benchmark uses it
    except ImportError:
        return {}
    me = psutil.Process()
    out: dict[int, float] = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        out[proc.pid] = times.user + times.system
    return out


def timed_call(metric: Any, inputs: list[Any], outputs: list[str], workers: int | str) -> Any:
    """(results, seconds, CPU seconds of the busy processes, largest first)."""
    before = cpu_seconds()
    start = time.perf_counter()
    results = metric.measure_many(inputs, outputs, workers=workers)
    seconds = time.perf_counter() - start
    after = cpu_seconds()
    cpu = [after[pid] - before.get(pid, 0.0) for pid in after]
    return results, seconds, sorted((c for c in cpu if c > 0.05), reverse=True)


def digest(results: list[Any]) -> str:
    """A digest of every result's score, verdict, signature and info."""
    text = json.dumps([r.to_dict() for r in results], default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def line(label: str, seconds: float, cpu: list[float], n: int, load: str) -> str:
    shown = " + ".join(f"{c:.2f}" for c in cpu) or "n/a"
    return (
        f"{label:36s} {seconds:7.2f} s {n / seconds:9,.0f} pairs/s   {load}\n"
        f"{'':36s} CPU s by process: {shown}"
    )


def ratios(
    name: str, serial: tuple[float, list[float]], parallel: tuple[float, list[float]]
) -> str:
    wall = serial[0] / parallel[0]
    text = f"{name:10s} speed-up {wall:.2f}x wall"
    if serial[1] and parallel[1]:
        text += (
            f"; CPU s serial {sum(serial[1]):.2f}, parallel {sum(parallel[1]):.2f} in all, busiest "
            f"process {max(parallel[1]):.2f}: about {sum(serial[1]) / max(parallel[1]):.2f}x on "
            "idle cores (an estimate from CPU time)"
        )
    return text


def cold_run(args: argparse.Namespace, inputs: list[Any], outputs: list[str]) -> None:
    """In a new process: load spaCy, then one timed call with a new metric; one JSON line."""
    get_metric(args.metric).measure("load spaCy once", "load spaCy")
    workers = int(args.cold)
    method = start_method() if workers != 1 else "-"  # what the pool, started in the call, uses
    results, seconds, cpu = timed_call(get_metric(args.metric), inputs, outputs, workers)
    report = {"seconds": seconds, "cpu": cpu, "digest": digest(results), "load": load_average()}
    report["start_method"] = method
    print(json.dumps(report))
    shutdown()


def cold_in_new_process(args: argparse.Namespace, workers: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--pairs", str(args.pairs), "--metric", args.metric]
    command += ["--cold", str(workers)]
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=os.environ)
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--workers", default="2")
    parser.add_argument("--metric", default="keyword_coverage")
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=1)
    parser.add_argument("--start-method", choices=["fork", "forkserver", "spawn"])
    parser.add_argument("--cold", help=argparse.SUPPRESS)  # internal: one cold run
    args = parser.parse_args()
    if args.start_method:
        os.environ["LEXEVAL_START_METHOD"] = args.start_method
    references, answers = evouna_pairs()
    inputs, outputs = references[: args.pairs], answers[: args.pairs]
    n = len(inputs)
    if args.cold is not None:
        cold_run(args, inputs, outputs)
        return
    workers = args.workers if args.workers == "auto" else int(args.workers)
    print(f"{n:,} EVOUNA (gold alternative, answer) pairs, {args.metric}, workers={workers}")

    print("cold: a new process each, spaCy loaded, one call with a new metric")
    cold_ratios: list[float] = []
    same_cold = True
    for run in range(1, args.cold_runs + 1):
        cold_serial = cold_in_new_process(args, 1)
        report = cold_serial
        print(line(f"  run {run}, workers=1", report["seconds"], report["cpu"], n, report["load"]))
        cold_parallel = report = cold_in_new_process(args, workers)
        label = f"  run {run}, workers={workers} ({report['start_method']}, pool starts)"
        print(line(label, report["seconds"], report["cpu"], n, report["load"]))
        same_cold = same_cold and cold_parallel["digest"] == cold_serial["digest"]
        cold_ratios.append(cold_serial["seconds"] / cold_parallel["seconds"])
        if args.cold_runs > 1:
            print(
                ratios(
                    f"  run {run}",
                    (cold_serial["seconds"], cold_serial["cpu"]),
                    (cold_parallel["seconds"], cold_parallel["cpu"]),
                )
            )
    if args.cold_runs > 1:
        shown = ", ".join(f"{r:.2f}" for r in cold_ratios)
        print(f"  cold speed-up by run: {shown}; median {statistics.median(cold_ratios):.2f}x wall")

    print(f"warm: this process, {args.calls} calls each on the same pairs")
    get_metric(args.metric).measure("load spaCy once", "load spaCy")
    runs: dict[tuple[int | str, int], tuple[float, list[float]]] = {}
    serial_results: list[Any] = []
    same_warm = True
    for w in (1, workers):
        metric = get_metric(args.metric)
        for call in range(1, args.calls + 1):
            results, seconds, cpu = timed_call(metric, inputs, outputs, w)
            print(line(f"  workers={w}, call {call}", seconds, cpu, n, load_average()))
            runs[(w, call)] = (seconds, cpu)
            if w == 1 and call == 1:
                serial_results = results
            else:
                same_warm = same_warm and results == serial_results
    print(f"results identical to one process: {same_cold and same_warm}")
    print(
        ratios(
            "cold" if args.cold_runs == 1 else f"cold, run {args.cold_runs}",
            (cold_serial["seconds"], cold_serial["cpu"]),
            (cold_parallel["seconds"], cold_parallel["cpu"]),
        )
    )
    print(ratios("call 2", runs[(1, 2)], runs[(workers, 2)]))
    if args.calls > 2:
        last = args.calls
        print(ratios(f"call {last}", runs[(1, last)], runs[(workers, last)]))
    shutdown()


if __name__ == "__main__":
    main()
