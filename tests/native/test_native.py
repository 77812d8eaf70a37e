"""The compiled fast path (lexeval.native): equal to the pure-Python reference it
replaces (rouge-score's tokens, the overlaps, LCS and rougeLsum's union-LCS), and switched off
by LEXEVAL_PURE_PYTHON=1; its state per interpreter (subinterpreters, threads, clear())."""

from __future__ import annotations

import itertools
import json
import os
import pickle
import subprocess
import sys
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lexeval.compat as compat
import lexeval.metrics.rouge as rouge
from lexeval.metrics.overlap import (
    lcs_indices,
    lcs_length,
    ngram_counts,
    summary_lcs_hit_positions,
    unigram_bigram_overlap,
)
from lexeval.native import MODULES, PURE_PYTHON, build_kind, load
from tests.support.new_process import run_python

native = load("rouge")
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
PAIRS = [
    ("The quick brown fox jumps over the lazy dog", "The quick brown dog jumps on the log."),
    ("Running runners ran; the runner runs.\nA second line", "A runner is running\nand runs"),
    ("one\ntwo three\n\nfour five six", "six five four\nthree two one"),
    ("", "something"),
    ("\n\n", " \n "),
    ("Ça va? Très bien, merci. 123-456 KELVIN", "ca va tres bien merci 123 456 kelvin"),
]


def test_the_build_kind_names_every_module_and_is_said_by_version() -> None:
    """lexeval --version says whether the compiled code runs (pip shows no sign of a build
    that was skipped)."""
    from pathlib import Path

    sources = Path(__file__).resolve().parents[2] / "src" / "lexeval" / "native"
    assert tuple(sorted(p.stem for p in sources.glob("*.c"))) == MODULES
    assert build_kind() == (
        "pure Python: LEXEVAL_PURE_PYTHON is set" if PURE_PYTHON else "compiled"
    )
    env = {**os.environ, "LEXEVAL_PURE_PYTHON": "1", "PYTHONPATH": str(sources.parents[1])}
    proc = subprocess.run(
        [sys.executable, "-m", "lexeval", "--version"], capture_output=True, text=True, env=env
    )
    assert proc.stdout.strip().endswith("(pure Python: LEXEVAL_PURE_PYTHON is set)"), proc


def _reference_tokens(text: str, stemmer: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as m:
        m.setattr(compat, "NATIVE_ROUGE", False)
        return compat.rouge_score_tokens(text, stemmer=stemmer)


needs_native = pytest.mark.skipif(
    native is None, reason="lexeval.native.rouge not built, or LEXEVAL_PURE_PYTHON set"
)

TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("abcdefghijklmnopqrstuvwxyz ABCYZ019.,-'\n\t")),
        st.characters(),  # any code point (the Kelvin sign and others lower-case to ASCII)
    ),
    max_size=60,
)


@needs_native
@settings(max_examples=400, deadline=None)
@given(TEXT, st.booleans())
def test_tokens_equal_the_reference(text: str, stemmer: bool) -> None:
    assert native is not None
    with pytest.MonkeyPatch.context() as m:
        expected = _reference_tokens(text, stemmer, m)
    assert native.tokens(text, stemmer) == expected


@needs_native
def test_tokens_on_edge_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    assert native is not None
    long_word = "generalization" * 40  # longer than the tokenizer's stack buffer
    texts = ["", " ", "\n\t ", "K\u212a\u0130I", "x" * 300, f"{long_word} ok " * 3]
    texts += ["word " * 20_000, "Ünïcödé wörds ΑΒΓ 東京 3.14", "\x00a\x00b"]
    for text in texts:
        for stemmer in (False, True):
            assert native.tokens(text, stemmer) == _reference_tokens(text, stemmer, monkeypatch)
    with pytest.raises(TypeError):
        native.tokens(b"bytes", True)  # type: ignore[arg-type]

    class Odd(str):
        def lower(self) -> str:
            return "changed"

        def __hash__(self) -> int:
            return 0

    assert native.tokens(Odd("Ünï RUNS"), True) == ["n", "run"]  # str's own lower()
    with pytest.raises(TypeError):  # tokens are exact str: no Python code runs while counting
        native.counts([Odd("a")], ["a"], (), (), 1)


@needs_native
def test_a_cleared_table_gives_the_same_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    assert native is not None
    text = "Generously running runners ran; dying flies ATE 1990s' cats, agreed-upon caresses"
    expected = _reference_tokens(text, True, monkeypatch)
    for _ in range(3):
        compat.clear_stem_cache()
        assert native.tokens(text, True) == expected
        assert native.tokens(text, True) == expected


