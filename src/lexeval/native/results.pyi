"""An object of a class with slots built in one call (src/lexeval/native/results.c)."""

from typing import Any, TypeVar

_T = TypeVar("_T")

def new(cls: type[_T], members: tuple[Any, ...], /, *values: object) -> _T: ...
