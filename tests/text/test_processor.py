"""StepProcessor's cached analysis (keyword_analysis, tokens) gives what its steps give run one at a
time without caches (explain), on tricky, random and real text, in every configuration and
language, whatever the cache state, the call order and the threads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.text.base import KeywordAnalysis
from lexeval.text.config import PRESETS, NormalizerConfig
from lexeval.text.processor import StepProcessor
from lexeval.text.steps import MAX_CHUNK, Compounds
from tests.support.racing import analyses_while_clearing

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"

CONFIGS: dict[str, tuple[NormalizerConfig, str]] = {
    "default": (PRESETS["default"], "en"),
    "tokens": (PRESETS["tokens"], "en"),
    "rouge": (PRESETS["rouge"], "en"),
    "case kept": (NormalizerConfig(casefold=False), "en"),
    "punctuation kept": (NormalizerConfig(drop_punct=False), "en"),
    "no unicode form": (NormalizerConfig(unicode_form=None), "en"),
    "porter, long words, not stopwords": (
        NormalizerConfig(stemmer="porter", stem_min_length=4, stem_stopwords=False),
        "en",
    ),
    "no lemmas": (NormalizerConfig(lemmatize=False), "en"),
    "extra compounds": (NormalizerConfig(extra_compounds=("blue whale", "whale song")), "en"),
    "german": (PRESETS["default"], "de"),
    "french (lists of lemmas)": (PRESETS["default"], "fr"),
    "spanish, snowball": (NormalizerConfig(stemmer="snowball"), "es"),
    "russian": (PRESETS["default"], "ru"),
}

#: Tokens that exercise every key rule: cases, acronym plurals, technical names, hyphens,
#: apostrophes, digits, overrides, table entries in lower and upper case, stopwords, aliases,
#: accents, other scripts, titlecase and case-folding that changes length.
TOKENS = [
    *["dogs", "Dogs", "DOGS", "APIs", "APIS", "AIs", "NASA", "React.js", "camelCase", "iPhone"],
    *["neural-networks", "Neural-Networks", "drug-destroying", "a-b", "x--y", "-Gold", "end-"],
    *["state-of-the-art", "machine-learning", "MachineLearning", "opensource", "open-source"],
    *["n't", "n’t", "n‘t", "'s", "’s", "‘s", "O'Brien", "O’Hara", "O‘Neil", "''", "it's"],
    *["data", "Data", "numbers", "Numbers", "don't", "I’m", "We're", "a.m.", "Inc.", "gonna"],
    *["1234,567", "1,234.5", "1,234.", "1,23", ",123", "1,234,567", "12.5.1", "U.S", "call-up"],
    *["x86", "5th", "1990", "10,000", "3.5", "²", "½", "Ⅸ", "the", "The", "was", "were", "not"],
    *["Hunde", "Häuser", "chats", "mangeaient", "corriendo", "собаки", "Собаки", "東京", "タワー"],
    *["Straße", "STRASSE", "ǅemal", "ǈ", "ΣΊΣΥΦΟΣ", "İstanbul", "ﬁne", "café", "Café", "É"],
    *["naïve-approach", "über-cool", "x²-dogs", "Ⅸ-networks", "x2-dogs", "a_b", "_", "-", "."],
    *["...", "—", "(", ")", "%", "3,389", "8:42", "1632–53", "http://x.org", "a.b.com:80"],
    *['"Paris,"', "(1990).", "(Peter's).", "(it's).", "TCP/IP.", "U.S.", "(Mr.", "e.g.,"],
]
SEPARATORS = [" ", "  ", "\n", ",", ".", "(", ")", '"', "-", "'", "’", "!", "?", ":", "%"]
WORD = st.one_of(
    st.sampled_from(TOKENS),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Zs", "Zl", "Zp", "Cc"])),
    st.text("abcXYZ-'’.0123é", min_size=1, max_size=8),
)
TEXT = st.lists(st.one_of(WORD, st.sampled_from(SEPARATORS)), max_size=25).map("".join)
TEXTS = [
    "",
    " \n\t ",
    "The neural networks of machine learning, state of the art!",
    "Machine-learning and MachineLearning; open source vs. open-source code",
    "He was born in 1990 (in the U.S.) -- Paris, France.",
    "a\x00b\x0bc\x1cd\x7fe\tf\rg\x85h i\u00a0j\u3000k",
    "Röntgen ﬁne\u00adtuned zero\u200bwidth 東京タワー café",
    "blue whale song, whale song blue",
    "Large language models use natural language processing; support vector machine learning",
    "x" * (MAX_CHUNK + 5) + " long chunk",
    " ".join(TOKENS),
]


def expected(processor: StepProcessor, text: str) -> KeywordAnalysis:
    """What the steps give run one at a time, without caches: the keywords, and the keys as
    the lemma step leaves them (before compounds and stopwords)."""
    explained = processor.explain(text)
    steps = dict(explained.steps)
    label = [name for name, _ in explained.steps if name in ("lemmatize", "stem")][-1]
    keys = steps[label]
    assert isinstance(keys, tuple)
    return KeywordAnalysis(list(explained.keywords), list(keys))


def check(processor: StepProcessor, texts: list[str]) -> None:
    oracle = StepProcessor(processor.config, processor.language)
    want = [expected(oracle, t) for t in texts]
    for order in (texts, texts[::-1], texts):  # cold, then warm in another order
        found = {t: processor.keyword_analysis(t) for t in order}
        assert [found[t] for t in texts] == want
    for text, analysis in zip(texts, want, strict=True):
        assert processor.keywords(text) == analysis.keywords
        assert processor.tokens(text) == list(oracle.explain(text).tokens)


@pytest.mark.parametrize("name", CONFIGS)
def test_cached_analysis_equals_the_steps(name: str) -> None:
    config, language = CONFIGS[name]
    check(StepProcessor(config, language), TEXTS)
    check(StepProcessor(config, language, cache_size=5), TEXTS)  # caches cleared often


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=5), st.sampled_from(list(CONFIGS)))
def test_random_texts_equal_the_steps(texts: list[str], name: str) -> None:
    config, language = CONFIGS[name]
    check(StepProcessor(config, language), texts)


#: Words of overlapping compound terms, their one-token spellings and stopwords between them.
COMPOUND_WORDS = [
    *["large", "Language", "language", "models", "model", "natural", "processing", "support"],
    *["vector", "machine", "Machines", "learning", "open", "source", "code", "state", "of"],
    *["the", "art", "State-of-the-art", "machinelearning", "open-source", "data", "big"],
    *["science", "structure", "neural", "networks", "e-mail", "email", "is", "a", "x86"],
]
COMPOUND_TEXT = st.lists(
    st.one_of(st.sampled_from(COMPOUND_WORDS), st.sampled_from([",", ".", "(", ")", "-"])),
    max_size=30,
).map(lambda words: " ".join(words))


@settings(max_examples=200, deadline=None)
@given(st.lists(COMPOUND_TEXT, min_size=1, max_size=4), st.sampled_from(list(CONFIGS)))
def test_random_compound_texts_equal_the_steps(texts: list[str], name: str) -> None:
    config, language = CONFIGS[name]
    check(StepProcessor(config, language), texts)


NUMBERS = st.lists(
    st.one_of(
        st.text("0123456789,:.–-/'%x", min_size=1, max_size=12),
        st.sampled_from(["3,389", "8:42", "1632–53", "2:30", "51–31", "1,234.5", "2018,Giuseppe"]),
        st.sampled_from(["http://x.org", "a.b.com:80", "10:30", "0.0", ":1", "8)", "1am", "1-2"]),
    ),
    min_size=1,
    max_size=10,
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(NUMBERS, min_size=1, max_size=4), st.sampled_from(list(CONFIGS)))
def test_numbers_urls_and_infixes_equal_the_steps(texts: list[str], name: str) -> None:
    config, language = CONFIGS[name]
    check(StepProcessor(config, language), texts)


def _real_texts() -> list[str]:
    path = SHARED / "qa_human" / "evouna" / "NQ.json"
    if not path.exists():
        pytest.skip("../shared is absent: real texts not run")
    rows = json.loads(path.read_text(encoding="utf-8"))[:300]
    texts = [row["golden_answer"] for row in rows if isinstance(row.get("golden_answer"), str)]
    texts += [row["answer_chatgpt"] for row in rows if isinstance(row.get("answer_chatgpt"), str)]
    return texts


@pytest.mark.parametrize("name", ["default", "rouge", "porter, long words, not stopwords"])
def test_real_texts_equal_the_steps(name: str) -> None:
    config, language = CONFIGS[name]
    check(StepProcessor(config, language), _real_texts())


def test_same_results_under_threads_with_caches_cleared() -> None:
    """Four threads on one processor while another empties its caches: the same results, and a
    small cache (cleared often) gives them too."""
    texts = _real_texts()
    want = [StepProcessor(PRESETS["default"]).keyword_analysis(t) for t in texts]
    for cache_size in (100_000, 50):
        processor = StepProcessor(PRESETS["default"], cache_size=cache_size)
        assert analyses_while_clearing(processor, texts) == want
        # bounded: each of the four threads may add one entry past a full cache at once (a
        # cache checked once per text grew to 114 of 50 in CI)
        assert len(processor._cache) <= cache_size + 4
        assert len(processor._token_memo) <= cache_size + 4


def _compounds() -> Compounds:
    processor = StepProcessor(NormalizerConfig(extra_compounds=("blue whale", "whale song")))
    compounds = next(step for step in processor.steps if isinstance(step, Compounds))
    assert compounds.aliases_apart
    return compounds


KEYS = st.lists(
    st.sampled_from(
        [
            *["machine", "learning", "neural", "network", "state", "of", "the", "art", "open"],
            *["source", "opensource", "blue", "whale", "song", "data", "science", "x", "the"],
        ]
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(KEYS, st.lists(st.booleans(), min_size=12, max_size=12))
def test_without_a_possible_span_merging_is_aliasing_each_key(
    keys: list[str], stops: list[bool]
) -> None:
    """What the chunk entries rely on: when ``may_span`` says no, ``merge`` only replaces
    each key that is a one-token spelling by its term (never a stopword)."""
    compounds = _compounds()
    pairs = list(zip(keys, stops, strict=False))
    merged = compounds.merge(pairs)
    aliases = compounds.aliases
    aliased = [(aliases[k], False) if k in aliases else (k, s) for k, s in pairs]
    if not compounds.may_span(keys):
        assert merged == aliased
