"""Instructions per pair of the text layer's part of default keyword coverage:
``keyword_analysis`` of a pair's two texts (reference and output), counted by valgrind's
callgrind (robust under load, like ``keyword_instructions.py`` for the whole metric).

The pairs are ``per_call.py``'s (``evouna_unseen``): the default normalizer analyzes the texts of
1,500 pairs, then counting is switched on for the next ``--pairs`` pairs:

- ``--mode unseen``: as a user's loop meets them (about 1.5 texts a pair have chunks not cached);
- ``--mode known``: after one pass over them (every chunk cached: the compiled reading alone);
- ``--mode untokenized``: unseen, but the tokenizer's answers are looked up (``split_chunks``,
  which now sees only the chunks the compiled analysis of new chunks leaves to Python: the cost
  outside the affix rules and spaCy's tokenizer).

Run (``Collected`` / pairs = instructions per pair; ``LEXEVAL_PURE_PYTHON=1`` for the Python
reference):
PYTHONHASHSEED=0 PYTHONPATH=src valgrind --tool=callgrind --instr-atstart=no \
    --callgrind-out-file=/tmp/ka.%p .venv/bin/python \
    benchmarks/diagnostics/keyword_analysis_instructions.py \
    --mode known --pairs 300
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

from lexeval.normalize import Normalizer
from lexeval.text.processor import StepProcessor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("unseen", "known", "untokenized"), default="unseen")
    parser.add_argument("--pairs", type=int, default=300)
    args = parser.parse_args()
    pairs = evouna_unseen()
    norm = Normalizer()
    processor = norm.processor
    assert isinstance(processor, StepProcessor)
    for reference, output in pairs[:1500]:
        norm.keyword_analysis(reference)
        norm.keyword_analysis(output)
    timed = pairs[1500 : 1500 + args.pairs]
    if args.mode == "known":
        for reference, output in timed:
            norm.keyword_analysis(reference)
            norm.keyword_analysis(output)
    elif args.mode == "untokenized":
        other = Normalizer().processor
        assert isinstance(other, StepProcessor)
        prepare = other.steps[0]
        texts = [text for pair in timed for text in pair]
        chunks = list(dict.fromkeys(c for text in texts for c in prepare(text).split()))  # type: ignore[operator]
        tokens = dict(zip(chunks, other._tokenizer.split_chunks(chunks), strict=True))
        processor._tokenizer.split_chunks = lambda found: [tokens[c] for c in found]  # type: ignore[method-assign]
    pid = str(os.getpid())
    subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True, check=False)
    for reference, output in timed:
        norm.keyword_analysis(reference)
        norm.keyword_analysis(output)
    subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True, check=False)


if __name__ == "__main__":
    main()
