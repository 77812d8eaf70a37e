"""The compiled fast paths of lenient keyword matching (src/lexeval/native/lenient.c)."""

from typing import Any, Literal, overload

@overload
def canonical_keys(
    keys: list[str] | tuple[str, ...],
    memo: dict[str, str],
    tables: tuple[dict[str, str] | None, dict[str, str] | None, int],
    as_dict: Literal[False],
    /,
) -> tuple[str, ...]: ...
@overload
def canonical_keys(
    keys: list[str] | tuple[str, ...],
    memo: dict[str, str],
    tables: tuple[dict[str, str] | None, dict[str, str] | None, int],
    as_dict: Literal[True],
    /,
) -> dict[str, None]: ...
def score(
    types: tuple[type[Any], type[Any], type[Any]],
    ref: Any,
    weighted: Any,
    weights: tuple[float, ...],
    total: float,
    out: Any,
    profile: Any,
    echoed: frozenset[str],
    /,
) -> tuple[float, dict[str, Any]] | None: ...
