"""The text layer's fast paths against the reference paths: spaCy's affix rules in Python
(:class:`lexeval.text.affixes.AffixRules`) against spaCy's tokenizer, compound terms matched in
Python against spaCy's ``PhraseMatcher``, the processor's cached tokens against its steps run
with spaCy's tokenizer, on random strings of tricky characters and on real text; and keyword
coverage giving the same results under threads with caches cleared midway."""

from __future__ import annotations

import functools
import json
import random
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.metrics import KeywordCoverageMetric
from lexeval.metrics.keyword_modes import LenientCoverage
from lexeval.normalize import Normalizer
from lexeval.text.affixes import AffixRules, head_search, tail_search
from lexeval.text.processor import StepProcessor
from lexeval.text.resources import (
    TECH_TOKEN_RE,
    LanguageResources,
    load_language,
    tech_token_match,
)
from lexeval.text.steps import Compounds, Piece, SpacyTokenizer, has_alnum, is_technical

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
SUMMEVAL = SHARED / "summeval" / "summeval_expert_avg_11refs.jsonl"
EVOUNA = SHARED / "qa_human" / "evouna" / "NQ.json"

#: Characters and pieces that exercise the tokenizer's rules: quotes, apostrophes, dots,
#: hyphens, slashes, brackets, digits, currency, Unicode letters, emoji, abbreviations and
#: special cases ("U.S.", "e.g.", "Mr.", "can't", "'s", ":)", "10am").
TRICKY = [
    *"\"'`’‘“”«».,;:!?-–—/\\()[]{}<>@#$%&*+=_~^|…°",
    *["U.S.", "e.g.", "i.e.", "Mr.", "Dr.", "etc.", "a.m.", "10am", "can't", "don't", "won't"],
    *["'s", "’s", "n't", "'re", "''", "--", "...", ":)", ";-)", "<3", "C++", "C#", ".NET"],
    *["Paris", "dogs", "x", "I", "NASA", "React.js", "TCP/IP", "état", "Straße", "狐狸", "😀"],
    *["1", "99", "3.5", "1,000", "2004", "5th", "10%", "$5", "http://x.org/a", "a@b.co"],
]
_CHUNK = st.lists(st.sampled_from(TRICKY), min_size=1, max_size=6).map("".join)
_ANY = st.text(st.characters(codec="utf-8", exclude_categories=["Zs", "Zl", "Zp", "Cc"]))


def spacy_tokens(res: LanguageResources, chunk: str) -> list[str]:
    with res.lock, res.nlp.memory_zone():
        return [t.text for t in res.nlp.tokenizer(chunk)]


def check_fast_paths(rules: AffixRules, chunk: str, want: list[str] | None) -> bool:
    """Assert that the fast path (:meth:`AffixRules.split_edges`) gives ``want`` (the rules'
    tokens) wherever it decides; whether it decides."""
    edges = rules.split_edges(chunk)
    assert edges is None or edges == want, chunk
    return edges is not None


def check_chunks(chunks: list[str], language: str = "en") -> int:
    """Assert that every chunk the rules split comes out as spaCy splits it, and that the fast
    path (:meth:`AffixRules.split_edges`) gives the rules' tokens wherever it decides; the
    number of chunks the rules split."""
    res = load_language(language)
    rules = res.affixes
    assert rules is not None
    split = 0
    for chunk in chunks:
        want = rules.split_rules(chunk)
        check_fast_paths(rules, chunk, want)
        assert rules.split(chunk) == want, chunk
        if want is not None:
            assert want == spacy_tokens(res, chunk), chunk
            split += 1
    return split


@settings(max_examples=1500, deadline=None)
@given(_CHUNK)
def test_property_affix_rules_equal_spacy_on_tricky_chunks(chunk: str) -> None:
    check_chunks([chunk])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_ANY, st.sampled_from(TRICKY)), min_size=1, max_size=5).map("".join))
def test_property_affix_rules_equal_spacy_on_any_text(text: str) -> None:
    check_chunks(text.split())


@pytest.mark.parametrize("language", ["de", "fr", "es", "ru"])
def test_affix_rules_equal_spacy_in_other_languages(language: str) -> None:
    res = load_language(language)
    assert res.affixes is not None
    assert res.affixes.edges is not None  # the fast path takes part in these languages too
    rng = random.Random(language)
    pieces = [*TRICKY, "z.B.", "l'", "d'", "qu'il", "c'est", "т.е.", "Москва", "1.000"]
    pieces += [*EDGES, "Paris", "Mass", "s", "km", "10"]
    chunks = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(2000)]
    chunks = [c for c in ("".join(c.split()) for c in chunks) if c]
    assert check_chunks(chunks, language) > 1000  # most chunks split without spaCy


