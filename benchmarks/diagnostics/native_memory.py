"""The compiled paths leak nothing: resident memory over 100,000 calls of each entry point
(ROUGE: ``RougeScorer.score``, ``score_many``, the module's ``tokens``, ``counts`` and ``stem``,
and the error paths; lenient keyword matching's ``lexeval.native.lenient``: the
scoring loop with its rules and evidence through ``lenient_score``, ``has``, the canonical keys
of known keys and of new words (the memo, 65,536 keys, emptied whole when full), and its error
paths), after a warm-up that fills every bounded cache. RSS should stay flat (a few hundred kB
of allocator noise); a leak of one object per call would add megabytes. New words fill the
table of stems (2**18 entries, then cleared whole): four rounds that fill it once each (65,536
calls of 4 new words), RSS after each, should not grow.

Run: PYTHONPATH=src nice .venv/bin/python benchmarks/diagnostics/native_memory.py
[--calls 100000] [--only NAME]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path

from lexeval.metrics.rouge import RougeScorer
from lexeval.native import load
from lexeval.normalize import Normalizer

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def lenient_tasks(pairs: list[tuple[str, str]]) -> dict[str, Callable[[int], object]]:
    """The entry points of ``lexeval.native.lenient`` (none when not built)."""
    native = load("lenient")
    if native is None:
        print("lexeval.native.lenient is not built: lenient keyword matching not run")
        return {}
    import lexeval.metrics.keyword_lenient as kl
    from lexeval.metrics.keyword_tasks import PROFILES
    from lexeval.metrics.weights import KeywordWeights
    from lexeval.text import lenient

    matcher = kl.LenientMatcher(Normalizer())
    weights = KeywordWeights("en")
    profile = PROFILES["short_answer"]
    # short answers against summaries: every rule runs (misses, near matches, conflicts)
    prepared = []
    for reference, output in pairs[:300]:
        ref = matcher.reference(" ".join(reference.split()[:4]))
        out = matcher.output(output)
        prepared.append(
            (ref, matcher.weighted(ref, weights), out, matcher.question_keys(output[:40]))
        )
    keys = [list(out.keywords) for _, _, out, _ in prepared]

    class Failing(kl._Missed):
        def __call__(self, *args: object) -> float | None:
            raise LookupError("missed")

    failing = (*kl._SCORE_TYPES[:2], Failing, kl._SCORE_TYPES[3])

    def bad_calls(i: int) -> None:
        ref, weighted, out, _ = prepared[i % len(prepared)]
        args = (ref, weighted, weighted.weights, weighted.total, out, profile, frozenset())
        for call in (
            lambda: native.score(failing, *args),
            lambda: native.canonical_keys(["a"], [], (None, None, 1), 0),
            lambda: native.has(object(), "x", 10),
            lambda: native.reference((), matcher, "x"),
        ):
            with contextlib.suppress(LookupError, TypeError, AttributeError):
                call()

    texts = [r for r, _ in pairs[:300]] + ["four", "Twenty-four hours", "", "Röntgen 1,000"]

    def reference(i: int) -> object:
        matcher._references.clear()  # prepared again: the compiled path of a new reference
        return matcher.reference(texts[i % len(texts)])

    def score(i: int) -> object:
        ref, weighted, out, echoed = prepared[i % len(prepared)]
        return kl.lenient_score(ref, weighted, out, profile, echoed if i % 2 else frozenset())

    from lexeval.metrics import KeywordCoverageMetric
    from lexeval.metrics.keyword_modes import LenientCoverage
    from lexeval.metrics.weights import clear_caches

    metric = KeywordCoverageMetric()
    short = [(" ".join(r.split()[:4]), o) for r, o in pairs[:300]]

    def measure(i: int) -> object:
        # the metric's caches and the weights' memo emptied: every compiled step of a call on
        # a new pair runs (the reference's preparation and weights, the output's keys, the
        # scoring with near matches, the result), on words the process knows
        assert isinstance(metric._mode, LenientCoverage)
        lm = metric._mode.matcher
        lm._references.clear()
        lm._weighted.clear()
        lm._outputs.clear()
        lm._last = None
        clear_caches()
        return metric.measure(*short[i % len(short)])

    near = getattr(native, "near", None)
    return {
        "KeywordCoverageMetric.measure (caches emptied)": measure,
        "near": (lambda i: near(f"w{i % 97}ord", tuple(keys[i % len(keys)]), 0.5))
        if near is not None
        else (lambda i: None),
        "lenient_score": score,
        "LenientMatcher.reference (new references)": reference,
        "has": lambda i: native.has(prepared[i % 300][2], f"k{i % 500}ey", 32768),
        "canonical_keys (known)": lambda i: lenient.canonical_keys(keys[i % len(keys)], True),
        "canonical_key_set (new words)": lambda i: lenient.canonical_key_set(
            [f"Word{i}x", f"{i:07d}", f"w{i}-x"], True, joined=True
        ),
        "canonical_forms (number words merged)": lambda i: lenient.canonical_forms(
            ("born", "twenty", "four", f"w{i % 300}", "two", "thousand", "x"), True
        ),
        "texts (folded output)": lambda i: native.texts(pairs[i % len(pairs)][1]),
        "canonical_index (output keys)": lambda i: lenient.canonical_index(
            (*keys[i % len(keys)], "10-12", "six-year"), True
        ),
        "lenient error paths": bad_calls,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--only", default="", help="run the entry points whose name has this")
    args = parser.parse_args()
    native = load("rouge")
    if native is None:
        print("lexeval.native.rouge is not built (or LEXEVAL_PURE_PYTHON is set)")
        return
    path = shared_path("data", "summeval", "summeval_expert_avg_11refs.jsonl")
    with open(path, encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    pairs = [(r["references"][0], r["decoded"].replace(" . ", " .\n")) for r in rows]
    scorer = RougeScorer(TYPES, compat="rouge-score", use_stemmer=True)
    tokens = [(native.tokens(r, True), native.tokens(o, True)) for r, o in pairs]

    def bad_calls() -> None:
        for call in (lambda: native.tokens(None, True), lambda: native.counts([1], [], (), (), 1)):
            with contextlib.suppress(TypeError):
                call()

    tasks: dict[str, Callable[[int], object]] = {
        "RougeScorer.score": lambda i: scorer.score(*pairs[i % len(pairs)]),
        "score_many (64 pairs a call)": lambda i: scorer.score_many(
            [r for r, _ in pairs[i % 1536 : i % 1536 + 64]],
            [o for _, o in pairs[i % 1536 : i % 1536 + 64]],
        ),
        "tokens": lambda i: native.tokens(pairs[i % len(pairs)][1], True),
        "counts (every bit)": lambda i: native.counts(
            *tokens[i % len(tokens)],
            [len(tokens[i % len(tokens)][0])],
            [len(tokens[i % len(tokens)][1])],
            15,
        ),
        "tokens of new words": lambda i: native.tokens(f"w{i}ing x{i}ations {i}y q{i}", True),
        "stem": lambda i: native.stem("generalizations"),
        "error paths": lambda i: bad_calls(),
        **lenient_tasks(pairs),
    }
    for name, task in tasks.items():
        if args.only not in name:
            continue
        calls = args.calls // 64 if "score_many" in name else args.calls
        if name == "tokens of new words":  # 4 new words a call: a round fills the table once
            calls = 2**18 // 4
        # warm-up: the caches reach their size (new words: the table of stems fills, 2**18
        # entries, and is cleared whole; the timed calls then fill it again)
        # (the rouge preset's new words are stemmed: the table of stems fills first too)
        long_warm_up = "new words" in name or name == "tokens, words split (new chunks)"
        for i in range(calls if long_warm_up else min(calls, 5000)):
            task(-i - 1)
        before = rss_kb()
        rounds = 4 if name == "tokens of new words" else 1
        seen = []
        for r in range(rounds):
            for i in itertools.islice(itertools.count(r * calls), calls):
                task(i)
            seen.append(f"{rss_kb() / 1024:.1f}")
        print(f"{name:30s} {calls:7d} calls x {rounds}  RSS {before / 1024:.1f} MB -> {seen} MB")


if __name__ == "__main__":
    main()
