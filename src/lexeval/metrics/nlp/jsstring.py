"""JavaScript string semantics for the Mastra-compatible modes: ``\\s``, ``trim``, and UTF-16.

JavaScript measures and indexes strings in UTF-16 code units: a character outside the Basic
Multilingual Plane (an emoji) is two units. :func:`utf16_units` rewrites such characters as
their two surrogates, so that Python's ``len``, indexing and slicing count as JavaScript's do.

>>> len("a😀"), len(utf16_units("a😀"))
(2, 3)
>>> js_collapse_space(" a\\u00a0\\u2003b\\n ")
'a b'
>>> js_split_words("a\\u0085b c")  # U+0085 is not JavaScript white space
['a\\x85b', 'c']
"""

from __future__ import annotations

import re

from lexeval.compat import MASTRA_WHITESPACE

__all__ = [
    "JS_WHITESPACE",
    "MAX_TEXT_CHARS",
    "check_size",
    "js_collapse_space",
    "js_remove_space",
    "js_split_words",
    "js_trim",
    "utf16_units",
]

#: The characters JavaScript's ``\s`` and ``String.prototype.trim`` treat as white space.
JS_WHITESPACE = MASTRA_WHITESPACE
#: The longest text (in characters) these metrics take; longer ones raise ValueError.
MAX_TEXT_CHARS = 1_000_000

_SPACE_RUN = re.compile("[" + re.escape(JS_WHITESPACE) + "]+")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _surrogates(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def utf16_units(text: str) -> str:
    """``text`` with each character beyond U+FFFF written as its two UTF-16 surrogates."""
    if text.isascii():
        return text
    return _ASTRAL.sub(_surrogates, text)


def js_trim(text: str) -> str:
    """``text.trim()``."""
    return text.strip(JS_WHITESPACE)


def js_collapse_space(text: str) -> str:
    """``text.replace(/\\s+/g, " ").trim()``."""
    return _SPACE_RUN.sub(" ", text).strip(" ")


def js_remove_space(text: str) -> str:
    """``text.replace(/\\s+/g, "")``."""
    return _SPACE_RUN.sub("", text)


def js_split_words(text: str) -> list[str]:
    """``text.split(/\\s+/).filter((w) => w.length > 0)``."""
    return [w for w in _SPACE_RUN.split(text) if w]


def check_size(text: str, name: str) -> str:
    """``text`` if it is a ``str`` of at most :data:`MAX_TEXT_CHARS` characters; a TypeError
    or ValueError naming the argument otherwise.

    >>> check_size(None, "output")
    Traceback (most recent call last):
    ...
    TypeError: output must be str, not NoneType
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be str, not {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(
            f"{name} has {len(text):,} characters; these metrics take at most {MAX_TEXT_CHARS:,}"
        )
    return text
