"""The argument checks every layer shares: a text, many texts, one reference or several.

Each raises ``TypeError`` (``ValueError`` for an empty list of references) with a message that
names the argument, and returns the value in the form the caller works with. The module imports
nothing from lexeval, so the lowest layers (:mod:`lexeval.compat`, :mod:`lexeval.text`) use it
as well as the metrics, the judges and the cards.

>>> check_text("Paris", "output")
'Paris'
>>> check_text(3, "output")
Traceback (most recent call last):
...
TypeError: output must be a str, not int
>>> check_references(["Paris", "paris"]), check_references("Paris")
(['Paris', 'paris'], ['Paris'])
>>> check_texts(("a", "b"))
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["check_references", "check_text", "check_texts"]


def check_text(value: object, name: str = "text") -> str:
    """``value`` if it is a ``str``; otherwise a ``TypeError`` naming the argument."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return value


def check_texts(values: Iterable[str], name: str = "texts") -> list[str]:
    """The texts of an iterable of ``str`` as a list; a ``TypeError`` for a ``str`` itself
    (an easy slip: it iterates as characters) and for an item that is not a ``str``.

    >>> check_texts("abc")
    Traceback (most recent call last):
    ...
    TypeError: texts must be an iterable of str, not a str
    >>> check_texts(["a", None])
    Traceback (most recent call last):
    ...
    TypeError: texts[1] must be a str, not NoneType
    """
    if isinstance(values, str) or not isinstance(values, Iterable):
        shown = "a str" if isinstance(values, str) else type(values).__name__
        raise TypeError(f"{name} must be an iterable of str, not {shown}")
    items = list(values)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be a str, not {type(item).__name__}")
    return items


def check_references(value: object, name: str = "input") -> list[str]:
    """One reference or a non-empty list (or tuple) of them, as a list; a ``TypeError`` or
    ``ValueError`` naming the argument otherwise.

    >>> check_references([], "reference")
    Traceback (most recent call last):
    ...
    ValueError: reference must hold at least one reference
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{name} must hold at least one reference")
        for item in value:
            if not isinstance(item, str):
                raise TypeError(
                    f"{name} must be a str or a list of str, found {type(item).__name__} in it"
                )
        return list(value)
    raise TypeError(f"{name} must be a str or a list of str, not {type(value).__name__}")
