"""Keyword coverage speed: the Mastra oracle cases, EVOUNA NQ beside Mastra on Node, and
(``--length-scaling``) time against output length.

1. The 441 Mastra oracle cases (mixed lengths). Targets: compat mode >= 13,000 pairs/s,
   default mode >= 5,000 pairs/s. "cold": every lexeval cache emptied and new metric objects
   (spaCy already loaded, new Normalizer instances); "warm": the same metric scoring the same
   pairs again. Best of 3 runs. The exact-match default (``match="exact"``) is shown beside the
   lenient default.
2. EVOUNA NQ: every (gold alternative, answer) pair, 31,788 single-reference pairs, scored by
   lexeval here and by Mastra's ``KeywordCoverageMetric`` (``@mastra/evals`` 0.14.4) on Node
   right after, when ``MASTRA_EVALS_DIR`` names a directory where
   ``npm install @mastra/evals@0.14.4`` was run (``benchmarks/speed/mastra_keyword_speed.cjs``);
   otherwise against the figure recorded in issue 14 (22,400 pairs/s warm). Target: the default
   mode warm >= 0.5x Mastra warm. The load average is printed beside the figures.
3. ``--length-scaling``: one reference of 20 keywords against outputs of 100,000 and 1,000,000
   characters (target: about 10x the time for 10x the length).

Run: .venv/bin/python benchmarks/speed/keyword_speed.py [--length-scaling]
     MASTRA_EVALS_DIR=/path/to/npm/dir .venv/bin/python benchmarks/speed/keyword_speed.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers
from _shared import shared_path, timed

from lexeval.compat import _mastra_word
from lexeval.metrics import KeywordCoverageMetric
from lexeval.text.lenient import clear_caches as _clear_canonical

MASTRA_NODE_PAIRS_PER_S = 13_000
MASTRA_NODE_EVOUNA_RECORDED = 22_400  # issue 14: Mastra on Node, warm, EVOUNA NQ
SYSTEMS = ["fid", "gpt35", "chatgpt", "gpt4", "newbing"]


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min) on {os.cpu_count()} cores"


def evouna_nq_pairs() -> tuple[list[str], list[str]]:
    """Every (gold alternative, answer) pair of EVOUNA NQ, in file order."""
    with open(shared_path("data", "qa_human", "evouna", "NQ.json"), encoding="utf-8") as fh:
        rows = json.load(fh)
    inputs: list[str] = []
    outputs: list[str] = []
    for row in rows:
        golds = [g.strip() for g in (row["golden_answer"] or "").split("/") if g.strip()]
        for system in SYSTEMS:
            answer = row.get(f"answer_{system}")
            if isinstance(answer, str):
                for gold in golds:
                    inputs.append(gold)
                    outputs.append(answer)
    return inputs, outputs


def mastra_on_node(inputs: list[str], outputs: list[str]) -> dict[str, float] | None:
    """Mastra's cold and warm time on these pairs, or None when it is not installed."""
    if not os.environ.get("MASTRA_EVALS_DIR"):
        return None
    script = Path(__file__).resolve().parent / "mastra_keyword_speed.cjs"
    with tempfile.TemporaryDirectory() as tmp:
        pairs = Path(tmp) / "pairs.json"
        pairs.write_text(json.dumps(list(zip(inputs, outputs, strict=True))), encoding="utf-8")
        proc = subprocess.run(
            ["node", str(script), str(pairs)], capture_output=True, text=True, check=True
        )
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def evouna_section() -> None:
    inputs, outputs = evouna_nq_pairs()
    n = len(inputs)
    print(f"\nEVOUNA NQ: {n} (gold alternative, answer) pairs")
    rates: dict[str, tuple[float, float]] = {}
    for label, options in [("compat='mastra'", {"compat": "mastra"}), ("default", {})]:
        _clear_canonical()
        _mastra_word.cache_clear()
        metric = KeywordCoverageMetric(**options)  # type: ignore[arg-type]
        start = time.perf_counter()
        metric.measure_many(inputs, outputs)
        t_cold = time.perf_counter() - start
        t_warm, _ = timed(lambda m=metric: m.measure_many(inputs, outputs))
        rates[label] = (n / t_cold, n / t_warm)
    print(f"    lexeval measured with {load_average()}")
    node = mastra_on_node(inputs, outputs)
    if node is not None:
        mastra_cold, mastra_warm = n / node["cold_s"], n / node["warm_s"]
        source = f"Mastra on Node now ({load_average()}): cold {mastra_cold:,.0f}"
    else:
        mastra_warm = MASTRA_NODE_EVOUNA_RECORDED
        source = "Mastra on Node: not installed here (MASTRA_EVALS_DIR), issue 14's figure"
    print(f"    {source}, warm {mastra_warm:,.0f} pairs/s")
    for label, (cold, warm) in rates.items():
        print(
            f"{label:24s} cold {cold:9,.0f} pairs/s   warm {warm:9,.0f} pairs/s "
            f"({warm / mastra_warm:.2f}x Mastra warm)"
        )


