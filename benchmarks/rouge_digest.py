"""Digests of every ROUGE result (score, ``passed``, signature and ``info``) on all 17,600
SummEval pairs (each summary against each of its 11 references), to show that a change keeps
results identical: run it on two trees, or with and without the compiled fast path, and
compare the lines.

Texts: as written, and rewritten one sentence per line (rougeLsum's union-LCS). Settings:
``compat="rouge-score"`` with and without stemming, with ``evidence_limit`` 0 and 20, distinct
counting, and the default mode. Paths: ``RougeScorer.score`` per pair, ``score_many`` (one
reference per pair), ``score_many`` with the 11 references of each summary, and
``RougeMetric.measure`` per type.

Run: PYTHONPATH=src nice .venv/bin/python benchmarks/rouge_digest.py [--quick] [--compare]
(``--compare``: once with the compiled path and once with ``LEXEVAL_PURE_PYTHON=1``, in two
processes, and says whether every line is equal.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from typing import Any

from _shared import exact_data
from _summeval import load

import lexeval.compat
from lexeval.metrics.rouge import RougeMetric, RougeScorer

#: whether the compiled path runs (a tree from before it has none)
NATIVE_ROUGE = getattr(lexeval.compat, "NATIVE_ROUGE", False)

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
SETTINGS: dict[str, dict[str, Any]] = {
    "compat stem": {"compat": "rouge-score", "use_stemmer": True},
    "compat": {"compat": "rouge-score"},
    "compat stem evidence": {"compat": "rouge-score", "use_stemmer": True, "evidence_limit": 20},
    "compat stem distinct": {"compat": "rouge-score", "use_stemmer": True, "counting": "distinct"},
    "default": {},
}


def _hash(results: list[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    for scores in results:
        data = {t: r.to_dict() for t, r in scores.items()}
        h.update(json.dumps(exact_data(data), sort_keys=True).encode())
    return h.hexdigest()[:16]


def _options_of(rouge_type: str, options: dict[str, Any]) -> dict[str, Any]:
    """A type's own options, as the scorer gives them (distinct counting: ROUGE-N only)."""
    if rouge_type[5:].isdigit():
        return options
    return {k: v for k, v in options.items() if k != "counting"}


def lines(quick: bool) -> list[str]:
    rows = load().rows[:: 20 if quick else 1]
    split = re.compile(r" ([.!?]) ")
    out: list[str] = []
    for text_form in ("as written", "one sentence per line"):
        if text_form == "as written":
            multi = [(r["references"], r["decoded"]) for r in rows]
        else:
            multi = [
                (
                    [split.sub(r" \1\n", x) for x in r["references"]],
                    split.sub(r" \1\n", r["decoded"]),
                )
                for r in rows
            ]
        pairs = [(ref, out) for refs, out in multi for ref in refs]
        for name, options in SETTINGS.items():
            if name == "default" and quick is False and text_form != "as written":
                continue  # the default mode's normalizer is slow on every pair: one form
            scorer = RougeScorer(TYPES, **options)
            per_call = [scorer.score(r, o) for r, o in pairs]
            many = RougeScorer(TYPES, **options).score_many(
                [r for r, _ in pairs], [o for _, o in pairs]
            )
            several = RougeScorer(TYPES, **options).score_many(
                [refs for refs, _ in multi], [o for _, o in multi]
            )
            metrics = {t: RougeMetric(t, **_options_of(t, options)) for t in TYPES}
            measured = [{t: m.measure(r, o) for t, m in metrics.items()} for r, o in pairs]
            same = _hash(per_call) == _hash(many) == _hash(measured)
            out.append(
                f"{text_form:22s} {name:21s} pairs {len(pairs):6d} score {_hash(per_call)} "
                f"score_many {_hash(many)} 11 refs {_hash(several)} measure {_hash(measured)}"
                f"{'' if same else '  PATHS DIFFER'}"
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every 20th summary")
    parser.add_argument("--compare", action="store_true", help="compiled vs pure Python")
    args = parser.parse_args()
    if args.compare:
        runs = {}
        for label, pure in (("compiled", "0"), ("pure Python", "1")):
            env = {**os.environ, "LEXEVAL_PURE_PYTHON": pure}
            command = [sys.executable, __file__] + (["--quick"] if args.quick else [])
            runs[label] = subprocess.run(
                command, env=env, check=True, capture_output=True, text=True
            ).stdout
            print(f"{label}:\n{runs[label]}")
        body = [r.split("\n", 1)[1] for r in runs.values()]
        print("identical" if body[0] == body[1] else "DIFFERENT")
        return
    start = time.process_time()
    print(f"compiled fast path: {NATIVE_ROUGE}")
    for line in lines(args.quick):
        print(line)
    print(f"({time.process_time() - start:.0f} s CPU)", file=sys.stderr)


if __name__ == "__main__":
    main()
