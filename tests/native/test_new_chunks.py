"""The compiled analysis of chunks not cached yet (lexeval.native.keywords with the tables of
StepProcessor._new_chunk_tables): every chunk and token entry it writes equals what the
pure-Python reference (_analyze_missing, _chunk, _memo_token, Lemmatizer.key) computes, on
random and real text, cold and warm caches, several configurations and languages, and threads;
chunks it does not decide go to the reference."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lexeval.text.processor as processor_module
from lexeval.native import load
from lexeval.text.base import KeywordAnalysis
from lexeval.text.config import PRESETS, NormalizerConfig
from lexeval.text.processor import StepProcessor
from lexeval.text.steps import MAX_CHUNK
from tests.support.racing import analyses_while_clearing

native = load("keywords")
pytestmark = pytest.mark.skipif(
    native is None, reason="lexeval.native.keywords not built, or LEXEVAL_PURE_PYTHON set"
)
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"

#: (configuration, language) pairs where the compiled path applies (the ``rouge`` preset splits
#: words: its new tokens go to Python, its chunks are still split here).
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
    *["data", "Data", "numbers", "Numbers"],
    *["1234,567", "1,234.5", "1,234.", "1,23", ",123", "1,234,567", "12.5.1", "U.S", "call-up"],
    *["x86", "5th", "1990", "10,000", "3.5", "²", "½", "Ⅸ", "the", "The", "was", "were", "not"],
    *["Hunde", "Häuser", "chats", "mangeaient", "corriendo", "собаки", "Собаки", "東京", "タワー"],
    *["Straße", "STRASSE", "ǅemal", "ǈ", "ΣΊΣΥΦΟΣ", "İstanbul", "ﬁne", "café", "Café", "É"],
    *[
        "naïve-approach",
        "über-cool",
        "x²-dogs",
        "Ⅸ-networks",
        "x2-dogs",
        "a_b",
        "_",
        "-",
        ".",
        "...",
        "—",
        "(",
        ")",
        "%",
    ],
]
SEPARATORS = [" ", "  ", "\n", ",", ".", "(", ")", '"', "-", "'", "’", "!", "?", ":", "%"]
WORD = st.one_of(
    st.sampled_from(TOKENS),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Zs", "Zl", "Zp", "Cc"])),
    st.text("abcXYZ-'’.0123é", min_size=1, max_size=8),
)
TEXT = st.lists(st.one_of(WORD, st.sampled_from(SEPARATORS)), max_size=25).map("".join)


def pure(config: NormalizerConfig, language: str) -> StepProcessor:
    """A processor on the pure-Python path (the flag is read when its steps are built)."""
    processor = StepProcessor(config, language)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(processor_module, "NATIVE_KEYWORDS", False)
        processor.steps  # noqa: B018
    assert processor._read is None
    return processor


def check_entries(fast: StepProcessor, slow: StepProcessor) -> None:
    """Every entry the fast processor holds is the reference's for its chunk or token."""
    for chunk, entry in list(fast._cache.items()):
        assert entry == slow._analyze_chunks([chunk])[0], chunk
    for token, entry in list(fast._token_memo.items()):
        assert entry == slow._memo_token(token), token


def test_the_tables_are_in_use() -> None:
    fast = StepProcessor(PRESETS["default"])
    fast.steps  # noqa: B018
    assert fast._read is not None and fast._read_config[6] is not None
    assert fast._read_config[6][5] is not None  # the key rules too


