"""The JSON form shared by the meta-evaluation results."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

__all__ = ["JsonRecord"]


def _plain(value: Any) -> Any:
    """``value`` with every tuple turned into a list, inside dicts and lists too."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class JsonRecord:
    """Base of the frozen result dataclasses: ``to_dict()`` gives a plain, JSON-ready dict.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Figure(JsonRecord):
    ...     value: float
    ...     interval: tuple[float, float]
    >>> Figure(0.5, (0.4, 0.6)).to_dict()
    {'value': 0.5, 'interval': [0.4, 0.6]}
    """

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict (intervals as two-item lists)."""
        data: dict[str, Any] = _plain(asdict(self))  # type: ignore[call-overload]
        return data
