"""A/B of the default keyword coverage's speed against an earlier commit, in one process.

Run: ``nice -n 10 .venv/bin/python benchmarks/speed/keyword_ab.py [--base 78a0142] [--rounds 5]
[--set nq|tq|nq301] [--limit N]``.

The earlier commit's ``src/lexeval`` is imported beside this tree's as package ``lexeval_ab``
(:func:`normalize_ab.import_revision`), and both default ``KeywordCoverageMetric`` score the
same pairs with ``measure_many``: by default every (gold alternative, answer) pair of EVOUNA NQ
(31,788, those of ``keyword_speed.py``), in file order. Runs alternate A and B (who goes first
alternates too), each timed in CPU seconds (``time.process_time``), and the medians are printed
with their ratio (new / old: below 1 is faster) and the load average:

- ``cold``: a new metric (spaCy loaded, every bounded per-process cache emptied: the functions'
  ``lru_cache`` of both packages) over all pairs once;
- ``warm``: the same metric over the same pairs again.

It also prints how many results (score and info) differ between the two: 0 when the base has
the same scoring rules (``--base`` a commit after the last change of them); issue 10 changed
the rules after 78a0142, so against it only the speed compares.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _qa import load_evouna, load_nq301
from keyword_speed import evouna_nq_pairs
from normalize_ab import import_revision, interleaved, load_average

Pairs = tuple[list[str], list[str]]


def load_pairs(name: str) -> Pairs:
    """Every (gold alternative, answer) pair of one QA set, in file order (EVOUNA NQ: all of
    them, as ``keyword_speed.py``; TQ and NQ301: the judged answers of the quality benchmarks)."""
    if name == "nq":
        return evouna_nq_pairs()
    items = load_nq301() if name == "nq301" else load_evouna(name.upper())
    pairs = [(gold, item.answer) for item in items for gold in item.golds]
    return [g for g, _ in pairs], [a for _, a in pairs]


def bounded_caches(package: str) -> Iterator[Any]:
    """The bounded ``lru_cache`` functions of a package's loaded modules (caches of data, not
    of resources: those are ``functools.cache``, unbounded)."""
    for name, module in list(sys.modules.items()):
        if not isinstance(module, ModuleType) or name.split(".")[0] != package:
            continue
        for value in list(vars(module).values()):
            parameters = getattr(value, "cache_parameters", None)
            if callable(parameters) and parameters()["maxsize"] is not None:
                yield value


def timers(package: str, metric_class: Any, pairs: Pairs) -> dict[str, Callable[[], float]]:
    inputs, outputs = pairs
    warm_metric = metric_class()
    warm_metric.measure_many(inputs, outputs)

    def warm() -> float:
        start = time.process_time()
        warm_metric.measure_many(inputs, outputs)
        return time.process_time() - start

    def cold() -> float:
        for cached in bounded_caches(package):
            cached.cache_clear()
        metric = metric_class()
        metric.measure("load spaCy once", "load spaCy")
        start = time.process_time()
        metric.measure_many(inputs, outputs)
        return time.process_time() - start

    return {"cold": cold, "warm": warm}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="78a0142", help="the earlier commit (default 78a0142)")
    parser.add_argument("--rounds", type=int, default=5, help="0: compare results only")
    parser.add_argument("--set", choices=["nq", "tq", "nq301"], default="nq", dest="qa_set")
    parser.add_argument("--limit", type=int, default=0, help="only the first N pairs")
    args = parser.parse_args()
    inputs, outputs = load_pairs(args.qa_set)
    if args.limit:
        inputs, outputs = inputs[: args.limit], outputs[: args.limit]
    from lexeval.metrics import KeywordCoverageMetric

    with tempfile.TemporaryDirectory() as tmp:
        old_class = import_revision(args.base, Path(tmp), "metrics").KeywordCoverageMetric
        print(f"{len(inputs):,} pairs of {args.qa_set}; new = this tree, old = {args.base}")
        old_results = old_class().measure_many(inputs, outputs)
        new_results = KeywordCoverageMetric().measure_many(inputs, outputs)
        differ = sum(
            (a.score, a.info) != (b.score, b.info)
            for a, b in zip(old_results, new_results, strict=True)
        )
        print(f"results (score and info) that differ: {differ} of {len(inputs):,}", flush=True)
        pairs = (inputs, outputs)
        old = timers("lexeval_ab", old_class, pairs)
        new = timers("lexeval", KeywordCoverageMetric, pairs)
        for kind in ("cold", "warm") if args.rounds > 0 else ():
            a, b = interleaved(old[kind], new[kind], args.rounds)
            print(
                f"{kind:5s} old {a:7.3f} s  new {b:7.3f} s CPU  new/old {b / a:.3f}  "
                f"({len(inputs) / b:,.0f} pairs/s new; {load_average()})",
                flush=True,
            )


if __name__ == "__main__":
    main()
