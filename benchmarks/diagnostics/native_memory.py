"""The compiled paths leak nothing: resident memory over 100,000 calls of each entry point
(ROUGE: ``RougeScorer.score``, ``score_many``, the module's ``tokens``, ``counts`` and ``stem``,
and the error paths; keyword coverage's text layer: ``keyword_analysis`` through
``lexeval.native.keywords`` with its chunks cached, with caches of 256 entries, emptied
whole when full, so that the callback for missing chunks runs, and on new chunks and tokens in
every call (``keyword_analysis`` and ``tokens``, the default and the ``rouge`` presets: analyzed
by the compiled code, caches of 4,096 entries), and its deferred and error paths;
``lexeval.native.affixes``' split), after a warm-up that fills every bounded cache. RSS
should stay flat (a few hundred kB of allocator noise); a leak of one object per call would
add megabytes. New words fill the table of stems (2**18 entries, then cleared whole): four
rounds that fill it once each (65,536 calls of 4 new words), RSS after each, should not grow.

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
from lexeval.text.resources import load_language

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def text_layer_tasks(texts: list[str]) -> dict[str, Callable[[int], object]]:
    """The entry points of keyword coverage's compiled text layer (none when not built)."""
    processor = Normalizer().processor
    rules = load_language("en").affixes
    compiled = rules.edges.compiled if rules is not None and rules.edges is not None else None
    if load("keywords") is None or compiled is None:
        print("lexeval.native.keywords or .affixes is not built: text layer not run")
        return {}
    chunks = [c for c in dict.fromkeys(c for t in texts[:2000] for c in t.split())]

    # caches of 256 entries, emptied whole when full: the callback for missing chunks runs
    small = Normalizer(cache_size=256).processor
    # new chunks and tokens in every call, analyzed by the compiled code (caches of 4,096
    # entries, emptied whole when full)
    new = Normalizer(cache_size=4096).processor
    words = Normalizer("rouge", cache_size=4096).processor  # words split

    def new_words(i: int) -> str:
        return f"The w{i}s (Q{i}s), x{i}-dogs APIs{i} café{i} Zoë{i}-networks"

    native = load("keywords")
    assert native is not None
    new.steps  # noqa: B018 - loaded: its compiled configuration is built
    config = new._read_config
    tables = config[6]
    odd_keys = (*tables[5][:3], {"dogs": 7}, *tables[5][4:])  # a lemma that is no str
    odd = (*config[:6], (*tables[:5], odd_keys))
    bad = (*config[:6], (*tables[:5], (1, 2)))

    def fail(chunks: list[str]) -> dict[str, object]:
        raise ValueError(chunks)

    def error_paths(i: int) -> None:
        text = f"dogs w{i}s (Q{i}s), x{i}-dogs"
        native.analysis(text, {}, new._analyze_missing, odd)  # dogs: to the callback
        for call in (
            lambda: native.analysis(text, {}, fail, odd),
            lambda: native.analysis(text, {}, fail, bad),
            lambda: native.entries(text.split(), {}, fail, odd),
        ):
            with contextlib.suppress(ValueError, TypeError):
                call()

    return {
        "keyword_analysis (cached)": lambda i: processor.keyword_analysis(texts[i % len(texts)]),
        "new chunks: deferred and error paths": error_paths,
        "keyword_analysis (small caches)": lambda i: small.keyword_analysis(texts[i % 300]),
        "keyword_analysis (new chunks)": lambda i: new.keyword_analysis(new_words(i)),
        "tokens (new chunks)": lambda i: new.tokens(new_words(i + 10**7)),
        "tokens, words split (new chunks)": lambda i: words.tokens(f"{new_words(i)} 1,{i:03}"),
        "affixes split": lambda i: compiled(chunks[i % len(chunks)]),
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
        **text_layer_tasks([o for _, o in pairs]),
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
