"""CPU time of spaCy's affix rules in Python (``AffixRules.split``) per white-space chunk that
is not letters alone (those take the tokenizer's letters fast path), on the distinct chunks of
EVOUNA NQ (answers and golds, the keyword benchmark's pairs), EVOUNA TQ and SummEval summaries.

Each distinct chunk is split once per round (the rules keep no per-chunk cache, so every round
sees each chunk as new); the figure is the median over rounds of the CPU time per chunk.
``--method split_rules`` times the rules alone (no fast path), the reference of ``split``.

    PYTHONPATH=src python benchmarks/diagnostics/affix_split.py [--rounds 7] [--method split_rules]

``--callgrind`` counts instead one pass over EVOUNA NQ's chunks (instructions per chunk =
callgrind's ``Collected`` / the chunks printed; robust on a loaded machine):

    PYTHONHASHSEED=0 PYTHONPATH=src valgrind --tool=callgrind --instr-atstart=no \
        --callgrind-out-file=/tmp/affix.%p python benchmarks/diagnostics/affix_split.py --callgrind
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import load_evouna
from _summeval import load

from lexeval.text.resources import load_language


def corpus_chunks() -> dict[str, list[str]]:
    """The distinct chunks (not letters alone) of each corpus, in order of first appearance."""
    texts = {
        "EVOUNA NQ": [t for i in load_evouna("NQ") for t in (i.answer, *i.golds)],
        "EVOUNA TQ": [t for i in load_evouna("TQ") for t in (i.answer, *i.golds)],
        "SummEval": [row["decoded"] for row in load().rows],
    }
    return {
        name: [c for c in dict.fromkeys(c for t in ts for c in t.split()) if not c.isalpha()]
        for name, ts in texts.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--method", choices=["split", "split_rules"], default="split")
    parser.add_argument("--callgrind", action="store_true")
    args = parser.parse_args()
    rules = load_language("en").affixes
    assert rules is not None
    split = getattr(rules, args.method)
    if args.callgrind:
        chunks = corpus_chunks()["EVOUNA NQ"]
        for chunk in chunks:
            split(chunk)
        pid = str(os.getpid())
        subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True, check=False)
        for chunk in chunks:
            split(chunk)
        subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True, check=False)
        print(f"{len(chunks)} chunks (EVOUNA NQ, {args.method})")
        return
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, chunks in corpus_chunks().items():
        for chunk in chunks:  # per-character caches of the prefix and suffix searches
            split(chunk)
        per_chunk = []
        for _ in range(args.rounds):
            start = time.process_time()
            for chunk in chunks:
                split(chunk)
            per_chunk.append((time.process_time() - start) / len(chunks) * 1e6)
        spacy = sum(split(c) is None for c in chunks)
        edges = sum(rules.split_edges(c) is not None for c in chunks)
        print(
            f"{name}: {len(chunks)} distinct chunks not letters alone, "
            f"{statistics.median(per_chunk):.2f} us per chunk "
            f"(range {min(per_chunk):.2f}-{max(per_chunk):.2f}); {spacy} left to spaCy; "
            f"decided by the edge fast path {edges}"
        )


if __name__ == "__main__":
    main()