@needs_native
def test_long_tokens_are_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table of stems keeps short tokens only: 300 distinct 5,000-letter tokens leave
    nothing behind (remembered, each kept its 5,000-byte key and its token), and still give
    the reference's tokens."""
    import random
    import tracemalloc

    assert native is not None
    rng = random.Random(7)
    text = " ".join("".join(rng.choices("abcdefghijklmnoprstuy", k=5_000)) for _ in range(300))
    compat.clear_stem_cache()
    for stemmer in (False, True):
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tokens = native.tokens(text, stemmer)
            del tokens
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert kept < 300_000, kept
        assert native.tokens(text, stemmer) == _reference_tokens(text, stemmer, monkeypatch)


@needs_native
def test_clear_releases_the_remembered_tokens() -> None:
    """The tables live in the module's state: 50,000 new words fill them (megabytes kept after
    the call), clear() gives it all back."""
    import tracemalloc

    assert native is not None
    native.clear()
    text = " ".join(f"w{i}x" for i in range(50_000))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        native.tokens(text, True)
        kept = tracemalloc.get_traced_memory()[0] - before
        native.clear()
        left = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept > 1_000_000, kept
    assert left < 50_000, left


TOKENS = st.lists(st.sampled_from(["a", "b", "c", "dd", "e"]), max_size=70)


@needs_native
@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS)
def test_counts_equal_the_reference(ref: list[str], out: list[str]) -> None:
    assert native is not None
    o1, o2, lcs, hits = native.counts(ref, out, [len(ref)], [len(out)], 15)
    assert (o1, o2) == unigram_bigram_overlap(ngram_counts(ref, 1), ngram_counts(ref, 2), out)
    assert lcs == lcs_length(ref, out) == hits


def _split(tokens: list[str], cuts: list[int]) -> list[list[str]]:
    bounds = sorted({min(c, len(tokens)) for c in cuts})
    edges = [0, *bounds, len(tokens)]
    return [tokens[a:b] for a, b in itertools.pairwise(edges)]


@needs_native
@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS, st.lists(st.integers(0, 70), max_size=5), st.lists(st.integers(0, 70)))
def test_union_lcs_hits_equal_rouge_scores_backtrack(
    ref: list[str], out: list[str], ref_cuts: list[int], out_cuts: list[int]
) -> None:
    assert native is not None
    ref_sents, out_sents = _split(ref, ref_cuts), _split(out, out_cuts)
    hits = native.counts(ref, out, list(map(len, ref_sents)), list(map(len, out_sents)), 8)[3]
    expected = len(summary_lcs_hit_positions(ref_sents, out_sents, lcs_indices)) if ref else 0
    assert hits == (expected if out else 0)


@needs_native
def test_long_lcs_across_many_words_of_bits() -> None:
    import random

    assert native is not None
    rng = random.Random(27)
    for size in (63, 64, 65, 130, 700):
        ref = [rng.choice("abcdefgh") for _ in range(size)]
        out = [rng.choice("abcdefgh") for _ in range(size + 3)]
        assert native.counts(ref, out, (), (), 4)[2] == lcs_length(ref, out)


@needs_native
def test_counts_arguments() -> None:
    assert native is not None
    with pytest.raises(TypeError):
        native.counts(["a", 1], ["a"], (), (), 1)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="add up"):
        native.counts(["a", "b"], ["a"], [1], [1], 8)
    with pytest.raises(TypeError, match="lengths"):
        native.counts(["a", "b"], ["a"], [1.0, 1], [1], 8)  # type: ignore[list-item]
    assert native.counts([], [], (), (), 15) == (0, 0, 0, 0)
    assert native.counts(["a"], ["b"], (), (), 0) == (-1, -1, -1, -1)


@needs_native
def test_sentence_lengths_past_the_largest_size_are_refused() -> None:
    """Lengths whose sum wraps around Py_ssize_t to the token count were taken as valid: the
    rougeLsum table was sized from the wrapped product, then written far past its end."""
    assert native is not None
    big = sys.maxsize
    with pytest.raises(ValueError, match="add up"):
        native.counts(["a"], ["a"], [1], [big, big, 3], 8)
    with pytest.raises(ValueError, match="add up"):
        native.counts(["a", "b"], ["a"], [big, big, 4], [1], 8)
    with pytest.raises(OverflowError):
        native.counts(["a"], ["a"], [1], [2**64 + 1], 8)


@needs_native
def test_rouge_lsum_table_past_its_bound_is_left_to_python() -> None:
    """Past 2^26 cells the union-LCS table is not built (-1: the Python code counts). The bound
    is checked by division: the product of two sentence lengths near 2^16 wraps a 32-bit
    size_t to a tiny table, which was then written past its end."""
    assert native is not None
    for longest, hits in ((1000, 1001), (8192, -1)):  # cells (n + 1)^2 under, over 2^26
        tokens = ["a"] * longest + ["b"]
        lengths = [longest, 1]
        assert native.counts(tokens, tokens, lengths, lengths, 8)[3] == hits


