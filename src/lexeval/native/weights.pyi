"""The compiled fast path of a reference's keyword weights (src/lexeval/native/weights.c)."""

from collections.abc import Callable
from typing import Any

#: (memo, frequencies, zipfs, size, round, direct, negations, floor, ceiling, number,
#: negation): what KeywordWeights._native_state gives.
State = tuple[
    dict[str, float],
    dict[str, float],
    dict[float, float],
    int,
    Callable[..., Any],
    bool,
    frozenset[str],
    float,
    float,
    float,
    float,
]

def weigh(
    keys: tuple[str, ...],
    numeric: tuple[bool, ...],
    pieces: tuple[tuple[str, ...], ...],
    state: State,
    /,
) -> tuple[tuple[float, ...], float, tuple[tuple[float, ...], ...]] | None: ...