@pytest.mark.parametrize("name", CONFIGS)
def test_plain_chunks_are_analyzed_without_the_python_code(name: str) -> None:
    """Words, words with punctuation at their edges, technical names and other scripts: no
    call of _analyze_missing (but where the configuration's words are split: their tokens go
    to Python with their chunks); the results are the reference's."""
    config, language = CONFIGS[name]
    fast = StepProcessor(config, language)
    fast.steps  # noqa: B018 - loaded: the compiled reading is set up
    calls: list[list[str]] = []
    reference = fast._analyze_missing

    def recorded(missing: list[str]) -> dict[str, Any]:
        calls.append(missing)
        return reference(missing)

    fast._analyze_missing = recorded  # type: ignore[method-assign]
    text = "The dogs (APIs) ran, Neural-networks React.js café Hunde Straße собаки x86 1990."
    slow = pure(config, language)
    assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
    if config.split_words:  # word_pieces of text that is not ASCII reads categories: Python
        assert calls == [["café", "Straße", "собаки"]]
    else:
        assert calls == []
    check_entries(fast, slow)
    # what the compiled split leaves: a number with a suffix (the rules in Python), Han
    # characters (one token each); a special case alone ("There's") is split as the
    # tokenizer's answers when the steps were loaded say, a number with separators and no
    # affix ("5,534") by the rules without affixes
    calls.clear()
    other = "There's 5,534 10.5% 東京"
    assert fast.keyword_analysis(other) == slow.keyword_analysis(other)
    assert {"東京"} <= set(calls[0]) <= set(other.split())
    if language == "en":
        assert "10.5%" in calls[0]
    if fast._read_config[6][6] is not None and "There's" in fast._read_config[6][6]:
        assert "There's" not in calls[0]
    if fast._read_config[6][7] is not None:
        assert "5,534" not in calls[0]


@settings(max_examples=400, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=5), st.sampled_from(list(CONFIGS)))
def test_random_texts_give_the_reference_entries(texts: list[str], name: str) -> None:
    """Any text, caches cold then warm: the results, every chunk's and token's entry, and the
    views that read the entries (analyze, tokens) are the reference's."""
    config, language = CONFIGS[name]
    fast, slow = StepProcessor(config, language), pure(config, language)
    for text in texts + texts[::-1]:
        assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
    check_entries(fast, slow)
    for text in texts:
        assert fast.analyze(text, merge_compounds=False) == slow.analyze(
            text, merge_compounds=False
        )
        assert fast.tokens(text) == slow.tokens(text)
    # tokens first (its chunks through lexeval.native.keywords.entries), cold then warm
    other = StepProcessor(config, language)
    for text in texts + texts[::-1]:
        assert other.tokens(text) == slow.tokens(text)
    check_entries(other, slow)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=8), st.sampled_from(list(CONFIGS)))
def test_random_tokens_give_the_reference_keys(words: list[str], name: str) -> None:
    """Each word a text of its own (most are one token): the memo's entries are
    _memo_token's, hence the keys Lemmatizer.key gives."""
    config, language = CONFIGS[name]
    fast, slow = StepProcessor(config, language), pure(config, language)
    for word in words:
        assert fast.keyword_analysis(word) == slow.keyword_analysis(word)
    check_entries(fast, slow)


def _real_texts() -> list[str]:
    texts: list[str] = []
    for name in ("NQ", "TQ"):
        path = SHARED / "qa_human" / "evouna" / f"{name}.json"
        if path.exists():
            rows = json.loads(path.read_text(encoding="utf-8"))[:300]
            for row in rows:
                texts += [
                    v for k, v in row.items() if k.startswith("answer_") and isinstance(v, str)
                ]
                texts += [row["golden_answer"]] if isinstance(row.get("golden_answer"), str) else []
    summeval = SHARED / "summeval" / "summeval_expert_avg_11refs.jsonl"
    if summeval.exists():
        with open(summeval, encoding="utf-8") as lines:
            for line in list(lines)[:100]:
                row = json.loads(line)
                texts += [row["decoded"], row["references"][0]]
    if not texts:
        pytest.skip("../shared is absent: real texts not run")
    return texts


@pytest.mark.parametrize("name", ["default", "case kept", "porter, long words, not stopwords"])
def test_real_texts_give_the_reference_entries(name: str) -> None:
    config, language = CONFIGS[name]
    texts = _real_texts()
    slow = pure(config, language)
    expected = [slow.keyword_analysis(t) for t in texts]
    fast = StepProcessor(config, language)
    assert [fast.keyword_analysis(t) for t in texts] == expected  # cold
    assert [fast.keyword_analysis(t) for t in reversed(texts)] == expected[::-1]  # warm
    check_entries(fast, slow)


