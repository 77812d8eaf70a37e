"""lexeval.porter equals nltk's PorterStemmer (default mode) on real and random words, each test
over every implementation: its Python code (``stem_python``, the reference), the compiled
stemmer (``lexeval.native.rouge``) and ``stem``, which uses the compiled one for ASCII words
when it is built."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.native import load
from lexeval.porter import PorterStemmer

porter = pytest.importorskip("nltk.stem.porter")

NLTK = porter.PorterStemmer().stem
NATIVE = load("rouge")
#: Every implementation, rapidfuzz-style (each test runs over each): the Python code, the
#: compiled stemmer (ASCII words; not built or LEXEVAL_PURE_PYTHON set: skipped, and
#: tests/test_build.py fails when it is not built) and ``stem``, which picks one of them.
IMPLEMENTATIONS = [
    pytest.param(PorterStemmer().stem_python, id="python"),
    pytest.param(
        NATIVE.stem if NATIVE is not None else None,
        id="compiled",
        marks=pytest.mark.skipif(
            NATIVE is None, reason="lexeval.native.rouge not built, or LEXEVAL_PURE_PYTHON set"
        ),
    ),
    pytest.param(PorterStemmer().stem, id="stem"),
]
#: the implementations that take any text and ``to_lowercase`` (the compiled one: ASCII only)
TEXT_IMPLEMENTATIONS = [p for p in IMPLEMENTATIONS if p.id != "compiled"]
SHARED = Path(__file__).resolve().parents[1].parent / "shared/data"
SUMMEVAL = SHARED / "summeval/summeval_expert_avg_11refs.jsonl"
WORD_LETTERS = "abcdefghijklmnopqrstuvwxyzy" + "aeiouy" * 3 + "0123456789"
Stem = Callable[[str], str]


@pytest.mark.parametrize("stem", IMPLEMENTATIONS)
@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=WORD_LETTERS, min_size=1, max_size=14))
def test_equal_to_nltk_on_random_words(stem: Stem, word: str) -> None:
    assert stem(word) == NLTK(word)
    assert stem(word.upper()) == NLTK(word.upper())


@pytest.mark.parametrize("stem", IMPLEMENTATIONS)
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=20))
def test_equal_to_nltk_on_any_ascii(stem: Stem, word: str) -> None:
    assert stem(word) == NLTK(word)


@pytest.mark.parametrize("stem", TEXT_IMPLEMENTATIONS)
@settings(max_examples=500, deadline=None)
@given(st.text(max_size=12), st.booleans())
def test_equal_to_nltk_on_any_text(stem: Callable[..., str], word: str, lower: bool) -> None:
    assert stem(word, to_lowercase=lower) == NLTK(word, to_lowercase=lower)


@functools.cache
def _real_words() -> dict[str, str]:
    """Every [a-z0-9]+ word of SummEval's texts, SQuAD's and EVOUNA's files (raw text), and
    nltk's stem of each."""
    if not SUMMEVAL.exists():
        pytest.skip(f"../shared is absent ({SUMMEVAL} not found)")
    words: set[str] = set()
    with SUMMEVAL.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            for text in [row["decoded"], *row["references"], row["source"]]:
                words.update(re.findall(r"[a-z0-9]+", text.lower()))
    assert len(words) > 5_000
    for path in [SHARED / "squad/dev-v1.1.json", *sorted(SHARED.glob("qa_human/evouna/*.json"))]:
        words.update(re.findall(r"[a-z0-9]+", path.read_text(encoding="utf-8").lower()))
    assert len(words) > 50_000
    return {w: NLTK(w) for w in sorted(words)}


@pytest.mark.parametrize("stem", IMPLEMENTATIONS)
def test_equal_to_nltk_on_every_summeval_evouna_and_squad_word(stem: Stem) -> None:
    expected = _real_words()
    assert [w for w, e in expected.items() if stem(w) != e] == []


@pytest.mark.parametrize("stem", IMPLEMENTATIONS)
def test_irregular_forms_and_short_words(stem: Stem) -> None:
    words = ["skies", "dying", "innings", "news", "proceed", "a", "is", "SKIES", "ies"]
    assert [stem(w) for w in words] == [NLTK(w) for w in words]


@functools.cache
def _rule_suffix_words() -> tuple[list[str], list[str]]:
    """Random stems followed by the suffixes the rules look for (and an inflection after
    them), and nltk's stem of each."""
    import random

    rng = random.Random(27)
    letters = "abcdefghijklmnopqrstuvwxyz" + "aeiouy" * 3 + "lsz*"
    suffixes = ["", "s", "es", "ed", "ing", "ies", "ied", "eed", "ll", "e", "y", "ly", "at"]
    suffixes += ["ational", "tional", "enci", "anci", "izer", "bli", "alli", "entli", "eli"]
    suffixes += ["ousli", "ization", "ation", "ator", "alism", "iveness", "fulness", "ousness"]
    suffixes += ["aliti", "iviti", "biliti", "fulli", "logi", "icate", "ative", "alize"]
    suffixes += ["iciti", "ical", "ful", "ness", "al", "ance", "ence", "er", "ic", "able"]
    suffixes += ["ible", "ant", "ement", "ment", "ent", "sion", "tion", "ou", "ism", "ate"]
    suffixes += ["iti", "ous", "ive", "ize", "bl", "iz", "*d", "alliti", "allli"]
    words = [
        "".join(rng.choice(letters) for _ in range(rng.randint(1, 8)))
        + rng.choice(suffixes)
        + rng.choice(["", "", "s", "ed", "ing", "e"])
        for _ in range(20_000)
    ]
    return words, [NLTK(w) for w in words]


@pytest.mark.parametrize("stem", IMPLEMENTATIONS)
def test_equal_to_nltk_on_random_stems_with_every_rule_suffix(stem: Stem) -> None:
    """Every step's rules and measure conditions, which random letters rarely reach."""
    words, expected = _rule_suffix_words()
    assert [w for w, e in zip(words, expected, strict=True) if stem(w) != e] == []