@needs_native
def test_union_lcs_hits_over_many_sentences_and_one_long_one() -> None:
    """Many short reference sentences beside a long one: each sentence's hit marks are reset
    over its own length (resetting the longest's made this quadratic)."""
    import random

    assert native is not None
    rng = random.Random(8)
    ref_sents = [[rng.choice("abc")] for _ in range(3000)]
    ref_sents.append([rng.choice("abcd") for _ in range(3000)])
    out_sents = [[rng.choice("abcd") for _ in range(20)] for _ in range(3)]
    ref = [t for s in ref_sents for t in s]
    out = [t for s in out_sents for t in s]
    hits = native.counts(ref, out, list(map(len, ref_sents)), list(map(len, out_sents)), 8)[3]
    assert hits == len(summary_lcs_hit_positions(ref_sents, out_sents, lcs_indices))


def test_stemming_a_long_run_of_y_is_linear() -> None:
    """Porter's m of a word was computed letter by letter, each y looking back over the y's
    before it: quadratic (minutes for a 10^6-letter token, the Python reference 0.3 s). A new
    process, so a regression fails on its timeout rather than hanging the suite."""
    code = (
        "import sys; from lexeval.compat import rouge_score_tokens as t; "
        "from lexeval.porter import PorterStemmer as P; w = 'y' * 1_000_000 + 'al'; "
        "assert t(w + ' ok', stemmer=True) == [P().stem_python(w), 'ok']; print('done')"
    )
    assert run_python(code).stdout.strip() == "done"


_INTERRUPTED = """
import random, signal, sys, time
from lexeval.native import load
counts = load("rouge").counts
class Stop(Exception):
    pass
def stop(signum, frame):
    raise Stop
signal.signal(signal.SIGALRM, stop)
rnd = random.Random(1)
n, sentences, want = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
ref = [rnd.choice("abcdefghij") for _ in range(n)]
out = [rnd.choice("abcdefghij") for _ in range(n)]
lengths = [n // sentences] * sentences
signal.setitimer(signal.ITIMER_REAL, 0.1)
start = time.perf_counter()
try:
    counts(ref, out, lengths, lengths, want)
    print("finished")
except Stop:
    print(f"stopped {time.perf_counter() - start:.3f}")
assert counts(["a", "b", "c"], ["a", "c"], [3], [2], 15) == (2, 0, 2, 2)
"""


@needs_native
@pytest.mark.parametrize(
    ("tokens", "sentences", "want"),
    [(200_000, 1, 4), (200_000, 50, 8)],
    ids=["lcs", "union-lcs"],
)
def test_a_long_call_ends_when_a_signal_handler_raises(
    tokens: int, sentences: int, want: int
) -> None:
    """Ctrl-C reaches a long LCS: the loops look at pending signals about every millisecond of
    work. Here a SIGALRM handler raises 0.1 s into calls that take 2 s (LCS of 200,000 tokens
    each) and 80 s (rougeLsum, 50 sentences of 4,000 tokens each) on an idle 2-core machine;
    the extension works on afterwards. A new process, whose own signal handler it sets."""
    done = run_python(_INTERRUPTED, str(tokens), str(sentences), str(want), timeout=120)
    word, _, seconds = done.stdout.strip().partition(" ")
    assert word == "stopped"
    assert float(seconds) < 1.0


def _results(pairs: list[tuple[Any, str]]) -> str:
    scorer = rouge.RougeScorer(TYPES, compat="rouge-score", use_stemmer=True)
    many = scorer.score_many([r for r, _ in pairs], [o for _, o in pairs])
    return json.dumps([{t: r.to_dict() for t, r in s.items()} for s in many], sort_keys=True)