def test_small_caches_and_threads_give_the_reference() -> None:
    """Four threads on unseen texts while a fifth empties the caches, and caches so small
    that the missing chunks overflow them (the reference's path then): the reference's
    results and entries; the bounds hold."""
    texts = _real_texts()[:1500]
    slow = pure(PRESETS["default"], "en")
    expected = [slow.keyword_analysis(t) for t in texts]
    for cache_size in (100_000, 64, 3):
        fast = StepProcessor(PRESETS["default"], cache_size=cache_size)
        found = analyses_while_clearing(fast, texts)
        assert found == expected
        assert len(fast._cache) <= cache_size and len(fast._token_memo) <= cache_size
        assert fast._known is not None and len(fast._known) <= cache_size
        check_entries(fast, slow)


def _config(fast: StepProcessor, **tables: Any) -> tuple[Any, ...]:
    config = fast._read_config
    names = ("memo", "size", "specials", "split_edges", "split_cjk", "keys", "special_tokens")
    names += ("plain_rules",)
    current = dict(zip(names, config[6], strict=True))
    keys = current["keys"]
    if "keys" in tables and isinstance(tables["keys"], dict):
        fields = ("drop_punct", "casefold", "fold", "table", "overrides", "stem")
        fields += ("stem_min_length", "unstemmed", "stops", "aliases", "nothing", "split_words")
        mapping = dict(zip(fields, keys, strict=True))
        mapping.update(tables.pop("keys"))
        keys = tuple(mapping.values())
    current["keys"] = keys
    current.update(tables)
    return (*config[:6], tuple(current.values()))


def test_unexpected_table_values_go_to_the_python_code() -> None:
    """A lemma that is no str (or list of str) and a stem that is no str: the token's chunk
    goes to _analyze_missing; an empty list or str is no lemma; a list's first lemma counts."""
    assert native is not None
    fast = StepProcessor(PRESETS["default"])
    fast.steps  # noqa: B018
    table = {"dogs": 7, "cats": [], "mice": ["mouse", "x"], "owls": "", "Bats": "bat"}
    seen: list[list[str]] = []

    def missing(chunks: list[str]) -> dict[str, Any]:
        seen.append(chunks)
        return {c: ((("?", False),), ("?",), ("?",)) for c in chunks}

    config = _config(fast, memo={}, keys={"table": table, "overrides": {}})
    found = native.analysis("dogs cats mice owls bats Bats", {}, missing, config)
    keys = ["?", "cats", "mouse", "owls", "bats", "bat"]  # "Bats": the table's entry as written
    assert found == (keys, keys)
    assert seen == [["dogs"]]

    def stem(word: str) -> Any:
        return 1 if word == "one" else word + "!"

    seen.clear()
    config = _config(fast, memo={}, keys={"stem": stem, "stem_min_length": 1})
    found = native.analysis("one cat", {}, missing, config)
    assert found == (["?", "cat!"], ["?", "cat!"]) and seen == [["one"]]


def test_the_tables_are_checked() -> None:
    assert native is not None
    fast = StepProcessor(PRESETS["default"])
    fast.steps  # noqa: B018

    def missing(chunks: list[str]) -> dict[str, Any]:
        return {}

    for bad in (
        {"memo": []},
        {"size": "x"},
        {"specials": {"a"}},
        {"split_edges": 3},
        {"keys": (1, 2)},
        {"keys": {"table": []}},
        {"keys": {"stops": {"the"}}},
        {"keys": {"aliases": []}},
    ):
        with pytest.raises(TypeError):
            native.analysis("new words", {}, missing, _config(fast, **bad))
    config = _config(fast)
    with pytest.raises(TypeError):
        native.analysis("new", {}, missing, (*config[:6], (1,)))
    # None: every missing chunk goes to the callback, as before the tables
    found = native.analysis("a", {}, lambda c: {"a": ((), ("a",), ("a",))}, (*config[:6], None))
    assert type(found) is KeywordAnalysis and found == (["a"], ["a"])


