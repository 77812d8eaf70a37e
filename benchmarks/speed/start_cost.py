"""Start-up cost: the CPU time (user + system) of a whole new process to its first result,
lexeval beside sacrebleu (its first chrF), interleaved, several runs each, with the load
average. Cases: the first default keyword coverage result from Python, the one-pair command
line (``lexeval score --input --output``), and a spawn-started worker (a process made by
``multiprocessing``'s spawn method, as ``measure_many(workers=..., start_method="spawn")``
starts them) to its first result.

lexeval's modules are byte-compiled first, as pip does on install (this workplace sets
PYTHONDONTWRITEBYTECODE, which would otherwise make every run compile them anew).

Run: .venv/bin/python benchmarks/speed/start_cost.py [--runs 7]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import lexeval

PAIR = ("Paris is the capital and largest city of France.", "The capital is Paris, I think.")

CASES: dict[str, list[str]] = {
    "sacrebleu first chrF (peer)": [
        sys.executable,
        "-c",
        "from sacrebleu.metrics import CHRF\n"
        f"print(CHRF().sentence_score({PAIR[1]!r}, [{PAIR[0]!r}]).score)",
    ],
    "lexeval first keyword_coverage": [
        sys.executable,
        "-c",
        "from lexeval import KeywordCoverageMetric\n"
        f"print(KeywordCoverageMetric().measure({PAIR[0]!r}, {PAIR[1]!r}).score)",
    ],
    "lexeval score, one pair (CLI)": [
        sys.executable,
        "-m",
        "lexeval",
        "score",
        "--metric",
        "keyword_coverage",
        "--input",
        PAIR[0],
        "--output",
        PAIR[1],
    ],
    "lexeval in a spawn-started worker": [sys.executable, "{worker}"],
}


#: The worker case's script (spawn re-imports ``__main__``, so it must be a file).
WORKER = (
    "import multiprocessing as mp\n"
    "from lexeval import KeywordCoverageMetric\n"
    "def first(pair):\n"
    "    return KeywordCoverageMetric().measure(*pair).score\n"
    "if __name__ == '__main__':\n"
    "    with mp.get_context('spawn').Pool(1) as pool:\n"
    f"        print(pool.map(first, [{PAIR!r}]))\n"
)


def cpu_of(command: list[str]) -> float:
    """User + system CPU seconds of ``command`` and its children (a new process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    compileall.compile_dir(Path(lexeval.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as folder:
        worker = Path(folder, "worker.py")
        worker.write_text(WORKER, encoding="utf-8")
        cases = {
            label: [part.replace("{worker}", str(worker)) for part in command]
            for label, command in CASES.items()
        }
        run(cases, args.runs)


def run(cases: dict[str, list[str]], runs: int) -> None:
    """Time each case ``runs`` times, interleaved, and print the medians."""
    for command in cases.values():  # warm the file cache once
        cpu_of(command)
    seconds: dict[str, list[float]] = {label: [] for label in cases}
    for _ in range(runs):
        for label, command in cases.items():  # interleaved
            seconds[label].append(cpu_of(command))
    one, five, _ = os.getloadavg()
    peer = statistics.median(seconds["sacrebleu first chrF (peer)"])
    print(f"CPU seconds of a new process to its first result, median of {runs} runs")
    for label, values in seconds.items():
        median = statistics.median(values)
        print(
            f"{label:36s} median {median:5.2f} s  min {min(values):5.2f}  max {max(values):5.2f}"
            f"  {median / peer:4.1f}x the peer"
        )
    print(f"load average {one:.2f}/{five:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
