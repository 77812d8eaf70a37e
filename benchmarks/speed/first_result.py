"""First result in a new process: the wall time from interpreter start to the first score,
for each metric configuration, each in a fresh ``python -c`` (best of 3), beside the load
average. Also the time of ``import lexeval.metrics`` alone and rouge-score-rs' first result
when it is installed (a benchmark-only tool).

Run: .venv/bin/python benchmarks/speed/first_result.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

CASES = {
    "import lexeval.metrics": "import lexeval.metrics",
    "keyword_coverage default": "from lexeval.metrics import KeywordCoverageMetric as M\n"
    "M().measure('The cats are running', 'a cat runs')",
    "keyword_coverage compat=mastra": "from lexeval.metrics import KeywordCoverageMetric as M\n"
    "M(compat='mastra').measure('The cats are running', 'a cat runs')",
    "token_f1 default": "from lexeval.metrics import TokenF1Metric as M\n"
    "M().measure('The cats are running', 'a cat runs')",
    "rougeLsum compat": "from lexeval.metrics import RougeMetric as M\n"
    "M('rougeLsum', compat='rouge-score').measure('The cats are running', 'a cat runs')",
    "rougeLsum compat, stemmer": "from lexeval.metrics import RougeMetric as M\n"
    "M('rougeLsum', compat='rouge-score', use_stemmer=True).measure('The cats run', 'a cat')",
    "rouge-score-rs, stemmer": "import rouge_score_rs\n"
    "rouge_score_rs.RougeScorer(['rougeLsum'], use_stemmer=True).score('The cats run', 'a cat')",
}


def first_result(code: str) -> float | None:
    best = None
    for _ in range(3):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            return None
        best = seconds if best is None else min(best, seconds)
    return best


def main() -> None:
    for label, code in CASES.items():
        seconds = first_result(code)
        one, five, _ = os.getloadavg()
        shown = "not installed" if seconds is None else f"{seconds:6.2f} s"
        print(f"{label:32s} {shown}   load {one:.2f}/{five:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
