"""The compiled fast path of StepProcessor.keyword_analysis (src/lexeval/native/keywords.c)."""

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=tuple[Any, ...])

def analysis(
    text: object,
    cache: dict[str, Any],
    analyze_missing: Callable[[list[str]], dict[str, Any]],
    config: tuple[
        Callable[[str], str],
        frozenset[str] | None,
        frozenset[tuple[str, str]] | None,
        bool,
        int,
        type[T],
    ],
    /,
) -> T | None: ...
