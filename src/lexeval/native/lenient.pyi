"""The compiled fast paths of lenient keyword matching (src/lexeval/native/lenient.c)."""

from collections.abc import Callable
from typing import Any, Literal, overload

@overload
def canonical_keys(
    keys: list[str] | tuple[str, ...],
    memo: dict[str, str],
    tables: tuple[dict[str, str] | None, dict[str, str] | None, int, dict[str, int] | None],
    as_dict: Literal[0],
    /,
) -> tuple[str, ...]: ...
@overload
def canonical_keys(
    keys: list[str] | tuple[str, ...],
    memo: dict[str, str],
    tables: tuple[dict[str, str] | None, dict[str, str] | None, int, dict[str, int] | None],
    as_dict: Literal[1, 2],
    /,
) -> dict[str, None]: ...
@overload
def canonical_keys(
    keys: tuple[str, ...],
    memo: dict[str, str],
    tables: tuple[dict[str, str] | None, dict[str, str] | None, int, dict[str, int] | None],
    as_dict: Literal[3],
    /,
) -> tuple[str, ...] | None: ...
@overload
def canonical_keys(
    keys: tuple[str, ...],
    memo: dict[str, str],
    tables: tuple[dict[str, str] | None, dict[str, str] | None, int, dict[str, int] | None],
    as_dict: Literal[3],
    known: tuple[str, ...],
    known_canonical: tuple[str, ...],
    /,
) -> tuple[str, ...] | None: ...
@overload
def canonical_keys(
    keys: list[str] | tuple[str, ...],
    memo: dict[str, str],
    tables: tuple[dict[str, str] | None, dict[str, str] | None, int, dict[str, int] | None],
    as_dict: Literal[4],
    /,
) -> tuple[tuple[str, ...], dict[str, None], tuple[str, ...]]: ...
def index_parts(
    keys: list[str] | tuple[str, ...],
    memo: dict[str, str],
    tables: tuple[dict[str, str] | None, dict[str, str] | None, int, dict[str, int] | None],
    /,
) -> tuple[tuple[str, ...], dict[str, None], dict[str, None] | None]: ...
def output_keys(
    cls: type[Any],
    members: tuple[Any, ...],
    state: tuple[str, tuple[str, ...], tuple[str, ...], bool],
    canonical: tuple[dict[str, str], tuple[Any, ...]],
    no_parts: frozenset[str],
    /,
) -> Any | None: ...
def score(
    types: tuple[type[Any], type[Any], type[Any], int],
    ref: Any,
    weighted: Any,
    weights: tuple[float, ...],
    total: float,
    out: Any,
    profile: Any,
    echoed: frozenset[str],
    /,
) -> tuple[float, dict[str, Any]] | None: ...
def has(out: Any, key: str, long_text: int, /) -> bool | None: ...
def near(
    key: str, choices: tuple[str, ...], cutoff: float, /
) -> tuple[str, float] | tuple[()] | None: ...
def without_digits(keys: tuple[str, ...], /) -> tuple[str, ...] | None: ...
def kind_candidates(
    keys: tuple[str, ...], months: frozenset[str] | None, /
) -> list[str] | None: ...
def prefix_match(
    key: str, keys: dict[str, None], every: dict[str, None], least: int, share: float, /
) -> bool | None: ...
def merge_number_words(
    keys: list[str] | tuple[str, ...], values: dict[str, int], /
) -> list[str] | tuple[str, ...] | None: ...
def texts(output: str, /) -> tuple[str, str] | None: ...
def reference(state: tuple[Any, ...], matcher: Any, reference: str, /) -> Any | None: ...
def names_number(
    text: str, words: frozenset[str], fold: Callable[[str], str], /
) -> bool | None: ...
