"""The compiled fast path of rouge-score compat ROUGE (src/lexeval/native/rouge.c)."""

from collections.abc import Sequence

UNIGRAMS: int
BIGRAMS: int
LCS: int
SUMMARY: int

def stem(word: str, /) -> str: ...
def tokens(text: str, stem: bool, /) -> list[str]: ...
def counts(
    ref: Sequence[str],
    out: Sequence[str],
    ref_lengths: Sequence[int],
    out_lengths: Sequence[int],
    want: int,
    /,
) -> tuple[int, int, int, int]: ...
def clear() -> None: ...