def length_scaling() -> None:
    with open(shared_path("data", "qa_human", "evouna", "NQ.json"), encoding="utf-8") as fh:
        rows = json.load(fh)
    answers = [row.get(f"answer_{system}") for system in ("gpt4", "newbing") for row in rows]
    text = " ".join(a for a in answers if isinstance(a, str))
    # a real answer's keywords, and three that no output contains
    reference = str(rows[5]["answer_chatgpt"]) + " photosynthesis chlorophyll zyxwv"
    print("\nlength scaling, default keyword coverage: EVOUNA NQ answers joined as one output")
    KeywordCoverageMetric().measure("load spaCy once", "load spaCy")
    previous = None
    for size in (100_000, 1_000_000):
        metric = KeywordCoverageMetric()  # a new metric: nothing of this output cached
        start = time.perf_counter()
        metric.measure(reference, text[:size])
        seconds = time.perf_counter() - start
        ratio = f" = {seconds / previous:.1f}x the time of 100k" if previous else ""
        print(f"    {size:>9,} characters: {seconds:7.2f} s{ratio}   ({load_average()})")
        previous = seconds


def main() -> None:
    path = shared_path("oracles", "mastra", "cases.jsonl")
    with open(path, encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh]
    inputs = [c["input"] for c in cases]
    outputs = [c["output"] for c in cases]
    KeywordCoverageMetric().measure("load spaCy once", "load spaCy")
    print(f"Mastra oracle cases: {len(cases)} pairs; Mastra on Node ~{MASTRA_NODE_PAIRS_PER_S}/s")
    for label, options in [
        ("compat='mastra'", {"compat": "mastra"}),
        ("compat='mastra-scorer'", {"compat": "mastra-scorer"}),
        ("default (lenient)", {}),
        ("default match='exact'", {"match": "exact"}),
    ]:

        def cold(options: dict[str, str] = options) -> None:
            KeywordCoverageMetric(**options).measure_many(inputs, outputs)  # type: ignore[arg-type]

        def clear() -> None:
            _mastra_word.cache_clear()
            _clear_canonical()

        t_cold, _ = timed(lambda: cold() or 0, setup=clear)
        metric = KeywordCoverageMetric(**options)  # type: ignore[arg-type]
        metric.measure_many(inputs, outputs)
        t_warm, _ = timed(lambda m=metric: m.measure_many(inputs, outputs))
        cold_rate, warm_rate = len(cases) / t_cold, len(cases) / t_warm
        peer = MASTRA_NODE_PAIRS_PER_S
        print(
            f"{label:24s} cold {cold_rate:9.0f} pairs/s ({cold_rate / peer:.2f}x Mastra)"
            f"   warm {warm_rate:9.0f} pairs/s ({warm_rate / peer:.2f}x)"
        )
    evouna_section()
    if "--length-scaling" in sys.argv[1:]:
        length_scaling()


if __name__ == "__main__":
    main()
