"""The compiled fast path of spaCy's affix rules on the commonest chunks
(src/lexeval/native/affixes.c)."""

def split(
    tables: tuple[bytes, str, str, frozenset[str], frozenset[str]], chunk: str, /
) -> list[str] | None: ...