def test_a_long_chunk_and_text_larger_than_the_cache_take_the_reference_path() -> None:
    slow = pure(PRESETS["default"], "en")
    for read in ("keyword_analysis", "tokens"):
        fast = StepProcessor(PRESETS["default"], cache_size=4)
        text = "one two three four five six seven " + "y" * (MAX_CHUNK + 1)
        assert getattr(fast, read)(text) == getattr(slow, read)(text)
        small = "one two three four five six seven"
        assert getattr(fast, read)(small) == getattr(slow, read)(small)
        assert len(fast._cache) <= 4


def test_entries_checks_its_arguments() -> None:
    assert native is not None
    fast = StepProcessor(PRESETS["default"])
    fast.steps  # noqa: B018
    config = fast._read_config

    def none(missing: list[str]) -> dict[str, Any]:
        return {}

    assert native.entries(["the", "Dogs"], {}, none, config) == [
        ((("the", True),), ("the",), ()),
        ((("dog", False),), ("dog",), ("dog",)),
    ]
    assert native.entries(["x" * (MAX_CHUNK + 1)], {}, none, config) is None
    assert native.entries([1], {}, none, config) is None  # type: ignore[list-item]
    with pytest.raises(TypeError):
        native.entries(("a",), {}, none, config)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        native.entries(["a"], {}, none, config[:6])
    with pytest.raises(KeyError):  # the callback lost a chunk
        native.entries(["10.5%"], {}, none, config)
    with pytest.raises(TypeError, match="entry"):
        native.entries(["a"], {"a": ("a",)}, none, config)


def check_key_rules(words: list[str], name: str) -> None:
    """The key rules on any token, not only those the tokenizer makes: a split that keeps each
    chunk whole hands every chunk to them as one token; each entry written to the memo is
    _memo_token's (the tokens the rules leave go to the callback)."""
    assert native is not None
    config, language = CONFIGS[name]
    fast, slow = StepProcessor(config, language), pure(config, language)
    fast.steps  # noqa: B018
    if fast._read is None or fast._read_config[6][5] is None:
        return  # no key rules in this configuration (words split)
    memo: dict[str, Any] = {}
    tables = _config(fast, memo=memo, specials=None, split_edges=lambda chunk: [chunk])

    def missing(left: list[str]) -> dict[str, Any]:
        return {c: slow._memo_token(c) for c in left}

    for word in words:
        native.analysis(word, {}, missing, tables)
    assert memo
    for token, entry in memo.items():
        assert entry == slow._memo_token(token), token


@pytest.mark.parametrize("name", CONFIGS)
def test_the_key_rules_of_tricky_tokens_are_the_reference(name: str) -> None:
    check_key_rules(TOKENS, name)


@settings(max_examples=400, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=8), st.sampled_from(list(CONFIGS)))
def test_the_key_rules_of_any_token_are_the_reference(words: list[str], name: str) -> None:
    check_key_rules([*words, "dogs"], name)


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


def test_compound_terms_across_chunks_are_merged_in_c() -> None:
    """A text whose keys hold a compound pattern's first two keys is merged here (no None):
    overlapping patterns keep the longest, then the first; aliases and stopwords as the
    reference's Compounds.merge."""
    assert native is not None
    texts = [
        "Large language models use natural language processing",
        "support vector machine learning; open source code",
        "The state of the art is machinelearning, neural networks and big data science",
        "open source source code open-source e-mail email",
        "language model language model",
    ]
    for name in ("default", "extra compounds", "case kept", "porter, long words, not stopwords"):
        config, language = CONFIGS[name]
        fast, slow = StepProcessor(config, language), pure(config, language)
        for text in texts:
            expected = slow.keyword_analysis(text)
            assert fast.keyword_analysis(text) == expected, (name, text)
            found = native.analysis(text, fast._cache, fast._analyze_missing, fast._read_config)
            assert found == expected and type(found) is KeywordAnalysis


