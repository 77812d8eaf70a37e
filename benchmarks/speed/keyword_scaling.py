"""Lenient keyword matching against text length: 100,000 and 1,000,000 characters.

Two cases, default ``KeywordCoverageMetric`` (new metric objects each time, so nothing of these
texts is cached):

1. a short reference (20 keywords, three of them absent) against a long output;
2. a long reference against a long output of the same length (different SQuAD paragraphs), so
   that thousands of reference keywords are missing and each is looked for inside the output.
   Before the 4-gram index (lexeval.metrics.substring) every such look scanned the whole
   output: the time grew with (keywords x length).

3. numbers against other numbers: a reference of n distinct numbers against an output of n
   other numbers (every reference number missing and contradicted by every output number: the
   conflict rule), n = 20,000 and 60,000. Target: 20,000 in at most 3 s CPU, and linear.

Target: 1,000,000 characters in about 10x the time of 100,000 (linear). Printed with the load
average (2 shared cores: figures vary from run to run).

Run: .venv/bin/python benchmarks/speed/keyword_scaling.py
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path

from lexeval.metrics import KeywordCoverageMetric


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min) on {os.cpu_count()} cores"


def paragraphs() -> list[str]:
    with open(shared_path("data", "squad", "dev-v1.1.json"), encoding="utf-8") as fh:
        data = json.load(fh)
    return [p["context"] for article in data["data"] for p in article["paragraphs"]]


def text_of(pieces: list[str], size: int) -> str:
    out: list[str] = []
    length = 0
    for piece in pieces:
        if length >= size:
            break
        out.append(piece)
        length += len(piece) + 1
    return " ".join(out)[:size]


def main() -> None:
    pieces = paragraphs()
    odd, even = pieces[1::2], pieces[0::2]
    short_reference = " ".join(even[0].split()[:17]) + " photosynthesis chlorophyll zyxwv"
    KeywordCoverageMetric().measure("load spaCy once", "load spaCy")
    for label, long_reference in [("short reference", False), ("long reference", True)]:
        print(f"{label} against a long output (SQuAD dev paragraphs)")
        previous = None
        for size in (100_000, 1_000_000):
            output = text_of(odd, size)
            reference = text_of(even, size) if long_reference else short_reference
            metric = KeywordCoverageMetric()
            start = time.process_time()
            result = metric.measure(reference, output)
            seconds = time.process_time() - start
            ratio = f" = {seconds / previous:4.1f}x the time of 100k" if previous else " " * 28
            missing = len(result.info["missing"])
            print(
                f"    {size:>9,} characters: {seconds:7.2f} s{ratio}  "
                f"({result.info['total_keywords']} keywords, {missing} missing; {load_average()})"
            )
            previous = seconds
    numbers_case()


def numbers_case() -> None:
    """A reference of n numbers against an output of n other numbers."""
    print("numbers against other numbers (the conflict rule)")
    previous = None
    for n in (20_000, 60_000):
        reference = " ".join(str(1_000_000 + 2 * i) for i in range(n))
        output = " ".join(str(1_000_001 + 2 * i) for i in range(n))
        metric = KeywordCoverageMetric()
        start = time.process_time()
        result = metric.measure(reference, output)
        seconds = time.process_time() - start
        ratio = f" = {seconds / previous:4.1f}x the time of 20k" if previous else " " * 27
        print(
            f"    {n:>9,} numbers each: {seconds:7.2f} s{ratio}  "
            f"({len(result.info['conflicts'])} conflicts; {load_average()})"
        )
        previous = seconds


if __name__ == "__main__":
    main()
