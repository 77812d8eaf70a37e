"""Instructions per call of default keyword coverage on unseen EVOUNA NQ pairs, counted by
valgrind's callgrind: a figure that the other processes of a shared machine do not move (CPU
time does, by 20-40% at a load of 5 on 2 cores), for comparing two trees.

The pairs and the warm-up are ``per_call.py``'s (its ``evouna_unseen``): the process scores
1,500 pairs, a new metric scores the 500 before the timed ones, then counting is switched on
(``callgrind_control -i on``) for ``--pairs`` new pairs and off again.

Run (each tree in turn; ``Collected`` / pairs = instructions per pair):
PYTHONHASHSEED=0 PYTHONPATH=src valgrind --tool=callgrind --instr-atstart=no \
    --callgrind-out-file=/tmp/kw.%p .venv/bin/python \
    benchmarks/diagnostics/keyword_instructions.py --pairs 300
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "speed"))
from per_call import evouna_unseen

from lexeval.metrics import KeywordCoverageMetric


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=300)
    args = parser.parse_args()
    pairs = evouna_unseen()
    metric = KeywordCoverageMetric()
    for reference, output in pairs[:1500]:
        metric.measure(reference, output)
    metric = KeywordCoverageMetric()
    for reference, output in pairs[1000:1500]:
        metric.measure(reference, output)
    pid = str(os.getpid())
    subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True, check=False)
    for reference, output in pairs[1500 : 1500 + args.pairs]:
        metric.measure(reference, output)
    subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True, check=False)


if __name__ == "__main__":
    main()