@settings(max_examples=400, deadline=None)
@given(st.lists(COMPOUND_TEXT, min_size=1, max_size=4), st.sampled_from(list(CONFIGS)))
def test_random_compound_texts_give_the_reference(texts: list[str], name: str) -> None:
    config, language = CONFIGS[name]
    fast, slow = StepProcessor(config, language), pure(config, language)
    for text in texts + texts[::-1]:
        assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
        assert fast.tokens(text) == slow.tokens(text)


def test_compound_rules_not_decided_here_go_to_the_reference() -> None:
    """Patterns with several terms (spaCy's matcher decides), an alias that is no str, or no
    compound tables: None, as before."""
    assert native is not None
    fast = StepProcessor(PRESETS["default"])
    fast.steps  # noqa: B018
    config = fast._read_config
    text = "machine learning"
    aliases, labels, lengths = config[7]
    expected = pure(PRESETS["default"], "en").keyword_analysis(text)
    assert expected.keywords == ["machine learning"]
    assert native.analysis(text, {}, fast._analyze_missing, config) == expected
    for compounds in ((aliases, None, lengths), ({"machine": 1}, labels, lengths)):
        found = native.analysis(text, {}, fast._analyze_missing, (*config[:7], compounds))
        assert found is None
    assert native.analysis(text, {}, fast._analyze_missing, (*config[:7], None)) is None
    assert native.analysis(text, {}, fast._analyze_missing, config[:7]) is None
    with pytest.raises(TypeError, match="compounds"):
        native.analysis(text, {}, fast._analyze_missing, (*config[:7], (aliases, labels)))


