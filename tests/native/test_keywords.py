"""The compiled reading of cached chunks (lexeval.native.keywords): StepProcessor.keyword_analysis
equals its pure-Python reference on every text, configuration, cache state and thread count
(that it is built, in use, and switched off by LEXEVAL_PURE_PYTHON=1: tests/test_build.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lexeval.text.processor as processor_module
from lexeval.native import load
from lexeval.text.base import KeywordAnalysis
from lexeval.text.config import PRESETS, NormalizerConfig
from lexeval.text.processor import StepProcessor
from lexeval.text.steps import MAX_CHUNK, Compounds
from tests.support.new_process import run_python
from tests.support.racing import analyses_while_clearing

native = load("keywords")
needs_native = pytest.mark.skipif(
    native is None, reason="lexeval.native.keywords not built, or LEXEVAL_PURE_PYTHON set"
)
EVOUNA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "qa_human"
EVOUNA /= "evouna/NQ.json"

CONFIGS = {
    "default": PRESETS["default"],
    "tokens": PRESETS["tokens"],
    "rouge": PRESETS["rouge"],
    "no unicode form": NormalizerConfig(unicode_form=None),
    "case kept": NormalizerConfig(casefold=False),
    "punctuation kept": NormalizerConfig(drop_punct=False),
    "extra compounds": NormalizerConfig(extra_compounds=("blue whale", "whale song")),
}
TEXTS = [
    "",
    " \n\t ",
    "The neural networks of machine learning, state of the art!",
    "Machine-learning and MachineLearning; open source vs. open-source code",
    "He was born in 1990 (in the U.S.) -- Paris, France.",
    "a\x00b\x0bc\x1cd\x7fe\tf\rg\x85h i\u00a0j\u3000k",
    "ascii\x00controls\x01split\x7fchunks\x0bas\x1cspaces do",
    "Röntgen ﬁne\u00adtuned zero\u200bwidth 東京タワー café",
    "blue whale song, whale song blue",
    "x" * (MAX_CHUNK + 5) + " long chunk",
]


def reference(config: NormalizerConfig, monkeypatch: pytest.MonkeyPatch) -> StepProcessor:
    """A processor on the pure-Python path (the flag is read when its steps are built)."""
    processor = StepProcessor(config)
    with monkeypatch.context() as m:
        m.setattr(processor_module, "NATIVE_KEYWORDS", False)
        processor.steps  # noqa: B018
    return processor


@pytest.mark.parametrize("name", CONFIGS)
def test_equal_to_the_reference_cold_and_warm(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    config = CONFIGS[name]
    expected = [reference(config, monkeypatch).keyword_analysis(t) for t in TEXTS]
    fast = StepProcessor(config)
    for _ in range(2):  # chunks unseen, then cached
        assert [fast.keyword_analysis(t) for t in TEXTS] == expected
    assert all(isinstance(found, KeywordAnalysis) for found in expected)


PIECES = [
    *["a", "B", "é", " ", "  ", "\n", "\t", "\x00", "\x0b", "\x1c", "\x7f", "\u00a0", "\u00ad"],
    *["\u200b", ".", ",", "-", "'", "/", "(", "1", "ﬁ", "東", "Ⅸ", "the", "data", "science"],
    *["machine", "learning", "open", "source", "neural", "networks", "dogs", "was", "U.S."],
    *["state-of-the-art", "blue", "whale", "song"],
]
TEXT = st.lists(st.one_of(st.sampled_from(PIECES), st.characters()), max_size=30).map("".join)


@needs_native
@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=6), st.sampled_from(list(CONFIGS)))
def test_random_texts_equal_the_reference(texts: list[str], name: str) -> None:
    """Any text, in any order, with chunks cached by earlier texts or not."""
    config = CONFIGS[name]
    with pytest.MonkeyPatch.context() as m:
        slow = reference(config, m)
    fast = StepProcessor(config)
    for text in texts + texts[::-1]:
        assert fast.keyword_analysis(text) == slow.keyword_analysis(text)


@needs_native
def test_str_subclasses_and_other_objects_take_the_reference_path() -> None:
    class Odd(str):
        def split(self, sep: str | None = None, maxsplit: int = -1) -> list[str]:
            return ["odd"]

    processor = StepProcessor(PRESETS["default"])
    assert processor.keyword_analysis(Odd("the dogs")).keywords == ["odd"]
    with pytest.raises(TypeError, match="text must be a str"):
        processor.keyword_analysis(b"bytes")  # type: ignore[arg-type]


@needs_native
def test_the_function_checks_its_arguments() -> None:
    assert native is not None
    config = (str, None, None, True, MAX_CHUNK, KeywordAnalysis)

    def none(missing: list[str]) -> dict[str, object]:
        return {}

    entries = {"a": ((), ("a",), ("a",)), "b": ((), (), ())}
    found = native.analysis("a b a", entries, none, config)
    assert type(found) is KeywordAnalysis and found == (["a"], ["a", "a"])
    with pytest.raises(KeyError):
        native.analysis("a b", {}, none, config)
    with pytest.raises(TypeError, match="dict"):
        native.analysis("a", {}, lambda missing: [], config)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="entry"):
        native.analysis("a", {"a": ("a",)}, none, config)
    with pytest.raises(TypeError):
        native.analysis("a", {}, none, config[:5])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="subclass of it"):
        native.analysis("a", {}, none, (*config[:5], list))  # type: ignore[arg-type]
    # a struct sequence is a tuple subclass whose deallocator reads more than two items
    with pytest.raises(TypeError, match="subclass of it"):
        native.analysis("a", {}, none, (*config[:5], os.stat_result))  # type: ignore[arg-type]
    # words compare as dict.fromkeys compares str: anything else is refused, never compared
    with pytest.raises(TypeError, match="must be str"):
        native.analysis("a", {"a": ((), ("a",), (1,))}, none, config)
    with pytest.raises(ZeroDivisionError):
        native.analysis("a", {}, lambda missing: {1 / 0: 0}, config)


_LENT_ARGUMENTS = """
import functools
from lexeval.native import load
from lexeval.text.base import KeywordAnalysis
analysis = load("keywords").analysis
def missing(chunks):  # drops the partial's arguments, the only references to them
    compiled.__setstate__((analysis, (), None, None))
    return {c: ((), (c,), (c,)) for c in chunks}
