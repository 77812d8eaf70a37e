"""measure_many(..., workers=N) against one process: 100,000 EVOUNA pairs, default keyword
coverage.

The pairs are the first 100,000 (gold alternative, answer) pairs of EVOUNA NQ then TQ, single
references, none repeated. Four figures: one process with a new metric (spaCy loaded, caches
empty) and the same metric again (warm caches); ``workers=N`` on its first call (the pool
starts: worker processes fork from a server and load spaCy) and again (the pool and its
workers' metric are warm). Every run's results must equal the serial ones. The load average is
printed beside each figure: on a shared machine the speed-up says little without it.

Run: .venv/bin/python benchmarks/parallel_speed.py [--pairs 100000] [--workers 2]
     [--metric keyword_coverage]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import evouna_pairs, load_average

from lexeval import get_metric
from lexeval.parallel import shutdown


def cpu_seconds() -> dict[int, float]:
    """CPU seconds (user + system) of this process and its descendants (the pool's workers
    fork from a server this process started), by pid; {} without psutil."""
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--workers", default="2")
    parser.add_argument("--metric", default="keyword_coverage")
    args = parser.parse_args()
    workers = args.workers if args.workers == "auto" else int(args.workers)
    references, answers = evouna_pairs()
    inputs, outputs = references[: args.pairs], answers[: args.pairs]
    n = len(inputs)
    print(f"{n:,} EVOUNA (gold alternative, answer) pairs, {args.metric}, workers={workers}")
    get_metric(args.metric).measure("load spaCy once", "load spaCy")

    def run(label: str, metric: object, **options: object) -> list[object]:
        before = cpu_seconds()
        start = time.perf_counter()
        measure_many = metric.measure_many  # type: ignore[attr-defined]
        results: list[object] = measure_many(inputs, outputs, **options)
        seconds = time.perf_counter() - start
        after = cpu_seconds()
        cpu = {pid: after[pid] - before.get(pid, 0.0) for pid in after}
        busy = sorted((c for c in cpu.values() if c > 0.5), reverse=True)
        shown = " + ".join(f"{c:.1f}" for c in busy) or "n/a"
        print(
            f"{label:34s} {seconds:7.2f} s {n / seconds:9,.0f} pairs/s   {load_average()}\n"
            f"{'':34s} CPU s by process: {shown}"
        )
        timings[label] = seconds
        cpu_of[label] = busy
        return results

    timings: dict[str, float] = {}
    cpu_of: dict[str, list[float]] = {}
    serial_metric = get_metric(args.metric)
    serial = run("one process, new metric", serial_metric)
    run("one process, same metric again", serial_metric)
    parallel_metric = get_metric(args.metric)
    first = run(f"workers={workers}, first call", parallel_metric, workers=workers)
    again = run(f"workers={workers}, again", parallel_metric, workers=workers)
    print(f"results identical to one process: {first == serial and again == serial}")
    cold = timings["one process, new metric"] / timings[f"workers={workers}, first call"]
    warm = timings["one process, same metric again"] / timings[f"workers={workers}, again"]
    print(f"speed-up: {cold:.2f}x (first call vs new metric), {warm:.2f}x (warm vs warm)")
    pairs_of_runs = [
        ("first call", "one process, new metric", f"workers={workers}, first call"),
        ("warm", "one process, same metric again", f"workers={workers}, again"),
    ]
    for name, serial_label, parallel_label in pairs_of_runs:
        serial_cpu, parallel_cpu = cpu_of[serial_label], cpu_of[parallel_label]
        if serial_cpu and parallel_cpu:
            print(
                f"{name}: CPU s serial {sum(serial_cpu):.1f}, parallel {sum(parallel_cpu):.1f} in "
                f"all, busiest process {max(parallel_cpu):.1f}: on an idle machine about "
                f"{sum(serial_cpu) / max(parallel_cpu):.2f}x (an estimate from CPU time)"
            )
    shutdown()


if __name__ == "__main__":
    main()
