"""The compiled fast path of StepProcessor.keyword_analysis (src/lexeval/native/keywords.c)."""

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=tuple[Any, ...])

#: (memo, size, specials, split_edges, split_cjk, keys, special_tokens, plain_rules): what
#: StepProcessor._new_chunk_tables gives (None: every missing chunk goes to analyze_missing).
#: keys: None or the 12 key rules of a token (drop_punct, casefold, fold, table, overrides,
#: stem, stem_min_length, unstemmed, stops, aliases, nothing, split_words); special_tokens:
#: {special case: its tokens} or None; plain_rules: (flags, token_fullmatch, url_match,
#: infix_search), the rules of a chunk without affixes, or None (keywords.c describes them).
NewChunkTables = tuple[
    dict[str, Any],
    int,
    frozenset[str] | None,
    Callable[[str], Any] | None,
    bool,
    tuple[Any, ...] | None,
    dict[str, list[str]] | None,
    tuple[bytes, Callable[..., Any], Callable[..., Any] | None, Callable[..., Any]] | None,
]

#: (aliases, labels, lengths): Compounds.aliases, Compounds.labels (None: spaCy's matcher
#: decides) and Compounds.lengths, with which the compound terms are merged in C.
CompoundTables = tuple[dict[str, str], dict[tuple[str, ...], str] | None, tuple[int, ...]]

class KnownChunks:
    """A table of known ASCII chunks and their entries, bounded by ``size`` entries."""

    def __init__(self, size: int) -> None: ...
    def clear(self) -> None: ...
    def __len__(self) -> int: ...

def analysis(
    text: object,
    cache: dict[str, Any],
    analyze_missing: Callable[[list[str]], dict[str, Any]],
    config: tuple[
        Callable[[str], str],
        frozenset[str] | None,
        frozenset[tuple[str, str]] | None,
        bool,
        int,
        type[T],
    ]
    | tuple[
        Callable[[str], str],
        frozenset[str] | None,
        frozenset[tuple[str, str]] | None,
        bool,
        int,
        type[T],
        NewChunkTables | None,
    ]
    | tuple[
        Callable[[str], str],
        frozenset[str] | None,
        frozenset[tuple[str, str]] | None,
        bool,
        int,
        type[T],
        NewChunkTables | None,
        CompoundTables | None,
    ]
    | tuple[
        Callable[[str], str],
        frozenset[str] | None,
        frozenset[tuple[str, str]] | None,
        bool,
        int,
        type[T],
        NewChunkTables | None,
        CompoundTables | None,
        KnownChunks | None,
    ],
    /,
) -> T | None: ...
def entries(
    chunks: list[str],
    cache: dict[str, Any],
    analyze_missing: Callable[[list[str]], dict[str, Any]],
    config: tuple[Any, ...],
    /,
) -> list[Any] | None: ...