first = "".join(["x", "x"])
config = (str, frozenset({first}), frozenset({(first, "y")}), True, 1000, KeywordAnalysis)
cache = {"".join(["a"]): ((), ("a",), ("a",))}
compiled = functools.partial(analysis, "a b c", cache, missing, config)
del config, cache, first
print(compiled())
"""


@pytest.mark.skipif(
    native is None, reason="the keywords kernel is not built, or LEXEVAL_PURE_PYTHON set"
)
def test_the_function_holds_arguments_it_is_lent() -> None:
    """functools.partial lends its arguments without holding them, and the callback for the
    missing chunks (Python code) can drop them: the call then read a freed cache and
    configuration (a crash under PYTHONMALLOC=debug, which fills freed memory). A new
    process, with the debug allocator."""
    assert native is not None
    done = run_python(_LENT_ARGUMENTS, env={"PYTHONMALLOC": "debug"}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "KeywordAnalysis(keywords=['a', 'b', 'c'], keys=['a', 'b', 'c'])"


def _evouna_texts() -> list[str]:
    if not EVOUNA.exists():
        pytest.skip("../shared is absent: real texts not run")
    rows = json.loads(EVOUNA.read_text(encoding="utf-8"))[:200]
    texts = [row["golden_answer"] for row in rows if isinstance(row.get("golden_answer"), str)]
    texts += [row["answer_chatgpt"] for row in rows if isinstance(row.get("answer_chatgpt"), str)]
    return texts


def test_real_texts_equal_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _evouna_texts()
    slow = reference(PRESETS["default"], monkeypatch)
    expected = [slow.keyword_analysis(t) for t in texts]
    fast = StepProcessor(PRESETS["default"])
    assert [fast.keyword_analysis(t) for t in texts] == expected
    assert [fast.keyword_analysis(t) for t in reversed(texts)] == expected[::-1]


def test_same_results_under_threads_with_caches_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four threads on one processor while another empties its caches: the reference's
    results, and a small cache (cleared often) gives them too."""
    texts = _evouna_texts()
    expected = [reference(PRESETS["default"], monkeypatch).keyword_analysis(t) for t in texts]
    for cache_size in (100_000, 50):
        processor = StepProcessor(PRESETS["default"], cache_size=cache_size)
        assert analyses_while_clearing(processor, texts) == expected
        assert len(processor._cache) <= cache_size


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
    if merged != aliased:  # a multi-token term was found: may_span must have said so
        assert compounds.may_span(keys)
