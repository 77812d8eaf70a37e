"""Default keyword coverage per pair in one process, on new text and on text seen before: a
metric scores EVOUNA NQ pairs 0-999 (warm-up), then a NEW metric scores pairs 1,000-1,999
(unseen), a new metric the same pairs again (seen again: every text analysed before), and a new
metric pairs 2,000-2,999 (unseen, the process warmer). CPU time per pair. Run it on two trees
(``PYTHONPATH=<tree>/src``) alternately to compare builds or commits.

Run: PYTHONPATH=src .venv/bin/python benchmarks/speed/keyword_new_text.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from per_call import evouna_unseen

from lexeval import KeywordCoverageMetric


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
        metric = KeywordCoverageMetric()
        start = time.process_time()
        for reference, output in work:
            metric.measure(reference, output)
        spent = time.process_time() - start
        print(f"{label:14} {spent / len(work) * 1e6:7.1f} us/pair CPU")


if __name__ == "__main__":
    main()
