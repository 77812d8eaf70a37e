"""A/B of the normalizer's speed against an earlier commit, in one process, runs interleaved.

Run: ``nice -n 10 .venv/bin/python benchmarks/speed/normalize_ab.py [--against 78a0142]
[--rounds 9]``.

The earlier commit's ``src/lexeval`` is taken with ``git archive`` into a temporary folder and
imported as another package (its ``lexeval`` imports renamed), so both run on the same texts in
the same process (the SummEval texts of ``benchmarks/speed/normalize.py``), A and B alternating,
each timed in CPU seconds (``time.process_time``: less sensitive to other processes than wall
time on a shared machine). Both must give the same tokens. Printed: the median of each, their ratio
(new / old: below 1 is faster), and the load average.

- ``warm``: a normalizer that has seen every text, over all texts again (the per-chunk cache);
- ``fresh``: a new normalizer (spaCy loaded) over all texts once;
for the presets ``default`` and ``tokens`` (``rouge`` did not exist at 78a0142).
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from normalize import load_texts

ROOT = Path(__file__).resolve().parents[2]
_IMPORT = re.compile(r"\blexeval(?=[.\s])")


def import_old(revision: str, folder: Path) -> Any:
    """The ``Normalizer`` class of ``revision``, imported as package ``lexeval_ab``."""
    return import_revision(revision, folder, "normalize").Normalizer


def import_revision(revision: str, folder: Path, module: str) -> Any:
    """Module ``lexeval.<module>`` of ``revision``, imported from package ``lexeval_ab`` (the
    revision's ``src/lexeval`` extracted into ``folder``, its ``lexeval`` imports renamed)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "src/lexeval"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "lexeval_ab"
    (folder / "src" / "lexeval").rename(package)
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(_IMPORT.sub("lexeval_ab", text), encoding="utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module(f"lexeval_ab.{module}")


def timers(cls: Any, preset: str, texts: list[str]) -> dict[str, Callable[[], float]]:
    warm_norm = cls(preset)
    for text in texts:
        warm_norm.tokens(text)

    def warm() -> float:
        start = time.process_time()
        for text in texts:
            warm_norm.tokens(text)
        return time.process_time() - start

    def fresh() -> float:
        norm = cls(preset)
        norm.tokens("warm up")
        start = time.process_time()
        for text in texts:
            norm.tokens(text)
        return time.process_time() - start

    return {"warm": warm, "fresh": fresh}


def interleaved(
    old: Callable[[], float], new: Callable[[], float], rounds: int
) -> tuple[float, float]:
    """The median times of ``old`` and ``new`` over ``rounds`` alternating runs (who goes
    first alternates too)."""
    a: list[float] = []
    b: list[float] = []
    for i in range(rounds):
        order = [(old, a), (new, b)] if i % 2 == 0 else [(new, b), (old, a)]
        for run, times in order:
            times.append(run())
    return statistics.median(a), statistics.median(b)


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="78a0142")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    texts = load_texts()
    from lexeval.normalize import Normalizer

    with tempfile.TemporaryDirectory() as tmp:
        old_cls = import_old(args.against, Path(tmp))
        print(f"{len(texts):,} texts; new = this tree, old = {args.against}")
        for preset in ("default", "tokens"):
            old_norm, new_norm = old_cls(preset), Normalizer(preset)
            differ = sum(old_norm.tokens(t) != new_norm.tokens(t) for t in texts)
            assert differ == 0, f"{differ} texts tokenize differently with preset {preset!r}"
            old, new = timers(old_cls, preset, texts), timers(Normalizer, preset, texts)
            for kind in ("warm", "fresh"):
                rounds = args.rounds if kind == "warm" else max(3, args.rounds // 2)
                a, b = interleaved(old[kind], new[kind], rounds)
                print(
                    f"{preset:8s} {kind:6s} old {a:.3f} s  new {b:.3f} s  new/old {b / a:.3f}  "
                    f"({load_average()})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
