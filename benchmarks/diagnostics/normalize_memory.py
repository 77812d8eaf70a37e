"""Memory of the normalization layer: RSS over many distinct pairs, and long text without spaces.

Run: ``.venv/bin/python benchmarks/diagnostics/normalize_memory.py [--pairs N] [--cjk-mb M]``.

- ``--pairs N`` (default 200,000): N distinct (reference, output) pairs, each with new words,
  through the default ``KeywordCoverageMetric`` in one process; every N/``--lines`` pairs
  (default 10 lines) a line gives RSS, which must stay flat once the bounded caches are full,
  Python's allocated blocks (``sys.getallocatedblocks``), the lexemes spaCy has made since the
  language was loaded (``len(vocab)`` counts those its memory zones freed too: a measure of
  churn, not of memory), the capacity of spaCy's string table (its hash tables keep a slot for
  every string a memory zone freed until they resize, so they grow with the churn unless the
  language's spaCy objects are renewed) and how many times they were renewed;
- ``--cjk-mb M`` (default 50): ``Normalizer().tokens`` on M MB (UTF-8) of Han text without spaces;
  the peak RSS over the process before the call, per character (the returned list alone needs 8
  bytes a character); 0 skips it.

Run long ones with ``nice -n 10``; each line gives the load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def spacy_state() -> str:
    """Lexemes made, string-table capacity and renewals of the English spaCy objects."""
    from lexeval.text.resources import load_language

    res = load_language("en")
    with res.lock:
        made = len(res.nlp.vocab) + res.lexemes_before
        capacity = res.nlp.vocab.strings._map.capacity
    return f"lexemes made {made / 1e6:6.2f} M  string table {capacity:>9,}  renewed {res.renewals}"


def distinct_pairs(total: int, lines: int) -> None:
    from lexeval import KeywordCoverageMetric

    rng = random.Random(0)
    words = (  # noqa: SIM905 (a list literal would take 20 lines)
        "the cats sat on neural networks machine learning React.js TCP/IP four 1,000 data "
        "running dogs state-of-the-art e-mail Paris capital river"
    ).split()
    metric = KeywordCoverageMetric()
    start = time.perf_counter()
    step = max(1, total // lines)
    for i in range(total):
        reference = " ".join(rng.choice(words) for _ in range(12)) + f" q{rng.getrandbits(40)} w{i}"
        output = " ".join(rng.choice(words) for _ in range(15)) + f" z{rng.getrandbits(40)}."
        metric.measure(reference, output)
        if (i + 1) % step == 0:
            elapsed = time.perf_counter() - start
            load = os.getloadavg()[0]
            blocks = sys.getallocatedblocks()
            print(
                f"{i + 1:>10,} pairs  RSS {rss_mb():7.1f} MB  blocks {blocks:>9,}  "
                f"{spacy_state()}  ({elapsed:.0f} s, load {load:.1f})",
                flush=True,
            )


def cjk(megabytes: float) -> None:
    from lexeval.normalize import Normalizer

    norm = Normalizer()
    norm.tokens("warm up 狐")
    rng = random.Random(0)
    alphabet = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)] + list("のにはをカタナ、。")
    text = "".join(rng.choices(alphabet, k=int(megabytes * 1e6 / 3)))
    before = rss_mb()
    start = time.perf_counter()
    tokens = norm.tokens(text)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = len(text.encode("utf-8")) / 1e6
    over = max(peak - before, 0.0)
    print(
        f"{size:.0f} MB of CJK ({len(text):,} characters) -> {len(tokens):,} tokens in "
        f"{seconds:.1f} s; peak RSS {peak:.0f} MB, {over:.0f} MB over the {before:.0f} MB before "
        f"({over * 1e6 / len(text):.0f} bytes a character)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200_000)
    parser.add_argument("--lines", type=int, default=10, help="lines of RSS over the run")
    parser.add_argument("--cjk-mb", type=float, default=50.0)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.cjk_mb > 0:
        cjk(args.cjk_mb)
    distinct_pairs(args.pairs, args.lines)


if __name__ == "__main__":
    main()
