"""Assigning generated records to expected ones from a grid of pair scores: the one
assignment of the record matcher (and so of the flashcard matcher).

``greedy``: expected records in order; each takes the unused generated record with the strictly
highest score (the first one on ties), accepted when the score is at least ``threshold``.
``optimal``: the one-to-one assignment that maximizes the total score of accepted pairs
(scores below the threshold count as 0), via :func:`scipy.optimize.linear_sum_assignment`.
A pair whose score is 0 is never a match, even with ``threshold=0.0``.

>>> grid = [[0.9, 0.8], [0.85, 0.0]]
>>> assign(grid, 0.5, "greedy"), assign(grid, 0.5, "optimal")
([(0, 0)], [(0, 1), (1, 0)])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = ["STRATEGIES", "Strategy", "assign", "check_settings"]

Strategy = Literal["greedy", "optimal"]
STRATEGIES: tuple[str, ...] = ("greedy", "optimal")


def check_settings(threshold: object, strategy: object) -> None:
    """A ValueError for a threshold outside [0, 1] or an unknown strategy."""
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float))
        or not 0.0 <= threshold <= 1.0
    ):
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be 'greedy' or 'optimal', got {strategy!r}")


def assign(
    grid: Sequence[Sequence[float]], threshold: float, strategy: Strategy
) -> list[tuple[int, int]]:
    """The accepted (expected index, generated index) pairs, sorted."""
    chosen: list[tuple[int, int]] = []
    n_generated = len(grid[0]) if grid else 0
    if strategy == "greedy":
        used = [False] * n_generated
        for i, row in enumerate(grid):
            best_j, best = -1, 0.0  # a 0-similarity pair is never a match
            for j, score in enumerate(row):
                if not used[j] and score > best:
                    best_j, best = j, score
            if best_j >= 0 and best >= threshold:
                used[best_j] = True
                chosen.append((i, best_j))
    elif grid and n_generated:
        from scipy.optimize import linear_sum_assignment

        gains = [[score if score >= threshold else 0.0 for score in row] for row in grid]
        rows, cols = linear_sum_assignment(gains, maximize=True)
        chosen = [
            (int(i), int(j))
            for i, j in zip(rows, cols, strict=True)
            if grid[i][j] >= threshold and grid[i][j] > 0.0
        ]
    return sorted(chosen)
