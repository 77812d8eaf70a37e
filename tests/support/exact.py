"""Bit-for-bit equality, for the tests that compare compiled code with its Python reference (not
a test module)."""

from __future__ import annotations

import math
import struct
from typing import Any


def same(a: Any, b: Any) -> bool:
    """Equal, of the same types all the way down, floats bit for bit, dicts in the same order.

    >>> same({"a": 0.1, "b": (1, [2.0])}, {"a": 0.1, "b": (1, [2.0])})
    True
    >>> same(0.0, -0.0), same(1, 1.0), same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    (False, False, False)
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
