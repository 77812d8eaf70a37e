"""TER's search by text length: lexeval's ``ter_trace`` (its own beam edit distance,
``lexeval.metrics.ter_distance``) against sacrebleu 2.6's ``translation_edit_rate`` on the
same ``.split()`` words, interleaved per pair, CPU time, on short answers (EVOUNA NQ's FiD,
GPT-3.5 and ChatGPT answers of at most 20 words against the gold answer) and long summaries
(SummEval pairs from ``mt_speed.unseen_pairs`` whose both texts have at least 60 words).
Prints per length the pairs, whether every edit count was equal, the CPU time per pair of
each side, the sacrebleu/lexeval ratio (above 1: lexeval is faster) and the load average.

Run: nice /work/main/.venv/bin/python benchmarks/speed/ter_lengths.py [--short 600] [--long 25]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shared import load_average, shared_path
from mt_speed import unseen_pairs

from lexeval.metrics.ter_edits import ter_trace

Pairs = list[tuple[str, str]]  # (reference, output)


def short_pairs(limit: int) -> Pairs:
    """EVOUNA NQ (gold answer, answer) pairs with answers of at most 20 words."""
    path = shared_path("data", "qa_human", "evouna", "NQ.json")
    with open(path, encoding="utf-8") as fh:
        rows = json.load(fh)
    pairs: Pairs = []
    for row in rows:
        for system in ("fid", "gpt35", "chatgpt"):
            answer = row.get(f"answer_{system}")
            if isinstance(answer, str) and len(answer.split()) <= 20 and row["golden_answer"]:
                pairs.append((row["golden_answer"], answer))
    return pairs[1000 : 1000 + limit]


def long_pairs(limit: int) -> Pairs:
    """SummEval pairs whose reference and summary both have at least 60 words."""
    pairs = unseen_pairs()[700:]
    return [(r, o) for r, o in pairs if len(r.split()) >= 60 and len(o.split()) >= 60][:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", type=int, default=600)
    parser.add_argument("--long", type=int, default=25)
    args = parser.parse_args()
    from sacrebleu.metrics.lib_ter import translation_edit_rate

    for name, pairs in (
        ("short (<= 20 words)", short_pairs(args.short)),
        ("long (>= 60 words)", long_pairs(args.long)),
    ):
        peer = ours = 0.0
        equal = True
        for index, (reference, output) in enumerate(pairs):
            words_out, words_ref = output.split(), reference.split()
            for side in ("ours", "peer") if index % 2 else ("peer", "ours"):  # alternate
                start = time.process_time()
                if side == "peer":
                    expected = translation_edit_rate(words_out, words_ref)[0]
                    peer += time.process_time() - start
                else:
                    got = ter_trace(words_out, words_ref).edits
                    ours += time.process_time() - start
            equal = equal and expected == got
        print(
            f"{name}: {len(pairs)} pairs, equal edit counts: {equal} | "
            f"lexeval {ours / len(pairs) * 1e6:.1f} us/pair, "
            f"sacrebleu {peer / len(pairs) * 1e6:.1f} us/pair, "
            f"sacrebleu/lexeval {peer / ours:.2f}x | {load_average()}"
        )


if __name__ == "__main__":
    main()
