"""The compiled fast path of a reference's keyword weights (src/lexeval/native/weights.c)."""

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=tuple[Any, ...])
Found = tuple[tuple[float, ...], float, tuple[tuple[float, ...], ...]]

#: (memo, frequencies, zipfs, size, round, direct, negations, floor, ceiling, number,
#: negation, year_freq, benford_freq, minimum): what KeywordWeights.native_state gives.
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
    Callable[[str], float] | None,
    Callable[[str], float] | None,
    float,
]

def weigh(
    keys: tuple[str, ...],
    numeric: tuple[bool, ...],
    pieces: tuple[tuple[str, ...], ...],
    state: State,
    /,
) -> Found | None: ...
def weighted(
    cache: dict[tuple[str, ...], Found],
    size: int,
    result_type: type[T],
    state: State,
    fallback: Callable[[tuple[str, ...], tuple[bool, ...], tuple[tuple[str, ...], ...]], Found],
    reference: tuple[Any, ...],
    /,
) -> T: ...
