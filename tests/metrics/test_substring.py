"""SubstringIndex gives the occurrences str.find gives, on the short path and the indexed one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.metrics import substring
from lexeval.metrics.substring import SubstringIndex

ALPHABET = "abé1 ,\u4e2d"


def occurrences(text: str, key: str) -> list[int]:
    return [i for i in range(len(text)) if text.startswith(key, i)]


@pytest.mark.parametrize("long_text", [substring.LONG_TEXT, 0])
@settings(max_examples=150, deadline=None)
@given(text=st.text(ALPHABET, max_size=300), key=st.text(ALPHABET, min_size=1, max_size=8))
def test_positions_equal_a_scan(long_text: int, text: str, key: str) -> None:
    old = substring.LONG_TEXT, substring.SCANS_BEFORE_INDEX
    substring.LONG_TEXT = long_text  # 0: every text goes through the 4-gram index
    substring.SCANS_BEFORE_INDEX = 0
    try:
        index = SubstringIndex(text)
        assert list(index.positions(key)) == occurrences(text, key)
        assert index.contains(key) == (key in text)
        for i in range(0, max(len(text) - 6, 0), 37):  # keys taken from the text
            piece = text[i : i + 6]
            assert list(index.positions(piece)) == occurrences(text, piece)
    finally:
        substring.LONG_TEXT, substring.SCANS_BEFORE_INDEX = old


def test_long_text() -> None:
    text = " ".join(f"w{i:05d}x" for i in range(10_000))
    assert len(text) >= substring.LONG_TEXT
    index = SubstringIndex(text)
    for i in range(substring.SCANS_BEFORE_INDEX + 3):  # scans first, then the index
        assert index.contains(f"w0{i:03d}9x") and not index.contains(f"w0{i:03d}9y")
        assert list(index.positions(f"{i}x w0")) == occurrences(text, f"{i}x w0")
