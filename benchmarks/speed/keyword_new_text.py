"""Default keyword coverage per pair in one process, on new text and on text seen before: a
metric scores EVOUNA NQ pairs 0-999 (warm-up), then a NEW metric scores pairs 1,000-1,999
(unseen), a new metric the same pairs again (seen again: every text analysed before), and a new
metric pairs 2,000-2,999 (unseen, the process warmer). CPU time per pair. Run it on two trees
(``PYTHONPATH=<tree>/src``) alternately to compare builds or commits.

``--warmth``: how much the process's age matters, apart from the pairs: the same unseen pairs
(2,000-2,999) timed with a new metric in new processes that first scored 1, 200, 1,000 or 2,000
of pairs 0-1,999, the warm-ups interleaved, ``--repeat`` processes each; median CPU per pair.

Run: PYTHONPATH=src .venv/bin/python benchmarks/speed/keyword_new_text.py [--warmth [--repeat 3]]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _shared import load_average
from per_call import evouna_unseen

from lexeval import KeywordCoverageMetric

WARM_UPS = (1, 200, 1000, 2000)


def per_pair(pairs: list[tuple[str, str]]) -> float:
    """CPU µs per pair of a new metric scoring ``pairs``."""
    metric = KeywordCoverageMetric()
    start = time.process_time()
    for reference, output in pairs:
        metric.measure(reference, output)
    return (time.process_time() - start) / len(pairs) * 1e6


def main() -> None:
    pairs = evouna_unseen()
    metric = KeywordCoverageMetric()
    for reference, output in pairs[:1000]:
        metric.measure(reference, output)
    runs = (
        ("unseen", pairs[1000:2000]),
        ("seen again", pairs[1000:2000]),
        ("unseen, later", pairs[2000:3000]),
    )
    for label, work in runs:
        print(f"{label:14} {per_pair(work):7.1f} us/pair CPU")


def one_warmth(warm_up: int) -> None:
    """In a new process: score ``warm_up`` pairs, then time the unseen ones; one number."""
    pairs = evouna_unseen()
    metric = KeywordCoverageMetric()
    for reference, output in pairs[:warm_up]:
        metric.measure(reference, output)
    print(f"{per_pair(pairs[2000:3000]):.2f}")


def warmth(repeat: int) -> None:
    found: dict[int, list[float]] = {w: [] for w in WARM_UPS}
    print(f"same 1,000 unseen pairs after a warm-up of N other pairs; {load_average()}")
    for r in range(repeat):
        order = WARM_UPS if r % 2 == 0 else WARM_UPS[::-1]
        for warm_up in order:
            command = [sys.executable, __file__, "--one", str(warm_up)]
            out = subprocess.run(command, capture_output=True, text=True, check=True)
            found[warm_up].append(float(out.stdout))
    for warm_up, times in found.items():
        shown = ", ".join(f"{t:.1f}" for t in times)
        print(f"  after {warm_up:5,} pairs: {statistics.median(times):7.1f} us/pair CPU ({shown})")
    print(f"  {load_average()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--warmth", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: one process
    args = parser.parse_args()
    if args.one is not None:
        one_warmth(args.one)
    elif args.warmth:
        warmth(args.repeat)
    else:
        main()