def _slot(chunk: str, capacity: int) -> int:
    """The first slot of an ASCII chunk in a table of known chunks (keywords.c's FNV-1a)."""
    h = 0xCBF29CE484222325
    for byte in chunk.encode("ascii"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return (h ^ (h >> 32)) % capacity


def test_the_table_of_known_chunks_gives_the_cache_entries() -> None:
    """The chunks of ASCII texts are remembered in the table (bounded, emptied with the
    cache); read from it with the chunk cache emptied, the results are the reference's; a text
    whose chunks collide in the table's slots too."""
    assert native is not None
    slow = pure(PRESETS["default"], "en")
    texts = _real_texts()[:400]
    fast = StepProcessor(PRESETS["default"], cache_size=50)
    for text in texts:
        assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
        assert fast._known is not None and len(fast._known) <= 50
    fast._clear_chunks()
    assert fast._known is not None and len(fast._known) == 0
    fast = StepProcessor(PRESETS["default"])
    for text in texts:
        fast.keyword_analysis(text)
    assert fast._known is not None and len(fast._known) > 0
    fast._cache.clear()  # the table alone
    missed: list[list[str]] = []
    reference = fast._analyze_missing

    def recorded(missing: list[str]) -> dict[str, Any]:
        missed.append(missing)
        return reference(missing)

    fast._analyze_missing = recorded  # type: ignore[method-assign]
    assert [fast.keyword_analysis(t) for t in texts] == [slow.keyword_analysis(t) for t in texts]
    # the table holds ASCII chunks: only the others are analyzed again
    assert all(not chunk.isascii() for chunks in missed for chunk in chunks), missed
    missed.clear()
    fast._cache.clear()
    ascii_texts = [t for t in texts if t.isascii()]
    assert len(ascii_texts) > 300
    assert [fast.keyword_analysis(t) for t in ascii_texts] == [
        slow.keyword_analysis(t) for t in ascii_texts
    ]
    assert missed == []
    fast._analyze_missing = reference  # type: ignore[method-assign]
    fast._cache.clear()
    for text in ("Zoë and Dogs bark", "naïve dogs bark", "東京 tower dogs"):
        assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
    # many chunks of one text (the table grows)
    many = " ".join(f"w{i}x{i % 7}" for i in range(3000))
    assert fast.keyword_analysis(many) == slow.keyword_analysis(many)
    assert fast.keyword_analysis(many) == slow.keyword_analysis(many)
    # chunks that all hash to one slot of 64: 16 probes at most, the others not remembered
    colliding = [w for w in (f"z{i}" for i in range(20_000)) if _slot(w, 64) == 0][:24]
    table = native.KnownChunks(40)
    config = (*fast._read_config[:8], table)
    text = " ".join(colliding)
    for _ in range(2):
        found = native.analysis(text, {}, fast._analyze_missing, config)
        assert found == slow.keyword_analysis(text)
    assert len(table) == 16
    with pytest.raises(TypeError, match="KnownChunks"):
        native.analysis("a", {}, fast._analyze_missing, (*fast._read_config[:8], {}))
    table = native.KnownChunks(10)
    assert len(table) == 0
    config = (*fast._read_config[:8], table)
    cache: dict[str, Any] = {}
    found = native.analysis("Dogs bark. Dogs", cache, fast._analyze_missing, config)
    assert found == slow.keyword_analysis("Dogs bark. Dogs") and len(table) == 2
    # an entry in the table wins over the cache's (the two hold the same entries in use)
    cache["Dogs"] = ((("x", False),), ("x",), ("x",))
    assert native.analysis("Dogs", cache, fast._analyze_missing, config) == (["dog"], ["dog"])
    table.clear()
    assert native.analysis("Dogs", cache, fast._analyze_missing, config) == (["x"], ["x"])
    assert len(table) == 1
    # the ASCII chunks of a text that is not ASCII are read from the table too
    found = native.analysis("café Dogs", {}, fast._analyze_missing, config)
    assert found is not None and found.keys == ["café", "x"]
    # an entry of other objects than strings and bools is not remembered (no cycle can pass
    # through the table, which the garbage collector does not traverse)
    odd = object()
    cache["Cats"] = (((odd, odd),), ("cat",), ("cat",))
    assert native.analysis("Cats", cache, fast._analyze_missing, config) == (["cat"], ["cat"])
    assert len(table) == 1
    assert not gc.is_tracked(table)


def test_the_first_words_filter_follows_the_configuration() -> None:
    """The table's filter of first words (which rules out most keys without a look-up) is
    built for the first set it meets and never changes; another set has none: one table with
    two sets of patterns in turn, and a set that is no frozenset (no filter), give each
    configuration's compound terms."""
    assert native is not None
    fast = StepProcessor(PRESETS["default"])
    fast.steps  # noqa: B018
    config = fast._read_config
    table = native.KnownChunks(100)
    mine = (
        *config[:1],
        frozenset({"dog"}),
        frozenset({("dog", "bark")}),
        *config[3:7],
        ({}, {("dog", "bark"): "dog bark"}, (2,)),
        table,
    )
    theirs = (*config[:8], table)
    as_set = (mine[0], {"dog"}, {("dog", "bark")}, *mine[3:])
    text = "Dogs bark at machine learning"
    for _ in range(2):
        found = native.analysis(text, {}, fast._analyze_missing, mine)
        assert found is not None and found.keywords == ["dog bark", "machine", "learn"]
        found = native.analysis(text, {}, fast._analyze_missing, theirs)
        assert found is not None and found.keywords == ["dog", "bark", "machine learning"]
        found = native.analysis(text, {}, fast._analyze_missing, as_set)
        assert found is not None and found.keywords == ["dog bark", "machine", "learn"]


@pytest.mark.parametrize("name", CONFIGS)
def test_special_cases_are_split_without_spacy(name: str) -> None:
    """Every special case of the tokenizer (contractions, abbreviations, emoticons), alone and
    with punctuation, gives the reference's entries; alone (ASCII), without a call of the
    Python code."""
    config, language = CONFIGS[name]
    fast, slow = StepProcessor(config, language), pure(config, language)
    fast.steps  # noqa: B018
    specials = fast._read_config[6][6]
    assert specials, "the special cases' tokens are computed when the steps are loaded"
    other = StepProcessor(config, language)
    other.steps  # noqa: B018
    assert other._read_config[6][6] is specials  # once per language and CJK setting
    assert all(specials[c] == slow._tokenizer.split_chunks([c])[0] for c in list(specials)[:50])
    calls: list[list[str]] = []
    reference = fast._analyze_missing

    def recorded(missing: list[str]) -> dict[str, Any]:
        calls.append(missing)
        return reference(missing)

    fast._analyze_missing = recorded  # type: ignore[method-assign]
    for chunk in ["don't", "I’m", "We're", "There's", "a.m.", "Inc.", "can't", "gonna"]:
        if chunk in specials:
            calls.clear()
            assert fast.keyword_analysis(chunk) == slow.keyword_analysis(chunk)
            if chunk.isascii():
                assert calls == [], chunk
    texts = [" ".join(list(specials)[i : i + 40]) for i in range(0, len(specials), 40)]
    texts += [f'"{c},' for c in list(specials)[:200]]
    for text in texts:
        assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
    check_entries(fast, slow)


NUMBERS = st.lists(
    st.one_of(
        st.text("0123456789,:.–-/'%x", min_size=1, max_size=12),
        st.sampled_from(["3,389", "8:42", "1632–53", "2:30", "51–31", "1,234.5", "2018,Giuseppe"]),
        st.sampled_from(["http://x.org", "a.b.com:80", "10:30", "0.0", ":1", "8)", "1am", "1-2"]),
    ),
    min_size=1,
    max_size=10,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(NUMBERS, min_size=1, max_size=4), st.sampled_from(list(CONFIGS)))
def test_chunks_without_affixes_give_the_reference(texts: list[str], name: str) -> None:
    """Numbers with separators, URLs, special cases with digits, infixes: the chunks kept
    whole by the rules without affixes, and the others, give the reference's entries."""
    config, language = CONFIGS[name]
    fast, slow = StepProcessor(config, language), pure(config, language)
    for text in texts + texts[::-1]:
        assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
    check_entries(fast, slow)


def test_the_rules_without_affixes_keep_numbers_whole_without_python() -> None:
    fast, slow = StepProcessor(PRESETS["default"]), pure(PRESETS["default"], "en")
    fast.steps  # noqa: B018
    assert fast._read_config[6][7] is not None
    calls: list[list[str]] = []
    reference = fast._analyze_missing

    def recorded(missing: list[str]) -> dict[str, Any]:
        calls.append(missing)
        return reference(missing)

    fast._analyze_missing = recorded  # type: ignore[method-assign]
    text = "3,389 8:42 1632–53 2:30 51–31 1,234.5 2008–09 x86-64"
    assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
    assert calls == []
    check_entries(fast, slow)


def _tracked(value: Any) -> bool:
    """Whether the garbage collector tracks a tuple or any tuple inside it."""
    return isinstance(value, tuple) and (gc.is_tracked(value) or any(map(_tracked, value)))


@pytest.mark.parametrize("name", ["default", "rouge", "case kept", "extra compounds"])
def test_new_entries_are_untracked_and_aliases_kept(name: str) -> None:
    """The entries built here hold strings and bools only: the collector does not track them
    (as its first pass would untrack them); an alias that is another object keeps its entry
    tracked, and the entries equal the reference's."""
    config, language = CONFIGS[name]
    fast = StepProcessor(config, language)
    slow = pure(config, language)
    text = "The Dogs (APIs) ran, blue whale songs x86 1990. 3,389 don't Neural-networks"
    assert fast.keyword_analysis(text) == slow.keyword_analysis(text)
    check_entries(fast, slow)
    assert fast._token_memo and fast._cache
    for entry in [*fast._token_memo.values(), *fast._cache.values()]:
        assert not _tracked(entry), entry
    if fast._aliases:  # an alias that is a tracked object: its tuples stay tracked
        key = next(iter(fast._aliases))
        odd = [key]
        tables = fast._read_config[6]
        keys = (*tables[5][:9], {key: odd}, *tables[5][10:])
        config6 = (*tables[:5], keys, *tables[6:])
        read = (*fast._read_config[:6], config6, *fast._read_config[7:])
        memo = tables[0]
        memo.clear()
        found = native.entries([key], {}, fast._analyze_missing, read)
        assert found is not None and found[0][2] == (odd,) and _tracked(found[0])