#: Edge characters of the fast path (and others beside them): ASCII and Unicode punctuation,
#: runs of dots, clitics, symbols that are conditional affixes ("+", "$", "%", "°").
EDGES = [*"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~“”‘’„«»–—…·¡¿°", "..", "...", "'s", "’s", "'S"]
#: Words for the fast path and words it must leave to the rules: special cases and their cores
#: ("Mr", "e.g", "it", "Mass", "s"), units after digits ("10km", "5K"), "US$", technical terms,
#: words that end in a letter a suffix can end with, non-ASCII letters and digits.
WORDS = [
    *["Paris", "1990", "corner1", "well-known", "I/O", "a@b.co", "x_y", "_x", "C++", "C#"],
    *["Mr", "Dr", "e.g", "U.S", "it", "Mass", "s", "S", "km", "10km", "5K", "US", "C", "A"],
    *["cannot", "gonna", "don't", "ca", "n't", "état", "Москва", "狐狸", "²", "٣", "a", "Z"],
]
_WORD = st.one_of(
    st.sampled_from(WORDS),
    st.text(st.sampled_from("aAsSmkKT019_-./@é’'"), min_size=1, max_size=6),
)
_EDGED = st.tuples(
    st.lists(st.sampled_from(EDGES), max_size=4),
    _WORD,
    st.lists(st.sampled_from(EDGES), max_size=4),
).map(lambda parts: "".join([*parts[0], parts[1], *parts[2]]))


@settings(max_examples=2000, deadline=None)
@given(_EDGED)
def test_property_edge_fast_paths_equal_rules_and_spacy(chunk: str) -> None:
    """A word with punctuation at its edges: the fast paths give the rules' tokens wherever
    they decide, and the rules give spaCy's."""
    check_chunks([chunk])


def test_edge_fast_path_decides_the_common_shapes() -> None:
    rules = load_language("en").affixes
    assert rules is not None
    common = ['"Paris,"', "(1990).", "well-known,", "corner1.", "(BBC)", '"Peter\'s".', "Paris’s"]
    for chunk in common:
        assert rules.split_edges(chunk) == rules.split_rules(chunk) is not None, chunk
    # special cases, a unit after digits, a prefix of letters and "..": the rules decide
    for chunk in ["(it's)", "(Mr.", "(10km", "US$5", "wait..", "x:)", '"s', "(cannot"]:
        assert rules.split_edges(chunk) is None, chunk
    assert rules.split_edges('"Paris') == ['"', "Paris"]  # no suffix ends a word without a digit
    assert rules.split_edges('"Peter’s".') == ['"', "Peter", "’s", '"', "."]


def test_affix_rules_take_part_only_without_special_cases() -> None:
    rules = load_language("en").affixes
    assert rules is not None
    assert rules.split("Paris,") == ["Paris", ","]
    assert rules.split('("well-known")') == ["(", '"', "well-known", '"', ")"]
    for special in ["can't", "(don't", "U.S.", ":)", "x:)", "10am", "e.g.,"]:
        got = rules.split(special)
        assert got is None or got == spacy_tokens(load_language("en"), special)
    assert rules.split("can't.") is None  # spaCy's special case: its tokenizer decides


_SUFFIX_TEXT = st.lists(
    st.sampled_from([*"abcZ.,;:!?)\"'%²°0123456789-…\n", "..", "...", "km", "’s", "'s", "x" * 9]),
    max_size=12,
).map("".join)


@functools.cache
def _edge_searches() -> tuple[Any, Any]:
    """The English prefix and suffix searches of :func:`head_search` and :func:`tail_search`,
    built once (building them parses the patterns; fresh ones are tested below)."""
    tokenizer = load_language("en").nlp.tokenizer
    return head_search(tokenizer.prefix_search), tail_search(tokenizer.suffix_search)


@settings(max_examples=800, deadline=None)
@given(_SUFFIX_TEXT)
def test_property_tail_search_equals_the_suffix_pattern(text: str) -> None:
    search = load_language("en").nlp.tokenizer.suffix_search
    fast, full = _edge_searches()[1](text), search(text)
    assert (fast and fast.span()) == (full and full.span())


@settings(max_examples=1000, deadline=None)
@given(st.one_of(_SUFFIX_TEXT, _CHUNK))
def test_property_head_search_and_token_match_equal_spacy_rules(text: str) -> None:
    tokenizer = load_language("en").nlp.tokenizer
    fast, full = _edge_searches()[0](text), tokenizer.prefix_search(text)
    assert (fast and fast.span()) == (full and full.span())
    fast, full = tech_token_match(text), TECH_TOKEN_RE.fullmatch(text)
    assert (fast and fast.span()) == (full and full.span())


