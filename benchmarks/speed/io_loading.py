"""Loading a large dataset: time and peak memory of ``load_dataset`` against a plain YAML load.

Issue 11 found a valid 19.5 MB dataset (under the 20 MB limit) taking 209 s and 1.44 GB to
load. This writes a synthetic dataset of about that size (cases like the bundled example's),
then in one process times ``lexeval.cards.load_dataset`` (libyaml events, validation case by
case) and the peer ``yaml.load(text, Loader=yaml.CSafeLoader)`` (libyaml, no validation, no
line numbers), and measures each one's peak traced memory (tracemalloc, a separate run).
Sizes below the full one show that time and memory grow linearly.

    .venv/bin/python benchmarks/speed/io_loading.py [--mb 19.5]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import textwrap
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import yaml

from lexeval.cards import load_dataset

CASE = textwrap.dedent(
    """\
      - id: case-{i}
        subject: biology
        text: >
          Photosynthesis takes place in the chloroplasts of plant cells. In the light-dependent
          reactions, chlorophyll absorbs light energy, water is split and oxygen is released.
        expected_cards:
          - front_keywords: ["photosynthesis", "where"]
            back_keywords: ["chloroplast"]
            card_type: qa
          - front_keywords: ["light-dependent reactions"]
            back_keywords: ["oxygen", "ATP", "NADPH"]
            card_type: qa
          - front_keywords: ["Calvin cycle"]
            back_keywords: ["stroma", "carbon dioxide", "glucose"]
    """
)


def write_dataset(path: Path, megabytes: float) -> int:
    target = int(megabytes * 1024 * 1024)
    with path.open("w", encoding="utf-8") as handle:
        handle.write("name: big\nversion: 1\ncases:\n")
        i = 0
        while handle.tell() < target - len(CASE) - 16:
            handle.write(CASE.format(i=i))
            i += 1
    return i


def best_time(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def peak_memory(fn: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=19.5, help="largest size (default 19.5)")
    args = parser.parse_args()
    sizes = [args.mb / 4, args.mb / 2, args.mb]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"{'MB':>6} {'cases':>7} {'lexeval s':>10} {'yaml s':>8} {'ratio':>6} "
        f"{'lexeval MB':>11} {'x file':>7} {'yaml MB':>8}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for megabytes in sizes:
            path = Path(tmp) / "big.yaml"
            n_cases = write_dataset(path, megabytes)
            size = path.stat().st_size

            def ours(path: Path = path) -> object:
                return load_dataset(path)

            def peer(path: Path = path) -> object:
                return yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)

            assert len(load_dataset(path)) == n_cases
            t_ours, t_peer = best_time(ours, 2), best_time(peer, 2)
            m_ours, m_peer = peak_memory(ours), peak_memory(peer)
            print(
                f"{size / 2**20:6.1f} {n_cases:7d} {t_ours:10.2f} {t_peer:8.2f} "
                f"{t_ours / t_peer:6.2f} {m_ours / 2**20:11.0f} {m_ours / size:7.1f} "
                f"{m_peer / 2**20:8.0f}"
            )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