def test_pure_python_env_var_gives_the_reference_path_and_equal_results() -> None:
    """LEXEVAL_PURE_PYTHON=1, read at import, runs the Python code only (a new process);
    every result equals the compiled path's."""
    pairs: list[tuple[Any, str]] = [*PAIRS, ([r for r, _ in PAIRS[:3]], "the runner runs")]
    # and a metric pickled here (where the path is built), unpickled there
    metric = rouge.RougeMetric("rougeLsum", compat="rouge-score", use_stemmer=True)
    code = (
        "import json, pickle, sys; sys.path.insert(0, sys.argv[1]); "
        "import tests.native.test_native as t; "
        "import lexeval.compat as c, lexeval.porter as p; "
        "m = pickle.loads(bytes.fromhex(sys.argv[3])); "
        "print(json.dumps([c.NATIVE_ROUGE, p.NATIVE_STEM, t._results(json.loads(sys.argv[2])), "
        "m.measure(*json.loads(sys.argv[2])[1]).to_dict()]))"
    )
    env = {**os.environ, "LEXEVAL_PURE_PYTHON": "1"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [sys.executable, "-c", code, root, json.dumps(pairs), pickle.dumps(metric).hex()],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    native_flag, stem_flag, results, measured = json.loads(done.stdout)
    assert (native_flag, stem_flag) == (False, False)
    assert results == _results(pairs)
    assert measured == metric.measure(*pairs[1]).to_dict()


def test_same_results_from_threads() -> None:
    pairs = PAIRS * 30
    expected = _results(pairs)
    found: list[str] = []

    def run() -> None:
        compat.clear_stem_cache()  # another thread's table emptied under it: same results
        found.append(_results(pairs))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert found == [expected] * 4


#: Run in a new process: lexeval.native.rouge loaded from its file in new subinterpreters (the
#: default config, its own GIL from 3.12 on; and from 3.12 on a legacy one, the GIL shared),
#: each scoring in its own thread while two threads of the main interpreter score too, all at
#: once and clearing the tables every round; each compares its results with the main
#: interpreter's, computed first. Then, the subinterpreters' modules freed, the main
#: interpreter's module (its own state) gives them again.
SUBINTERPRETER_ROUGE = r"""
import json, os, sys, threading
try:
    import _interpreters as interpreters  # 3.13
except ImportError:
    import _xxsubinterpreters as interpreters  # 3.11, 3.12
configs = {"default": {}}
if sys.version_info >= (3, 13):
    configs["legacy"] = {"config": "legacy"}
elif sys.version_info >= (3, 12):
    configs["legacy"] = {"isolated": False}
WORK = '''
def work(rouge, rounds):
    texts = ["The quick brown foxes jumped over the lazy dogs", "Ca va? Tr\u00e8s bien. K\u212a",
             "generalizations " * 3 + "y" * 70 + "al " + "x" * 300, "", "1990s' cats agreed"]
    words = ["running", "Caresses", "ponies", "sky", "dying", "generalization", "y" * 90 + "al"]
    pairs = [(["a", "b", "c", "a"], ["a", "c", "b", "a", "d"]), (["x"] * 70, ["x", "y"] * 40)]
    found = []
    for _ in range(rounds):
        for text in texts:
            found.append([rouge.tokens(text, False), rouge.tokens(text, True)])
        found.append([rouge.stem(word) for word in words])
        found.extend(list(rouge.counts(a, b, [len(a)], [len(b)], 15)) for a, b in pairs)
        rouge.clear()
    return found
'''
LOAD = '''
import importlib.util, json, os
spec = importlib.util.spec_from_file_location("lexeval.native.rouge", ORIGIN)
rouge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rouge)
one = rouge.tokens("remembered", True)[0]
same = rouge.tokens("remembered", True)[0] is one  # this module's table of tokens is in use
said = "equal" if work(rouge, ROUNDS) == json.loads(EXPECTED) and same else "different"
os.write(WRITE, (NAME + " " + said + "\\n").encode())
'''
exec(WORK)
import lexeval.native.rouge as rouge
rounds = int(sys.argv[1])
expected = work(rouge, rounds)
read, write = os.pipe()
said = {}
def in_sub(name, interp):
    code = (f"ORIGIN, WRITE, ROUNDS, NAME, EXPECTED = {rouge.__file__!r}, {write}, {rounds}, "
            f"{name!r}, {json.dumps(expected)!r}" + WORK + LOAD)
    interpreters.run_string(interp, code)
def in_main(name):
    said[name] = "equal" if work(rouge, rounds) == expected else "different"
interps = {name: interpreters.create(**args) for name, args in configs.items()}
threads = [threading.Thread(target=in_sub, args=item) for item in interps.items()]
threads += [threading.Thread(target=in_main, args=(f"main {k}",)) for k in range(2)]
try:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
finally:
    for interp in interps.values():
        interpreters.destroy(interp)
os.close(write)
with os.fdopen(read) as lines:
    for line in lines:
        name, _, outcome = line.strip().partition(" ")
        said[name] = outcome
said["main after"] = "equal" if work(rouge, 1) == expected[: len(expected) // rounds] else "x"
print(json.dumps(said, sort_keys=True))
"""


@needs_native
def test_rouge_gives_the_same_results_in_subinterpreters_and_threads_at_once() -> None:
    """lexeval.native.rouge keeps its tables in module state (one per interpreter) and says so
    (Py_mod_multiple_interpreters: a GIL per interpreter supported, 3.12+): it loads in new
    subinterpreters (an own GIL from 3.12 on, and legacy ones) and, scoring there in threads
    while threads of the main interpreter score too, gives the main interpreter's results.
    A new process."""
    said = json.loads(run_python(SUBINTERPRETER_ROUGE, "20", timeout=120).stdout)
    configs = ["default", "legacy"] if sys.version_info >= (3, 12) else ["default"]
    assert said == dict.fromkeys([*configs, "main 0", "main 1", "main after"], "equal")