def test_tail_search_keeps_patterns_it_cannot_bound() -> None:
    import re

    for source in [r"a$|b", r"(a|b)$|c", r"x"]:
        search = re.compile(source).search
        assert tail_search(search) is search
    bounded = re.compile(r"a$|[|]$").search
    assert tail_search(bounded) is not bounded  # the fast path, where it can bound the pattern
    assert tail_search(bounded)("xx|").span() == (2, 3)


def test_edge_dispatch_equals_the_whole_pattern_on_random_strings() -> None:
    """Prefix and suffix searches try only the alternatives that can begin or end with the
    string's edge character: the same match as the whole pattern, on strings that end or begin
    with any character of the patterns (and others), in two orders (per-character caches)."""
    import re

    tokenizer = load_language("en").nlp.tokenizer
    rng = random.Random(11)
    pool = [*TRICKY, *"٪。’)]}»”%°²³$€£+-–—…\n", "km", "US$", "'S", "´", "ab", "Z", "7"]
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 4))) for _ in range(1500)]
    texts += ["", "\n", "x\n", "...\n"]
    for order in (texts, texts[::-1]):
        pairs = [
            (head_search(tokenizer.prefix_search), tokenizer.prefix_search),
            (tail_search(tokenizer.suffix_search), tokenizer.suffix_search),
        ]
        for text in order:
            for fast, full in pairs:
                got, want = fast(text), full(text)
                assert (got and got.span()) == (want and want.span()), text
    # classes, negated classes, groups, repeats and inline flags at the edges
    pattern = re.compile(r"[a-c]+$|[^x-z]$|(?:q|r7)$|(?i:k)$|(?<=1)m*$|w{2,}$|\d$")
    fast = tail_search(pattern.search)
    for text in ["abc", "xyz", "K", "k", "1", "1mm", "r7", "ww", "w", "9", "x", ""]:
        got, want = fast(text), pattern.search(text)
        assert (got and got.span()) == (want and want.span()), text


def _real_chunks() -> list[str]:
    if not SUMMEVAL.exists() or not EVOUNA.exists():
        pytest.skip("../shared is absent: real-text parity not run")
    texts: list[str] = []
    with open(SUMMEVAL, encoding="utf-8") as lines:
        for i, line in enumerate(lines):
            if i % 8 == 0:
                row = json.loads(line)
                texts += [row["decoded"], row["source"][:3000], *row["references"][:2]]
    with open(EVOUNA, encoding="utf-8") as fh:
        rows = json.load(fh)
    texts += [v for row in rows[::3] for v in row.values() if isinstance(v, str)]
    return texts


def test_affix_rules_equal_spacy_on_real_text() -> None:
    chunks = list(dict.fromkeys(c for text in _real_chunks() for c in text.split()))
    assert len(chunks) > 10_000
    split = check_chunks(chunks)
    assert split > 0.99 * len(chunks)  # what makes it worth having: few chunks go to spaCy
    rules = load_language("en").affixes
    assert rules is not None
    punctuated = [c for c in chunks if not c.isalpha()]
    fast = sum(rules.split_edges(c) is not None for c in punctuated)
    assert fast > 0.8 * len(punctuated)  # most chunks with punctuation skip the rules' loop


def test_fast_paths_equal_rules_on_every_chunk_of_the_corpora() -> None:
    """Every distinct chunk of EVOUNA NQ and TQ (answers and golds) and of SummEval's summaries:
    the fast paths give the rules' tokens (spaCy's are compared above on a sample)."""
    if not SUMMEVAL.exists() or not EVOUNA.exists():
        pytest.skip("../shared is absent: real-text parity not run")
    texts: list[str] = []
    for name in ("NQ", "TQ"):
        with open(EVOUNA.with_name(f"{name}.json"), encoding="utf-8") as fh:
            texts += [v for row in json.load(fh) for v in row.values() if isinstance(v, str)]
    with open(SUMMEVAL, encoding="utf-8") as lines:
        texts += [json.loads(line)["decoded"] for line in lines]
    chunks = [c for c in dict.fromkeys(c for t in texts for c in t.split()) if not c.isalpha()]
    assert len(chunks) > 40_000
    rules = load_language("en").affixes
    assert rules is not None and rules.edges is not None
    decided = 0
    for chunk in chunks:
        decided += check_fast_paths(rules, chunk, rules.split_rules(chunk))
    assert decided > 0.9 * len(chunks)


