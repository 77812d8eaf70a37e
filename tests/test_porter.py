"""lexeval.porter equals nltk's PorterStemmer (default mode) on real and random words: its
Python code (``stem_python``, the reference) and the compiled stemmer (``lexeval.native.rouge``,
which ``stem`` uses for ASCII words when it is built)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.native import load
from lexeval.porter import PorterStemmer

porter = pytest.importorskip("nltk.stem.porter")

NLTK = porter.PorterStemmer().stem
OURS = PorterStemmer().stem_python
NATIVE = load("rouge")
#: the compiled stemmer (ASCII words); the Python one when it is not built
#: (tests/native/test_native.py fails then)
COMPILED = NATIVE.stem if NATIVE is not None else OURS
SHARED = Path(__file__).resolve().parents[1].parent / "shared/data"
SUMMEVAL = SHARED / "summeval/summeval_expert_avg_11refs.jsonl"
WORD_LETTERS = "abcdefghijklmnopqrstuvwxyzy" + "aeiouy" * 3 + "0123456789"


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=WORD_LETTERS, min_size=1, max_size=14))
def test_equal_to_nltk_on_random_words(word: str) -> None:
    assert OURS(word) == NLTK(word)
    assert COMPILED(word) == NLTK(word)
    assert PorterStemmer().stem(word.upper()) == NLTK(word.upper())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=20))
def test_compiled_equal_to_nltk_on_any_ascii(word: str) -> None:
    assert COMPILED(word) == NLTK(word)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=12), st.booleans())
def test_equal_to_nltk_on_any_text(word: str, lower: bool) -> None:
    assert OURS(word, to_lowercase=lower) == NLTK(word, to_lowercase=lower)
    assert PorterStemmer().stem(word, to_lowercase=lower) == NLTK(word, to_lowercase=lower)


def test_equal_to_nltk_on_every_summeval_evouna_and_squad_word() -> None:
    if not SUMMEVAL.exists():
        pytest.skip(f"../shared is absent ({SUMMEVAL} not found)")
    words: set[str] = set()
    with SUMMEVAL.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            for text in [row["decoded"], *row["references"], row["source"]]:
                words.update(re.findall(r"[a-z0-9]+", text.lower()))
    assert len(words) > 5_000
    expected = {w: NLTK(w) for w in words}
    assert [w for w in sorted(words) if OURS(w) != expected[w]] == []
    # the compiled stemmer on SQuAD's and EVOUNA's words too (raw text: every [a-z0-9]+ word)
    for path in [SHARED / "squad/dev-v1.1.json", *sorted(SHARED.glob("qa_human/evouna/*.json"))]:
        words.update(re.findall(r"[a-z0-9]+", path.read_text(encoding="utf-8").lower()))
    assert len(words) > 50_000
    for w in words - expected.keys():
        expected[w] = NLTK(w)
    assert [w for w in sorted(words) if COMPILED(w) != expected[w]] == []


def test_irregular_forms_and_short_words() -> None:
    words = ["skies", "dying", "innings", "news", "proceed", "a", "is", "SKIES", "ies"]
    assert [OURS(w) for w in words] == [NLTK(w) for w in words]
    assert [COMPILED(w) for w in words] == [NLTK(w) for w in words]


def test_equal_to_nltk_on_random_stems_with_every_rule_suffix() -> None:
    """Random stems followed by the suffixes the rules look for (and an inflection after
    them): every step's rules and measure conditions, which random letters rarely reach."""
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
    expected = [NLTK(w) for w in words]
    assert [w for w, e in zip(words, expected, strict=True) if OURS(w) != e] == []
    assert [w for w, e in zip(words, expected, strict=True) if COMPILED(w) != e] == []
