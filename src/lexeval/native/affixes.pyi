"""The compiled fast path of spaCy's affix rules on the commonest chunks
(src/lexeval/native/affixes.c)."""

from typing import Literal

def split(
    tables: tuple[bytes, str, str, frozenset[str], frozenset[str], int, int, bool, str],
    chunk: str,
    /,
) -> list[str] | Literal[False] | None: ...