def test_letters_and_technical_predicates_equal_their_definitions() -> None:
    def technical(token: str) -> bool:  # the definition before its fast path
        plain = token.replace("'", "").replace("’", "").replace("‘", "")
        if not plain.isalpha():
            return True
        return any(c.isupper() for c in plain[1:]) and not plain.isupper()

    letters = [chr(i) for i in range(0x110000) if chr(i).isalpha()] + ["'", "’", "A", "b"]
    for char in map(chr, range(0x110000)):
        assert has_alnum(char) == char.isalnum()
        assert has_alnum(f"-{char}") == any(c.isalnum() for c in f"-{char}")
    rng = random.Random(7)
    for _ in range(20_000):
        token = "".join(rng.choice(letters) for _ in range(rng.randint(1, 5)))
        assert is_technical(token) == technical(token), token


# ---------------------------------------------------------------- the processor end to end


def reference_tokens(processor: StepProcessor, text: str) -> list[str]:
    """The processor's steps one at a time (as ``explain``), with spaCy's tokenizer for every
    chunk and spaCy's matcher for compound terms: no fast path, no cache."""
    pieces = [Piece(text)]
    for step in processor.steps:
        if isinstance(step, SpacyTokenizer):
            step = SpacyTokenizer(replace(step.resources, affixes=None), step.split_cjk)
        elif isinstance(step, Compounds):
            step = _spacy_compounds(step)
        pieces = step.run(pieces)
    return [p.key for p in pieces]


def _spacy_compounds(compounds: Compounds) -> Compounds:
    spacy_only = object.__new__(Compounds)
    spacy_only.__dict__.update(compounds.__dict__)
    spacy_only.labels = None  # spaCy's PhraseMatcher decides
    return spacy_only


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*TRICKY, " ", " ", "machine learning", "state of the art"])))
def test_property_processor_equals_reference_path(parts: list[str]) -> None:
    text = "".join(parts)
    processor = StepProcessor(Normalizer().config)
    assert processor.tokens(text) == reference_tokens(processor, text)


def test_processor_equals_reference_path_on_real_text() -> None:
    texts = _real_chunks()[::4]
    processor = StepProcessor(Normalizer().config)
    for text in texts:
        assert processor.tokens(text) == reference_tokens(processor, text), text[:80]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["machine", "learning", "neural", "network", "state", "of", "the", "art"]),
        max_size=12,
    )
)
def test_property_compound_spans_equal_spacy_matcher(keys: list[str]) -> None:
    processor = StepProcessor(Normalizer().config)
    compounds = next(s for s in processor.steps if isinstance(s, Compounds))
    assert compounds.labels is not None
    assert compounds.spans(keys) == _spacy_compounds(compounds).spans(keys)


# ---------------------------------------------------------------- threads and cache states


def _pairs() -> list[tuple[list[str], str]]:
    if not EVOUNA.exists():
        pytest.skip("../shared is absent: keyword coverage on real pairs not run")
    with open(EVOUNA, encoding="utf-8") as fh:
        rows = json.load(fh)
    pairs = []
    for row in rows[:150]:
        golds = [g.strip() for g in row["golden_answer"].split("/") if g.strip()]
        for system in ("chatgpt", "newbing"):
            answer = row.get(f"answer_{system}")
            if golds and isinstance(answer, str):
                pairs.append((golds, answer))
    return pairs


def _results(metric: KeywordCoverageMetric, pairs: list[tuple[list[str], str]]) -> list[Any]:
    return [(r.score, r.info) for r in (metric.measure(g, a) for g, a in pairs)]


def _clearing(metric: KeywordCoverageMetric) -> Iterator[Callable[[], None]]:
    """Functions that empty the caches a keyword result goes through (while others run)."""
    processor = metric.normalizer.processor  # type: ignore[union-attr]
    yield processor._clear_chunks
    yield processor._token_memo.clear
    assert isinstance(metric._mode, LenientCoverage)
    yield metric._mode.matcher._outputs.clear
    yield metric._mode.matcher._references.clear


def test_same_results_under_threads_with_caches_cleared_midway() -> None:
    pairs = _pairs()
    expected = _results(KeywordCoverageMetric(normalizer=Normalizer()), pairs)
    metric = KeywordCoverageMetric(normalizer=Normalizer())
    stop = threading.Event()

    def clear() -> None:
        while not stop.is_set():
            for empty in _clearing(metric):
                empty()
            stop.wait(0.001)

    clearer = threading.Thread(target=clear)
    clearer.start()
    try:
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda pair: _results(metric, [pair])[0], pairs))
    finally:
        stop.set()
        clearer.join()
    assert got == expected
    assert _results(metric, pairs) == expected  # and again, caches warm
