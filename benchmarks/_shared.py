"""Helpers for the benchmarks: locate ``../shared`` beside the checkout and time calls."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ../shared; exits with a message when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        print(f"skipped: {path} not found (../shared beside the checkout is needed)")
        sys.exit(0)
    return path


def timed(
    fn: Callable[[], T], repeat: int = 3, setup: Callable[[], object] | None = None
) -> tuple[float, T]:
    """Best wall time of ``repeat`` calls (``setup`` runs untimed before each) and a result.

    The minimum is the figure least disturbed by other load on the machine.
    """
    best = float("inf")
    result: T | None = None
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    assert result is not None
    return best, result


def timed_cpu(
    fn: Callable[[], T], repeat: int = 3, setup: Callable[[], object] | None = None
) -> tuple[float, float, T]:
    """Best wall time and best CPU time (this process's) of ``repeat`` calls, and a result.

    On a loaded machine the CPU time is the steadier figure: it leaves out the time the
    process waited for a core (but not the slowdown of sharing caches with other processes).
    """
    best_wall = best_cpu = float("inf")
    result: T | None = None
    for _ in range(repeat):
        if setup is not None:
            setup()
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    assert result is not None
    return best_wall, best_cpu, result


#: The systems whose answers EVOUNA labels.
EVOUNA_SYSTEMS = ["fid", "gpt35", "chatgpt", "gpt4", "newbing"]


def evouna_pairs(
    names: tuple[str, ...] = ("NQ", "TQ"), *, each_alternative: bool = True
) -> tuple[list[str | list[str]], list[str]]:
    """EVOUNA's (gold, answer) pairs in file order, one per system answer: with
    ``each_alternative`` one pair per gold alternative (a str each), else one pair with the
    list of alternatives (rows without a gold left out)."""
    references: list[str | list[str]] = []
    outputs: list[str] = []
    for name in names:
        with open(shared_path("data", "qa_human", "evouna", f"{name}.json"), encoding="utf-8") as f:
            rows = json.load(f)
        for row in rows:
            golds = [g.strip() for g in (row["golden_answer"] or "").split("/") if g.strip()]
            for system in EVOUNA_SYSTEMS:
                answer = row.get(f"answer_{system}")
                if not isinstance(answer, str) or not golds:
                    continue
                if each_alternative:
                    references.extend(golds)
                    outputs.extend([answer] * len(golds))
                else:
                    references.append(golds)
                    outputs.append(answer)
    return references, outputs


def load_average() -> str:
    """The 1- and 5-minute load averages and the core count, to print beside a timing."""
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min) on {os.cpu_count()} cores"


def exact_data(value: Any) -> Any:
    """Results as JSON-able data with floats written exactly (``float.hex``), for digests."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else float.hex(value)
    if isinstance(value, dict):
        return {str(k): exact_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [exact_data(v) for v in value]
    return value
